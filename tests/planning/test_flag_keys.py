"""A key written beside its thing word fills the key, a percentage its parameter, and turning
a flag on or off never creates or deletes one (trial 16, LaunchDarkly on a stub: "delete the
old-banner feature flag in project web" and "is the new-checkout flag on ... for project
web?" sent nothing, ``projectKey`` and ``featureFlagKey`` missing; "turn off the new-checkout
flag ..." planned ``post_feature_flag``, a create, ranked first; "roll the new-search feature
out to 25%" left ``feature`` and ``percentage`` missing).

A feature-flag service shaped as LaunchDarkly's (keys in the path, a create by POST, a change
by a JSON patch), served for real on loopback; what it receives is what was sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.planning.keyed_names import percent_value

from helpers import ok, openapi_document
from servers.loopback import LoopbackServer, Request, Response, json_response

FLAG = {"type": "object", "properties": {"key": {"type": "string"}, "on": {"type": "boolean"}}}
PROJECT = {"name": "projectKey", "in": "path", "required": True, "schema": {"type": "string"}}
KEY = {"name": "featureFlagKey", "in": "path", "required": True, "schema": {"type": "string"}}
PATCH = {
    "type": "object",
    "required": ["patch"],
    "properties": {
        "comment": {"type": "string"},
        "patch": {"type": "array", "items": {"type": "object"}, "description": "JSON Patch"},
    },
}


def _op(operation_id: str, summary: str, parameters: list[Any], **more: Any) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": summary,
        "parameters": parameters,
        "responses": ok(FLAG),
        **more,
    }


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def flags_document(base_url: str) -> dict[str, Any]:
    created = {"type": "object", "required": ["key", "name"], "properties": {
        "key": {"type": "string"}, "name": {"type": "string"}}}  # fmt: skip
    document = openapi_document("Feature flags", {
        "/flags/{projectKey}": {
            "get": _op("getFeatureFlags", "Get all feature flags in the given project", [PROJECT]),
            "post": _op("postFeatureFlag", "Create a feature flag", [PROJECT],
                        requestBody=_body(created)),
        },
        "/flags/{projectKey}/{featureFlagKey}": {
            "get": _op("getFeatureFlag", "Get a single feature flag by key", [PROJECT, KEY]),
            "patch": _op("patchFeatureFlag", "Perform a partial update to a feature flag",
                         [PROJECT, KEY], requestBody=_body(PATCH)),
            "delete": _op("deleteFeatureFlag", "Delete a feature flag by key", [PROJECT, KEY]),
        },
        "/projects/{projectKey}": {
            "get": _op("getProject", "Fetch a single project by key", [PROJECT]),
            "delete": _op("deleteProject", "Delete a project by key", [PROJECT]),
        },
        "/projects": {"post": _op("postProject", "Create a new project", [],
                                  requestBody=_body(created))},
        "/rollouts/{feature}/percentage": {
            "put": _op("setRolloutPercentage", "Move a feature rollout to a share of traffic",
                       [{"name": "feature", "in": "path", "required": True,
                         "description": "Feature rollout key, e.g. new-search",
                         "schema": {"type": "string"}},
                        {"name": "percentage", "in": "query", "required": True,
                         "schema": {"type": "integer", "minimum": 0, "maximum": 100}}]),
        },
    })  # fmt: skip
    document["servers"] = [{"url": base_url}]
    return document


def _answer(request: Request) -> Response:
    return json_response({"key": request.path.rsplit("/", 1)[-1], "on": False})


@pytest.fixture(scope="module")
def flags() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(_answer) as server:
        router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
        router.add_openapi(flags_document(server.base_url), provider="flags")
        try:
            yield router, server
        finally:
            router.close()


def sent(flags: tuple[SchemaRouter, LoopbackServer], query: str) -> list[tuple[str, str, Any]]:
    """What the service received for ``query``, every effect allowed and approved; a plan
    with an argument still missing sends nothing."""
    router, server = flags
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=2)
    if plan.steps and not plan.missing_arguments:
        router.execute(
            plan, allow_effects=["read", "write", "destructive"], approve=lambda *_: True
        )
    return [
        (r.method, r.path, {k: v[0] for k, v in r.query.items()} or None) for r in server.requests
    ]


@pytest.mark.parametrize(
    ("query", "call"),
    [
        ("delete the old-banner feature flag in project web", ("DELETE", "/flags/web/old-banner")),
        ("is the new-checkout flag on for project web?", ("GET", "/flags/web/new-checkout")),
        ("show flag new-checkout of project web", ("GET", "/flags/web/new-checkout")),
        ("get project web", ("GET", "/projects/web")),
        # ranked first, the project's delete takes the project's key alone: the flag's is
        # written too, so the flag's delete is planned (never DELETE /projects/web)
        ("delete the old-banner flag in project web", ("DELETE", "/flags/web/old-banner")),
        ("delete flag old-banner in project web", ("DELETE", "/flags/web/old-banner")),
        ("delete project web", ("DELETE", "/projects/web")),
    ],
)
def test_a_key_beside_its_thing_word_is_sent(
    flags: tuple[SchemaRouter, LoopbackServer], query: str, call: tuple[str, str]
) -> None:
    assert sent(flags, query) == [(*call, None)]


def test_a_word_that_names_no_key_is_none(flags: tuple[SchemaRouter, LoopbackServer]) -> None:
    # "project in", "flag for": no key; two flags written: which is not said
    assert sent(flags, "delete the flag in the project") == []
    assert sent(flags, "delete the old-banner flag and the new-checkout flag in project web") == []
    assert sent(flags, "delete the old-banner flag in project web, not project shop") == [
        ("DELETE", "/flags/web/old-banner", None)
    ]


@pytest.mark.parametrize(
    "query",
    [
        "turn off the new-checkout flag in production for project web",
        "turn the new-checkout flag on in project web",
        "switch off flag new-checkout in project web",
        "disable the new-checkout feature flag in project web",
        "enable the new-checkout flag for project web",
    ],
)
def test_turning_a_flag_on_or_off_never_creates_or_deletes(
    flags: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    router, server = flags
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=2)
    assert plan.route_ids[:1] == ("flags/rest/patch_feature_flag",), (plan.route_ids, query)
    assert plan.steps[0].arguments == {"projectKey": "web", "featureFlagKey": "new-checkout"}
    # the JSON patch is the caller's to give: nothing is sent, and never a POST or a DELETE
    assert sent(flags, query) == []
    body = {"patch": [{"op": "replace", "path": "/environments/production/on", "value": False}]}
    router.execute(
        plan.with_arguments(0, {"body": body}),
        allow_effects=["write"],
        approve=lambda *_: True,
    )
    assert [(r.method, r.path) for r in server.requests] == [("PATCH", "/flags/web/new-checkout")]
    assert json.loads(server.requests[0].body) == body


def test_a_create_or_a_delete_asked_beside_a_switch_stays(
    flags: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, _ = flags
    for query, route_id in (
        ("disable and delete the old-banner flag in project web", "delete_feature_flag"),
        ("create a flag in project web, enabled", "post_feature_flag"),
    ):
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert plan.route_ids[:1] == (f"flags/rest/{route_id}",), (query, plan.route_ids)


def test_a_percentage_is_sent_to_its_parameter(flags: tuple[SchemaRouter, LoopbackServer]) -> None:
    assert sent(flags, "roll the new-search feature out to 25% in production") == [
        ("PUT", "/rollouts/new-search/percentage", {"percentage": "25"})
    ]
    assert sent(flags, "roll the new-search feature out to 25 percent") == [
        ("PUT", "/rollouts/new-search/percentage", {"percentage": "25"})
    ]
    # two percentages: which is not said
    assert sent(flags, "roll the new-search feature out to 25% then 50%") == []


def test_a_percentage_is_read_only_for_a_parameter_named_for_one() -> None:
    from schemarouter.contracts import Parameter, ParameterLocation

    def parameter(name: str, schema: dict[str, Any]) -> Parameter:
        return Parameter(name=name, location=ParameterLocation.QUERY, json_schema=schema)

    whole = parameter("rolloutPercentage", {"type": "integer", "maximum": 100})
    share = parameter("traffic_percent", {"type": "number", "maximum": 1})
    assert percent_value(whole, "roll it out to 25%") == 25
    assert percent_value(share, "roll it out to 25%") == 0.25
    assert percent_value(whole, "roll it out to 12.5%") is None  # an integer holds no half
    assert percent_value(parameter("replicas", {"type": "integer"}), "to 25%") is None
