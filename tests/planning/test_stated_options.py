"""An optional setting the request states is sent as stated, not left to its default
(trial 16, a real stdio MCP server: "restart pod api-7 in staging" restarted ``api-7`` in
``prod``, the ``namespace`` default, whose description lists ``prod, staging, dev``; "force
delete pod worker-3 in dev" deleted it in ``prod`` with ``force=false``). A dry run
is turned off only where the request says so plainly (tests/planning/test_flag_words.py).

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploys_serving import received, serving_deploys

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect, Parameter, ParameterLocation
from schemarouter.planning.stated_options import flag_value, listed_options, listed_value


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


@pytest.mark.parametrize(
    ("query", "call"),
    [
        ("restart pod api-7 in staging", ("restart_pod", {"pod": "api-7", "namespace": "staging"})),
        ("restart pod api-7", ("restart_pod", {"pod": "api-7", "namespace": "prod"})),
        (
            "force delete pod worker-3 in dev",
            ("delete_pod", {"pod": "worker-3", "namespace": "dev", "force": True}),
        ),
        (
            "delete pod worker-3 in dev without force",
            ("delete_pod", {"pod": "worker-3", "namespace": "dev", "force": False}),
        ),
    ],
)
def test_a_stated_setting_is_sent(
    deploys: tuple[SchemaRouter, Path], query: str, call: tuple[str, dict[str, Any]]
) -> None:
    router, log = deploys
    assert received(router, log, query) == [call]


def test_a_dry_run_is_turned_off_only_when_said_plainly(deploys: tuple[SchemaRouter, Path]) -> None:
    router, _ = deploys
    for query, stated in (
        ("do a dry run of deploying service payments version v2.3.1", True),
        ("deploy service payments version v2.3.1 as a dry-run", True),
        ("deploy service payments version v2.3.1, no dry run", False),
        ("deploy service payments version v2.3.1, don't skip the dry run", True),
        ("deploy service payments version v2.3.1", None),
    ):
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert plan.steps[0].route_id == "oncall/mcp/deploy", query
        # said: sent as said; a double negation: a dry run; not said: the server's default
        assert plan.steps[0].arguments.get("dry_run") is stated, (query, plan.steps[0].arguments)


def _parameter(schema: dict[str, Any], description: str = "") -> Parameter:
    return Parameter(
        name="namespace",
        location=ParameterLocation.QUERY,
        json_schema=schema,
        description=description,
    )


def test_listed_values_are_read_from_a_description() -> None:
    text = _parameter({"type": "string"}, "Kubernetes namespace, e.g. prod, staging or dev")
    assert listed_options(text) == ["prod", "staging", "dev"]
    defaulted = _parameter({"type": "string", "default": "prod"}, text.description)
    assert listed_value(defaulted, "restart pod api-7 in Staging") == "staging"
    # several written, one refused, or none: the default stays
    assert listed_value(defaulted, "copy pod api-7 from staging to dev") is None
    assert listed_value(defaulted, "restart pod api-7, not in staging") is None
    assert listed_value(defaulted, "restart pod staging-api-7") is None
    # a required parameter, one with no default, is the caller's to give
    assert listed_value(text, "restart pod api-7 in staging") is None


def test_a_flag_is_true_from_its_words_only() -> None:
    flag = Parameter(
        name="dryRun", location=ParameterLocation.QUERY, json_schema={"type": "boolean"}
    )
    assert flag_value(flag, "a dry run please") is True
    assert flag_value(flag, "as a dry-run") is True
    assert flag_value(flag, "not a dry run") is False
    assert flag_value(flag, "don't do a dry run") is False
    assert flag_value(flag, "don't skip the dry run") is True
    assert flag_value(flag, "deploy payments") is None
