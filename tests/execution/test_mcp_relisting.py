"""A live MCP server whose tools change after ``add_mcp_server`` (user trial V #1): the new
listing is registered even where ``effect_overrides`` names a tool the server dropped, and
where a new listing cannot be registered its changed tools are never run under their old
registration. The server is tests/mcp_servers/changing_server.py, a real ``MCPServer`` over
stdio: its ``upgrade`` tool drops ``legacy_report``, adds ``calibrate_sensor``, marks
``purge_samples`` destructive and sends ``notifications/tools/list_changed``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import GateError, InvocationError, PolicyError
from schemarouter.index import HashingEncoder

SERVER = Path(__file__).parents[1] / "mcp_servers" / "changing_server.py"
ALLOW = {"allow_effects": ["read", "write"], "approve": lambda *_: True}


def _router(log: Path, **options: Any) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="lab",
        trusted=True,
        env={"CHANGING_LOG": str(log)},
        **options,
    )
    return router


def _effect(router: SchemaRouter, route_id: str) -> Effect | None:
    route = router.snapshot().routes.get(route_id)
    return None if route is None else route.endpoint.effect


def _upgrade(router: SchemaRouter) -> None:
    assert router.call("lab/mcp/upgrade", {}, **ALLOW).output == {"result": "version 2"}
    time.sleep(0.5)  # the notification reaches the session; the next call lists the tools


def test_an_override_of_a_tool_the_server_dropped_does_not_keep_its_new_tools_out(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.log"
    router = _router(log, effect_overrides={"legacy_report": "read"})
    try:
        assert _effect(router, "lab/mcp/legacy_report") is Effect.READ  # the override
        _upgrade(router)
        router.call("lab/mcp/server_pid", {}, **ALLOW)  # lists the changed tools
        deadline = time.monotonic() + 30
        while _effect(router, "lab/mcp/purge_samples") is not Effect.DESTRUCTIVE:
            assert time.monotonic() < deadline, "the changed listing was not registered"
            time.sleep(0.05)
        assert "lab/mcp/legacy_report" not in router.snapshot().routes
        found = [c.route_id for c in router.retrieve("legacy monthly usage report", k=5)]
        assert "lab/mcp/legacy_report" not in found
        with pytest.raises(PolicyError, match="destructive"):
            router.call("lab/mcp/purge_samples", {}, **ALLOW)
        with pytest.raises(GateError):
            router.call("lab/mcp/legacy_report", {"month": "2025-03"}, **ALLOW)
        out = router.call("lab/mcp/calibrate_sensor", {"sensor": "t1"}, **ALLOW)
        assert out.output == {"result": "calibrated t1"}
    finally:
        router.close()
    assert "purge_samples" not in log.read_text().split()


def test_a_changed_tool_whose_new_listing_cannot_be_registered_is_never_run(
    tmp_path: Path,
) -> None:
    """A registry listener that fails (an index that cannot take the change) undoes the
    re-registration: the old ``purge_samples`` (write) stays registered, but a call of it
    is refused every time, saying why, and never reaches the server."""
    log = tmp_path / "calls.log"
    router = _router(log)
    refuse = {"on": False, "refused": 0}

    def failing_index(snapshot: Any, change: Any) -> None:
        if refuse["on"] and change.version > 1:  # not the undo that follows
            refuse["refused"] += 1
            raise RuntimeError("the index cannot take the change")

    router.registry.subscribe(failing_index)
    try:
        refuse["on"] = True
        _upgrade(router)
        deadline = time.monotonic() + 30
        while not refuse["refused"]:  # the changed listing reached the registry and failed
            assert time.monotonic() < deadline, "the changed listing was never registered"
            router.call("lab/mcp/server_pid", {}, **ALLOW)  # lists where the server said so
            time.sleep(0.05)
        assert _effect(router, "lab/mcp/purge_samples") is Effect.WRITE  # the old one
        for _ in range(3):  # not "refused once, call it again"
            with pytest.raises(InvocationError, match="could not be registered"):
                router.call("lab/mcp/purge_samples", {}, **ALLOW)
        assert "purge_samples" not in log.read_text().split()
    finally:
        router.close()
