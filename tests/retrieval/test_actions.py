"""What a request asks to do and what a route does: write requests find their write routes."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import (
    ACTION_PENALTY,
    action_penalty,
    request_action,
    route_action,
)

ISSUES = {
    "openapi": "3.0.3",
    "info": {"title": "Tracker", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/repos/{owner}/{repo}/issues": {
            "parameters": [
                {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}},
            ],
            "get": {
                "operationId": "listIssues",
                "summary": "List the issues of a repository",
                "responses": {"200": {"description": "issues"}},
            },
            "post": {
                "operationId": "createIssue",
                "summary": "Create an issue in a repository",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"title": {"type": "string"}},
                            }
                        }
                    }
                },
                "responses": {"201": {"description": "the issue"}},
            },
        },
        "/repos/{owner}/{repo}/issues/{number}": {
            "parameters": [
                {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}},
            ],
            "get": {
                "operationId": "getIssue",
                "summary": "Get one issue of a repository",
                "responses": {"200": {"description": "the issue"}},
            },
            "delete": {
                "operationId": "deleteIssue",
                "summary": "Delete an issue of a repository",
                "responses": {"204": {"description": "gone"}},
            },
        },
    },
}


@pytest.mark.parametrize(
    "text, action",
    [
        ("open a new issue in octocat/hello-world titled 'Crash on start'", "write"),
        ("please create a playlist called Road Trip", "write"),
        ("Can you send an SMS to +14155551234 saying hello?", "write"),
        ("delete the webhook 42", "write"),
        ("star the repository kubernetes/kubernetes", "write"),
        ("show my open issues in octocat/hello-world", "read"),
        ("what is the weather in Paris tomorrow", "read"),
        ("list the files in /tmp", "read"),
        ("open my note 'Meeting'", "read"),  # open without "new": reading it
        ("'VIP 고객'이라는 연락처 리스트 새로 하나 만들어 줘", "write"),
        ("박스 파일 90211 예전 버전들 목록 좀 보여줘", "read"),
        ("find flights to Denver, and also book a table for four", None),  # both kinds
        ("the band gap of GaN", None),  # no verb: nothing to say
    ],
)
def test_a_requests_action_is_its_clauses_leading_verb(text: str, action: str | None) -> None:
    assert request_action(text) == action


@pytest.mark.parametrize(
    "name, method, summary, action",
    [
        ("createIssue", "POST", "", "write"),
        ("PutItem", "POST", "", "write"),  # AWS JSON APIs POST everything
        ("GetItem", "POST", "", "read"),
        ("Query", "POST", "", "read"),
        ("group_v2.kick_member", "POST", "", "write"),
        ("git_add", None, "", "write"),
        ("read_file", None, "", "read"),
        ("summary_search", "GET", "", "read"),
        ("weather", None, "Returns the forecast for a city", "read"),
        ("webhook", None, "Creates a webhook", "write"),
        ("thing", "DELETE", "", "write"),
        ("thing", None, "", None),
    ],
)
def test_a_routes_action_is_its_name_then_its_summary_then_its_method(
    name: str, method: str | None, summary: str, action: str | None
) -> None:
    assert route_action(name, method=method, summary=summary) == action


def test_only_the_opposite_action_is_penalized() -> None:
    assert action_penalty("write", "read") == ACTION_PENALTY
    assert action_penalty("read", "write") == ACTION_PENALTY
    for request, route in (("write", "write"), (None, "read"), ("read", None), (None, None)):
        assert action_penalty(request, route) == 0.0  # type: ignore[arg-type]


def _router(**kwargs: object) -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
        reranker=None,
        ranking=None,
        **kwargs,  # type: ignore[arg-type]
    )
    router.add_openapi(ISSUES, provider="tracker")
    return router


def test_a_write_request_ranks_the_write_route_above_its_read_siblings() -> None:
    from schemarouter.retrieval.candidates import Ranked
    from schemarouter.retrieval.ordering import apply_actions

    snapshot = _router().snapshot()

    def fused(*pairs: tuple[str, float]) -> list[Ranked]:
        return [Ranked(f"tracker/rest/{n}", s, {"fused": s}) for n, s in pairs]

    # fusion puts the read sibling a hair ahead: the write request's route leads after
    ranked = fused(("list_issues", 1.0), ("create_issue", 0.99), ("get_issue", 0.5))
    out = apply_actions("open a new issue in octocat/hello-world", ranked, snapshot)
    assert [r.route_id.split("/")[-1] for r in out] == ["create_issue", "list_issues", "get_issue"]
    assert out[1].scores["action"] == -ACTION_PENALTY and "action" not in out[0].scores
    # a read request the reverse; a clear lead is never overturned
    ranked = fused(("create_issue", 1.0), ("list_issues", 0.99))
    out = apply_actions("show the issues of octocat/hello-world", ranked, snapshot)
    assert out[0].route_id == "tracker/rest/list_issues"
    ranked = fused(("list_issues", 1.0), ("create_issue", 0.5))
    out = apply_actions("open a new issue in octocat/hello-world", ranked, snapshot)
    assert out[0].route_id == "tracker/rest/list_issues"
    # a request that says nothing about its action changes nothing
    ranked = fused(("list_issues", 1.0), ("create_issue", 0.99))
    assert apply_actions("issues of octocat/hello-world", ranked, snapshot) == ranked


def test_the_router_applies_it_without_dropping_a_route() -> None:
    on, off = _router(), _router(actions=False)
    text = "create an issue in the repository octocat/hello-world"
    found, plain = on.retrieve(text, k=4), off.retrieve(text, k=4)
    assert found.route_ids[0] == "tracker/rest/create_issue"
    reads = [c for c in found.candidates if c.method == "GET"]
    assert reads and all("action" in c.scores for c in reads)  # scored down, still listed
    assert sorted(found.route_ids) == sorted(plain.route_ids)  # nothing dropped or added
    assert not any("action" in c.scores for c in plain.candidates)


def test_scores_stay_in_rank_order_after_the_penalty() -> None:
    found = _router().retrieve("delete issue 7 of octocat/hello-world", k=4)
    scores = [c.score for c in found.candidates]
    assert scores == sorted(scores, reverse=True)
    assert found.candidates[0].route_id == "tracker/rest/delete_issue"
