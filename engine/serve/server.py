"""``schemarouter serve``: the gateway as an MCP server (stdio or streamable HTTP).

Built on the MCP SDK's ``MCPServer`` (the ``serve`` extra). It exposes three tools, the tool
search pattern agents and coding assistants already use:

- ``search_tools(query, k)``: the ``k`` best tools for a request, as MCP tool definitions
  (name, description with provider, returns and units, pruned input schema, annotations);
- ``describe_tool(name)``: one tool's definition, what it returns (fields, types, units,
  meaning), its effect and whether this gateway lets it run;
- ``call_tool(name, arguments)``: runs the tool through ``router.acall`` (gate, policy,
  health, output validation); the result's ``structuredContent`` holds the validated output
  and the typed fields, its text the same as JSON; a refusal or failure is an ``isError``
  result that says why, so the model can correct itself.
"""

# no ``from __future__ import annotations``: the SDK reads the tools' annotations at
# registration, and CallToolResult is imported inside build_server (the SDK loads only there)
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from schemarouter.errors import require
from schemarouter.integrations.search import call_payload
from schemarouter.serve.gateway import Gateway, error_text
from schemarouter.serve.security import is_loopback
from schemarouter.serve.stdio_drain import STDOUT_TIMEOUT

if TYPE_CHECKING:
    from schemarouter.serve.stdio_drain import Drain

__all__ = ["INSTRUCTIONS", "build_server", "http_app", "run_server"]

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "This server finds and runs registered tools (APIs, MCP tools, functions). Call "
    "search_tools with what you need in plain words, then call_tool with a tool name it "
    "returned and arguments that follow its inputSchema; describe_tool tells what a tool "
    "returns and whether it may run here."
)


def _sdk() -> Any:
    sdk = require("mcp.server.mcpserver", extra="serve", purpose="serving tool search over MCP")
    return sdk.MCPServer


def build_server(gateway: Gateway) -> Any:
    """An ``MCPServer`` answering ``search_tools`` / ``describe_tool`` / ``call_tool``."""
    server_cls = _sdk()
    from mcp.types import CallToolResult, TextContent, ToolAnnotations

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            await gateway.aclose()

    server = server_cls(
        gateway.config.name,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
    )
    k_default = gateway.config.search.k
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def error(exc: BaseException, view: Gateway) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text=error_text(exc, view.router.snapshot()))],
            is_error=True,
        )

    def answered(answer: dict[str, Any]) -> CallToolResult:
        """``answer`` as the tool's result: compact JSON text and the same structured."""
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=answer
        )

    async def search_tools(query: str, k: int = k_default) -> CallToolResult:
        """Find the tools that can serve a request: describe the data or action you need in
        plain words. Returns the best tools (name, description, inputSchema), best first."""
        import asyncio

        view = gateway.pinned()  # one generation for the whole request (SIGHUP reloads)
        try:
            answer = await asyncio.to_thread(view.search, query, k)
        except Exception as exc:
            return error(exc, view)
        return answered(answer)

    def describe_tool(name: str) -> CallToolResult:
        """A tool's full description: its input schema, what it returns (fields, types,
        units), its effect and whether it may run here."""
        view = gateway.pinned()
        try:
            answer = view.describe(name)
        except Exception as exc:
            return error(exc, view)
        return answered(answer)

    async def call_tool(name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        """Run a tool that search_tools returned, with arguments that follow its
        inputSchema. Returns the validated output, with units where the tool declares them."""
        view = gateway.pinned()
        try:
            result = await view.acall(name, arguments or {})
        except Exception as exc:
            return error(exc, view)
        payload = call_payload(result, snapshot=view.router.snapshot())
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=json.loads(text),
            is_error=not result.ok,
        )

    server.add_tool(search_tools, title="Search tools", annotations=read_only)
    server.add_tool(describe_tool, title="Describe a tool", annotations=read_only)
    server.add_tool(call_tool, title="Call a tool")
    return server


