"""The gateway under the second adversarial review (issue #24): tool names an upstream
cannot make collide, and one bad pair never disables the lookups of the others."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import GateError
from schemarouter.index import HashingEncoder
from schemarouter.integrations.names import (
    TOOL_NAME_PATTERN,
    assign_tool_names,
    route_for_tool,
    tool_name,
    tool_names,
)
from schemarouter.serve import Gateway, GatewayConfig

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
