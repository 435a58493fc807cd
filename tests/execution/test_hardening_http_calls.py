"""HTTP calls under a user trial (trial J): redirects of multipart bodies and of writes sent as
GET, ``Retry-After`` on 429 and 503, and what an approval callback may touch. Each test is a
row of docs/faults.md; every server is a real one on loopback."""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemarouter import MappingCredentials, SchemaRouter
from schemarouter.contracts import Route
from schemarouter.errors import InvocationError, OutputValidationError, PolicyError
from schemarouter.execution.invokers import http
from schemarouter.execution.invokers.http import RawResponse
from schemarouter.execution.policy import Budget, ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.integrations.search import call_payload

from servers import catalogs
from servers.loopback import LoopbackServer, Request, Response, json_response

MODES = pytest.mark.parametrize("mode", ["sync", "async"])
OUT = {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
}
MULTIPART = {
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "data": {"type": "string"}},
            }
        }
    }
}


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def _yes(route: Route, arguments: Any) -> bool:
    return True


def _call(mode: str, router: SchemaRouter, route_id: str, arguments: Any, **options: Any) -> Any:
    if mode == "sync":
        return router.call(route_id, arguments, **options)
    return asyncio.run(router.acall(route_id, arguments, **options))


class Scripted:
    """A loopback app answering each path from a list of responses (the last one repeats)."""

    def __init__(self) -> None:
        self.script: dict[str, list[Callable[[Request], Response]]] = {}
        #: when each request came (``time.monotonic()``)
        self.times: list[float] = []

    def __call__(self, request: Request) -> Response:
        self.times.append(time.monotonic())
        answers = self.script.get(request.path)
        if not answers:
            return json_response({"ok": True})
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        return answer(request)


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(Scripted()) as running:
        yield running


@pytest.fixture
def app(server: LoopbackServer) -> Scripted:
    server.reset()
    scripted = server.app
    assert isinstance(scripted, Scripted)
    scripted.script.clear()
    scripted.times.clear()
    return scripted


def _redirect(status: int, location: str) -> Callable[[Request], Response]:
    return lambda _: Response(status, b"", {"Location": location, "Content-Length": "0"})


def _header(request: Request, name: str) -> str:
    return next(v for k, v in request.headers.items() if k.lower() == name)


def _document(base_url: str, paths: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "trial", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": paths,
    }


# -- 4: a multipart body answered by a redirect ---------------------------------------------


@MODES
def test_a_multipart_write_answered_303_is_followed_with_a_get_without_its_body(
    mode: str, server: LoopbackServer, app: Scripted
) -> None:
    """An upload answered ``303 See Other`` raised httpx's untyped ``RequestNotRead``: the
    redirect read the multipart body (a stream) before deciding what to send."""
    app.script["/upload"] = [_redirect(303, "/uploads/1")]
    router = _router()
    post = {"operationId": "upload", "requestBody": MULTIPART, "responses": OUT}
    router.add_openapi(_document(server.base_url, {"/upload": {"post": post}}), provider="files")
    arguments = {"name": "a.txt", "data": "hello"}
    result = _call(
        mode, router, "files/rest/upload", arguments, allow_effects=["write"], approve=_yes
    )
    assert result.ok and result.output == {"ok": True}
    first, second = server.requests
    assert (first.method, first.path) == ("POST", "/upload")
    assert b"hello" in first.body
    assert (second.method, second.path, second.body) == ("GET", "/uploads/1", b"")
    assert not {"content-type", "content-length"} & {k.lower() for k in second.headers}


@MODES
def test_a_multipart_read_answered_307_is_sent_again_with_the_same_body(
    mode: str, server: LoopbackServer, app: Scripted
) -> None:
    """A trusted read POST with a multipart body answered 307: the body was built in memory,
    so it is read again and sent to where the redirect points, boundary and all."""
    app.script["/search"] = [_redirect(307, "/search2")]
    router = _router()
    post = {
        "operationId": "search",
        "x-schemarouter-effect": "read",
        "requestBody": MULTIPART,
        "responses": OUT,
    }
    document = _document(server.base_url, {"/search": {"post": post}})
    router.add_openapi(document, provider="files", trusted=True)
    result = _call(mode, router, "files/rest/search", {"name": "q", "data": "Si"})
    assert result.ok
    first, second = server.requests
    assert (second.method, second.path) == ("POST", "/search2")
    assert second.body == first.body and b"Si" in second.body
    kind = _header(first, "content-type")
    assert kind.startswith("multipart/form-data; boundary=")
    assert _header(second, "content-type") == kind


