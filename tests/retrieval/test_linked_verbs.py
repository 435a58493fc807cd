"""A Korean verb joined to the next by a connective ending asks a change of its own: in
"시트를 복사해서 '12월' 시트 만들어 줘" (copy the sheet to make the December one) the copy is
the change asked, though the clause ends with 만들어 (make). Issue #22's write-intent dev set:
the sheet copy ranked 12th, below every create route of the catalog."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import read_request, request_verbs
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.ordering import apply_actions

TOOLS = [
    {"name": name, "description": text, "inputSchema": {"type": "object", "properties": {}}}
    for name, text in (
        ("copy_sheet", "Copy a worksheet within a workbook"),
        ("create_table", "Create a table in a worksheet"),
        ("read_sheet", "Read the cells of a worksheet"),
    )
]


@pytest.mark.parametrize(
    ("text", "verbs"),
    [
        ("/data/q4.xlsx에서 '11월' 시트를 복사해서 '12월' 시트 만들어 줘", {"copy", "create"}),
        ("기존 파일 지우고 새로 올려 줘", {"delete", "upload"}),
        ("보고서 파일을 다운받아서 버킷에 올려 줘", {"upload"}),  # no write stem before
        ("시트 만들어 줘", {"create"}),
        ("안 복사하고 새로 만들어", {"create"}),  # a negated verb asks nothing
    ],
)
def test_a_korean_verb_linked_to_the_next_names_its_change(text: str, verbs: set[str]) -> None:
    assert request_verbs(text) == verbs
    assert read_request(text)[0] == "write"


def test_the_linked_verbs_route_gains_like_the_last_verbs() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None, ranking=None
    )
    router.add_mcp_tools({"tools": TOOLS}, provider="excel")
    snapshot = router.snapshot()
    ranked = [
        Ranked(f"excel/mcp/{name}", score, {"fused": score})
        for name, score in (("create_table", 1.0), ("read_sheet", 0.98), ("copy_sheet", 0.96))
    ]
    out = apply_actions(
        "q4.xlsx에서 '11월' 시트를 복사해서 '12월' 시트 만들어 줘", ranked, snapshot
    )
    # both changes asked gain; the copy, a hair behind the create before, stays beside it
    # and both writes rank above the read
    assert [r.route_id.rsplit("/", 1)[-1] for r in out] == [
        "create_table",
        "copy_sheet",
        "read_sheet",
    ]
    assert out[1].scores["action"] > 0 and out[2].scores["action"] < 0


@pytest.mark.parametrize(
    ("text", "action"),
    [
        # a change joined by -고 to a read: both kinds, as "change ..., and also show ..."
        ("클러스터 C-1의 배송 옵션을 변경하고 그 클러스터의 작업 목록도 보여줘", None),
        ("주문 O-1 취소하고 남은 주문 목록 보여줘", None),
        ("Change the shipping option of cluster C-1, and also show its jobs", None),
        # -고 있 is a state, 빼고 is "but", and a negated change asks none: these only read
        ("실행하고 있는 인스턴스 보여줘", "read"),
        ("구독하고 있는 채널 목록 보여줘", "read"),
        ("삭제된 파일 빼고 보여줘", "read"),
        ("파일 안 지우고 목록 보여줘", "read"),
        ("주문 O-1 조회하고 삭제해줘", "write"),
    ],
)
def test_a_korean_change_joined_by_go_to_a_read_asks_both(text: str, action: str | None) -> None:
    assert read_request(text)[0] == action


def test_the_change_before_a_korean_read_is_not_scored_down() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None, ranking=None
    )
    tools = [
        {"name": name, "description": text, "inputSchema": {"type": "object", "properties": {}}}
        for name, text in (
            ("list_cluster_jobs", "List the jobs of a cluster"),
            ("describe_cluster", "Describe a cluster"),
            ("update_cluster", "Update the shipping option of a cluster"),
        )
    ]
    router.add_mcp_tools({"tools": tools}, provider="ship")
    ranked = [
        Ranked(f"ship/mcp/{name}", score, {"fused": score})
        for name, score in (
            ("list_cluster_jobs", 1.0),
            ("describe_cluster", 0.98),
            ("update_cluster", 0.91),
        )
    ]
    out = apply_actions(
        "클러스터 C-1의 배송 옵션을 변경하고 그 클러스터의 작업 목록도 보여줘",
        ranked,
        router.snapshot(),
    )
    # the change asked gains and the reads asked keep their score: it ranks among them
    assert [r.route_id.rsplit("/", 1)[-1] for r in out] == [
        "list_cluster_jobs",
        "update_cluster",
        "describe_cluster",
    ]
    assert "action" not in out[0].scores and out[1].scores["action"] > 0


def test_a_korean_change_joined_by_go_to_a_read_plans_the_change_first() -> None:
    """The clause's leading verb reads the same (``leading_action``): planning put the project
    list before the update ranked above it, as for a request that only reads (trial z1's
    honest set: "프로젝트 my-web-app의 설명을 수정하고 그 프로젝트의 리소스 목록도 보여줘")."""
    from schemarouter import PlanRequest
    from schemarouter.planning.refusals import reads_first
    from schemarouter.retrieval.actions import leading_action

    text = "프로젝트 P-1의 설명을 수정하고 그 프로젝트의 리소스 목록도 보여줘"
    assert leading_action(text) is None
    assert leading_action("실행하고 있는 인스턴스 보여줘") == "read"
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None, ranking=None
    )
    tools = [
        {"name": name, "description": text, "inputSchema": {"type": "object", "properties": {}}}
        for name, text in (
            ("list_projects", "List the projects and their resources"),
            ("update_project", "Update a project's description"),
        )
    ]
    router.add_mcp_tools({"tools": tools}, provider="code", effect_overrides={"list_*": "read"})
    eligible = ["code/mcp/update_project", "code/mcp/list_projects"]
    warnings: list[str] = []
    assert reads_first(PlanRequest(query=text), router.snapshot(), eligible, warnings) == eligible
    assert warnings == []
