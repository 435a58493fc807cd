"""A live MCP server registered again while other threads call its tools (user trial Q): a
tool is callable from the moment the registry publishes it, whether ``add_mcp_server(...,
replace=True)`` or a relisting after ``notifications/tools/list_changed`` registered it.

The server is real: tests/mcp_servers/changing_server.py over stdio (version 1, then
``--v2``, which adds ``calibrate_sensor``; its ``upgrade`` tool switches a running server).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError, SchemaRouterError
from schemarouter.execution.invokers.payload import counts_for_health
from schemarouter.index import HashingEncoder

SERVER = Path(__file__).parents[1] / "mcp_servers" / "changing_server.py"
ALLOW = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
CALIBRATE = "lab/mcp/calibrate_sensor"


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _at_publish(router: SchemaRouter, route_id: str, *, call: bool = True) -> list[Any]:
    """What another thread gets at the moment a change that registers ``route_id`` is
    published (right after the registry swaps its snapshot in, once its listeners, the
    router's index among them, took it; before the registration binds): whether the route
    is bound, and its call's output or error (no call with ``call=False``: a relisting in
    progress holds the server's calls until the listing is registered, which this holds)."""
    seen: list[Any] = []
    registry = router.registry
    commit = registry._commit

    def look() -> None:
        bound = router.is_bound(route_id)
        try:
            out = router.call(route_id, {"sensor": "t1"}, **ALLOW).output if call else None
        except SchemaRouterError as exc:
            out = exc
        seen.append((bound, out))

    def published(snapshot: Any, change: Any, *, source: str) -> None:
        commit(snapshot, change, source=source)
        fresh = route_id in (*change.added, *change.replaced)
        if fresh and not seen and registry._snapshot is snapshot:
            thread = threading.Thread(target=look)
            thread.start()
            thread.join(30)

    registry._commit = published  # type: ignore[method-assign]
    return seen


def test_a_server_added_again_is_callable_the_moment_its_tools_are_published() -> None:
    """``add_mcp_server(..., replace=True)`` of a new release: the registry published its
    tools, then the index embedded them, and only then were they bound to the new session;
    meanwhile another thread's call was refused ("not bound to an invoker at its current
    fingerprint. Bind it (router.bind, ...) first": 11 calls of 4,400 in trial Q's churn)."""
    with _router() as router:
        router.add_mcp_server([sys.executable, str(SERVER)], provider="lab", trusted=True)
        seen = _at_publish(router, CALIBRATE)
        router.add_mcp_server(
            [sys.executable, str(SERVER), "--v2"], provider="lab", trusted=True, replace=True
        )
        assert seen == [(True, {"result": "calibrated t1"})]


def test_a_tool_a_relisting_registers_is_callable_the_moment_it_is_published() -> None:
    """The server says its tools changed: the session lists them and registers the new ones
    in a batch, bound after the batch had published them."""
    with _router() as router:
        router.add_mcp_server([sys.executable, str(SERVER)], provider="lab", trusted=True)
        seen = _at_publish(router, CALIBRATE, call=False)
        router.call("lab/mcp/upgrade", {}, **ALLOW)
        deadline = time.monotonic() + 30
        while not seen:
            assert time.monotonic() < deadline, "the changed listing was never registered"
            time.sleep(0.05)
        assert seen == [(True, None)]
        assert router.call(CALIBRATE, {"sensor": "t1"}, **ALLOW).output == {
            "result": "calibrated t1"
        }


SLOW = Path(__file__).parents[1] / "mcp_servers" / "slow_server.py"


def _in_flight(router: SchemaRouter, route_id: str, arguments: dict[str, Any]) -> Any:
    """Start ``router.call(route_id, arguments)`` in another thread; returns a function that
    waits for it and gives its output or error."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(router.call(route_id, arguments, **ALLOW).output)
        except SchemaRouterError as exc:
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()

    def result() -> Any:
        thread.join(30)
        return out[0] if out else "hung"

    return result


def test_a_call_in_flight_keeps_its_session_when_the_server_is_added_again_or_removed(
    tmp_path: Path,
) -> None:
    """The replaced (or removed) server's session was closed at once: a read in flight
    failed as a lost session, was tried again on the closed session ("closed by its owner
    (router.close())"), and counted against the route's health: in trial Q's churn three of
    them took routes the new session serves offline for 60 s (1,005 calls refused). A
    replaced session now closes once its calls in flight have ended."""
    log = tmp_path / "calls.log"
    command = [sys.executable, str(SLOW)]
    with _router() as router:
        router.add_mcp_server(command, provider="slow", env={"SLOW_LOG": str(log)})
        wait = "slow/mcp/wait"
        old = router.binding(wait)
        result = _in_flight(router, wait, {"seconds": 1.5})
        time.sleep(0.7)  # the call reached the server
        router.add_mcp_server(command, provider="slow", replace=True, env={"SLOW_LOG": str(log)})
        assert result() == {"result": "read"}  # its own session, open until it answered
        assert router.binding(wait) is not old
        time.sleep(0.5)
        assert old.closed
        assert wait not in router.health_monitor._failures  # no failure counted
        # a write in flight when its provider is removed: answered, sent once
        write = _in_flight(router, "slow/mcp/wait_and_write", {"seconds": 1.5})
        time.sleep(0.7)
        router.remove_provider("slow")
        assert write() == {"result": "written"}
        assert log.read_text().split().count("wait_and_write") == 1


def test_calls_in_flight_when_the_router_closes_say_so_and_are_no_failure_of_their_routes(
    tmp_path: Path,
) -> None:
    """``router.close()`` while a read and a write were in flight: both failed as a lost
    session ("the next call reconnects", which it does not: the router is closed), counted
    against their routes' health, so after ``add_mcp_server(..., replace=True)`` the routes
    a close had caught mid-call could cool down for 60 s (trial Q: 8 calls in flight, both
    routes unhealthy after the close). Closing is the owner's act, not the route's fault."""
    log = tmp_path / "calls.log"
    with _router() as router:
        router.add_mcp_server(
            [sys.executable, str(SLOW)], provider="slow", env={"SLOW_LOG": str(log)}
        )
        read = _in_flight(router, "slow/mcp/wait", {"seconds": 2})
        write = _in_flight(router, "slow/mcp/wait_and_write", {"seconds": 2})
        time.sleep(0.7)  # both reached the server
        router.close()
        for outcome in (read(), write()):
            assert isinstance(outcome, InvocationError), outcome
            assert "closed by its owner during the call (router.close())" in str(outcome)
            assert "may have performed it" in str(outcome)
            assert not counts_for_health(outcome)
        assert not router.health_monitor._failures  # no failure counted
        assert log.read_text().split().count("wait_and_write") == 1


def _server_pids(script: Path) -> list[int]:
    """The processes of ``script`` this process started (stdio servers)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and str(script) in command:
            found.append(int(entry.name))
    return found


def test_a_server_killed_under_many_calls_is_one_failure_of_its_routes() -> None:
    """Trial Q: the stdio server was killed while 12 threads called it; each call in flight
    counted its own failure, so one lost session made its routes unhealthy for 60 s (the
    reads' retries refused: "the route was marked unhealthy meanwhile"; 14,000 calls
    refused after), though the next call reconnected at once. One loss now counts once;
    the reads in flight are tried again through the new session and answer."""
    with _router() as router:
        router.add_mcp_server(
            [sys.executable, str(SLOW)], provider="slow", trusted=True, timeout=60
        )
        (pid,) = _server_pids(SLOW)
        calls = [_in_flight(router, "slow/mcp/wait", {"seconds": 1.0}) for _ in range(6)]
        time.sleep(0.5)  # all six reached the server
        os.kill(pid, signal.SIGKILL)
        assert [call() for call in calls] == [{"result": "read"}] * 6
        assert router.is_healthy("slow/mcp/wait")


def test_a_cancelled_aadd_mcp_server_registers_nothing() -> None:
    """Trial Q: ``asyncio.wait_for(router.aadd_mcp_server(...), 0.3)`` raised its timeout,
    but the thread behind it went on: seconds later the server was registered, bound and
    running, for a caller told it had been cancelled (a retry would then clash with it)."""

    async def add_and_give_up(router: SchemaRouter) -> None:
        try:
            await asyncio.wait_for(
                router.aadd_mcp_server([sys.executable, str(SLOW)], provider="slow"), 0.2
            )
        except TimeoutError:
            pass
        else:
            raise AssertionError("the server was added within 0.2 s: nothing was cancelled")
        await asyncio.sleep(3)  # the opening would have listed the tools by now

    with _router() as router:
        asyncio.run(add_and_give_up(router))
        assert len(router.snapshot()) == 0
        assert not _server_pids(SLOW)  # the server it was opening was stopped
