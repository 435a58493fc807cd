"""add_mcp_server binds its tools to a session the router owns (sync and async), the effect
rule for annotated and unannotated tools, and a session that reconnects when the server dies.

The server is real: tests/mcp_servers/notes_server.py over stdio (and streamable HTTP).
Before this change the tools of add_mcp_server stayed unbound and could not run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import Effect, ExecutionPolicy, SchemaRouter
from schemarouter.errors import (
    InvocationError,
    OutputValidationError,
    PolicyError,
    RegistrationError,
)
from schemarouter.execution.invokers.mcp import McpCall, call_sync
from schemarouter.execution.invokers.mcp_session import ManagedMCPSession
from schemarouter.execution.invokers.payload import counts_for_health, is_retryable
from schemarouter.index import HashingEncoder
from schemarouter.integrations.names import tool_name
from schemarouter.serve import Gateway, GatewayConfig

from servers.processes import free_port, http_mcp_server, serving

NOTES = Path(__file__).parents[1] / "mcp_servers" / "notes_server.py"
COMMAND = [sys.executable, str(NOTES)]
DRIFTING = Path(__file__).parents[1] / "mcp_servers" / "drifting_server.py"


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


@pytest.fixture(scope="module")
def trusted() -> Iterator[SchemaRouter]:
    with _router() as router:
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
        yield router


def _effects(router: SchemaRouter) -> dict[str, Effect]:
    return {r.endpoint.name: r.endpoint.effect for r in router.snapshot()}


def test_tools_run_at_once_sync_and_async(trusted: SchemaRouter) -> None:
    assert all(trusted.is_bound(r) for r in trusted.snapshot().route_ids())
    found = trusted.call("notes/mcp/search_notes", {"query": "band gap"})
    assert found.ok and found.output["total"] == 1
    assert found.output["notes"][0]["title"] == "GaN band gap"
    note = asyncio.run(trusted.acall("notes/mcp/get_note", {"note_id": 3}))
    assert note.output["title"] == "Battery cathodes"
    executable = trusted.retrieve_executable("search research notes", k=3)
    assert "notes/mcp/search_notes" in executable.route_ids
    plan = trusted.plan("search research notes")
    assert plan.steps and plan.missing_arguments  # the query argument is the caller's


def test_trusted_effects_follow_the_annotations(trusted: SchemaRouter) -> None:
    effects = _effects(trusted)
    assert effects["search_notes"] is Effect.READ  # readOnlyHint
    assert effects["delete_note"] is Effect.DESTRUCTIVE  # destructiveHint
    assert effects["add_note"] is Effect.WRITE  # no annotations: the default, write
    with pytest.raises(PolicyError, match="effect write"):
        trusted.call("notes/mcp/add_note", {"title": "t", "text": "x"})


def test_untrusted_means_write_and_defaults_need_trust(trusted: SchemaRouter) -> None:
    with _router() as router:
        router.add_mcp_server(
            COMMAND,
            provider="notes",
            timeout=60,
            effect_overrides={"get_note": "read"},  # the caller's own word wins
        )
        effects = _effects(router)
        assert effects["search_notes"] is Effect.WRITE  # readOnlyHint ignored
        assert effects["delete_note"] is Effect.DESTRUCTIVE
        assert effects["get_note"] is Effect.READ
        assert router.call("notes/mcp/get_note", {"note_id": 1}).ok
    with pytest.raises(RegistrationError, match="trusted servers only"):
        _router().add_mcp_server(COMMAND, provider="notes", default_effect="read")
    listing = trusted.binding("notes/mcp/get_note").list_tools()
    with pytest.raises(RegistrationError, match="does not list: nope"):
        _router().add_mcp_tools(listing, provider="notes", effect_overrides={"nope": "read"})


def test_a_trusted_default_for_unannotated_tools() -> None:
    with _router() as router:
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, default_effect="read")
        assert _effects(router)["add_note"] is Effect.READ
        assert _effects(router)["delete_note"] is Effect.DESTRUCTIVE  # still its own claim


def test_async_registration_binds_too() -> None:
    async def run() -> str:
        router = _router()
        try:
            await router.aadd_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
            result = await router.acall("notes/mcp/get_note", {"note_id": 2})
            return str(result.output["title"])
        finally:
            router.close()

    assert asyncio.run(run()) == "GaN band gap"


def test_the_session_reconnects_after_the_server_died() -> None:
    with _router() as router:
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
        first = router.call("notes/mcp/server_pid", {}).output
        # crash ends the process in the middle of the call: the call fails, the next reconnects
        with pytest.raises(InvocationError, match="session ended during the call"):
            router.call("notes/mcp/crash", {}, policy=ExecutionPolicy(max_attempts=1))
        again = router.call("notes/mcp/server_pid", {})
        assert again.ok and again.output != first  # a new server process answered
        session = router.binding("notes/mcp/server_pid")
        assert isinstance(session, ManagedMCPSession) and session.reconnects >= 1


WRITES = {"allow_effects": {"read", "write"}, "approve": lambda route, arguments: True}


def _wait_for_exit(pid: int) -> None:
    """Until the server (a child of this process) has exited; it is left for its owner to reap."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
        except ChildProcessError:  # reaped already
            return
        time.sleep(0.02)
    raise AssertionError(f"the server {pid} did not exit")


