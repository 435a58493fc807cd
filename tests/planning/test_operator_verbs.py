"""Changes named by an operator's verbs, with the thing they act on written right after
the verb (trial 16, a real stdio MCP server): "roll back search to revision 12" planned
``list_deployments`` ("search" was read as its verb); "scale checkout to 5 replicas in
staging, then show me the deployment" planned ``get_deployment`` in the scale's place (no
table knew "scale", so the request only read); "deploy payments v2.3.1" and the scale left
the deployment's name and the version missing, so nothing was sent.

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploys_serving import ALLOW, received, serving_deploys

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect, Parameter, ParameterLocation
from schemarouter.planning.planner import plan_routes
from schemarouter.planning.route_verbs import opens_with
from schemarouter.planning.verb_objects import version_value


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        (
            "roll back search to revision 12",
            [("rollback_deployment", {"name": "search", "revision": 12, "namespace": "prod"})],
        ),
        (
            "scale checkout to 5 replicas in staging, then show me its pods",
            [
                ("scale_deployment", {"name": "checkout", "replicas": 5, "namespace": "staging"}),
                ("list_pods", {"namespace": "staging"}),
            ],
        ),
        (
            "deploy payments v2.3.1",
            [
                (
                    "deploy",
                    {
                        "service": "payments",
                        "version": "v2.3.1",
                        "dry_run": True,
                        "namespace": "prod",
                    },
                )
            ],
        ),
        # an on-call verb no table knew, with more than its thing and id: one part, the
        # silence never planned (trial 16's R04)
        (
            "silence alert A-9 for 2 hours and resolve incident INC-4",
            [
                ("silence_alert", {"alert_id": "A-9", "duration_minutes": 120}),
                ("resolve_incident", {"id": "INC-4", "note": None}),
            ],
        ),
        (
            "resolve incident INC-4 and silence alert A-9 for 30 minutes",
            [
                ("resolve_incident", {"id": "INC-4", "note": None}),
                ("silence_alert", {"alert_id": "A-9", "duration_minutes": 30}),
            ],
        ),
    ],
)
def test_an_operator_verb_and_its_object_are_sent(
    deploys: tuple[SchemaRouter, Path], query: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    router, log = deploys
    assert received(router, log, query) == calls


@pytest.mark.parametrize(
    "query",
    [
        "don't deploy payments v2.3.1",  # refused: no service read
        "deploy the latest version of payments",  # "latest" names no service; no version
        "can I roll back search to revision 12?",  # a question asks no change
    ],
)
def test_no_name_is_read_where_the_words_give_none(
    deploys: tuple[SchemaRouter, Path], query: str
) -> None:
    router, log = deploys
    sent = received(router, log, query)
    assert all(tool.startswith(("get_", "list_")) for tool, _ in sent), sent


def test_a_phrasal_verb_and_a_version() -> None:
    assert opens_with("roll", "back", "rollback")
    assert opens_with("rolled", "back", "rollback")
    assert opens_with("scaling", "", "scale")
    assert not opens_with("roll", "out", "rollback")
    version = Parameter(
        name="imageTag", location=ParameterLocation.QUERY, json_schema={"type": "string"}
    )
    assert version_value(version, "deploy search 1.9.0 to staging") == "1.9.0"
    assert version_value(version, "upgrade from v1.2 to v1.3") is None


def test_a_part_whose_read_needs_what_it_does_not_give_is_read_by_the_list(
    deploys: tuple[SchemaRouter, Path],
) -> None:
    """The trial's ranking gave "then show me its pods" ``describe_pod`` (its ``pod``
    missing), which held the plan back, the scale before it too: the part is planned by the
    read of the same provider ranked after it that has its fields and needs nothing open."""
    router, log = deploys
    query = "scale checkout to 3 replicas, then show me its pods"
    scale, describe, pods = (
        f"oncall/mcp/{n}" for n in ("scale_deployment", "describe_pod", "list_pods")
    )
    plan = plan_routes(
        PlanRequest(query=query, allowed_effects=frozenset(Effect)),
        router.registry.snapshot(),
        ranked=[scale, describe, pods],
        parts=[("scale checkout to 3 replicas", scale), ("show me its pods", describe)],
        max_calls=3,
    )
    assert [s.route_id for s in plan.steps] == [scale, pods], plan.warnings
    assert any("in place of the better-ranked oncall/mcp/describe_pod" in w for w in plan.warnings)
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    sent = [(c["tool"], c["arguments"]) for c in map(json.loads, log.read_text().splitlines())]
    assert sent == [
        ("scale_deployment", {"name": "checkout", "replicas": 3, "namespace": "prod"}),
        ("list_pods", {"namespace": "prod"}),
    ]
