"""A duration written in another unit of time than the parameter's name ends with is
converted (trial 16, a real stdio MCP server: "silence alert A-9 for 2 hours" and "mute alert
A-31 for 30m" left ``silence_alert``'s ``duration_minutes`` missing, so nothing was sent);
one an integer cannot hold ("for 90 seconds": 1.5 minutes) stays missing.

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from deploys_serving import received, serving_deploys

from schemarouter import SchemaRouter
from schemarouter.contracts import Parameter, ParameterLocation
from schemarouter.planning.durations import duration_value


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


@pytest.mark.parametrize(
    ("query", "minutes"),
    [
        ("silence alert A-9 for 2 hours", 120),
        ("mute alert A-31 for 30m", 30),
        ("silence alert A-9 for 1h30m", 90),
        ("silence alert A-9 for 90 seconds", None),
    ],
)
def test_a_duration_is_sent_in_the_parameters_unit(
    deploys: tuple[SchemaRouter, Path], query: str, minutes: int | None
) -> None:
    router, log = deploys
    sent = received(router, log, max_calls=1, query=query)
    if minutes is None:
        assert sent == []
    else:
        alert = query.split("alert ")[1].split()[0]
        assert sent == [("silence_alert", {"alert_id": alert, "duration_minutes": minutes})]


def test_two_durations_give_none() -> None:
    seconds = Parameter(
        name="timeoutSeconds", location=ParameterLocation.QUERY, json_schema={"type": "number"}
    )
    assert duration_value(seconds, "wait 2 minutes") == 120
    assert duration_value(seconds, "wait 2 minutes, then 5 minutes more") is None
    assert duration_value(seconds, "scale to 5 replicas") is None


def test_a_piece_of_a_name_is_no_duration() -> None:
    # "checkout-5d9f-x2" read as 5 days: get_pod_logs was sent since_minutes=7200 (found
    # beside the trial's "last 50 lines" rule; the pods server's logs test sends it for real)
    minutes = Parameter(
        name="since_minutes", location=ParameterLocation.ARGUMENT, json_schema={"type": "integer"}
    )
    assert duration_value(minutes, "show me the logs of pod checkout-5d9f-x2") is None
    assert duration_value(minutes, "restart pod web-5m") is None
    assert duration_value(minutes, "logs of pod checkout-5d9f-x2 for the past 30m") == 30
    assert duration_value(minutes, "logs of pod checkout-5d9f-x2 for 1h30m.") == 90
    assert duration_value(minutes, "알림을 30분간 꺼 줘") == 30