def test_a_streamed_body_that_cannot_be_read_again_is_refused_by_a_redirect() -> None:
    """A body that was a stream still unread when sent (an async generator: gone once sent):
    a 307 is refused with an InvocationError, never httpx's own ``RequestNotRead``."""
    router = _router()
    post = {"operationId": "search", "x-schemarouter-effect": "read", "responses": OUT}
    document = _document("http://127.0.0.1:9", {"/search": {"post": post}})
    router.add_openapi(document, provider="files", trusted=True)
    route = router.snapshot().route("files/rest/search")

    async def chunks() -> Any:
        yield b"gone once sent"

    request = httpx.Request("POST", "http://127.0.0.1:9/search", content=chunks())
    raw = RawResponse(
        307, httpx.Headers({"Location": "/search2"}), b"", httpx.URL("http://127.0.0.1:9/search")
    )
    with pytest.raises(InvocationError, match="a stream that cannot be sent again"):
        http._redirect(request, raw, route, "test")
    raw = raw._replace(status_code=303)  # "see other" sends no body: followed with a GET
    assert http._redirect(request, raw, route, "test").method == "GET"


# -- 9: a GET the caller declared a write ---------------------------------------------------


def _send_sms(base_url: str) -> SchemaRouter:
    text = {"schema": {"type": "string"}}
    get = {
        "operationId": "sendSms",
        "parameters": [{"name": n, "in": "query", **text} for n in ("to", "text")],
        "responses": OUT,
    }
    router = _router()
    document = _document(base_url, {"/sms/send": {"get": get}})
    router.add_openapi(document, provider="sms", effect_overrides={"sendSms": "write"})
    assert router.snapshot().route("sms/rest/send_sms").endpoint.effect.value == "write"
    return router


@MODES
@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_write_sent_as_get_is_never_sent_again_by_a_redirect(
    mode: str, status: int, server: LoopbackServer, app: Scripted
) -> None:
    """``GET /sms/send`` declared a write (``effect_overrides``) answered ``302`` on the same
    origin: the redirect was followed because GET was exempt, so the server got the write
    twice. The rule looks at the route's effect, not the method."""
    app.script["/sms/send"] = [_redirect(status, "/sms/send2?to=alice&text=hi")]
    router = _send_sms(server.base_url)
    with pytest.raises(InvocationError, match=rf"re-send a write call \(GET\).*HTTP {status}"):
        _call(
            mode,
            router,
            "sms/rest/send_sms",
            {"to": "alice", "text": "hi"},
            allow_effects=["write"],
            approve=_yes,
        )
    assert server.paths() == ["/sms/send?to=alice&text=hi"]


def test_a_write_sent_as_get_follows_see_other_to_its_answer(
    server: LoopbackServer, app: Scripted
) -> None:
    """``303 See Other`` asks for a GET of the answer, not the call again: followed, as it is
    after a POST."""
    app.script["/sms/send"] = [_redirect(303, "/sms/status/1")]
    router = _send_sms(server.base_url)
    result = router.call(
        "sms/rest/send_sms", {"to": "bob", "text": "x"}, allow_effects=["write"], approve=_yes
    )
    assert result.ok
    assert server.paths() == ["/sms/send?to=bob&text=x", "/sms/status/1"]


# -- 10: what the approval callback may touch -----------------------------------------------


def _pay(base_url: str) -> SchemaRouter:
    amount = {"type": "integer", "maximum": 100}
    body = {
        "type": "object",
        "required": ["amount"],
        "additionalProperties": False,
        "properties": {"amount": amount, "tags": {"type": "array", "items": {"type": "string"}}},
    }
    post = {
        "operationId": "pay",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": OUT,
    }
    router = _router()
    router.add_openapi(_document(base_url, {"/pay": {"post": post}}), provider="pay")
    return router