def test_a_write_after_the_server_died_while_idle_reopens_first() -> None:
    """Nothing was in flight, so nothing can have run: the write is sent through a new session.
    It failed as "the MCP session ended during the call" (trial B §1) and only a second,
    identical call ran it."""
    with _router() as router:
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
        session = router.binding("notes/mcp/add_note")
        assert isinstance(session, ManagedMCPSession)
        for round, call in enumerate((router.call, router.acall), start=1):
            pid = router.call("notes/mcp/server_pid", {}).output["result"]
            os.kill(pid, signal.SIGKILL)
            _wait_for_exit(pid)
            arguments = {"title": f"idle {round}", "text": "sent once"}
            result = call("notes/mcp/add_note", arguments, **WRITES)
            if asyncio.iscoroutine(result):
                result = asyncio.run(result)
            assert result.ok and result.output["title"] == f"idle {round}"
            assert session.reconnects == round
        assert router.call("notes/mcp/server_pid", {}).output["result"] != pid


def test_a_write_in_flight_when_the_server_died_fails_and_is_not_resent() -> None:
    with _router() as router:
        router.add_mcp_server(
            COMMAND, provider="notes", trusted=True, timeout=60, effect_overrides={"crash": "write"}
        )
        session = router.binding("notes/mcp/crash")
        assert isinstance(session, ManagedMCPSession)
        with pytest.raises(InvocationError, match="session ended during the call"):
            router.call("notes/mcp/crash", {}, **WRITES)
        assert session.reconnects == 0  # not sent again through a new session
        assert router.call("notes/mcp/server_pid", {}).ok and session.reconnects == 1


def test_an_output_that_breaks_its_output_schema_is_the_routers_to_report() -> None:
    """The SDK client checked the output first and raised a RuntimeError, reported as SR602
    with the output lost, even with partial=True (trial B §3)."""
    with _router() as router:
        router.add_mcp_server([sys.executable, str(DRIFTING)], provider="d", trusted=True)
        for call in (router.call, router.acall):
            with pytest.raises(OutputValidationError, match=r"output \$\.count") as caught:
                result = call("d/mcp/count_items", {})
                if asyncio.iscoroutine(result):
                    asyncio.run(result)
            assert caught.value.code == "SR603"
        kept = router.call("d/mcp/count_items", {}, partial=True)
        assert kept.status == "partial" and kept.output == {"count": "many", "unit": "boxes"}
        assert [issue.path for issue in kept.issues] == ["$.count"]


def test_a_session_that_cannot_reopen_says_so_with_its_own_timeout(tmp_path: Path) -> None:
    """A reopen that ran out of time was reported as a call that "timed out after 30 s" (the
    route's default), whatever timeout the server was given. 20 s: time for a loaded
    machine to start the server (twice); the hanging one waits 120 s."""
    hang = tmp_path / "hang"  # once it exists, a new server process never answers
    wrapper = (
        "import os, runpy, sys, time\n"
        f"if os.path.exists({str(hang)!r}): time.sleep(120)\n"
        f"sys.argv = [{str(NOTES)!r}]\n"
        f"runpy.run_path({str(NOTES)!r}, run_name='__main__')\n"
    )
    with _router() as router:
        router.add_mcp_server(
            [sys.executable, "-c", wrapper], provider="n", trusted=True, timeout=20
        )
        with pytest.raises(InvocationError, match="session ended during the call"):
            router.call("n/mcp/crash", {}, policy=ExecutionPolicy(max_attempts=1))
        hang.touch()
        with pytest.raises(InvocationError) as caught:
            router.call("n/mcp/server_pid", {}, policy=ExecutionPolicy(max_attempts=1))
        assert "did not open again after it was lost within 20 s" in str(caught.value)
        assert "30 s" not in str(caught.value)
        hang.unlink()  # the server answers again: the next call reopens the session
        assert router.call("n/mcp/server_pid", {}).ok


