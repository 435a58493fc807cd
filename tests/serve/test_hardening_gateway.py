"""The gateway and its upstream sessions under the second adversarial review (issue #24):
tool names an upstream cannot make collide; replies and error messages bounded while they
are read; timeouts that bound calls and drop the session; a reopened session listed again.
The upstream is tests/mcp_servers/hostile_server.py, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import (
    ArgumentError,
    GateError,
    InvocationError,
    ParameterValidationError,
    RegistrationError,
)
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.integrations.names import (
    TOOL_NAME_PATTERN,
    assign_tool_names,
    route_for_tool,
    tool_name,
    tool_names,
)
from schemarouter.serve import Gateway, GatewayConfig

from servers.processes import http_mcp_server

# -- 1: two tool names that map to one -----------------------------------------------------

#: Tool names whose route ids share the hashed name's 55-character base and whose SHA-256
#: agree in the 8 hex digits of the hashed name (found by a birthday search, 2^16 tries).
LONG = "lookup_" + "x" * 50 + "_"
DIGEST_TWINS = (f"{LONG}77942", f"{LONG}102513")


def _tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Read a note ({name})",
        "inputSchema": {"type": "object", "properties": {"note_id": {"type": "integer"}}},
        "annotations": {"readOnlyHint": True},
    }


def _router(*tools: str) -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_mcp_tools([_tool(t) for t in tools], provider="c", trusted=True)
    router.add_mcp_tools([_tool("search_notes")], provider="other", trusted=True)
    return router


def test_the_digest_twins_really_collide() -> None:
    a, b = (hashlib.sha256(f"c/mcp/{t}".encode()).hexdigest()[:8] for t in DIGEST_TWINS)
    assert a == b
    assert tool_name(f"c/mcp/{DIGEST_TWINS[0]}") == tool_name(f"c/mcp/{DIGEST_TWINS[1]}")


TWIN = "get_note_" + hashlib.sha256(b"c/mcp/get.note").hexdigest()[:8]


@pytest.mark.parametrize(
    ("tools", "preferred"),
    [
        # an upstream's "get.note" and the plain tool named like its hashed name: a plain
        # name ending like a digest is hashed too, so both keep their preferred names
        (("get.note", TWIN), 2),
        (("get.note", TWIN + "_x"), 2),
        # two route ids whose digests collide: one gets the longer digest
        (DIGEST_TWINS, 1),
    ],
)
def test_tool_names_are_unique_and_one_pair_disables_no_lookup(
    tools: tuple[str, str], preferred: int
) -> None:
    """Every ``call_tool`` / ``describe_tool`` by tool name, for every provider of the
    gateway, answered "[SR400] routes ... have the same tool name"."""
    router = _router(*tools)
    snapshot = router.snapshot()
    names = tool_names(snapshot)
    assert len(names) == len(snapshot) == 3
    assert all(TOOL_NAME_PATTERN.match(n) for n in names)
    pair = [f"c/mcp/{t}" for t in tools]
    kept = [r for r in pair if tool_name(r, snapshot=snapshot) == tool_name(r)]
    assert len(kept) == preferred
    gateway = Gateway(router, GatewayConfig(search={"executable_only": False}))
    for route_id in snapshot.route_ids():
        name = tool_name(route_id, snapshot=snapshot)
        assert route_for_tool(snapshot, name) == route_id
        described = gateway.describe(name)
        assert described["route_id"] == route_id and described["name"] == name
    offered = gateway.search("read a note", k=5)["tools"]
    assert len({t["name"] for t in offered}) == len(offered) == 3
    for tool in offered:
        assert gateway.describe(tool["name"])["name"] == tool["name"]
    with pytest.raises(GateError, match="no registered tool"):
        route_for_tool(snapshot, "c__mcp__nothing")


def test_a_later_registration_never_takes_an_earlier_route_s_name() -> None:
    late, early = DIGEST_TWINS  # "...102513" sorts first within one registration
    router = _router(early)
    before = tool_name(f"c/mcp/{early}", snapshot=router.snapshot())
    assert before == tool_name(f"c/mcp/{early}")
    router.add_mcp_tools([_tool(late)], provider="c", trusted=True)  # the same access path
    snapshot = router.snapshot()
    assert tool_name(f"c/mcp/{late}") == before  # its preferred name is taken
    assert tool_name(f"c/mcp/{early}", snapshot=snapshot) == before
    assert tool_name(f"c/mcp/{late}", snapshot=snapshot) != before
    assert len(set(tool_names(snapshot))) == len(snapshot) == 3


def test_assigned_names_within_a_tool_set_are_unique_too() -> None:
    ids = [f"c/mcp/{t}" for t in DIGEST_TWINS] + ["c/mcp/a.b", "c/mcp/a_b"]
    names = assign_tool_names(ids)
    assert len(set(names.values())) == len(ids)
    assert all(TOOL_NAME_PATTERN.match(n) and len(n) <= 64 for n in names.values())


# -- upstream servers that attack: huge replies, long errors, silence ------------------------

HOSTILE = Path(__file__).parents[1] / "mcp_servers" / "hostile_server.py"
#: One attempt; 60 s, far above the bounds below (a call that waited for its timeout fails)
ONCE = ExecutionPolicy(max_attempts=1, timeout=60.0)
#: The reply cap these tests set (the default is 10 MiB): 24 MB passes it many times over.
CAP = 1024 * 1024


@pytest.fixture(params=["stdio", "http"])
def upstream(request: pytest.FixtureRequest) -> Iterator[str | list[str]]:
    """The hostile server over stdio (a command) or streamable HTTP (a URL, answering: its
    first answer may take seconds on a busy machine)."""
    if request.param == "stdio":
        yield [sys.executable, str(HOSTILE)]
    else:
        with http_mcp_server(HOSTILE) as url:
            _warm(url)
            yield url


def _warm(url: str) -> None:
    from schemarouter.execution.invokers.mcp import MCPConnection

    with MCPConnection(url, timeout=120) as warm:
        warm.list_tools()


def _hostile_router(server: str | list[str], **options: Any) -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_mcp_server(server, provider="h", trusted=True, **options)
    return router


def _pid(router: SchemaRouter) -> int:
    pid: int = router.call("h/mcp/pid", {}, policy=ONCE).output["pid"]
    return pid


@pytest.mark.parametrize("id_last", [False, True])
def test_a_reply_past_the_cap_is_refused_while_it_is_read(
    upstream: str | list[str], id_last: bool
) -> None:
    """50 MB over stdio timed out at 30 s and wedged the session (every later call timed
    out, a core busy); 200 MB over streamable HTTP was read whole (+2.4 GB). Now the reply
    is cut as it streams: refused in moments, at most the cap held, the session usable (the
    bounds are far from moments and from the 60 s a wedged session waits)."""
    router = _hostile_router(upstream, max_response_bytes=CAP)
    before = _pid(router)
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(InvocationError) as caught:
            router.call("h/mcp/huge", {"mb": 24, "id_last": id_last}, policy=ONCE)
        refused = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused < 20, refused
    assert peak < 8 * CAP, peak  # the message cap is 2 x CAP; nothing near the 24 MB
    message = str(caught.value)
    if id_last and upstream != "http" and isinstance(upstream, list):
        # no id in the first 64 KiB: the session ends, the call fails as a lost session
        assert "session ended" in message
    else:
        assert f"larger than {2 * CAP + 64 * 1024} bytes, the most one message may have" in (
            message
        )
        assert "twice the response cap, max_response_bytes" in message
    started = time.monotonic()
    assert router.call("h/mcp/echo", {"text": "next"}, policy=ONCE).output == {"text": "next"}
    assert time.monotonic() - started < 20
    if isinstance(upstream, list) and not id_last:
        assert _pid(router) == before  # the same session: the reply was skipped, not fatal
    router.close()


def test_a_reply_that_never_ends_ends_its_stdio_session(caplog: pytest.LogCaptureFixture) -> None:
    """Before: a reply past the cap whose line never ended (its id first) was refused at
    once, but the session went on skipping it for as long as it lived (a core busy reading;
    the server, holding its stdout, answered nothing else): the next call waited for its
    timeout (60 s) and failed. Now a line skipped past the skip limit (256 MiB here) ends
    the session, and the next call starts the server again (the 30 s bound catches a hang:
    the limit is read in moments)."""
    router = _hostile_router([sys.executable, str(HOSTILE)], max_response_bytes=CAP)
    before = _pid(router)
    try:
        with pytest.raises(InvocationError, match="larger than"):
            router.call("h/mcp/endless", {}, policy=ONCE)
        waited = time.monotonic()
        while "that does not end" not in caplog.text:
            assert time.monotonic() - waited < 30, "the line is still read after 30 s"
            time.sleep(0.05)
        answered = router.call("h/mcp/echo", {"text": "next"}, policy=ONCE)
        assert answered.output == {"text": "next"}
        assert _pid(router) != before  # through a new session
    finally:
        router.close()


def test_a_long_upstream_error_is_cut_before_it_is_logged_or_relayed(
    upstream: str | list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A JSON-RPC error with a 60,000-character message was relayed whole and logged whole
    (a Rich handler then stalled the gateway's event loop for 19-56 s)."""
    router = _hostile_router(upstream)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(InvocationError) as caught:
        router.call("h/mcp/long_error", {"chars": 100_000}, policy=ONCE)
    assert len(str(caught.value)) < 800 and "100,000 characters)" in str(caught.value)
    longest = max(len(r.getMessage()) for r in caplog.records)
    assert longest < 2000, longest
    gateway = Gateway(router, GatewayConfig())
    with pytest.raises(InvocationError) as caught:
        asyncio.run(gateway.acall("h__mcp__long_error", {"chars": 100_000}))
    assert len(str(caught.value)) < 800
    router.close()


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"type": "object", "properties": {"key": {"type": "strong"}}}, "invalid JSON Schema"),
        (
            {"type": "object", "properties": {"key": {"$ref": "https://example.com/k.json"}}},
            "is not a local JSON pointer",
        ),
    ],
    ids=["invalid", "remote-ref"],
)
def test_a_bad_tool_definition_is_said_to_whoever_adds_the_server(
    tmp_path: Path, schema: dict[str, Any], said: str
) -> None:
    """Trial G §3: a server listing a tool with an invalid schema or a remote ``$ref`` was
    refused with hints for an OpenAPI author ("Bundle the document first (e.g. `redocly
    bundle` ...)", "Fix the schema ..."): the operator adding a third party's server can
    do neither. The hint says whose definition it is, and that nothing was registered."""
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    command = [sys.executable, str(HOSTILE), "--schema-file", str(schema_file)]
    with pytest.raises(RegistrationError, match=said) as caught:
        router.add_mcp_server(command, provider="h")
    hint = caught.value.hint or ""
    assert "lists this definition itself, so only its maintainers can change it" in hint
    assert "Nothing of the server was registered" in hint
    assert router.snapshot().routes == {}
    router.close()