def _inflate(route: Route, arguments: Any) -> bool:
    shown = arguments["body"]  # a UI that formats what it shows, in place
    shown["amount"] = 10**9
    shown["note"] = "added by the approval UI"
    return True


def _tag(route: Route, arguments: Any) -> bool:
    arguments["body"]["tags"].append("approved")
    return True


@pytest.mark.parametrize("approve", [_inflate, _tag])
def test_an_approval_callback_cannot_change_the_arguments_sent(
    approve: Callable[[Route, Any], bool], server: LoopbackServer, app: Scripted
) -> None:
    """``approve`` got ``MappingProxyType(dict(arguments))``: read-only on top only, so
    ``args["body"]["amount"] = 10**9`` inside it reached the server after validation
    (``maximum: 100`` and ``additionalProperties: false`` bypassed). The copy is read-only all
    the way down: the edit fails, the callback is refused, nothing is sent."""
    router = _pay(server.base_url)
    arguments = {"body": {"amount": 5, "tags": ["rent"]}}
    with pytest.raises(
        PolicyError, match=r"approval callback failed.*(TypeError|AttributeError)"
    ) as caught:
        router.call("pay/rest/pay", arguments, allow_effects=["write"], approve=approve)
    assert "read-only" in (caught.value.hint or "")
    assert server.requests == []
    assert arguments == {"body": {"amount": 5, "tags": ["rent"]}}


def test_an_approval_callback_reads_the_arguments_it_approves(
    server: LoopbackServer, app: Scripted
) -> None:
    """What the callback reads (objects as mappings, arrays as tuples) is what is sent; a copy
    it changes to show changes nothing."""
    seen: list[Any] = []

    def approve(route: Route, arguments: Any) -> bool:
        shown = dict(arguments["body"])
        shown["amount"] = f"{shown['amount']} EUR"  # its own copy
        seen.append((arguments["body"]["amount"], arguments["body"]["tags"], shown["amount"]))
        return True

    router = _pay(server.base_url)
    body = {"amount": 5, "tags": ["rent", "may"]}
    result = router.call("pay/rest/pay", {"body": body}, allow_effects=["write"], approve=approve)
    assert result.ok
    assert seen == [(5, ("rent", "may"), "5 EUR")]
    assert json.loads(server.requests[0].body) == body


# -- 7: a declared conversion that leaves the finite numbers --------------------------------


def _pressures(server: LoopbackServer, tmp_path: Path, schema: dict[str, Any]) -> SchemaRouter:
    field = catalogs.fld(
        "p",
        "data.*.p",
        schema,
        semantic_id="mechanical.pressure",
        unit="GPa",
        dimension="pressure",
        normalization=catalogs.GPA_PA,
    )
    endpoint = catalogs.endpoint("m", "/m", fields=[field])
    router = _router()
    catalogs.register(
        router, tmp_path / "lab.json", [catalogs.provider("lab", server.base_url, [endpoint])]
    )
    return router


def _answer(data: Any) -> list[Callable[[Request], Response]]:
    return [lambda _: json_response({"data": data})]


@MODES
def test_a_conversion_that_overflows_is_an_invalid_value_not_an_ok_inf(
    mode: str, server: LoopbackServer, app: Scripted, tmp_path: Path
) -> None:
    """``1e300`` GPa with a declared GPa -> Pa spec became ``inf`` Pa with status ``ok`` and no
    issue (``model_dump_json()`` then wrote ``null``). A converted value that is not finite
    is invalid at its path, as a server's NaN is (faults.md #15)."""
    app.script["/m"] = _answer([{"p": 1.5}, {"p": 1e300}])
    router = _pressures(server, tmp_path, {"type": "number"})
    with pytest.raises(OutputValidationError, match=r"conversion of 1e\+300 gives inf") as caught:
        _call(mode, router, "lab/rest/m", {})
    assert getattr(caught.value, "json_path", None) == "$.data[1].p"
    result = _call(mode, router, "lab/rest/m", {}, partial=True)
    value = result.fields["p"]
    assert value.status == "partial" and value.normalized and value.unit == "Pa"
    assert value.value == [1.5e9, None] and value.raw_value == [1.5, 1e300]
    assert [(i.kind, i.path) for i in value.issues] == [("invalid", "$.data[1].p")]
    dumped = json.loads(result.model_dump_json())["fields"]["p"]
    assert dumped["status"] == "partial" and dumped["value"] == [1.5e9, None]