def http_app(
    gateway: Gateway,
    *,
    host: str = "127.0.0.1",
    path: str = "/mcp",
    token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    insecure: bool = False,
    admin_token: str | None = None,
) -> Any:
    """The streamable-HTTP ASGI app for ``gateway``: the SDK's app with its Host/Origin
    checks on for the loopback names, ``host`` and ``allowed_hosts``, behind a bearer-token
    check where ``token`` is given (see :mod:`schemarouter.serve.security`), with the health
    probes ``GET /healthz`` and ``/readyz`` in front (:mod:`schemarouter.serve.probes`) and,
    where ``admin_token`` is given, ``POST /admin/reload`` (:mod:`schemarouter.serve.admin`).
    Refuses (an ``ArgumentError``) a non-loopback ``host`` without a token unless
    ``insecure``, and a ``path`` that is a probe's."""
    from schemarouter.serve.probes import Probes, check_path
    from schemarouter.serve.security import BearerAuth, check_bind, transport_security

    check_bind(host, token=token, insecure=insecure, allowed_hosts=allowed_hosts)
    check_path(path)
    server = build_server(gateway)
    security = transport_security(host, allowed_hosts)
    app = server.streamable_http_app(
        streamable_http_path=path, transport_security=security, host=host
    )
    if token is None:
        if not is_loopback(host):
            logger.warning("serving %s without a bearer token (--insecure)", host)
    else:
        app = BearerAuth(app, token)
    if admin_token is not None:  # its own token: the clients' never reaches it
        from schemarouter.serve.admin import AdminReload

        app = AdminReload(app, gateway, admin_token, security)
    return Probes(app, gateway)  # counts only: answered before the token and Host checks


def run_server(
    gateway: Gateway,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    insecure: bool = False,
    admin_token: str | None = None,
    stdout_timeout: float | None = STDOUT_TIMEOUT,
) -> None:
    """Serve ``gateway`` until interrupted (stdio, or streamable HTTP on ``host:port``; see
    :func:`http_app` for ``token``, ``allowed_hosts``, ``insecure`` and ``admin_token``).
    ``SIGHUP`` reloads the index folder (:func:`~schemarouter.serve.generation.reload`).
    Over stdio, an answer its client reads none of for ``stdout_timeout`` seconds (``None``:
    no limit) ends the process, gateway closed, with status
    :data:`~schemarouter.serve.stdio_drain.STALLED_EXIT`."""
    restore_hangup = _reload_on_hangup(gateway)
    try:
        _run(
            gateway,
            transport,
            host,
            port,
            path,
            token,
            allowed_hosts,
            insecure,
            admin_token,
            stdout_timeout,
        )
    finally:
        restore_hangup()


def _run(
    gateway: Gateway,
    transport: str,
    host: str,
    port: int,
    path: str,
    token: str | None,
    allowed_hosts: Sequence[str],
    insecure: bool,
    admin_token: str | None = None,
    stdout_timeout: float | None = STDOUT_TIMEOUT,
) -> None:
    if transport == "stdio":
        from schemarouter.serve.stdio_drain import Drain, serve_stdio

        drain = Drain()  # SIGTERM: the requests under way finish, new ones are refused
        restore = _stop_on_signals(gateway, drain)

        def give_up(seconds: float) -> None:
            _give_up(gateway, seconds)

        try:
            serve_stdio(
                build_server(gateway), drain, stdout_timeout=stdout_timeout, give_up=give_up
            )
        finally:
            restore()
    elif transport in ("http", "streamable-http"):
        from schemarouter.serve.drain import draining_server

        app = http_app(
            gateway,
            host=host,
            path=path,
            token=token,
            allowed_hosts=allowed_hosts,
            insecure=insecure,
            admin_token=admin_token,
        )
        # SIGTERM / Ctrl-C: the requests under way finish first (schemarouter.serve.drain)
        server, restore = draining_server(app, host=host, port=port)
        try:
            server.run()
        finally:
            restore()
    else:
        raise ValueError(f"unknown transport {transport!r}; use stdio or http")


