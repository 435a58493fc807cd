"""HTTP invocation through an injectable ``httpx.Client`` / ``httpx.AsyncClient``.

Requests are built from registered facts only (:mod:`schemarouter.execution.invokers._request`: the
registered base URL and path template, arguments in the slots their parameters declare,
credentials by name at call time). :func:`exchange` is one call, written once: send, follow
redirects only within the registered scheme, host, port and base path (never re-sending a
write), check the status, decode JSON. :func:`send_sync` and :func:`send_async` are the only
I/O: they re-check the origin of every request before it leaves, read the body through
:mod:`~schemarouter.registry.http_body` (every ``Content-Encoding`` layer bounded by the
size cap or the byte budget) and stop at one deadline for the whole call (connect, headers, body
and every redirect hop).
"""

from __future__ import annotations

import datetime
import email.utils
import json
import logging
import math
import time
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import httpx

from schemarouter.contracts import AccessKind, Effect, Registration, Route
from schemarouter.errors import BudgetExceededError, PolicyError
from schemarouter.execution.bindings import bind_if_current
from schemarouter.execution.credentials import CredentialProvider, Redactor
from schemarouter.execution.invokers._request import build_request, origin, within_base_path
from schemarouter.execution.invokers.payload import Payload, invocation_error, seconds_text
from schemarouter.execution.outputs import output_hint
from schemarouter.execution.policy import BudgetMeter, ExecutionPolicy
from schemarouter.registry.http_body import (
    BodyDecodeError,
    BodyTooLarge,
    BoundedResponse,
    DeadlinePassed,
    read_async,
    read_sync,
)

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistryChange

__all__ = [
    "HTTP_KINDS",
    "CallClock",
    "HttpSend",
    "HttpTarget",
    "RawResponse",
    "bind_http_routes",
    "bound_routes",
    "build_request",
    "exchange",
    "http_target",
    "not_bound_hint",
    "origin",
    "register_http_routes",
    "retry_after_seconds",
    "send_async",
    "send_sync",
    "unbound_again",
]

logger = logging.getLogger(__name__)

#: Access kinds called over HTTP.
HTTP_KINDS = frozenset({AccessKind.OPENAPI, AccessKind.HTTP, AccessKind.OPTIMADE})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_RETRYABLE = frozenset({408, 425, 429, 500, 502, 503, 504})
#: Statuses whose ``Retry-After`` says when a call may be made again (RFC 9110 10.2.3).
_RETRY_AFTER = frozenset({429, 503})


@dataclass(frozen=True)
class HttpTarget:
    """Binding of an HTTP route: its registered base URL (scheme and host fixed)."""

    base_url: str


def http_target(route: Route) -> HttpTarget | None:
    """The binding of an HTTP route with a registered ``base_url`` (``None`` for any other)."""
    if route.access.kind in HTTP_KINDS and route.access.base_url:
        return HttpTarget(route.access.base_url)
    return None


def bind_http_routes(router: Any, routes: Iterable[Route] | None = None) -> list[str]:
    """Bind each of ``routes`` (default: every registered route) that is an HTTP route with
    a registered ``base_url`` that is not bound yet (to anything), at *its* fingerprint
    (:func:`~schemarouter.execution.bindings.bind_if_current`); returns the route ids bound.
    Registration passes only the routes it just registered, so a route the caller unbound
    stays unbound, and one another registration replaced since keeps that one's base URL."""
    routes = router.snapshot() if routes is None else routes
    return bind_if_current(router, routes, http_target, keep_bound=True)


def register_http_routes(
    router: Any, registration: Registration, *, replace: bool = False
) -> RegistryChange:
    """``router.register(registration)``, then :func:`bind_http_routes` of its routes, with
    their bindings readable by every thread from the moment the registry publishes them
    (:meth:`~schemarouter.execution.bindings.BindingTable.ahead`): the index embeds new
    routes after the switch, and another thread's call of a route registered again was
    refused as not bound until then (trial C)."""
    ahead = {}
    for route in registration.routes:
        target = http_target(route)
        if target is not None:
            ahead[route.route_id] = (route.fingerprint, target)
    with router._bindings.ahead(ahead):
        change: RegistryChange = router.register(registration, replace=replace)
        bind_http_routes(router, registration.routes)
    return change