def test_a_declared_conversion_applies_to_a_list_of_numbers_element_by_element(
    server: LoopbackServer, app: Scripted, tmp_path: Path
) -> None:
    """A field typed as an array of GPa numbers kept GPa with a ``not_normalized`` issue
    ("list is not a number"), though ``units.normalize`` converts lists element by element
    (the shipped catalogs declare specs on such fields: lattice vectors, elastic tensors).
    Each element is converted now; one that overflows is invalid at its own path."""
    schema = {"type": "array", "items": {"type": "number"}}
    app.script["/m"] = _answer([{"p": [1.5, 2.0]}, {"p": [[0.5], [1e300]]}])
    router = _pressures(server, tmp_path, {"type": "array"})
    value = router.call("lab/rest/m", {}, partial=True).fields["p"]
    assert value.normalized and value.unit == "Pa"
    assert value.value == [[1.5e9, 2.0e9], None]
    assert [(i.kind, i.path) for i in value.issues] == [("invalid", "$.data[1].p[1][0]")]
    app.script["/m"] = _answer([{"p": [1.5, 2.0]}])
    value = _pressures(server, tmp_path, schema).call("lab/rest/m", {}).fields["p"]
    assert (value.status, value.value, value.unit, value.issues) == ("ok", [[1.5e9, 2e9]], "Pa", ())
    app.script["/m"] = _answer([{"p": [1.5, "n/a"]}])  # not every element a number: kept raw
    value = router.call("lab/rest/m", {}).fields["p"]
    assert not value.normalized and value.unit == "GPa" and value.value == [[1.5, "n/a"]]
    assert [i.kind for i in value.issues] == ["not_normalized"]
    assert value.issues[0].message.startswith("a str in a list is not a number")


# -- 8: Retry-After on 429 and 503 ----------------------------------------------------------


def _limited(status: int, retry_after: str | None) -> Callable[[Request], Response]:
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    return lambda _: json_response({"error": "slow down"}, status, **headers)


def _limits(base_url: str, method: str = "get") -> SchemaRouter:
    router = _router()
    operation = {"operationId": "lim", "responses": OUT}
    router.add_openapi(_document(base_url, {"/lim": {method: operation}}), provider="l")
    return router


@MODES
@pytest.mark.parametrize("status", [429, 503])
def test_a_read_waits_as_long_as_retry_after_asks(
    mode: str, status: int, server: LoopbackServer, app: Scripted
) -> None:
    """``429`` with ``Retry-After: 2`` was retried after 0.2 s and 0.4 s (the backoff), three
    requests in 0.7 s. The next attempt now waits as long as the server asks."""
    app.script["/lim"] = [_limited(status, "1"), lambda _: json_response({"ok": True})]
    router = _limits(server.base_url)
    result = _call(mode, router, "l/rest/lim", {})
    assert result.ok and len(server.requests) == 2
    assert app.times[1] - app.times[0] >= 0.95
    assert [a.status_code for a in result.attempts] == [status, 200]


@pytest.mark.parametrize(
    ("retry_after", "options", "why"),
    [
        ("120", {}, r"max_retry_after \(30 s\)"),
        ("HTTP-DATE+100", {}, r"max_retry_after \(30 s\)"),
        ("60", {"policy": {"max_retry_after": 20}}, r"max_retry_after \(20 s\)"),
        ("28", {"budget": Budget(max_seconds=20.0)}, "time budget left"),
    ],
)
def test_a_retry_after_past_the_policy_or_the_budget_fails_at_once_saying_when(
    retry_after: str, options: dict[str, Any], why: str, server: LoopbackServer, app: Scripted
) -> None:
    """A wait longer than ``ExecutionPolicy.max_retry_after`` or the time budget left is not
    spent: one request, and the error says when to call again and carries it. Every wait
    asked for is 20 s or more (and past the default 30 s, the 20 s policy or the 20 s
    budget), far from the moment failing at once takes."""
    if "policy" in options:
        options = {"policy": ExecutionPolicy(**options["policy"])}
    expected = 100.0 if retry_after.startswith("HTTP-DATE") else float(retry_after)
    if retry_after.startswith("HTTP-DATE"):
        retry_after = email.utils.formatdate(time.time() + 100, usegmt=True)
    app.script["/lim"] = [_limited(429, retry_after)]
    router = _limits(server.base_url)
    started = time.monotonic()
    with pytest.raises(
        InvocationError, match=rf"HTTP 429 \(retry after .*not retried: .*{why}"
    ) as caught:
        router.call("l/rest/lim", {}, **options)
    assert time.monotonic() - started < 8
    assert len(server.requests) == 1
    error = caught.value
    assert error.hint is not None and "called again in" in error.hint
    waited = getattr(error, "retry_after", None)
    assert waited is not None and expected - 2 <= waited <= expected