def test_close_ends_the_sessions_and_refuses_their_routes_until_connected_again() -> None:
    """After close() the routes were still offered by retrieve_executable, and each call
    failed as an InvocationError "open it again first" (no such public method) that counted
    against the route's health: the 4th was refused as unhealthy (trial G §7)."""
    router = _router()
    router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
    session = router.binding("notes/mcp/get_note")
    assert "notes/mcp/get_note" in router.retrieve_executable("get a note", k=5).route_ids
    router.close()
    assert "closed" in repr(session)
    for _ in range(4):
        with pytest.raises(PolicyError, match=r"MCP session that was closed") as refused:
            router.call("notes/mcp/get_note", {"note_id": 1})
        assert "add_mcp_server(" in str(refused.value.hint)
        assert "replace=True" in str(refused.value.hint)
    assert router.is_healthy("notes/mcp/get_note")
    result = router.retrieve_executable("get a note", k=5)
    assert "notes/mcp/get_note" not in result.route_ids
    (left_out,) = [e for e in result.exclusions if e.route_id == "notes/mcp/get_note"]
    assert left_out.reason == "unbound" and "closed (router.close())" in left_out.detail
    assert "router.close()" in result.blocked
    router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60, replace=True)
    try:
        assert router.call("notes/mcp/get_note", {"note_id": 1}).ok
        assert "notes/mcp/get_note" in router.retrieve_executable("get a note", k=5).route_ids
    finally:
        router.close()


def test_a_route_of_a_closed_session_is_executable_nowhere() -> None:
    """After router.close() is_bound stayed true and the gateway's describe_tool said
    "executable": true of the closed session's tools (only retrieve_executable and the gate
    knew better, each with its own check): one check now, read by all of them."""
    router = _router()
    router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
    gateway = Gateway(router, GatewayConfig(search={"rerank": False}))
    name = tool_name("notes/mcp/get_note", snapshot=router.snapshot())
    assert router.is_bound("notes/mcp/get_note") and gateway.describe(name)["executable"]
    assert name in [t["name"] for t in gateway.search("get a note")["tools"]]
    router.close()
    assert router.binding("notes/mcp/get_note") is not None  # still bound, to a closed one
    assert not router.is_bound("notes/mcp/get_note")
    result = router.retrieve_executable("get a note", k=5)
    assert "notes/mcp/get_note" not in result.route_ids
    (left_out,) = [e for e in result.exclusions if e.route_id == "notes/mcp/get_note"]
    assert left_out.reason == "unbound" and "MCP session was closed" in left_out.detail
    found = gateway.search("get a note")
    assert found["tools"] == [] and "its MCP session was closed" in found["blocked"]
    assert gateway.describe(name)["executable"] is False
    with pytest.raises(PolicyError, match=r"bound to an MCP session that was closed"):
        gateway.call(name, {"note_id": 1})
    with pytest.raises(PolicyError, match=r"bound to an MCP session that was closed"):
        router.call("notes/mcp/get_note", {"note_id": 1})


def test_a_call_on_a_closed_session_is_no_failure_of_its_route() -> None:
    """A call that reached a session closed meanwhile (after the gate let it through) failed
    as "open it again first", a failure that counted against the route's health."""
    session = ManagedMCPSession(COMMAND)
    session.close()
    assert session.closed
    with pytest.raises(InvocationError, match=r"router\.close\(\).*replace=True") as caught:
        call_sync(McpCall(session, "get_note", {"note_id": 1}, 5.0, "here"))
    assert not counts_for_health(caught.value) and not is_retryable(caught.value)


def test_replacing_a_server_closes_the_old_session() -> None:
    with _router() as router:
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60)
        old = router.binding("notes/mcp/get_note")
        router.add_mcp_server(COMMAND, provider="notes", trusted=True, timeout=60, replace=True)
        assert router.binding("notes/mcp/get_note") is not old
        assert "closed" in repr(old)
        assert router.call("notes/mcp/get_note", {"note_id": 1}).ok


def test_a_command_that_is_no_server_registers_nothing() -> None:
    router = _router()
    with pytest.raises(RegistrationError, match="MCP server"):
        router.add_mcp_server([sys.executable, "-c", "print('hello')"], provider="x", timeout=20)
    assert len(router.snapshot()) == 0