def bound_routes(router: Any, routes: Iterable[Route]) -> list[str]:
    """The ids of the registered routes bound now that ``routes`` (a registration about to
    replace them) may take over: those of the same providers and access paths."""
    snapshot = router.snapshot()
    scopes = {(route.provider.id, route.access.id) for route in routes}
    return [
        held.route_id
        for provider_id in sorted({p for p, _ in scopes})
        for held in snapshot.routes_of(provider_id)
        if (provider_id, held.access.id) in scopes and router.is_bound(held.route_id)
    ]


def unbound_again(router: Any, bound: Sequence[str], change: RegistryChange) -> RegistryChange:
    """``change`` with a warning where routes of ``bound`` (:func:`bound_routes` before a
    replace) are still registered but no longer bound: the new document named no server URL
    that could be used, so a weekly re-registration took a working provider offline."""
    snapshot = router.snapshot()
    lost = [r for r in bound if r in snapshot.routes and not router.is_bound(r)]
    if not lost:
        return change
    shown = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
    warning = (
        f"{len(lost)} route(s) that were bound are now unbound ({shown}): the new document "
        "gives no server URL that can be used (see the warnings before this one); calls are "
        "refused until they are bound again: register it with add_openapi(..., base_url=..., "
        "replace=True), or router.bind"
    )
    logger.warning("%s", warning)
    return replace(change, warnings=(*change.warnings, warning))


def not_bound_hint(route: Route) -> str:
    """The hint of a call refused for want of a binding: an OpenAPI route with no base URL
    was registered unbound because its document's server URL could not be used."""
    if route.access.kind is AccessKind.OPENAPI and not route.access.base_url:
        return (
            "Its document gave no server URL that could be used (the registration's warnings say "
            "why), so it was registered unbound: register the document again with "
            "add_openapi(..., base_url=..., replace=True), or bind it (router.bind)"
        )
    provider = route.provider.id
    if route.access.kind is AccessKind.PYTHON:  # a function is never saved (trial Z2)
        return (
            "A Python callable is bound to its function by add_callable, and no index or "
            "catalog saves a function: register it again in this process with "
            f"router.add_callable(fn, provider={provider!r}, replace=True) (the same "
            "contract: only the binding is added)"
        )
    if route.access.kind is AccessKind.MCP:  # nor a live session
        return (
            "An MCP tool is bound to a live session, which no index or catalog saves: "
            f"connect its server with router.add_mcp_server(SERVER, provider={provider!r}, "
            "replace=True), or bind a session you hold with bind_mcp_session(router, "
            f"session, provider={provider!r})"
        )
    return "Bind it (router.bind, bind_http_routes, bind_mcp_session) first"


class RawResponse(NamedTuple):
    status_code: int
    headers: httpx.Headers
    content: bytes
    url: httpx.URL


@dataclass(frozen=True)
class HttpSend:
    """One request to send (the driver re-checks its origin before sending)."""

    request: httpx.Request
    origin: tuple[str, str, int | None]
    cap: int
    cap_is_budget: bool
    #: seconds the whole call may take, every redirect hop included
    timeout: float
    clock: CallClock
    where: str

    @property
    def deadline(self) -> float:
        return self.clock.deadline(self.timeout)


class CallClock:
    """When one call must be done: ``timeout`` seconds after its first request leaves
    (so the time a driver spends making its client does not count), for every hop."""

    def __init__(self) -> None:
        self._deadline: float | None = None

    def deadline(self, timeout: float) -> float:
        if self._deadline is None:
            self._deadline = time.monotonic() + timeout
        return self._deadline


