"""Words of a setting, a flag, a name or a duration used of something else fill nothing
(review 17, a real stdio MCP server): "deploy payments v2.3.1, the dev said ok" deployed to
the ``dev`` namespace (a person), "restart pod api-7 which staging does not have" restarted it
in ``staging``; "delete pod worker-3, force is not needed" sent ``force=true``; "deploy
quickly payments v2.3.1" deployed the service "quickly"; "silence alert A-9 for 2 hours and 30
minutes" silenced it for 30 minutes, "... for 2 hours or 30 minutes" for 30, and "silence alert
A-9 raised 3 days ago" for 4,320.

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploys_serving import received, serving_deploys

from schemarouter import SchemaRouter
from schemarouter.contracts import Parameter, ParameterLocation
from schemarouter.planning.durations import duration_value
from schemarouter.planning.stated_options import flag_value


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


_PAYMENTS = {"service": "payments", "version": "v2.3.1", "dry_run": True, "namespace": "prod"}


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        # a namespace's word used of a person, a comparison, another clause's subject
        ("deploy payments v2.3.1, the dev said ok", [("deploy", _PAYMENTS)]),
        ("restart pod api-7 which staging does not have",
         [("restart_pod", {"pod": "api-7", "namespace": "prod"})]),
        ("scale checkout to 5 replicas like staging",
         [("scale_deployment", {"name": "checkout", "replicas": 5, "namespace": "prod"})]),
        # ... or in a clause that tells where something was, its subject a pronoun
        ("restart pod api-7, it was fine in staging",
         [("restart_pod", {"pod": "api-7", "namespace": "prod"})]),
        ("deploy payments v2.3.1, we tested it in staging", [("deploy", _PAYMENTS)]),
        ("restart pod api-7 because it crashed in dev",
         [("restart_pod", {"pod": "api-7", "namespace": "prod"})]),
        ("restart the pod api-7 that crashed in dev, in staging",
         [("restart_pod", {"pod": "api-7", "namespace": "staging"})]),
        ("restart that pod api-7 in staging",  # "that" points: no clause of its own
         [("restart_pod", {"pod": "api-7", "namespace": "staging"})]),
        # two settings stated: neither is guessed, nor the default sent (it went to prod)
        ("restart pod api-7 in dev, no, in staging", []),
        ("deploy payments v2.3.1 in dev, sorry, to staging", []),
        # stated as the setting: after a preposition, or beside the parameter's name
        ("restart pod api-7 in the staging namespace",
         [("restart_pod", {"pod": "api-7", "namespace": "staging"})]),
        ("restart pod api-7, namespace: dev", [("restart_pod", {"pod": "api-7", "namespace": "dev"})]),
        # a flag refused after its word
        ("delete pod worker-3, force is not needed",
         [("delete_pod", {"pod": "worker-3", "namespace": "prod", "force": False})]),
        ("delete pod worker-3, no need to force it",
         [("delete_pod", {"pod": "worker-3", "namespace": "prod", "force": False})]),
        # an adverb is no service
        ("deploy quickly payments v2.3.1", []),
        # a duration of two units is their sum; of two choices, or one telling when, none
        ("silence alert A-9 for 2 hours and 30 minutes",
         [("silence_alert", {"alert_id": "A-9", "duration_minutes": 150})]),
        ("silence alert A-9 for 2 hours or 30 minutes", []),
        ("silence alert A-9 raised 3 days ago", []),
        ("silence alert A-9 for 30 minutes",
         [("silence_alert", {"alert_id": "A-9", "duration_minutes": 30})]),
    ],
)  # fmt: skip
def test_words_used_of_something_else_fill_nothing(
    deploys: tuple[SchemaRouter, Path], query: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    router, log = deploys
    assert received(router, log, query) == calls


@pytest.mark.parametrize(
    "query",
    [
        "delete pod worker-3, force is not needed",
        "delete pod worker-3, force isn't needed",
        "delete pod worker-3 (force: no)",
        "delete pod worker-3 with force=false",
        "delete pod worker-3, force off",
        "delete pod worker-3, avoid force",
        "delete pod worker-3 without any force",
        "delete pod worker-3, no need to force it",
    ],
)
def test_a_flag_refused_before_or_after_its_words_is_never_true(query: str) -> None:
    force = Parameter(
        name="force", location=ParameterLocation.QUERY, json_schema={"type": "boolean"}
    )
    assert flag_value(force, query) is not True  # left to its default, or plainly false


def test_a_flag_stated_beside_an_unrelated_negation_is_true() -> None:
    force = Parameter(
        name="force", location=ParameterLocation.QUERY, json_schema={"type": "boolean"}
    )
    dry = Parameter(
        name="dry_run", location=ParameterLocation.QUERY, json_schema={"type": "boolean"}
    )
    assert flag_value(force, "force delete pod worker-3, it is not ready") is True
    assert flag_value(dry, "deploy payments as a dry run not a real one") is True


def test_an_id_is_no_duration() -> None:
    minutes = Parameter(
        name="duration_minutes", location=ParameterLocation.QUERY, json_schema={"type": "integer"}
    )
    assert duration_value(minutes, "silence alert A-90m") is None
    assert duration_value(minutes, "silence it 2 hours from now") is None
    assert duration_value(minutes, "silence it for 90m") == 90