def test_a_server_that_exits_at_start_says_so_with_its_status() -> None:
    """Both said "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)" (trial B §5)."""
    crashing = [sys.executable, "-c", "import sys; sys.stderr.write('no config\\n'); sys.exit(3)"]
    with pytest.raises(RegistrationError) as caught:
        _router().add_mcp_server(crashing, provider="x", timeout=20)
    assert "the MCP server exited with status 3 before it listed its tools" in str(caught.value)
    nobody = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(RegistrationError, match="ConnectError") as caught:
        _router().add_mcp_server(nobody, provider="x", timeout=20)
    assert "TaskGroup" not in str(caught.value)


@pytest.fixture
def http_notes() -> Iterator[str]:
    with http_mcp_server(NOTES) as url:
        yield url


def test_streamable_http_servers_bind_too(http_notes: str) -> None:
    with _router() as router:
        router.add_mcp_server(http_notes, provider="notes", trusted=True, timeout=60)
        assert router.call("notes/mcp/get_note", {"note_id": 2}).output["id"] == 2


def test_a_plan_reads_the_note_its_search_step_finds(trusted: SchemaRouter) -> None:
    """``get_note`` needs a ``note_id``; ``search_notes`` lists notes with ids: the plan calls
    the search first and binds its first id (tests/planning/test_chained_plans.py for OpenAPI)."""
    plan = trusted.plan("read one note: the research note on 'band gap'", max_calls=2)
    assert plan.route_ids == ("notes/mcp/search_notes", "notes/mcp/get_note")
    assert plan.steps[0].arguments == {"query": "band gap"}
    assert plan.steps[1].bindings["note_id"].path == "notes.*.id"
    result = trusted.execute(plan)
    assert result.steps[1].arguments == {"note_id": 2}
    assert result.steps[1].output["title"] == "GaN band gap"


def test_an_unknown_server_option_is_a_type_error_before_any_server_starts() -> None:
    router = _router()
    with pytest.raises(TypeError, match=r"add_mcp_server\(\) got an unexpected keyword.*trust"):
        router.add_mcp_server(COMMAND, provider="notes", trust=True)
    with pytest.raises(TypeError, match=r"aadd_mcp_server\(\) got an unexpected keyword"):
        asyncio.run(router.aadd_mcp_server(COMMAND, provider="notes", envs={}))
    assert len(router.snapshot()) == 0


def test_an_http_servers_url_credential_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An HTTP upstream's credential has nowhere to travel but its URL (``?token=...``): a
    session lost when its server went away logged the URL whole, token and all ("the MCP
    session ManagedMCPSession('http://.../mcp?token=...') was lost", "MCP connection ...
    ended") in the gateway's log (trial P #1). Sessions and connections name a server by its
    URL without userinfo, query or fragment."""
    secret = "tok-3f9a1c77e2"
    port = free_port()
    caplog.set_level("DEBUG", logger="schemarouter")
    with _router() as router:
        with serving([sys.executable, str(NOTES), "http", str(port)], port):
            url = f"http://127.0.0.1:{port}/mcp?token={secret}"
            router.add_mcp_server(url, provider="notes", trusted=True, timeout=10)
            assert router.call("notes/mcp/get_note", {"note_id": 2}).ok
            session = router.binding("notes/mcp/get_note")
        with pytest.raises(InvocationError):  # the server is gone: the session is lost
            router.call("notes/mcp/get_note", {"note_id": 2})
        assert secret not in repr(session)
    assert "was lost" in caplog.text  # the loss was logged, naming the server
    assert f"127.0.0.1:{port}/mcp" in caplog.text
    assert secret not in caplog.text


def test_an_http_servers_url_credential_is_not_in_the_http_clients_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The MCP SDK's HTTP client logs each request's URL at INFO ("HTTP Request: POST
    http://.../mcp?token=... 200 OK"): with ``serve --log-level info`` every call to an HTTP
    upstream wrote its URL credential to the log (trial P). Its records are redacted while
    the connection lives, as httpx's are for a REST call's query-string key (and the SDK
    transport's "Connecting to StreamableHTTP endpoint: URL" at DEBUG)."""
    secret = "tok-81c4de0b57"
    caplog.set_level("DEBUG")
    with http_mcp_server(NOTES) as url, _router() as router:
        router.add_mcp_server(f"{url}?token={secret}", provider="notes", trusted=True)
        assert router.call("notes/mcp/get_note", {"note_id": 2}).ok
    assert "HTTP Request: POST" in caplog.text  # the client logged its requests
    assert "Connecting to StreamableHTTP endpoint" in caplog.text
    assert secret not in caplog.text