# -- one call: redirects, status, decoding --------------------------------------------------


def _redirect(request: httpx.Request, raw: RawResponse, route: Route, where: str) -> httpx.Request:
    """The request a redirect asks for, if it stays inside the route's registered base URL
    (scheme, host, port *and* path prefix); a write is never re-sent by a redirect: only a
    303 (or a 301/302 after POST), which asks for a GET of the answer, follows one."""
    location = raw.headers.get("location")
    if not location:
        raise invocation_error(f"HTTP {raw.status_code} redirect without a Location", where=where)
    try:
        target = request.url.join(location)
        base_url = httpx.URL(route.access.base_url or "")
        scheme, host, port = origin(target)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise invocation_error("refused a redirect to an invalid URL", where=where) from None
    if (scheme, host, port) != origin(base_url):
        raise invocation_error(
            f"refused a redirect to another origin ({scheme}://{host}:{port})",
            where=where,
            hint="Redirects are followed only within the registered scheme, host and port",
        )
    if not within_base_path(target, base_url):
        raise invocation_error(
            "refused a redirect outside the registered base path "
            f"({base_url.raw_path.decode('ascii', 'replace')})",
            where=where,
            hint="Redirects are followed only below the route's registered base URL",
        )
    method = request.method
    headers = httpx.Headers({k: v for k, v in request.headers.items() if k.lower() != "host"})
    if raw.status_code == 303 or (raw.status_code in (301, 302) and method == "POST"):
        # "see other": fetch the answer with a GET, without the body
        for name in ("content-type", "content-length", "transfer-encoding"):
            headers.pop(name, None)
        return httpx.Request("GET", target, headers=headers, extensions=request.extensions)
    # the redirect keeps the method: it would send the call again (a GET too, where the
    # route is a write: an effect the caller declared)
    if route.endpoint.effect is not Effect.READ:
        raise invocation_error(
            f"refused to re-send a {route.endpoint.effect.value} call ({method}) to where an "
            f"HTTP {raw.status_code} redirect points",
            where=where,
            hint="Register the endpoint at the URL the server redirects to",
        )
    content = _replayable_body(request, raw.status_code, where)
    return httpx.Request(
        method, target, headers=headers, content=content or None, extensions=request.extensions
    )


def _replayable_body(request: httpx.Request, status: int, where: str) -> bytes:
    """The body of ``request`` to send again (read in memory before the first send, see
    :func:`_in_memory`); a stream that was not is refused: it is gone once sent."""
    try:
        return request.content
    except httpx.RequestNotRead:
        raise invocation_error(
            f"refused to follow an HTTP {status} redirect: the request body was a stream "
            "that cannot be sent again",
            where=where,
            hint="Register the endpoint at the URL the server redirects to",
        ) from None


