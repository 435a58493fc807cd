"""What a request asks to do and what a route does: write requests find their write routes."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import (
    ACTION_PENALTY,
    VERB_BONUS,
    action_penalty,
    request_action,
    request_verbs,
    route_action,
    route_verb,
)

from helpers import openapi_document

ISSUES = openapi_document(
    "Tracker",
    {
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
)


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
        ("look up the weather in Lyon", "read"),  # "look up" reads
        ("pull up the last ten orders", "read"),
        ("Tear down the staging stack", "write"),  # "tear down" deletes
        ("I deleted the old rows yesterday. Show the table", "read"),  # the past asks nothing
        ("'VIP 고객'이라는 연락처 리스트 새로 하나 만들어 줘", "write"),
        ("박스 파일 90211 예전 버전들 목록 좀 보여줘", "read"),
        ("find flights to Denver, and also book a table for four", None),  # both kinds
        ("the band gap of GaN", None),  # no verb: nothing to say
        ("get rid of file system fs-0c7e21ab", "write"),  # not a "get"
        ("when a transcoding job fails, notify the ops topic", "write"),  # a condition first
        ("open an issue about the crash", "write"),  # "open a/an" makes one
        ("this task isn't needed anymore, delete it", "write"),  # a comma, then the verb
        ("is the nightly-backup rule enabled?", "read"),  # a question of what is
        ("I need a fresh key pair for the build agents", "write"),
        ("reboot my web server", "write"),
        ("list users, groups and roles", "read"),  # a comma before a noun: one clause
        ("워크스페이스 ws-1 좀 꺼 줘, 주말 동안 안 써요", "write"),
        # trial K: a noun that is a verb only with 하다 (주문, 결제) asks for no change alone
        ("주문 내역", None),
        ("주문 ORD-20240001 상태는?", None),
        ("결제 내역", None),
        ("삭제된 파일 보여줘", "read"),
        ("ORD-20240001 주문 취소해줘", "write"),
        ("main 브랜치에 PR 병합", "write"),  # a noun ending its clause: a terse command
        ("채널에 메시지 전송: 안녕", "write"),
        # trial K: verbs the table lacked
        ("고객 C-1001한테 5천원 할인 쿠폰 발급해줘", "write"),
        ("쿠폰 CP-1 회수해줘", "write"),
        ("ORD-20240001 사이즈 L로 교환 신청할게", "write"),
        ("상담원 연결해줘", "write"),
        ("3만원 환불해 주세요", "write"),
        ("배송이 너무 늦어서 문의 티켓 남기고 싶어요", "write"),
        # trial W: a change of a quantity asks to write ("increase the stock ...")
        ("Increase the stock of SKU Q-1 by 10 units", "write"),
        ("adjust inventory of SKU ABC-1", "write"),
        ("reduce the price of item 4 by 10%", "write"),
        ("how can I increase my savings?", "read"),  # a question of how
        # trial A: "record" / "log" before what they write down ask for a change; as nouns not
        ("record a manual reading of 1234 kWh for meter M-104", "write"),
        ("log the hours I worked today on project P-1", "write"),
        ("records of meter M-104", None),
        ("log files of the api gateway", None),
        ("show the log of service X", "read"),
        # a change then status / progress / history: a noun phrase, unless done to that state
        ("cancel status of order O-1", "read"),
        ("Cancel Status of order 5", "read"),
        ("import history of project P-1", "read"),
        ("update status of ticket T-1 to closed", "write"),
        ("delete history of customer C-1", "write"),
        ("clear history", "write"),
        ("save progress of the upload", "write"),
        # a change that ends or begins a thing's course heads the noun after it; others take
        # it as their object (after the eighth review's merge these read as reads)
        ("close date of ticket T-1", "read"),
        ("start time of job J-1", "read"),
        ("update details of customer C-1", "write"),
        ("send receipt to customer C-1", "write"),
        ("set amount of invoice 5 to 10", "write"),
        ("post summary to the team channel", "write"),
        ("renew policy P-1", "write"),
        ("delete receipts for order O-1", "write"),
        ("approve amount of expense E-1", "write"),
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
        # a plural in -ies is no verb in -e, and one in -y only where it leads
        ("movies_3_find_movies", None, "", "read"),  # "movies" is not "moves"
        ("user_tweets_replies", "GET", "", "read"),  # the replies are a noun here
        ("replies", None, "Replies to a message in a thread", "write"),
        ("files", None, "Copies a file to another folder", "write"),
        ("stoppedJobs", None, "", "write"),  # "stopped": stop, its consonant doubled
    ],
)
def test_a_routes_action_is_its_name_then_its_summary_then_its_method(
    name: str, method: str | None, summary: str, action: str | None
) -> None:
    assert route_action(name, method=method, summary=summary) == action


@pytest.mark.parametrize(
    "text, verbs",
    [
        ("delete s3://acme-finance/reports/old-2019.csv", {"delete"}),
        ("please remove the customer C-42", {"delete"}),  # a synonym names the same change
        ("Erased it? no: erase the draft", {"delete"}),
        ("rename Box file 90211 to Q3-report-final.pdf", {"update"}),
        ("text +1 213 555 0147: 'Your appointment is confirmed'", {"send"}),
        # the dots of an address or a file name do not end the clause
        ("subscribe ops@acme.io by email to the deploys topic", {"subscribe"}),
        ("remove the old row, then add a new one", {"delete", "create"}),
        # a dash between spaces ends a clause too, the one inside a word does not
        ("the totals were wrong - remove row 12 of the do-not-call sheet", {"delete"}),
        ("Leave A review of order 7 saying it arrived late", {"create"}),  # makes one
        ("leave the #general channel", {"leave"}),
        ("put 555 0100 on the blocked list", {"create"}),  # puts it there: adds it
        ("스퀘어 고객 JDKYHBWT1D4F8MFH63DBMEN8Y4 삭제해 줘", {"delete"}),
        ("'VIP 고객'이라는 연락처 리스트 새로 하나 만들어 줘", {"create"}),
        # a past form tells what happened: its clause asks for nothing
        ("I copied the wrong file. Copy report.pdf to /archive instead", {"copy"}),
        ("Spin it up again - I stopped it last night", {"create"}),
        ("Jane left the company. Lock her account", {"lock"}),
        ("movies with Ana de Armas", set()),  # a plural noun, not "moves"
        # a verb with its particle names another change than the verb alone
        ("kick off the nightly-report query", {"start"}),
        ("tear down the legacy-vpc stack", {"delete"}),
        ("set up a webhook for push events", {"create"}),  # "set" alone updates
        ("set the status to shipped", {"update"}),
        ("turn the dark-mode flag on in production", {"enable"}),  # past its object
        ("shut the staging server down", {"stop"}),
        ("put 555 0100 on the list", {"create"}),  # "on" is not put's particle: "put" says
        ("look up contact 12345", set()),  # a read
        ("show my open issues", set()),  # a read names no change
        ("the band gap of GaN", set()),
        ("get rid of the old-logs bucket", {"delete"}),
        ("switch workspace ws-3 to AutoStop", {"update"}),
        ("open an issue about the crash", {"create"}),
        ("reboot the box", {"restart"}),
        # a negated stem is passed over: "안 써요" ("I won't use it") asks to write nothing
        ("워크스페이스 좀 꺼 줘, 주말 동안 안 써요", {"disable"}),
        ("규칙에서 backup-fn 타깃 빼 주세요", {"delete"}),
        ("마감 기한을 내일 오후 6시로 연장해 줘", {"update"}),
        # an on-call team's and a shop's verbs (trial 16: "silence alert A-9 for 2 hours and
        # acknowledge incident INC-4" read no change of the silence's, so no part of its own)
        ("silence alert A-9 for 2 hours", {"mute"}),  # silence and snooze mute
        ("ack incident INC-4", {"acknowledge"}),
        ("refund order O-1", {"refund"}),  # as 환불 already did
        ("refund amount of order O-1", set()),  # a noun the change heads
        ("retry job J-3", {"retry"}),
        ("revert checkout to revision 12", {"revert"}),  # and rollback
        # "of" after a number is the number's, not the verb's ("refund of order O-1")
        ("refund $10 of transaction T-77, the customer returned one mug", {"refund"}),
        ("cancel 2 of my orders", {"cancel"}),
        # a change after an article is a noun, but only a clause that opens with it asks none
        ("Run the order-fulfillment state machine with input {}", {"start"}),
        ("the snooze on alert A-1 expired", set()),
        # 확인 처리 marks as seen (trial 11's "알림 AL-8 확인 처리해줘" read as a check, and
        # acknowledge_alert, a write by its name since "acknowledge" is a verb, fell to 2)
        ("알림 AL-8 확인 처리해줘", {"acknowledge"}),
        ("알림 AL-8 확인처리 부탁해", {"acknowledge"}),
        ("알림 AL-8 확인해줘", set()),  # a check
        ("알림 AL-8 확인 처리됐어?", set()),  # a question
    ],
)
def test_a_write_requests_verbs_are_the_changes_it_names(text: str, verbs: set[str]) -> None:
    assert request_verbs(text) == verbs


@pytest.mark.parametrize(
    "name, method, verb",
    [
        ("delete_customer", "DELETE", "delete"),
        ("RemoveTagsFromQueue", "POST", "delete"),
        ("group_v2.approve_all_pending", "POST", "approve"),
        ("send_texts", "POST", "send"),
        ("PutItem", "POST", "create"),  # PutItem and PutObject create (or replace)
        ("getIssue", "GET", None),  # a read names no change, whatever follows
        ("customers", "DELETE", "delete"),  # no verb in the name: the method says
        ("customers", "POST", None),
        ("FlushStageCache", "DELETE", "flush"),  # not "stage", a noun here
    ],
)
def test_a_routes_verb_is_the_first_verb_of_its_name(
    name: str, method: str, verb: str | None
) -> None:
    assert route_verb(name, method=method) == verb


def test_the_route_doing_the_named_change_gains_over_other_writes() -> None:
    from schemarouter.retrieval.candidates import Ranked
    from schemarouter.retrieval.ordering import apply_actions

    snapshot = _router().snapshot()
    gap = VERB_BONUS / 2  # fusion puts the create a little ahead of the delete
    ranked = [
        Ranked("tracker/rest/create_issue", 1.0, {"fused": 1.0}),
        Ranked("tracker/rest/delete_issue", 1.0 - gap, {"fused": 1.0 - gap}),
        Ranked("tracker/rest/get_issue", 0.5, {"fused": 0.5}),
    ]
    out = apply_actions("remove issue 7 from octocat/hello-world", ranked, snapshot)
    assert [r.route_id.split("/")[-1] for r in out] == ["delete_issue", "create_issue", "get_issue"]
    assert out[0].scores["action"] == VERB_BONUS and "action" not in out[1].scores
    assert out[2].scores["action"] == -ACTION_PENALTY  # the read sibling, as before
    # a lead wider than the bonus stands
    ranked = [
        Ranked("tracker/rest/create_issue", 1.0, {"fused": 1.0}),
        Ranked("tracker/rest/delete_issue", 0.8, {"fused": 0.8}),
    ]
    out = apply_actions("remove issue 7 from octocat/hello-world", ranked, snapshot)
    assert out[0].route_id == "tracker/rest/create_issue"


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
    # "open a ..." names the change too: the create route gains the verb's bonus
    assert out[1].scores["action"] == -ACTION_PENALTY and out[0].scores["action"] == VERB_BONUS
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