def test_a_rate_limit_is_no_sign_of_ill_health(server: LoopbackServer, app: Scripted) -> None:
    """Three 429s reached ``failure_threshold``: the route was unhealthy for 60 s and a call
    2 s later, when the server would answer, was refused locally. A 429 is not counted; a
    503 still is (the server says it is unavailable)."""
    app.script["/lim"] = [_limited(429, None)] * 3 + [lambda _: json_response({"ok": True})]
    router = _limits(server.base_url)
    policy = ExecutionPolicy(backoff=0.01)
    with pytest.raises(InvocationError, match="after 3 attempts"):
        router.call("l/rest/lim", {}, policy=policy)
    assert router.is_healthy("l/rest/lim")
    assert router.call("l/rest/lim", {}, policy=policy).ok
    assert len(server.requests) == 4
    app.script["/lim"] = [_limited(503, None)]
    with pytest.raises(InvocationError, match="HTTP 503"):
        router.call("l/rest/lim", {}, policy=policy)
    assert not router.is_healthy("l/rest/lim")


def test_a_write_is_never_retried_but_says_when_to_call_again(
    server: LoopbackServer, app: Scripted
) -> None:
    app.script["/lim"] = [_limited(429, "1"), lambda _: json_response({"ok": True})]
    router = _limits(server.base_url, "post")
    with pytest.raises(InvocationError, match=r"HTTP 429 \(retry after 1 s\)") as caught:
        router.call("l/rest/lim", {}, allow_effects=["write"], approve=_yes)
    assert getattr(caught.value, "retry_after", None) == 1.0
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("0", 0.0),
        (" 7 ", 7.0),
        ("Sat, 01 Jan 2000 00:00:00 GMT", 0.0),  # passed
        ("Sun, 09 Sep 2001 01:48:20 GMT", 40.0),  # 1e9 + 100 s, read at 1e9 + 60
        ("Sun, 09 Sep 2001 01:48:20 -0000", 40.0),
        ("-1", None),
        ("1.5", None),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(header: str | None, seconds: float) -> None:
    assert http.retry_after_seconds(header, now=1e9 + 60) == seconds


# -- a write whose outcome is unknown (user trial W) ----------------------------------------


@MODES
def test_a_write_that_may_have_run_is_sent_once_and_says_so_not_retryable(
    mode: str, server: LoopbackServer, app: Scripted
) -> None:
    """A POST answered 500, or one that timed out, was sent once (right) but its error
    said only "HTTP 500" / "timed out after 1 s" and was marked ``retryable``: a caller's
    retry loop (or an agent) sent the order again. It now says the write may have run and
    is not retryable; a 422 (refused) and a 503 (not taken) are unchanged."""
    app.script["/orders"] = [
        lambda _: json_response({"error": "boom"}, 500),
        lambda _: Response(201, b"{}", {"Content-Length": "2"}, delay=2.0),
        lambda _: json_response({"title": "bad"}, 422),
        lambda _: json_response({"error": "busy"}, 503),
    ]
    router = _router()
    post = {"operationId": "create_order", "responses": OUT}
    router.add_openapi(_document(server.base_url, {"/orders": {"post": post}}), provider="shop")
    options: dict[str, Any] = {
        "allow_effects": ["write"],
        "approve": _yes,
        "policy": ExecutionPolicy(timeout=0.5, failure_threshold=10),
    }
    for label in ("HTTP 500", "timed out after"):
        with pytest.raises(InvocationError) as caught:
            _call(mode, router, "shop/rest/create_order", {}, **options)
        assert label in caught.value.what
        assert "may have performed it" in str(caught.value)
        assert getattr(caught.value, "retryable", None) is False
    for status in (422, 503):
        with pytest.raises(InvocationError) as caught:
            _call(mode, router, "shop/rest/create_order", {}, **options)
        assert caught.value.status_code == status
        assert "may have performed it" not in str(caught.value)
    assert [r.method for r in server.requests] == ["POST"] * 4  # none sent twice