def _in_memory(request: httpx.Request) -> httpx.Request:
    """``request`` with its body read (a multipart body is a stream, built in memory from
    the arguments), so that a redirect that keeps the body can send the same bytes again."""
    if isinstance(request.stream, httpx.SyncByteStream):
        request.read()
    return request


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait: delay-seconds (``120``) or an
    HTTP date (``Wed, 21 Oct 2015 07:28:00 GMT``, counted from ``now``, the Unix time; a
    date passed is 0), in whole seconds; ``None`` where there is none or it reads as
    neither."""
    text = (value or "").strip()
    if text.isascii() and text.isdigit():
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": UTC
        when = when.replace(tzinfo=datetime.UTC)
    left = when.timestamp() - (time.time() if now is None else now)
    return float(max(math.ceil(left), 0))


def _refused_hint(route: Route, status: int) -> str | None:
    """What a 401 / 403 asks of the caller: the credentials the route sends, or that it
    declares none (the server wants some the registration did not say)."""
    if status not in (401, 403):
        return None
    names = ", ".join(route.access.auth.credentials)
    if not names:
        return (
            "The route declares no credentials; if the API needs them, register its security "
            "scheme (OpenAPI components.securitySchemes) and pass credentials= to the call"
        )
    if status == 401:
        return f"The server refused the credentials sent ({names}): check their values"
    return f"The credentials sent ({names}) were refused this call: check what they may do"


def _status_error(raw: RawResponse, route: Route, redactor: Redactor, where: str) -> None:
    if 200 <= raw.status_code < 300:
        return
    # redacted before it is cut: a cut would leave part of an echoed key
    snippet = redactor(raw.content[:65536].decode("utf-8", "replace"))[:200].strip()
    wait = None
    if raw.status_code in _RETRY_AFTER:
        wait = retry_after_seconds(raw.headers.get("retry-after"))
    error = invocation_error(
        f"HTTP {raw.status_code}"
        + (f" (retry after {wait:g} s)" if wait is not None else "")
        + (f": {snippet}" if snippet else ""),
        where=where,
        hint=_refused_hint(route, raw.status_code)
        if wait is None
        else f"The server asks to be called again in {wait:g} s (the error's retry_after)",
        retryable=raw.status_code in _RETRYABLE,
        # a 429 says the server is up and limiting us: no sign of ill health
        health=raw.status_code in _RETRYABLE and raw.status_code != 429,
        status_code=raw.status_code,
        retry_after=wait,
    )
    error.body = _error_body(raw, redactor)
    raise error


def _error_body(raw: RawResponse, redactor: Redactor) -> Any:
    """The JSON an error answer carried (a ``application/problem+json`` document with its
    ``detail`` and ``errors``), whole where the message shows only its start; credential
    values redacted; ``None`` where the body is empty or no JSON."""
    if not raw.content.strip() or len(raw.content) > 65536:
        return None
    try:
        return redactor.scrub(json.loads(raw.content))
    except (ValueError, RecursionError):
        return None


def _created_at(raw: RawResponse) -> str | None:
    """The ``Location`` of a 201 or 202 answer, absolute (``None`` where there is none, or
    it is no URL)."""
    value = raw.headers.get("location") if raw.status_code in (201, 202) else None
    if not value or not value.isascii() or not value.isprintable():
        return None
    try:
        return str(raw.url.join(value.strip()))
    except httpx.InvalidURL:
        return None


def _decode(raw: RawResponse, route: Route, where: str) -> Any:
    """The response's JSON; a body that is not JSON is an error whose hint, after a write,
    says that the write ran (see :func:`~schemarouter.execution.outputs.output_hint`)."""
    if not raw.content.strip():
        return None
    try:
        return json.loads(raw.content)
    except (ValueError, RecursionError):
        kind = raw.headers.get("content-type", "unknown content type")
        hint = output_hint(
            route,
            raw.status_code,
            "The executor reads JSON responses only",
            "its answer was not JSON, which the executor cannot read",
        )
        raise invocation_error(
            f"the response is not valid JSON ({kind})",
            where=where,
            hint=hint,
            # a write the server answered with success ran: no sign of ill health
            health=route.endpoint.effect is Effect.READ or not 200 <= raw.status_code < 300,
            status_code=raw.status_code,
        ) from None


def exchange(
    route: Route,
    arguments: Mapping[str, Any],
    *,
    credentials: CredentialProvider,
    redactor: Redactor,
    policy: ExecutionPolicy,
    meter: BudgetMeter,
    where: str,
) -> Generator[HttpSend, RawResponse, Payload]:
    """One call: send, follow same-origin redirects, check the status, decode JSON."""
    timeout = meter.call_timeout(policy.timeout)
    clock = CallClock()
    request = _in_memory(
        build_request(
            route,
            arguments,
            credentials=credentials,
            redactor=redactor,
            timeout=timeout,
            where=where,
        )
    )
    base = origin(route.access.base_url or "")
    nbytes = 0
    for _ in range(policy.max_redirects + 1):
        meter.spend_call(where)
        left = meter.bytes_left()
        by_budget = left is not None and left < policy.max_response_bytes
        cap = max(left or 0, 0) if by_budget else policy.max_response_bytes
        raw = yield HttpSend(request, base, cap, by_budget, timeout, clock, where)
        nbytes += len(raw.content)
        meter.spend_bytes(len(raw.content), where)
        if raw.status_code in _REDIRECTS:
            request = _redirect(request, raw, route, where)
            continue
        _status_error(raw, route, redactor, where)
        url = raw.url.copy_with(query=None, fragment=None)
        location = _created_at(raw)
        return Payload(_decode(raw, route, where), nbytes, raw.status_code, str(url), location)
    raise invocation_error(f"more than {policy.max_redirects} redirects", where=where)


# -- the I/O: sync and async ----------------------------------------------------------------


def _check_origin(op: HttpSend) -> None:
    if origin(op.request.url) != op.origin:
        raise PolicyError("refused to send a request outside the registered origin", where=op.where)


def _too_big(op: HttpSend) -> Exception:
    if op.cap_is_budget:
        return BudgetExceededError(
            f"the response passes the byte budget left ({op.cap} bytes)", where=op.where
        )
    return invocation_error(
        f"the response is larger than the cap of {op.cap} bytes",
        where=op.where,
        hint="Raise ExecutionPolicy.max_response_bytes or request fewer records",
    )


def _timed_out(op: HttpSend) -> Exception:
    return invocation_error(
        f"timed out after {seconds_text(op.timeout)} s (connect, headers and body together)",
        where=op.where,
        retryable=True,
    )


def _failed(exc: Exception, op: HttpSend) -> Exception:
    """The typed error for what reading the response raised."""
    if isinstance(exc, BodyTooLarge):
        return _too_big(op)
    if isinstance(exc, BodyDecodeError):
        return invocation_error(str(exc), where=op.where)
    if isinstance(exc, DeadlinePassed | httpx.TimeoutException):
        return _timed_out(op)
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return invocation_error(f"invalid URL: {exc}", where=op.where)
    if isinstance(exc, UnicodeError):
        # httpx builds the redirect's next request while it reads the response; a
        # Location host that is no valid IDNA (``http://xn--/``) raises idna's error there
        return invocation_error(
            f"refused a redirect to an invalid URL ({type(exc).__name__}: {str(exc)[:120]})",
            where=op.where,
            hint="Redirects are followed only to valid URLs within the registered base URL",
        )
    if isinstance(exc, httpx.HTTPError):
        if time.monotonic() >= op.deadline:  # the socket was shut at the deadline
            return _timed_out(op)
        error = invocation_error(
            f"transport error: {type(exc).__name__}: {exc}", where=op.where, retryable=True
        )
        error.unsent = isinstance(exc, httpx.ConnectError)  # type: ignore[attr-defined]
        return error
    return exc


_READ_ERRORS = (
    BodyTooLarge,
    BodyDecodeError,
    DeadlinePassed,
    httpx.HTTPError,
    httpx.InvalidURL,
    UnicodeError,  # idna's IDNAError, from a redirect's Location (see _failed)
)


def _raw(response: BoundedResponse) -> RawResponse:
    return RawResponse(response.status_code, response.headers, response.content, response.url)


def send_sync(client: httpx.Client, op: HttpSend) -> RawResponse:
    _check_origin(op)
    try:
        return _raw(read_sync(client, op.request, limit=op.cap, deadline=op.deadline))
    except _READ_ERRORS as exc:
        raise _failed(exc, op) from None


async def send_async(client: httpx.AsyncClient, op: HttpSend) -> RawResponse:
    _check_origin(op)
    try:
        return _raw(await read_async(client, op.request, limit=op.cap, deadline=op.deadline))
    except _READ_ERRORS as exc:
        raise _failed(exc, op) from None
