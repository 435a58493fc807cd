"""An update that would change nothing is never sent, whatever the route's kind (trial 11:
"조명 D-302 밝기를 30으로 설정해줘" sent ``update_device(device_id="D-302")`` to a real MCP server,
no field set: an empty write). An OpenAPI update's JSON body stayed missing already; an MCP
tool or a Python callable takes its arguments at the top level, so the same promise is kept
there: an update (``update_*``, ``set_*``, ``patch_*`` ...) of the entry its ids name whose
other parameters the plan fills none of is planned with those parameters missing and a
warning, and ``execute`` refuses it. An action on an entry with only its id (lock a door,
remove a device, update a device's firmware to the latest) is still sent.

The server is real: tests/mcp_servers/devices_server.py over stdio, which logs each call it
receives; the callables log theirs."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from servers import catalogs

SERVER = Path(__file__).parents[1] / "mcp_servers" / "devices_server.py"
UPDATE = "home/mcp/update_device"
ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {
    "allow_effects": ["read", "write", "destructive"],
    "approve": lambda *_: True,
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("devices") / "calls.jsonl"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="home",
        trusted=True,
        env={"DEVICES_LOG": str(log)},
        timeout=60,
    )
    try:
        yield router, log
    finally:
        router.close()


def _received(log: Path) -> list[tuple[str, dict[str, Any]]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]


def _run(router: SchemaRouter, log: Path, plan: Any) -> list[tuple[str, dict[str, Any]]]:
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    return _received(log)


@pytest.mark.parametrize(
    "query", ["조명 D-302 밝기를 30으로 설정해줘", "Update device D-302", "기기 D-302 수정해줘"]
)
def test_an_update_of_nothing_is_planned_missing_and_not_sent(
    home: tuple[SchemaRouter, Path], query: str
) -> None:
    router, log = home
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == (UPDATE,)
    assert plan.steps[0].arguments == {"device_id": "D-302"}
    assert plan.missing_arguments == {UPDATE: ("name|room_id",)}
    said = [w for w in plan.warnings if "changes nothing" in w]
    assert said and "'name'" in said[0] and "'room_id'" in said[0], plan.warnings
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError, match="changes nothing"):
        router.execute(plan, **ALLOW)
    assert _received(log) == []
    # one of the properties given: sent, and nothing is missing any more
    given = plan.with_arguments(UPDATE, {"name": "Desk Lamp"})
    assert given.missing_arguments == {}
    assert _run(router, log, given) == [
        ("update_device", {"device_id": "D-302", "name": "Desk Lamp", "room_id": None})
    ]


def test_execute_refuses_an_update_of_nothing_a_plan_did_not_mark(
    home: tuple[SchemaRouter, Path],
) -> None:
    """A plan built by hand (no missing parameter listed) is refused at execution all the
    same; a ``null`` given for a property sets nothing either."""
    router, log = home
    snapshot = router.snapshot()
    for arguments in ({"device_id": "D-1"}, {"device_id": "D-1", "name": None}):
        step = catalogs.step(snapshot, UPDATE, [], arguments)
        log.write_text("", encoding="utf-8")
        with pytest.raises(ParameterValidationError, match="changes nothing"):
            router.execute(catalogs.plan(snapshot, step), **ALLOW)
        assert _received(log) == []
    step = catalogs.step(snapshot, UPDATE, [], {"device_id": "D-1", "room_id": "RM-2"})
    assert _run(router, log, catalogs.plan(snapshot, step)) == [
        ("update_device", {"device_id": "D-1", "name": None, "room_id": "RM-2"})
    ]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("Rename device D-302 to Desk Lamp", ("update_device", "D-302")),
        ("Move device D-401 to room RM-1", ("update_device", "D-401")),
        ("Lock door D-101", ("lock_door", "D-101")),
        ("Remove device D-401", ("remove_device", "D-401")),
        ("Delete room RM-4", ("delete_room", "RM-4")),
        ("Update the firmware of device D-102", ("update_firmware", "D-102")),
    ],
)
def test_a_change_with_something_to_do_is_sent(
    home: tuple[SchemaRouter, Path], query: str, sent: tuple[str, str]
) -> None:
    """An update that sets a value, and an action on an entry its id alone names (the
    firmware update installs the latest: its ``version`` is no property of the device), go."""
    router, log = home
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.missing_arguments == {}
    assert not [w for w in plan.warnings if "changes nothing" in w]
    received = _run(router, log, plan)
    assert [(tool, a.get("device_id") or a.get("room_id")) for tool, a in received] == [sent]


def test_a_callable_update_of_nothing_is_not_sent() -> None:
    calls: list[dict[str, Any]] = []

    def set_light(light_id: str, brightness: int | None = None, on: bool | None = None) -> str:
        """Set a light's brightness in percent, or switch it on or off."""
        calls.append({"light_id": light_id, "brightness": brightness, "on": on})
        return "ok"

    def cancel_order(order_id: str, reason: str | None = None) -> str:
        """Cancel an order."""
        calls.append({"order_id": order_id, "reason": reason})
        return "ok"

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([set_light, cancel_order], provider="py", effect="write")
    plan = router.plan(PlanRequest(query="Set light L-7", allowed_effects=ALL))
    assert plan.route_ids == ("py/python/set_light",)
    assert plan.missing_arguments == {"py/python/set_light": ("brightness|on",)}
    with pytest.raises(ParameterValidationError, match="changes nothing"):
        router.execute(plan, **ALLOW)
    assert calls == []
    router.execute(plan.with_arguments(0, {"brightness": 30}), **ALLOW)
    assert calls == [{"light_id": "L-7", "brightness": 30, "on": None}]
    calls.clear()
    plan = router.plan(PlanRequest(query="Cancel order O-17", allowed_effects=ALL))
    assert plan.route_ids == ("py/python/cancel_order",) and plan.missing_arguments == {}
    router.execute(plan, **ALLOW)
    assert calls == [{"order_id": "O-17", "reason": None}]


def test_a_default_value_given_is_no_change() -> None:
    """Twelfth security review: an argument equal to the default its parameter declares is
    the call without it (``update_user(user_id="U-1", notify=False)`` is
    ``update_user(user_id="U-1")``), so a plan built by hand with only defaults beside the id
    was sent; it is refused now. A value other than the default (an empty string where the
    default is ``None``, ``True`` where it is ``False``) still goes."""
    calls: list[dict[str, Any]] = []

    def update_user(
        user_id: str, nickname: str = "", notify: bool = False, status: str | None = None
    ) -> str:
        """Update a user's nickname or status."""
        calls.append({"user_id": user_id, "nickname": nickname, "notify": notify})
        return "ok"

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([update_user], provider="py", effect="write")
    snapshot = router.snapshot()
    route = "py/python/update_user"
    for arguments in (
        {"user_id": "U-1", "notify": False},
        {"user_id": "U-1", "nickname": "", "notify": False, "status": None},
    ):
        plan = catalogs.plan(snapshot, catalogs.step(snapshot, route, [], arguments))
        with pytest.raises(ParameterValidationError, match="changes nothing"):
            router.execute(plan, **ALLOW)
    assert calls == []
    for arguments in ({"user_id": "U-1", "notify": True}, {"user_id": "U-1", "status": ""}):
        plan = catalogs.plan(snapshot, catalogs.step(snapshot, route, [], arguments))
        router.execute(plan, **ALLOW)
    assert [c["notify"] for c in calls] == [True, False]
