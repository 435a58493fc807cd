"""Among the routes that do the change a request asks, the one that takes the ids it names is
planned (trial 11). "기기 D-401 삭제해줘" (delete device D-401) planned ``delete_room``, the
first route doing a deletion, though ``remove_device`` (read as a deletion too: "remove",
"erase", "unregister" ... name ``delete``) takes the device id and ``delete_room`` takes
none; "Move device D-401 to room RM-1" planned a filesystem's ``move_file``, which takes
neither id, over ``update_device``, ranked first, which takes both.

The server is real: tests/mcp_servers/devices_server.py over stdio; ``move_file`` is another
provider's listed tool (the MCP Filesystem server's)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.mixed_verbs import asked_verb_first
from schemarouter.retrieval.actions import verb_of_route

SERVER = Path(__file__).parents[1] / "mcp_servers" / "devices_server.py"
ALL = frozenset(Effect)
MOVE_FILE = {
    "name": "move_file",
    "description": "Move or rename files and directories. Can move files between "
    "directories and rename them in a single operation.",
    "inputSchema": {
        "type": "object",
        "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
        "required": ["source", "destination"],
    },
}


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SchemaRouter]:
    log = tmp_path_factory.mktemp("devices") / "calls.jsonl"
    out = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    out.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="home",
        trusted=True,
        env={"DEVICES_LOG": str(log)},
        timeout=60,
    )
    out.add_mcp_tools({"tools": [MOVE_FILE]}, provider="filesystem")
    try:
        yield out
    finally:
        out.close()


def test_remove_is_read_as_a_deletion(router: SchemaRouter) -> None:
    snapshot = router.snapshot()
    assert verb_of_route(snapshot.routes["home/mcp/remove_device"]) == "delete"
    assert verb_of_route(snapshot.routes["home/mcp/delete_room"]) == "delete"


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        ("기기 D-401 삭제해줘", "home/mcp/remove_device", {"device_id": "D-401"}),
        ("Delete device D-401", "home/mcp/remove_device", {"device_id": "D-401"}),
        ("기기 D-401 제거해줘", "home/mcp/remove_device", {"device_id": "D-401"}),
        ("Remove device D-401", "home/mcp/remove_device", {"device_id": "D-401"}),
        # the other way round: a room is deleted by delete_room, "remove" or 삭제
        ("Remove room RM-4", "home/mcp/delete_room", {"room_id": "RM-4"}),
        ("방 RM-4 삭제해줘", "home/mcp/delete_room", {"room_id": "RM-4"}),
    ],
)
def test_the_deletion_that_takes_the_named_id_is_planned(
    router: SchemaRouter, query: str, route: str, arguments: dict[str, str]
) -> None:
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == (route,), plan.warnings
    assert plan.steps[0].arguments == arguments
    assert plan.missing_arguments == {}


def _values(router: SchemaRouter, query: str) -> list:
    return list(router.ranker.rank(query, 20).analysis.values)


def test_a_route_doing_the_verb_that_takes_no_named_id_is_not_put_first(
    router: SchemaRouter,
) -> None:
    """As ranked in the trial: ``update_device`` first, ``move_file`` among the five best."""
    snapshot = router.snapshot()
    query = "Move device D-401 to room RM-1"
    ranked = ["home/mcp/update_device", "home/mcp/delete_room", "filesystem/mcp/move_file"]
    warnings: list[str] = []
    out = asked_verb_first(query, snapshot, ranked, warnings, _values(router, query))
    assert out[0] == "home/mcp/update_device", warnings
    assert any("takes none of" in w and "move_file" in w for w in warnings), warnings
    # a route doing the verb that takes the id is still put first
    ranked = ["home/mcp/lock_door", "home/mcp/delete_room", "home/mcp/remove_device"]
    query = "Delete device D-401"
    out = asked_verb_first(query, snapshot, ranked, [], _values(router, query))
    assert out[0] == "home/mcp/remove_device"
    # and where the request names no id, the first route doing the verb, as before
    query = "Move a.txt to b.txt"
    ranked = ["home/mcp/update_device", "filesystem/mcp/move_file"]
    out = asked_verb_first(query, snapshot, ranked, [], _values(router, query))
    assert out[0] == "filesystem/mcp/move_file"
