"""MCP execution: a live stdio session (tests/mcp_servers/materials_server.py) bound to its
routes and called from execute and aexecute; effects from annotations; tool errors."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError, PolicyError
from schemarouter.execution.drivers import aexecute, execute
from schemarouter.execution.invokers import MCPConnection, bind_mcp_session
from schemarouter.execution.results import ExecutionResult
from schemarouter.index import HashingEncoder

from servers import catalogs

SERVER = Path(__file__).parents[1] / "mcp_servers" / "materials_server.py"
BAND_GAP = "materials/mcp/band_gap"


@pytest.fixture(scope="module")
def connection() -> Iterator[MCPConnection]:
    with MCPConnection([sys.executable, str(SERVER)], timeout=60) as conn:
        yield conn


def _router(conn: Any, *, trusted: bool) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    tools = conn.list_tools() if isinstance(conn, MCPConnection) else TOOLS
    router.add_mcp_tools(tools, provider="materials", server=str(SERVER), trusted=trusted)
    assert sorted(bind_mcp_session(router, conn, provider="materials")) == [
        "materials/mcp/add_composition",
        "materials/mcp/band_gap",
        "materials/mcp/delete_structure",
    ]
    return router


def _band_gap_plan(router: SchemaRouter, **arguments: Any) -> Any:
    snapshot = router.snapshot()
    step = catalogs.step(snapshot, BAND_GAP, ["material_id", "band_gap_ev"], arguments)
    return catalogs.plan(snapshot, step)


def test_stdio_session_sync_and_async(connection: MCPConnection) -> None:
    router = _router(connection, trusted=True)
    plan = _band_gap_plan(router, material_id="mp-149", functional="HSE")

    async def run() -> ExecutionResult:
        return await aexecute(router, plan)

    for result in (execute(router, plan), asyncio.run(run())):
        step = result.steps[0]
        assert step.status == "ok"
        assert result.field("band_gap_ev").value == 1.1
        assert result.field("material_id").value == "mp-149"
        assert result.field("band_gap_ev").route_id == BAND_GAP
        assert step.attempts[0].ok and result.calls == 1
    assert "open" in repr(connection)


def test_untrusted_read_claims_need_approval(connection: MCPConnection) -> None:
    router = _router(connection, trusted=False)  # readOnlyHint ignored: band_gap is a write
    plan = _band_gap_plan(router, material_id="mp-149")
    with pytest.raises(PolicyError, match="write"):
        execute(router, plan)
    approved: list[str] = []

    def approve(route: Any, arguments: Any) -> bool:
        approved.append(route.route_id)
        return True

    result = execute(router, plan, allow_effects={"read", "write"}, approve=approve)
    assert result.field("band_gap_ev").value == 1.1 and approved == [BAND_GAP]


def test_destructive_tools_need_their_own_permission(connection: MCPConnection) -> None:
    router = _router(connection, trusted=True)
    snapshot = router.snapshot()
    route_id = "materials/mcp/delete_structure"
    step = catalogs.step(snapshot, route_id, ["result"], {"structure_id": "s-1"})
    plan = catalogs.plan(snapshot, step)
    with pytest.raises(PolicyError, match="destructive"):
        execute(router, plan, allow_effects={"read", "write"}, approve=lambda r, a: True)
    result = execute(router, plan, allow_effects={"destructive"}, approve=lambda r, a: True)
    assert result.field("result").value == "deleted s-1"


# -- in-process doubles (no subprocess) -------------------------------------------------------

TOOLS = {
    "tools": [
        {
            "name": name,
            "inputSchema": {"type": "object", "properties": {"material_id": {"type": "string"}}},
            "outputSchema": {
                "type": "object",
                "properties": {
                    "material_id": {"type": "string"},
                    "band_gap_ev": {"type": "number"},
                },
            },
            "annotations": {"readOnlyHint": True},
        }
        for name in ("band_gap", "delete_structure", "add_composition")
    ]
}


class AsyncOnlySession:
    """A host's own session: async ``call_tool`` only (like ``mcp.Client``)."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        self.calls.append((name, arguments))
        return self.result


def test_an_async_only_session_serves_aexecute_not_execute() -> None:
    session = AsyncOnlySession(
        {"content": [{"type": "text", "text": '{"material_id": "mp-1", "band_gap_ev": 0.5}'}]}
    )
    router = _router(session, trusted=True)
    plan = _band_gap_plan(router, material_id="mp-1")
    result = asyncio.run(aexecute(router, plan))  # text content read as JSON
    assert result.field("band_gap_ev").value == 0.5
    with pytest.raises(InvocationError, match="async only"):
        execute(router, plan)
    assert session.calls == [("band_gap", {"material_id": "mp-1"})]


def test_tool_errors_are_invocation_errors_and_not_retried() -> None:
    session = AsyncOnlySession(
        {"isError": True, "content": [{"type": "text", "text": "material not found"}]}
    )
    router = _router(session, trusted=True)
    with pytest.raises(InvocationError, match="material not found"):
        asyncio.run(aexecute(router, _band_gap_plan(router, material_id="nope")))
    assert len(session.calls) == 1
    assert router.is_healthy(BAND_GAP)


def test_bind_needs_a_session() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    with pytest.raises(TypeError, match="call_tool"):
        bind_mcp_session(router, object(), provider="materials")