@MODES
def test_a_201_says_where_the_created_thing_is(
    mode: str, server: LoopbackServer, app: Scripted
) -> None:
    """A ``201 Created`` with a ``Location`` header: the header was dropped, so a caller
    whose API answers the new id only there (or with an empty body) never learned where the
    order is (user trial W). The result's ``location`` holds it, absolute; a 201 whose body
    breaks its schema names it in the error; a 200's ``Location`` is no creation."""
    app.script["/orders"] = [
        lambda _: json_response({"id": "ORD-9"}, 201, Location="/orders/ORD-9"),
        lambda _: Response(201, b"", {"Location": "/orders/ORD-10", "Content-Length": "0"}),
        lambda _: json_response({"id": "ORD-11"}, 200, Location="/orders/ORD-11"),
    ]
    created = {
        "201": {
            "description": "created",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        "200": OUT["200"],
    }
    router = _router()
    post = {"operationId": "create_order", "responses": created}
    router.add_openapi(_document(server.base_url, {"/orders": {"post": post}}), provider="shop")
    options: dict[str, Any] = {"allow_effects": ["write"], "approve": _yes}
    result = _call(mode, router, "shop/rest/create_order", {}, **options)
    assert result.ok and result.output == {"id": "ORD-9"}
    assert result.location == f"{server.base_url}/orders/ORD-9"
    assert call_payload(result)["location"] == result.location  # what an agent reads back
    with pytest.raises(OutputValidationError) as caught:
        _call(mode, router, "shop/rest/create_order", {}, **options)
    assert f"Location: {server.base_url}/orders/ORD-10" in str(caught.value)
    assert _call(mode, router, "shop/rest/create_order", {}, **options).location is None


@MODES
def test_a_problem_json_answer_is_on_the_error_whole_and_redacted(
    mode: str, server: LoopbackServer, app: Scripted
) -> None:
    """A 422 ``application/problem+json`` answer reached the caller as the first 200
    characters of its text inside the message: its ``errors`` list cut off, nothing to read
    as data (user trial W). The error's ``body`` holds the JSON whole, a credential value the
    server echoed redacted; a body that is no JSON leaves it ``None``."""
    problem = {
        "type": "about:blank",
        "title": "Unprocessable",
        "status": 422,
        "detail": "key SECRET-KEY-123 may not create orders",
        "errors": [{"field": f"items[{i}].sku", "message": "unknown"} for i in range(20)],
    }
    body = json.dumps(problem).encode()
    app.script["/orders"] = [
        lambda _: Response(422, body, {"Content-Type": "application/problem+json"}),
        lambda _: Response(409, b"conflict", {"Content-Type": "text/plain"}),
    ]
    document = _document(server.base_url, {"/orders": {"post": {"responses": OUT}}})
    document["components"] = {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}
    }
    document["security"] = [{"key": []}]
    router = _router()
    router.add_openapi(document, provider="shop")
    (route_id,) = router.snapshot().routes
    options: dict[str, Any] = {
        "allow_effects": ["write"],
        "approve": _yes,
        "credentials": MappingCredentials({"SHOP_API_KEY": "SECRET-KEY-123"}),
    }
    with pytest.raises(InvocationError) as caught:
        _call(mode, router, route_id, {}, **options)
    got = caught.value.body
    assert got["errors"] == problem["errors"] and got["status"] == 422
    assert "SECRET-KEY-123" not in json.dumps(got)
    with pytest.raises(InvocationError) as caught:
        _call(mode, router, route_id, {}, **options)
    assert caught.value.body is None
