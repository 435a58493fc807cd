"""Live MCP servers: list a running server's tools, register them, or attach the server.

:func:`list_mcp_tools` starts a server (a command spoken to over stdio, or a streamable-HTTP
URL) and reads every page of its tools; :func:`mcp_server_registration` compiles them as
:func:`schemarouter.adapters.mcp.mcp_tools_registration` compiles a recorded listing (same
rules for effects and schemas). :func:`attach_mcp_server` (behind ``router.add_mcp_server``)
opens a :class:`~schemarouter.execution.invokers.mcp_session.ManagedMCPSession` the router
owns, lists the tools through it, registers them and binds them to that session, so they run
from ``execute`` / ``call`` (sync) and ``aexecute`` / ``acall`` (async) at once; the session
stays open and reconnects when lost, and ``router.close()`` ends it. The ``mcp`` SDK loads
only here, when a live server is asked.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import shlex
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, Unpack

from schemarouter.adapters._fields import FieldLimits
from schemarouter.adapters.mcp import EffectRules, mcp_tools_registration, read_any, server_label
from schemarouter.checks import check_flag, check_keywords, check_positive_int, check_seconds
from schemarouter.contracts import Effect, Provider, Registration
from schemarouter.errors import (
    DanglingReferenceError,
    DocumentError,
    MissingDependencyError,
    ReferenceCycleError,
    RegistrationError,
    SchemaError,
    UnitError,
    require,
)
from schemarouter.execution.invokers.mcp import DEFAULT_OPEN_TIMEOUT, _cause, is_server_url
from schemarouter.execution.invokers.mcp_listing import DEFAULT_MAX_TOOLS, TooManyTools, every_tool
from schemarouter.execution.invokers.payload import clip

__all__ = [
    "DEFAULT_TIMEOUT",
    "McpServerOptions",
    "attach_mcp_server",
    "list_mcp_tools",
    "mcp_server_registration",
]

logger = logging.getLogger(__name__)

#: Seconds allowed to start a server, initialize and list every page of tools (the one
#: default of every MCP session).
DEFAULT_TIMEOUT = DEFAULT_OPEN_TIMEOUT


class McpServerOptions(TypedDict, total=False):
    """The options of ``router.add_mcp_server`` and ``aadd_mcp_server``, each a keyword and
    each optional (the default in brackets).

    - ``trusted`` (``False``): whether the server's word on effects counts. An untrusted
      server's tools are ``write`` whatever they claim (only ``destructiveHint`` counts, and
      makes them ``destructive``); with ``trusted=True``, ``readOnlyHint`` decides, and a
      tool without it gets ``default_effect``.
    - ``default_effect`` (``None``: ``write``): the effect of a trusted server's tool that
      has no ``readOnlyHint``.
    - ``effect_overrides`` (``None``): tool name -> effect, the caller's own word.
    - ``env`` (``None``): what a stdio server gets besides the MCP SDK's default environment
      (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``); it does not get this
      process's whole environment, so pass what it needs (API keys) here.
    - ``cwd`` (``None``: this process's): the folder a stdio server starts in.
    - ``access_id`` (``"mcp"``): the id of the routes' access path.
    - ``timeout`` (``None``): seconds to open the session and list its tools (default 30)
      and, where given, the longest one attempt of a call may take; an attempt past it
      drops the session (the next one reopens it). A read is tried again up to the
      execution policy's ``max_attempts`` (3), so it may take that many times as long; the
      error then says how many attempts and how long in all.
    - ``max_response_bytes`` (``None``: the execution policy's): the cap of the server's
      replies, enforced while they are read.
    - ``relist_s`` (``None``: ``0`` for a streamable-HTTP server, none for stdio): seconds a
      listing of the server's tools is trusted; a call after that lists them again first and
      registers what changed (a removed tool is refused, unsent). ``0`` lists before every
      call: an HTTP server redeployed between two calls goes unnoticed by its session, and
      the listing costs a round trip per call. A stdio server is listed again when it says
      its tools changed, and after a reconnect, whatever this says.
    - ``bind`` (``True``): bind the tools to the session; ``False`` registers them only (and
      closes the session).
    - ``replace`` (``False``): replace routes already registered (as ``router.register``).
    - ``skip_invalid_tools`` (``False``): a tool whose definition cannot be registered (an
      invalid or remote-``$ref`` schema, one past the size limits, a name listed twice) is
      left out, named in the change's ``warnings`` and the log, and the server's other tools
      register; by default one such tool keeps the whole server out (a server registers
      whole or not at all). For a third party's server whose other tools you want now.
    - ``max_tools`` (``10_000``): the most tools the server may list; its listing stops being
      read past it and nothing is registered. Its schemas may have 25 JSON nodes per tool.
    """

    trusted: bool
    env: Mapping[str, str] | None
    cwd: str | None
    access_id: str
    default_effect: Effect | str | None
    effect_overrides: Mapping[str, Effect | str] | None
    timeout: float | None
    bind: bool
    replace: bool
    max_response_bytes: int | None
    relist_s: float | None
    skip_invalid_tools: bool
    max_tools: int


class Adding:
    """The cancel handle of one ``aadd_mcp_server`` (:data:`ADDING` in its thread's context):
    a cancelled call stops the server it is still opening and registers nothing; its thread
    ran on and registered the server seconds after the caller was told it was cancelled."""

    def __init__(self) -> None:
        self.cancelled = False
        self.session: Any = None

    def cancel(self) -> None:
        self.cancelled = True
        session = self.session
        if session is not None:  # closing cancels an opening (a stdio server is stopped)
            threading.Thread(target=session.close, name="mcp-cancel", daemon=True).start()


#: the :class:`Adding` of the ``aadd_mcp_server`` a thread runs for, if any
ADDING: contextvars.ContextVar[Adding | None] = contextvars.ContextVar(
    "schemarouter_adding_mcp_server", default=None
)


def check_server_options(options: Mapping[str, object], method: Callable[..., object]) -> None:
    """Refuse a keyword that is none of :class:`McpServerOptions`, as ``method`` would have
    had it declared them one by one."""
    check_keywords(options, McpServerOptions.__optional_keys__, method)


def _import_mcp() -> Any:
    return require("mcp", extra="mcp", purpose="listing the tools of a live MCP server")


async def list_mcp_tools(
    server: Sequence[str] | str,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_tools: int = DEFAULT_MAX_TOOLS,
) -> list[Any]:
    """Every tool a live server lists (all pages, at most ``max_tools``), as the SDK's
    objects.

    ``server`` is an http(s) URL (streamable HTTP) or a command (a list, or a string split
    like a shell would) started as a subprocess and spoken to over stdio; ``env`` adds
    variables to the SDK's default environment for it.
    """
    mcp = _import_mcp()
    import anyio

    label = server_label(server)
    is_url = is_server_url(server)
    command = [] if is_url else (shlex.split(server) if isinstance(server, str) else list(server))
    if not is_url and not command:
        raise RegistrationError("empty MCP server command", where="<mcp server>")
    tools: list[Any] = []
    try:
        with anyio.fail_after(timeout):
            if hasattr(mcp, "Client"):  # SDK 2.x: one client for every transport
                from mcp.client.stdio import StdioServerParameters

                target: Any = server
                if not is_url:
                    target = StdioServerParameters(
                        command=command[0], args=command[1:], env=dict(env or {}) or None, cwd=cwd
                    )
                async with mcp.Client(target) as client:
                    tools = await every_tool(client, max_tools=max_tools, label=label)
            else:  # SDK 1.x
                tools = await _list_v1(mcp, server if is_url else command, env, cwd, max_tools)
    except TimeoutError:
        raise RegistrationError(
            f"the MCP server did not list its tools within {timeout:g} s",
            where=label,
            hint="Check that the command starts an MCP server, or raise timeout",
        ) from None
    except MissingDependencyError:
        raise
    except Exception as exc:  # the SDK and the transports raise many kinds
        refused = _cause(exc)  # out of the task groups' exception groups
        if isinstance(refused, TooManyTools):
            what = f"the MCP server {refused.what}"
            raise RegistrationError(what, where=label, hint=refused.hint) from None
        raise RegistrationError(
            f"cannot list the MCP server's tools: {type(exc).__name__}: {clip(str(exc))}",
            where=label,
            hint="Check the command or URL, and run the server by hand to see its errors",
        ) from None
    return tools


def _registration(
    tools: list[Any],
    label: str,
    *,
    provider: str | Provider,
    trusted: bool,
    access_id: str,
    **options: Any,
) -> Registration:
    """A live server's ``tools`` compiled: the server and the source are named by ``label``
    (its URL or command line); ``options`` go to :func:`mcp_tools_registration`."""
    return mcp_tools_registration(
        tools,
        provider=provider,
        server=label,
        trusted=trusted,
        access_id=access_id,
        source=f"mcp:{label}",
        **options,
    )


async def _list_v1(
    mcp: Any, target: Any, env: Mapping[str, str] | None, cwd: str | None, max_tools: int
) -> list[Any]:  # pragma: no cover - exercised only with the 1.x SDK installed
    from contextlib import AsyncExitStack

    async with AsyncExitStack() as stack:
        if isinstance(target, str):
            from mcp.client.streamable_http import (  # type: ignore[attr-defined]
                streamablehttp_client,
            )

            read, write, _ = await stack.enter_async_context(streamablehttp_client(target))
        else:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=target[0], args=target[1:], env=dict(env) if env else None, cwd=cwd
            )
            read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(mcp.ClientSession(read, write))
        await session.initialize()
        return await every_tool(session, max_tools=max_tools)


async def mcp_server_registration(
    server: Sequence[str] | str,
    *,
    provider: str | Provider,
    trusted: bool = False,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    access_id: str = "mcp",
    timeout: float = DEFAULT_TIMEOUT,
    limits: FieldLimits | None = None,
) -> Registration:
    """List a live server's tools (stdio command or streamable HTTP URL) and compile them."""
    tools = await list_mcp_tools(server, env=env, cwd=cwd, timeout=timeout)
    return _registration(
        tools,
        server_label(server),
        provider=provider,
        trusted=trusted,
        access_id=access_id,
        limits=limits,
    )


def attach_mcp_server(
    router: Any,
    server: Sequence[str] | str,
    *,
    provider: str | Provider,
    **options: Unpack[McpServerOptions],
) -> Any:
    """Open a session to a live server that ``router`` owns, register its tools and bind
    them to that session (``bind=False``: register only, and close it). Returns the
    :class:`~schemarouter.registry.registry.RegistryChange`. The options are
    :class:`McpServerOptions`, as ``router.add_mcp_server`` takes them.

    ``timeout`` bounds opening and listing (default 30 s) and, where given, each attempt of
    a call too (the policy's timeout is kept where shorter; a read is tried up to the
    policy's ``max_attempts``, a write once). Every message is read within twice
    ``max_response_bytes`` (default: the policy's response cap; a tool's output travels
    twice in one) and the output is held to the cap itself. When the session is reopened
    after it was lost, after the server sent ``notifications/tools/list_changed`` and, for a
    streamable-HTTP server (which may be redeployed between two calls without the session
    noticing), before every call, the server's tools are listed again and what changed is
    registered anew: a call of a changed tool is refused once (call it again: the gate
    checks its new definition, its new effect included), a removed tool's is refused; an
    ``effect_overrides`` entry for a tool no longer listed is left aside, with a warning.
    Where the new listing cannot be registered, its changed tools stay refused (never run
    under their old registration) until a later listing registers.
    ``relist_s`` trusts a listing that many seconds instead."""
    check_server_options(options, attach_mcp_server)
    trusted = options.get("trusted", False)
    env = options.get("env")
    cwd = options.get("cwd")
    access_id = options.get("access_id", "mcp")
    timeout = options.get("timeout")
    max_response_bytes = options.get("max_response_bytes")
    default_effect = options.get("default_effect")
    effect_overrides = options.get("effect_overrides")
    replace = options.get("replace", False)
    bind = options.get("bind", True)
    relist_s = options.get("relist_s")
    max_tools = check_positive_int(
        options.get("max_tools", DEFAULT_MAX_TOOLS), method="add_mcp_server", name="max_tools"
    )
    skip_invalid = check_flag(
        options.get("skip_invalid_tools", False), method="add_mcp_server", name="skip_invalid_tools"
    )
    if relist_s is not None:
        relist_s = check_seconds(relist_s, method="add_mcp_server", name="relist_s")
    elif is_server_url(server):
        # a streamable-HTTP server restarted between two calls goes unnoticed by its session
        # (stateless requests carry on against the new process): list before every call
        relist_s = 0.0
    _import_mcp()
    from schemarouter.execution.bindings import bind_if_current
    from schemarouter.execution.invokers.mcp_session import ManagedMCPSession
    from schemarouter.execution.policy import DEFAULT_MAX_RESPONSE_BYTES

    label = server_label(server)
    if not (server.strip() if isinstance(server, str) else list(server)):
        raise RegistrationError("empty MCP server command", where="<mcp server>")
    EffectRules(  # refuse bad effect arguments before starting anything
        trusted=trusted, default=default_effect, overrides=effect_overrides, source=label
    )

    # endpoint id -> tool name, of every listing of this server: an id stays with its tool
    # when the server is listed again (a tool removed included: its id is never another's)
    held: dict[str, str] = {}
    # (provider id, access id) of every route this server registered: a listing whose
    # every tool is left out registers no route that would say where to prune
    scopes: set[tuple[str, str]] = set()

    def compiled(tools: list[Any], overrides: Mapping[str, Effect | str] | None) -> Registration:
        return _registration(
            tools,
            label,
            provider=provider,
            trusted=trusted,
            access_id=access_id,
            default_effect=default_effect,
            effect_overrides=overrides,
            held_ids=dict(held),
            max_tools=max_tools,
        )

    def registration_of(
        tools: list[Any], overrides: Mapping[str, Effect | str] | None = effect_overrides
    ) -> Registration:
        try:
            registration = compiled(tools, overrides)
        except _LISTING_FAULTS:
            if not skip_invalid:
                raise
            registration = _without_invalid_tools(tools, overrides, compiled, label)
        for route in registration.routes:
            held.setdefault(route.endpoint.id, route.endpoint.operation.tool or "")
            scopes.add((route.provider.id, route.access.id))
        return registration

    def reregister(tools: list[Any]) -> None:
        """A reopened session listed changed tools: register them, bind them again. An
        override of a tool the server no longer lists is left aside (it applies again if
        the tool comes back): a typo is refused when the server is added, but a tool the
        server dropped must not keep its new listing from being registered."""
        listed = {str(read_any(tool, ("name",)) or "").strip() for tool in tools}
        overrides = dict(effect_overrides or {})
        gone = sorted(set(overrides) - listed)
        if gone:
            logger.warning(
                "effect_overrides name tools %s no longer lists: %s (left aside while it "
                "does not list them)",
                label,
                ", ".join(gone),
            )
        kept = {name: effect for name, effect in overrides.items() if name in listed}
        fresh = registration_of(tools, kept or None)
        # bound from the moment the batch publishes them, not once it has bound them
        with router._binding_ahead(fresh.routes, lambda _: session), router.registry.batch():
            router.register(fresh, replace=True)
            # replace prunes only the scopes of the routes it registers: where none is left
            # (skip_invalid_tools left out every tool), the old ones would stay and run under
            # definitions the server no longer lists
            listed = {route.route_id for route in fresh.routes}
            stale = [
                route.route_id
                for provider_id in sorted({p for p, _ in scopes})
                for route in router.snapshot().routes_of(provider_id)
                if (provider_id, route.access.id) in scopes and route.route_id not in listed
            ]
            if stale:
                router._settle(router.registry.remove(route_ids=stale))
            bind_if_current(router, fresh.routes, lambda _: session)

    cap = max_response_bytes or DEFAULT_MAX_RESPONSE_BYTES
    session = ManagedMCPSession(
        server,
        env=env,
        cwd=cwd,
        timeout=timeout or DEFAULT_TIMEOUT,
        call_timeout=timeout,
        max_message_bytes=2 * cap + 64 * 1024,
        on_reconnect=reregister if bind else None,
        listing_ttl=relist_s,
        # a stdio server's stderr lines say whose they are (trial P: several in one log)
        stderr_label=f"upstream {provider.id if isinstance(provider, Provider) else provider}",
        max_tools=max_tools,
    )
    session.max_output_bytes = max_response_bytes  # the policy's cap where None
    adding = ADDING.get()
    if adding is not None:
        adding.session = session
        if adding.cancelled:
            session.close()
    # router.close() meanwhile (another thread: a gateway closing) cancels the opening
    opening = getattr(router, "opening_session", None)
    with opening(session) if opening is not None else contextlib.nullcontext():
        return _open_and_register(router, session, registration_of, replace=replace, bind=bind)


#: What a tool listing itself can get wrong (never the caller's options, which say so
#: themselves: an ``effect_overrides`` typo, a ``replace`` needed).
_LISTING_FAULTS = (
    DocumentError,
    SchemaError,
    UnitError,
    DanglingReferenceError,
    ReferenceCycleError,
)


def _without_invalid_tools(
    tools: list[Any],
    overrides: Mapping[str, Effect | str] | None,
    compiled: Callable[[list[Any], Mapping[str, Effect | str] | None], Registration],
    label: str,
) -> Registration:
    """``skip_invalid_tools``: the listing less each tool that cannot be registered alone
    and each name listed twice, registered with a warning for each tool left out (said in the
    log too); what still fails is raised as without the option."""

    def name(tool: Any) -> str:
        return str(read_any(tool, ("name",)) or "").strip()

    def own(tool_names: set[str]) -> dict[str, Effect | str] | None:
        return {k: v for k, v in (overrides or {}).items() if k in tool_names} or None

    kept: list[Any] = []
    left: list[str] = []
    for index, tool in enumerate(tools):
        try:
            compiled([tool], own({name(tool)}))
        except _LISTING_FAULTS as exc:
            left.append(f"tools[{index}] {name(tool)[:80]!r}: {exc.what}")
        else:
            kept.append(tool)
    # a name listed twice is left out whatever its copies are: registering the one copy that
    # validates would guess which definition the server runs under it
    counts = Counter(name(tool) for tool in tools)
    left += [f"{n[:80]!r}: listed {c} times" for n, c in counts.items() if c > 1]
    kept = [tool for tool in kept if counts[name(tool)] == 1]
    registration = compiled(kept, own({name(tool) for tool in kept}))
    notes = tuple(f"{label}: tool left out (skip_invalid_tools): {why}" for why in left)
    for note in notes:
        logger.warning("%s", note)
    return registration.model_copy(update={"warnings": (*registration.warnings, *notes)})


def _listing_hint(label: str, hint: str | None) -> str:
    """A fault in a server's listing, said to whoever adds the server (an operator, who
    cannot edit a third party's tools): whose it is, what its maintainers would change, and
    that nothing of the server was registered (trial G: "Bundle the document first" and "Fix
    the schema", spoken to an OpenAPI author)."""
    fix = f" (for them: {hint[0].lower()}{hint[1:]})" if hint else ""
    return (
        f"The MCP server {label} lists this definition itself, so only its maintainers can "
        f"change it{fix}. Nothing of the server was registered (a server registers whole or "
        "not at all): add it again once its listing is fixed, or with skip_invalid_tools=True "
        "to register its other tools"
    )


def _open_and_register(
    router: Any,
    session: Any,
    registration_of: Callable[[list[Any]], Registration],
    *,
    replace: bool,
    bind: bool,
) -> Any:
    """The second half of :func:`attach_mcp_server`: open ``session``, list its tools,
    register them and bind them to it (or close it, where ``bind`` is false)."""
    from schemarouter.execution.bindings import bind_if_current
    from schemarouter.execution.invokers.mcp import ServerExited
    from schemarouter.execution.invokers.mcp_session import SessionClosedError

    label = server_label(session.server)
    try:
        tools = session.open().list_tools()
    except BaseException as exc:  # the SDK and the transports raise many kinds
        session.close()  # a server that never answered is stopped here, not left running
        if isinstance(exc, MissingDependencyError) or not isinstance(exc, Exception):
            raise
        if isinstance(exc, SessionClosedError):  # router.close() while it connected
            raise RegistrationError(
                "the MCP server was still connecting when the router was closed; "
                "connecting was cancelled (a server it started was stopped)",
                where=label,
                hint="Add it again (router.add_mcp_server) to connect it",
            ) from None
        if isinstance(exc, TooManyTools):
            what = f"the MCP server {exc.what}"
            raise RegistrationError(what, where=label, hint=exc.hint) from None
        if isinstance(exc, TimeoutError):
            kind = f"did not list its tools within {session.timeout:g} s (it was stopped)"
        elif isinstance(exc, ServerExited):  # its own error, on stderr, says why
            kind = f"{exc.what} before it listed its tools"
        else:
            kind = f"cannot list its tools: {type(exc).__name__}: {clip(str(exc))}"
        raise RegistrationError(
            f"the MCP server {kind}",
            where=label,
            hint="Check the command or URL, and run the server by hand to see its errors",
        ) from None
    # the routes are bound (for every thread) from the moment the registry publishes them,
    # not once the index has embedded them and this call has bound them: a tool registered
    # again (replace=True) was refused as "not bound" meanwhile (trial Q)
    invoker_of: Callable[[Any], Any] = (lambda _: session) if bind else (lambda _: None)
    try:
        registration = registration_of(tools)
        adding = ADDING.get()
        if adding is not None and adding.cancelled:  # aadd_mcp_server cancelled meanwhile
            raise RegistrationError(
                "adding the MCP server was cancelled before its tools were registered",
                where=label,
            )
        with router._binding_ahead(registration.routes, invoker_of):
            change = router.register(registration, replace=replace)
            if bind:
                bind_if_current(router, registration.routes, invoker_of)
    except _LISTING_FAULTS as exc:  # the server's own definitions: its maintainers' to fix
        session.close()
        raise exc.hinting(_listing_hint(label, exc.hint)) from None
    except BaseException:
        session.close()
        raise
    if not bind:
        session.close()
        return change
    router.own_session(session)  # closed at once where another writer replaced every route
    return change