def test_skip_invalid_tools_registers_the_rest_of_the_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Trial G §2: one tool with an invalid schema kept a third party's whole server out.
    With ``skip_invalid_tools=True`` that tool is left out, said in the change's warnings and
    the log, and the others register and run; a tool listed twice is left out too."""
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps({"type": "object", "properties": {"k": {"type": "strong"}}}))
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    command = [sys.executable, str(HOSTILE), "--schema-file", str(schema_file)]
    try:
        change = router.add_mcp_server(command, provider="h", trusted=True, skip_invalid_tools=True)
        assert "h/mcp/lookup" not in router.snapshot().routes
        assert "h/mcp/echo" in change.added
        (note,) = [w for w in change.warnings if "left out" in w]
        assert "tool left out (skip_invalid_tools): tools[" in note and "'lookup'" in note
        assert "invalid JSON Schema" in note
        assert any("left out" in r.getMessage() for r in caplog.records)
        assert router.call("h/mcp/echo", {"text": "hi"}, policy=ONCE).ok
    finally:
        router.close()
    with pytest.raises(ArgumentError, match="skip_invalid_tools"):
        router.add_mcp_server(command, provider="h2", skip_invalid_tools="yes")


def test_a_tool_with_a_remote_ref_is_not_told_to_bundle_a_document() -> None:
    """Trial U2 (low): a tool of a re-listing (tools/list_changed) with a remote ``$ref`` was
    logged with advice for an OpenAPI author ("Bundle the document first (e.g. `redocly
    bundle` ...)"); a tool's schema is its server's to inline."""
    from schemarouter.adapters.mcp import mcp_tools_registration
    from schemarouter.errors import SchemaRouterError

    tool = {
        "name": "lookup",
        "description": "Look a key up.",
        "inputSchema": {"type": "object", "properties": {"k": {"$ref": "https://x.y/k.json"}}},
    }
    with pytest.raises(SchemaRouterError, match="is not a local JSON pointer") as caught:
        mcp_tools_registration([tool], provider="h")
    hint = caught.value.hint or ""
    assert "redocly" not in hint and "server must inline the schema" in hint, hint


def test_skip_invalid_tools_leaves_out_a_name_listed_twice() -> None:
    from schemarouter.adapters.live_mcp import _without_invalid_tools
    from schemarouter.adapters.mcp import mcp_tools_registration

    def tool(name: str) -> dict[str, Any]:
        return {"name": name, "inputSchema": {"type": "object"}, "description": name}

    def compiled(tools: list[Any], overrides: Any) -> Any:
        return mcp_tools_registration(tools, provider="h", effect_overrides=overrides)

    listing = [tool("a"), tool("b"), tool("a")]
    registration = _without_invalid_tools(listing, {"a": "read", "b": "read"}, compiled, "srv")
    assert [r.route_id for r in registration.routes] == ["h/mcp/b"]
    assert registration.warnings[-1] == (
        "srv: tool left out (skip_invalid_tools): 'a': listed 2 times"
    )


def test_a_malformed_tool_result_is_refused_without_pydantic_s_links(
    upstream: str | list[str],
) -> None:
    """Trial G §3: a ``CallToolResult`` whose content is not a list was refused with the
    SDK's validation error, "For further information visit https://errors.pydantic.dev/..."
    and all, which the agent reads as the tool's answer."""
    router = _hostile_router(upstream)
    try:
        with pytest.raises(InvocationError) as caught:
            router.call("h/mcp/malformed", {}, policy=ONCE)
    finally:
        router.close()
    assert "errors.pydantic.dev" not in str(caught.value)
    assert "content" in str(caught.value)


def test_a_long_upstream_error_does_not_hold_another_client_s_call(
    upstream: str | list[str],
) -> None:
    """Two clients of one gateway: the first gets a 100 kB error message while a Rich
    handler (the SDK server's logging) is installed; the second's call still answers at
    once (the bound: far from once and from the 19-56 s the stall took).
    training/bench/gateway_limits.py measures the same across processes."""
    from rich.console import Console
    from rich.logging import RichHandler

    router = _hostile_router(upstream)
    gateway = Gateway(router, GatewayConfig())
    handler = RichHandler(console=Console(stderr=True, width=100))
    root = logging.getLogger()
    root.addHandler(handler)

    async def both() -> tuple[float, BaseException | None]:
        async def hostile() -> BaseException | None:
            try:
                await gateway.acall("h__mcp__long_error", {"chars": 100_000})
            except InvocationError as exc:
                return exc
            return None

        first = asyncio.create_task(hostile())
        await asyncio.sleep(0)
        started = time.monotonic()
        await gateway.acall("h__mcp__echo", {"text": "other client"})
        return time.monotonic() - started, await first

    try:
        took, error = asyncio.run(both())
    finally:
        root.removeHandler(handler)
        router.close()
    assert isinstance(error, InvocationError)
    assert took < 8, took


def test_an_upstream_timeout_bounds_calls_and_drops_the_session(upstream: str | list[str]) -> None:
    """A per-upstream ``timeout`` bounded only opening and listing; calls waited the policy's
    30 s, and the gateway config could not set it. The timeout bounds starting a stdio
    server too: 15 s leave a loaded machine time for that; 5 s for a warm HTTP server."""
    seconds = 15 if isinstance(upstream, list) else 5
    router = _hostile_router(upstream, timeout=float(seconds))
    before = _pid(router)
    started = time.monotonic()
    with pytest.raises(InvocationError, match=rf"timed out after {seconds} s"):
        router.call("h/mcp/slow", {"seconds": 120}, policy=ExecutionPolicy(max_attempts=1))
    # the message says whose timeout ended it (the policy would say 30 s); the bound is far
    # from the 120 s the tool takes
    assert time.monotonic() - started < seconds + 20
    after = _pid(router)  # the next call opened a new session
    if isinstance(upstream, list):
        assert after != before  # a new server process (stdio)
    router.close()


def test_the_gateway_config_sets_an_upstream_s_call_timeout() -> None:
    """Over streamable HTTP, warmed first: the 5 s bound listing too (reopened after each
    timed-out attempt), and a stdio server may take longer than that to start under load."""
    with http_mcp_server(HOSTILE) as url:
        _warm(url)
        config = GatewayConfig(
            mcp_servers=[{"provider": "h", "url": url, "trusted": True, "timeout": 5}]
        )
        gateway = Gateway.from_config(
            config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
        )
        try:
            started = time.monotonic()
            with pytest.raises(InvocationError, match=r"timed out after 5 s"):
                asyncio.run(gateway.acall("h__mcp__slow", {"seconds": 120}))
            # the policy's three attempts (a read), each bounded by 5 s and a reopened
            # session; unbounded, each would wait the policy's 30 s
            assert time.monotonic() - started < 3 * (5 + 10)
            assert asyncio.run(gateway.acall("h__mcp__echo", {"text": "x"})).output == {"text": "x"}
        finally:
            gateway.close()


# -- a reopened session lists its tools again ------------------------------------------------


def test_a_reopened_session_registers_a_changed_tool_and_refuses_the_stale_call(
    tmp_path: Path,
) -> None:
    """A reconnected session was not listed again: a tool whose schema changed upstream ran
    under its old registration."""
    schema = tmp_path / "schema.json"
    old = {"type": "object", "properties": {"key": {"type": "string"}}}
    new = {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "required": ["id"],
    }
    schema.write_text(json.dumps(old))
    router = _hostile_router([sys.executable, str(HOSTILE), "--schema-file", str(schema)])
    assert router.call("h/mcp/lookup", {"key": "a"}, policy=ONCE).output == {"found": {"key": "a"}}
    before = router.snapshot().route("h/mcp/lookup").fingerprint
    schema.write_text(json.dumps(new))
    with pytest.raises(InvocationError):
        router.call("h/mcp/crash", {}, policy=ONCE)  # the server dies mid-call
    with pytest.raises(InvocationError, match="changed tool 'lookup'"):
        router.call("h/mcp/lookup", {"key": "a"}, policy=ONCE)  # gated under the old schema
    route = router.snapshot().route("h/mcp/lookup")
    assert route.fingerprint != before and route.endpoint.input_schema["required"] == ["id"]
    assert router.is_bound("h/mcp/lookup")
    with pytest.raises(ParameterValidationError):
        router.call("h/mcp/lookup", {"key": "a"}, policy=ONCE)
    assert router.call("h/mcp/lookup", {"id": 5}, policy=ONCE).output == {"found": {"id": 5}}
    router.close()


def test_a_server_s_max_response_bytes_caps_a_tool_s_output(upstream: str | list[str]) -> None:
    """``max_response_bytes=200_000`` let a 225,000-byte output through (only the message,
    read within twice the cap, was held), and a larger one was refused naming a cap of
    465536 bytes nobody set (user trial S #5)."""
    router = _hostile_router(upstream, max_response_bytes=200_000)
    try:
        assert router.call("h/mcp/echo", {"text": "a" * 150_000}, policy=ONCE).ok
        for size in (210_000, 225_000):
            with pytest.raises(InvocationError, match=r"max_response_bytes \(200000 bytes\)"):
                router.call("h/mcp/echo", {"text": "a" * size}, policy=ONCE)
        assert router.is_healthy("h/mcp/echo")  # the request's size, not the server's health
    finally:
        router.close()


def test_a_tool_left_out_on_relisting_does_not_run_under_its_old_definition(
    tmp_path: Path,
) -> None:
    """Trial X2: with ``skip_invalid_tools``, a server whose one tool changed to a definition
    that cannot be registered got the tool left out of the new registration, which then held
    no route, so ``replace`` pruned nothing: the old route stayed registered and, after one
    refusal, the calls ran under the definition the server no longer lists."""
    listing = tmp_path / "tools.json"
    note = {
        "name": "get_note",
        "description": "Get a note by id",
        "inputSchema": {
            "type": "object",
            "properties": {"note_id": {"type": "string"}},
            "required": ["note_id"],
        },
        "annotations": {"readOnlyHint": True},
    }
    listing.write_text(json.dumps([note]))
    server = Path(__file__).parents[1] / "mcp_servers" / "listing_file_server.py"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(server), str(listing)],
            provider="s",
            trusted=True,
            skip_invalid_tools=True,
            relist_s=0,
        )
        assert router.call("s/mcp/get_note", {"note_id": "n1"}, policy=ONCE).ok
        broken = {
            **note,
            "inputSchema": {"type": "object", "properties": {"x": {"type": "strong"}}},
        }
        listing.write_text(json.dumps([broken]))
        refusals = []
        for _ in range(3):
            with pytest.raises((InvocationError, GateError)) as refused:
                router.call("s/mcp/get_note", {"note_id": "n1"}, policy=ONCE)
            refusals.append(str(refused.value))
        assert "s/mcp/get_note" not in router.snapshot().routes
        assert "is not registered" in refusals[-1]
    finally:
        router.close()
    calls = (tmp_path / "tools.json.calls").read_text().splitlines()
    assert len(calls) == 1  # the first call only, under the definition it was listed with


def test_skip_invalid_tools_registers_no_copy_of_a_name_listed_twice(tmp_path: Path) -> None:
    """Trial X2: a server listing ``get_note`` twice, one copy valid and the other ("Delete
    every note") invalid, got the valid copy registered as ``get_note`` and a warning of the
    invalid one only: which definition the server runs under the name is a guess. The name
    is left out, and the warnings say it was listed twice."""
    note = {
        "name": "get_note",
        "description": "Get a note by id",
        "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    }
    other = {
        "name": "get_note",
        "description": "Delete every note",
        "inputSchema": {"type": "object", "properties": {"k": {"type": "strong"}}},
    }
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps([note, other]))
    server = Path(__file__).parents[1] / "mcp_servers" / "listing_file_server.py"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        change = router.add_mcp_server(
            [sys.executable, str(server), str(listing)],
            provider="s",
            trusted=True,
            skip_invalid_tools=True,
        )
    finally:
        router.close()
    assert change.added == ()
    assert any(w.endswith("'get_note': listed 2 times") for w in change.warnings)
