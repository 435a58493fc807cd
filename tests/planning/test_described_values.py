"""A read's settings that its descriptions name are taken from the request (trial 16, a real
stdio MCP server: "show me the last 50 lines of logs from pod checkout-5d9f-x2" sent
``tail=100``, the default, though ``tail`` is "Number of lines from the end"; "... then show
me the pods of checkout" listed every pod, ``deployment`` "Only the pods of this
deployment" left unset).

The server is real: tests/mcp_servers/pods_server.py over stdio, which logs each call with
the arguments it received, defaults included."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect, Parameter, ParameterLocation
from schemarouter.planning.described_values import described_count, owner_value

SERVER = Path(__file__).parents[1] / "mcp_servers" / "pods_server.py"
LOGS = {"pod": "checkout-5d9f-x2", "since_minutes": 60, "namespace": "prod"}


@pytest.fixture(scope="module")
def pods(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("pods") / "calls.jsonl"
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)], provider="pods", env={"PODS_LOG": str(log)}, timeout=60
    )
    try:
        yield router, log
    finally:
        router.close()


def received(pods: tuple[SchemaRouter, Path], query: str) -> list[tuple[str, dict[str, Any]]]:
    router, log = pods
    log.write_text("", encoding="utf-8")
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    router.execute(plan, allow_effects=["read", "write"], approve=lambda *_: True)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]


@pytest.mark.parametrize(
    ("query", "arguments"),
    [
        ("show me the last 50 lines of logs from pod checkout-5d9f-x2", {"tail": 50}),
        ("give me the last 20 log lines of pod checkout-5d9f-x2", {"tail": 20}),
        (
            "show me the last 50 lines of logs from pod checkout-5d9f-x2 for the past 30 minutes",
            {"tail": 50, "since_minutes": 30},
        ),
        # no count of lines, or two: the default
        ("show me the logs of pod checkout-5d9f-x2", {"tail": 100}),
        ("show me 20 or 50 lines of logs from pod checkout-5d9f-x2", {"tail": 100}),
    ],
)
def test_a_count_its_description_names_is_sent(
    pods: tuple[SchemaRouter, Path], query: str, arguments: dict[str, Any]
) -> None:
    assert received(pods, query) == [("get_pod_logs", {**LOGS, "tail": 100, **arguments})]


@pytest.mark.parametrize(
    ("query", "deployment"),
    [
        ("show me the pods of checkout", "checkout"),
        ("list the pods of the checkout deployment in staging", "checkout"),
        ("list pods for deployment search", "search"),
        ("list the pods of the deployment named search", "search"),
        # no owner named, a pronoun, or two: every pod
        ("list the pods", None),
        ("list all the pods of it", None),
        ("list the pods of checkout and the pods of search", None),
    ],
)
def test_the_owner_its_description_names_filters_the_list(
    pods: tuple[SchemaRouter, Path], query: str, deployment: str | None
) -> None:
    namespace = "staging" if "staging" in query else "prod"
    assert received(pods, query) == [
        ("list_pods", {"namespace": namespace, "deployment": deployment})
    ]


def test_a_write_then_the_pods_of_its_deployment(pods: tuple[SchemaRouter, Path]) -> None:
    assert received(pods, "scale checkout to 5 replicas, then show me the pods of checkout") == [
        ("scale_deployment", {"name": "checkout", "replicas": 5, "namespace": "prod"}),
        ("list_pods", {"namespace": "prod", "deployment": "checkout"}),
    ]


def test_what_a_description_does_not_say_is_not_read() -> None:
    def parameter(name: str, schema: dict[str, Any], description: str) -> Parameter:
        return Parameter(
            name=name,
            location=ParameterLocation.ARGUMENT,
            json_schema=schema,
            description=description,
        )

    minutes = parameter("since_minutes", {"type": "integer"}, "Only lines from the last N minutes")
    assert described_count(minutes, "the last 50 lines") is None
    owner = parameter("deployment", {"type": "string"}, "Only the pods of this deployment")
    assert owner_value(owner, "the pods of checkout") == "checkout"
    # a required parameter is the caller's; an owner the name does not name is none
    required = Parameter(
        name="deployment",
        location=ParameterLocation.ARGUMENT,
        json_schema={"type": "string"},
        description=owner.description,
        required=True,
    )
    assert owner_value(required, "the pods of checkout") is None
    other = parameter("team", {"type": "string"}, "Only the pods of this deployment")
    assert owner_value(other, "the pods of checkout") is None