def _reload_on_hangup(gateway: Gateway) -> Callable[[], None]:
    """``SIGHUP`` reloads ``gateway``'s index folder in a thread of its own (the old
    generation answers meanwhile, and stays where the new one cannot be served); returns
    what puts the old handler back (nothing is changed off the main thread)."""
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is None or threading.current_thread() is not threading.main_thread():
        return lambda: None

    def reloading(signum: int, frame: Any) -> None:
        threading.Thread(target=_reload, args=(gateway,), daemon=True).start()

    previous = signal.signal(hangup, reloading)

    def restore() -> None:
        signal.signal(hangup, previous)

    return restore


def _reload(gateway: Gateway) -> None:
    from schemarouter.serve.generation import reload

    try:
        reload(gateway)
    except Exception as exc:  # one line in the log, the old generation still answering
        logger.error(
            "reload failed, the index served is unchanged: %s: %s", type(exc).__name__, exc
        )


def _stop_on_signals(gateway: Gateway, drain: "Drain | None" = None) -> Callable[[], None]:
    """Over stdio, SIGINT and SIGTERM let the requests under way finish (``drain``: up to
    :data:`~schemarouter.serve.drain.DRAIN_SECONDS`, new ones refused; see
    :mod:`schemarouter.serve.stdio_drain`), then close ``gateway`` (upstream servers still
    connecting cancelled, every stdio server it started stopped; the log says what) and end
    the process; a second signal ends it without waiting. Before, a SIGTERM ended the
    process without stopping its upstream servers (left running, orphaned), and a Ctrl-C
    closed the gateway but the process lived on until its stdin ended: the SDK reads stdin
    in a thread no cancellation reaches. Returns what puts the old handlers back (nothing
    is changed off the main thread, where handlers cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    closing = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        if closing.is_set():  # a second signal: stop the servers, end now
            _exit(signum)
        closing.set()
        threading.Thread(target=_close_and_exit, args=(gateway, signum, drain), daemon=True).start()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


def _close_and_exit(gateway: Gateway, signum: int, drain: "Drain | None" = None) -> None:
    from schemarouter.serve.drain import DRAIN_SECONDS

    logger.warning("schemarouter serve: %s: closing", signal.Signals(signum).name)
    try:
        under_way = drain.stop() if drain is not None else 0
        if drain is not None and under_way:
            plural = "s" if under_way > 1 else ""
            logger.warning(
                "schemarouter serve: stopping: %d request%s under way, waiting up to %g s",
                under_way,
                plural,
                DRAIN_SECONDS,
            )
            left = drain.wait(DRAIN_SECONDS)
            if left:
                logger.error(
                    "schemarouter serve: stopping: %d request%s still under way after %g s: cut",
                    left,
                    "s" if left > 1 else "",
                    DRAIN_SECONDS,
                )
        gateway.close()
    finally:
        _exit(signum)


def _give_up(gateway: Gateway, seconds: float) -> None:
    """The stdio client has read none of an answer for ``seconds``: say so, close
    ``gateway`` (its upstream servers stopped) and end the process with
    :data:`~schemarouter.serve.stdio_drain.STALLED_EXIT`, for a supervisor to start it again
    (an answer that cannot go out holds the SDK's writer: nothing else would end it)."""
    from schemarouter.serve.stdio_drain import STALLED_EXIT

    logger.error(
        "schemarouter serve: the client has read none of an answer for %g s (its stdout pipe "
        "full; --stdout-timeout): giving up on it, exiting %d",
        seconds,
        STALLED_EXIT,
    )
    try:
        gateway.close()
    finally:
        _end(STALLED_EXIT)


def _exit(signum: int) -> None:
    """End the process now (128 + the signal's number, as a shell says it), every stdio
    server it started stopped first (``os._exit`` runs no exit handlers)."""
    _end(128 + signum)


def _end(status: int) -> None:
    """End the process now with ``status``, every stdio server it started stopped first."""
    from schemarouter.execution.invokers.mcp_transport import kill_orphans

    kill_orphans()
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(status)
