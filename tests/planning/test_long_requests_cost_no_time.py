"""Long hostile requests plan in linear time (the thirteenth security review).

Each request below is one a user or a model relaying one can send; on the code before the
review each took from 20 s to minutes in ``plan`` or ``retrieve`` (a pattern or a loop of a
planning rule read the whole request again for every word, id, "but" or refusal in it). Each
is run in a forked child that must answer within :data:`WAIT` seconds of CPU (a hang fails
the test instead of holding the run: :data:`HANG`); the bound is generous, each takes a few
seconds at most here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from forking import in_child

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import desk_paths, ok, openapi_document, path_id

#: Seconds of CPU a request may take in the child (before the review: 20 s to minutes each);
#: counted in CPU, not on the clock: on a loaded machine (five jobs on two cores) the clock
#: ran four times the CPU and linear requests of 4-5 s went past 20 s.
WAIT = 20.0
#: Seconds on the clock the child has to answer at all (a hang).
HANG = 120.0
T = TypeVar("T")


def _answered(job: Callable[[], T]) -> T:
    """``job()``'s answer from a forked child, which must give it within :data:`WAIT` seconds
    of CPU (and :data:`HANG` on the clock)."""

    def timed() -> tuple[float, T]:
        started = time.process_time()
        answer = job()
        return time.process_time() - started, answer

    answer, result = in_child(timed, wait=HANG)
    assert answer == "ok", (answer, result)
    assert isinstance(result, tuple)
    spent, value = result
    assert spent < WAIT, f"{spent:.1f} s of CPU"
    return value


def _op(operation_id: str, summary: str) -> dict[str, Any]:
    return {"operationId": operation_id, "summary": summary, "responses": ok({"type": "object"})}


def _bound(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": "number", "x-unit": "K"}}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    paths = desk_paths(_op)
    paths["/materials/{material_id}/thermal"] = {
        "parameters": path_id("material_id"),
        "get": {
            **_op("getThermalConductivity", "온도별 열전도도 (thermal conductivity)"),
            "parameters": [_bound("temperature_min"), _bound("temperature_max")],
        },
    }
    for change in ("cancel", "confirm"):
        paths[f"/appointments/{{appointment_id}}/{change}"] = {
            "parameters": path_id("appointment_id"),
            "post": _op(f"{change}_appointment", f"{change.title()} an appointment"),
        }
    said = {
        "type": "object",
        "required": ["message"],
        "properties": {"message": {"type": "string"}},
    }
    paths["/customers/{customer_id}/notify"] = {
        "parameters": path_id("customer_id"),
        "post": {
            **_op("notify_customer", "Send a notification message to a customer"),
            "requestBody": {"required": True, "content": {"application/json": {"schema": said}}},
        },
    }
    target = {
        "type": "object",
        "required": ["target"],
        "properties": {
            "target": {"type": "number", "description": "Target temperature in degrees Celsius"}
        },
    }
    paths["/thermostats/{thermostat_id}"] = {
        "parameters": path_id("thermostat_id"),
        "put": {
            **_op("set_thermostat", "Set a thermostat's target temperature"),
            "requestBody": {"required": True, "content": {"application/json": {"schema": target}}},
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Desk", paths), provider="desk")
    router.plan("refund order ORD-1")  # the unit registry and the indexes loaded once
    return router


REQUESTS = {
    # a Korean condition's pattern read a word to its end from each letter
    "a word of 100,000 letters": "refund order " + "a" * 100_000,
    # where a message starts ("CU-3 that ...") was looked for from every letter of a word
    "a word of 100,000 letters to a notification": "notify customer C-1 " + "a" * 100_000,
    # the counts of each refusal asked every other refusal and every word
    "3,700 refusals": "don't delete customer C-1, " * 3_700 + "delete customer C-2",
    # each id read the whole request; each value was looked for in a list of the kept ones
    "3,600 ids": "refund orders " + " ".join(f"ORD-{i}" for i in range(3_600)),
    # each "but" read its clause from its start for a negation
    "3,300 'but first'": "delete customer C-1 but first " * 3_300,
    # each bound asked every range written before it
    "3,000 ranges": "km-101의 열전도도 " + "300~500 K " * 3_000,
    # a Korean refusal's stem was tried from every syllable of a run
    "100,000 particles": "주문 ORD-1 환불" + "을" * 100_000,
    # a Korean verb's negation was read from the clause's start for each place of a stem
    "7,700 Korean words": "주문 ORD-1 " + "주문을를이가은는에서으로 " * 7_700,
    # each id's thing word was found by copying the request before it
    "2,200 conditions": "delete customer C-1 if order O-1 is refunded " * 2_200,
    # each Korean "after" read its clause's words from the clause's start
    "4,000 Korean 'after' parts": "주문 O-1을 환불한 후에 " * 4_000 + "고객 C-1을 삭제해줘",
    # each event a change waits for read its sentence from its start
    "7,000 events a change waits for": "Delete customer C-1 after the refund of order O-1 " * 7_000,
    # each place asked every condition whether it held it
    "3,000 conditions, a sentence each": (
        "Refund order O-1, and if customer C-1 has no open orders, delete C-1. " * 3_000
    ),
    # fourteenth review: each "it" after a refused clause split the clause again from its start
    "33,000 'it' after a refusal": "Don't cancel appointment A-1001, confirm " + "it " * 33_000,
    # a Korean "instead" (대신) looked for after an id read a run of spaces back and forth
    "60,000 blanks between two clauses": (
        "refund order ORD-1 " + " \t\n" * 60_000 + " delete customer C-1"
    ),
    # its follow-up: a Korean noun stem's verb form (환불 + 하다) read a blank run back and forth
    "50,000 blanks after a Korean noun stem": "주문 ORD-1 환불" + " " * 50_000 + "x",
    # and so did a Korean change's form (종료 + 해줘) looked for after its stem
    "100,000 blanks after a Korean change": "주문 ORD-1 종료" + " " * 100_000 + "x",
    # stop 52: a Korean question's ending read the rest of its word from each 할까 in it
    "a Korean word of 100,000 'whether's": "주문 ORD-1 환불" + "할까" * 50_000 + " 다?",
    # and a Korean stem's "don't" (닫지 마) read the rest of its word from each 닫아 in it
    "a Korean word of 100,000 'close's": "refund order ORD-1 " + "닫아" * 50_000,
    # review 17: each plain "and" asked whether it stood inside each quote (0.1 s as written;
    # 6.6 s for split_intents alone before the quotes were bisected), and each ", and" after a
    # message whether a change of its own follows
    "10,000 quotes with an 'and' in each": "notify customer C-1 " + "'a and b' " * 10_000,
    "8,000 ', and' in a message": "notify customer C-1 that x" + ", and freeze" * 8_000,
    # each number after the one set looked for "not" before it from the request's start
    # (set_numbers._said_again: 4,000 "by 9 °F" 4.9 s, 2,000 1.4 s)
    "12,000 numbers after a set one": "set thermostat T-1 to 20 degrees " + "by 9 °F " * 12_000,
    # each id written as a thing's number read the request again (numbers.numbered: 4,000
    # "refund order #N" 5.5 s, 2,000 1.7 s; trial 18's Box requests, whose ids are numbers)
    "10,000 numbered orders": " ".join(f"refund order #{10_000 + i}" for i in range(10_000)),
    # helper wrongdebit: where a message ends read a run of blanks from each of its places
    # (16,000 blanks 4.6 s of CPU, 60,000 over a minute)
    "60,000 blanks in a message": "notify customer C-1 that x" + " " * 60_000 + "y",
}


@pytest.mark.parametrize("name", list(REQUESTS))
@pytest.mark.parametrize("max_calls", [1, 3])
def test_a_long_request_plans_in_linear_time(
    router: SchemaRouter, name: str, max_calls: int
) -> None:
    request = REQUESTS[name]

    def job() -> list[str]:
        router.retrieve(request)
        asked = PlanRequest(query=request, allowed_effects=set(Effect))
        return list(router.plan(asked, max_calls=max_calls).route_ids)

    assert _answered(job)  # planned something, in time


def test_what_the_long_requests_plan_is_what_the_short_ones_do(router: SchemaRouter) -> None:
    """The linear readings are the same readings: 3,700 refused deletions beside an asked one
    delete the one asked, as one refused deletion beside it does."""
    writes = set(Effect)
    short = router.plan(PlanRequest(query=REQUESTS["3,700 refusals"][-60:], allowed_effects=writes))
    long = router.plan(PlanRequest(query=REQUESTS["3,700 refusals"], allowed_effects=writes))
    assert list(long.route_ids) == list(short.route_ids) == ["desk/rest/delete_customer"]
    assert dict(long.steps[0].arguments) == {"customer_id": "C-2"}


def test_many_properties_set_plan_in_linear_time() -> None:
    """Each verb of setting read its sentence to its end for the property and its "to"
    (``filter_words._set_to``): 8,000 "set the title of issue I-1" before one "to" took 31 s
    to plan (216,000 characters), on an API whose one update takes a title and a body: the
    property no verb names (the body) read every sentence to its end from each verb."""
    text = {"type": "string"}
    title = {"type": "object", "properties": {"title": text, "body": text}}
    update = {
        **_op("updateIssue", "Update an issue"),
        "requestBody": {"content": {"application/json": {"schema": title}}},
    }
    paths = {"/issues/{issue_id}": {"parameters": path_id("issue_id"), "patch": update}}
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Issues", paths), provider="issues")
    request = "update issue I-1: " + "set the title of issue I-1 " * 8_000 + "to Fix"

    def job() -> list[str]:
        return list(router.plan(PlanRequest(query=request, allowed_effects=set(Effect))).route_ids)

    assert _answered(job) == ["issues/rest/update_issue"]


#: Requests that read a number parameter by its Korean words (the fourteenth review's
#: follow-up): "번호" (number) or a number set "로" (to), then a run of blanks read back and
#: forth by two ``\\s*`` around an optional word.
NUMBER_REQUESTS = {
    "티켓 번호" + " " * 50_000 + "x 보여줘": "numbers/rest/list_tickets",
    "온도 T-1 21" + " " * 200_000 + "x 로 설정해줘": "numbers/rest/set_thermostat",
}


@pytest.mark.parametrize("request_text", list(NUMBER_REQUESTS))
def test_blanks_after_a_korean_number_word_plan_in_linear_time(request_text: str) -> None:
    """No answer in 20 s before (3 s at 10,000 blanks after 번호, 25 s for the pattern alone
    at 100,000 after a number to set); each takes under a second now."""
    listed = {**_op("list_tickets", "List tickets 티켓 목록")}
    listed["parameters"] = [{"name": "number", "in": "query", "schema": {"type": "string"}}]
    body = {"type": "object", "properties": {"temperature": {"type": "number"}}}
    thermostat = {
        **_op("set_thermostat", "Set the thermostat temperature 온도 설정"),
        "requestBody": {"content": {"application/json": {"schema": body}}},
    }
    paths = {
        "/tickets": {"get": listed},
        "/thermostats/{thermostat_id}": {
            "parameters": path_id("thermostat_id"),
            "patch": thermostat,
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Numbers", paths), provider="numbers")

    def job() -> list[str]:
        router.retrieve(request_text)
        asked = PlanRequest(query=request_text, allowed_effects=set(Effect))
        return list(router.plan(asked).route_ids)

    assert _answered(job) == [NUMBER_REQUESTS[request_text]]


def test_when_a_question_asks_is_read_in_linear_time() -> None:
    """A "when" before an auxiliary looked to its clause's "?" for a question (helper
    overheld): each of 10,000 "when is" before one "?" read the rest of the request again
    (4.3 s for 250,000 characters; 40,000 went past :data:`WAIT`). It looks 200 characters on,
    no more."""
    from schemarouter.planning.conditions import condition_spans

    request = "Refund order O-1 when is " * 40_000 + "?"
    assert _answered(lambda: len(condition_spans(request))) == 1
