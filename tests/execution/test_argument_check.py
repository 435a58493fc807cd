"""The gate reports every problem of a call's arguments at once, and reads a ``null`` for an
optional parameter that takes none as the parameter left out (a user trial's agent sent
``{"ticket_id": "4821", "status": "closed"}`` and learned one problem per turn; its model
wrote ``"priority": null`` for "not given" and was refused)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from helpers import openapi_document
from servers.loopback import LoopbackServer, Request, Response, json_response

ROUTE = "helpdesk/rest/list_tickets"


def _helpdesk() -> dict[str, Any]:
    ok = {"200": {"description": "tickets", "content": {"application/json": {"schema": {}}}}}
    parameters = [
        {"name": "assignee", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
        {
            "name": "priority",
            "in": "query",
            "schema": {"type": "string", "enum": ["low", "high", "urgent"]},
        },
        {
            "name": "label",
            "in": "query",
            "schema": {"type": "string", "nullable": True},
        },
    ]
    paths = {
        "/tickets": {
            "get": {"operationId": "listTickets", "parameters": parameters, "responses": ok}
        }
    }
    return openapi_document("Helpdesk", paths)


def _router(base_url: str) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder())
    router.add_openapi(_helpdesk(), provider="helpdesk", base_url=base_url)
    return router


def test_every_problem_of_the_arguments_is_named_at_once() -> None:
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response([])

    with LoopbackServer(app) as api:
        router = _router(api.base_url)
        arguments = {"limit": "ten", "priority": "soon", "status": "closed", "sort": "new"}
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, arguments)
    message = str(refused.value)
    assert "5 problems with the arguments" in message
    for part in (
        "$.status: helpdesk/rest/list_tickets has no parameter 'status'",
        "$.sort: helpdesk/rest/list_tickets has no parameter 'sort'",
        "$.limit: arguments break the registered input schema: 'ten' is not of type 'integer'",
        "$.priority: arguments break the registered input schema: 'soon' is not one of",
        "'assignee' is a required property",
    ):
        assert part in message, part
    assert message.count("'ten' is not of type") == 1  # the whole schema and the property's
    assert refused.value.json_path == "$.status"  # type: ignore[attr-defined]
    assert seen == []  # nothing sent
    # one problem reads as it always did
    with pytest.raises(ParameterValidationError, match=r"has no parameter 'status' \(at "):
        router.call(ROUTE, {"assignee": "ana", "status": "closed"})


def test_a_misspelled_parameter_name_says_which_one_was_meant() -> None:
    """``{"asignee": "ana"}`` was refused as "has no parameter 'asignee'" beside "'assignee'
    is a required property", and the caller had to see that the two were one mistake."""
    with LoopbackServer(lambda request: json_response([])) as api:
        router = _router(api.base_url)
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {"asignee": "ana"})
        assert "has no parameter 'asignee' (did you mean 'assignee'?)" in str(refused.value)
        # only among the parameters not given: a name given right is never suggested again
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {"assignee": "ana", "asignee": "bo"})
        assert "did you mean" not in str(refused.value)
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {"assignee": "ana", "colour": "red"})
        assert "did you mean" not in str(refused.value)


def test_a_null_for_an_optional_parameter_is_read_as_left_out() -> None:
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response([{"id": 1}])

    with LoopbackServer(app) as api:
        router = _router(api.base_url)
        result = router.call(ROUTE, {"assignee": "ana", "priority": None, "limit": None})
        assert result.status == "ok"
        assert seen[-1].query == {"assignee": ["ana"]}  # nothing sent for the nulls
        assert any("'priority' is null, read as left out" in w for w in result.warnings)
        # a parameter that takes null keeps it: the gate leaves it to the request builder
        kept = router.call(ROUTE, {"assignee": "ana", "label": None})
        assert not any("'label'" in w for w in kept.warnings)
        # a required parameter's null is refused, never dropped
        with pytest.raises(ParameterValidationError, match="null is not of type 'string'"):
            router.call(ROUTE, {"assignee": None})
        assert len(seen) == 2


def test_a_value_of_the_wrong_type_that_its_right_type_carries_says_what_to_send() -> None:
    """Trial T7 (low): a model sent the id 1234 where the schema takes a string and read only
    "1234 is not of type 'string'". The value is still refused (the schema is the contract,
    and nothing is sent), and the hint now says what to send: the string "1234", or the
    number 5 for the text "5"; a value its right type cannot carry gets the plain hint."""
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response([])

    with LoopbackServer(app) as api:
        router = _router(api.base_url)
        with pytest.raises(ParameterValidationError) as one:
            router.call(ROUTE, {"assignee": 1234})
        with pytest.raises(ParameterValidationError) as two:
            router.call(ROUTE, {"assignee": 1234, "limit": " 5"})
        with pytest.raises(ParameterValidationError) as neither:
            router.call(ROUTE, {"assignee": "ana", "limit": "ten"})
        with pytest.raises(ParameterValidationError) as over:  # 500 breaks maximum 100
            router.call(ROUTE, {"assignee": "ana", "limit": "500"})
        with pytest.raises(ParameterValidationError) as flag:
            router.call(ROUTE, {"assignee": True})
        assert seen == []
    assert one.value.hint == 'Send it as the string "1234"', one.value.hint
    assert str(one.value).endswith('Send it as the string "1234"')
    assert '. At $.assignee: send it as the string "1234"' in str(two.value.hint)
    assert ". At $.limit: send it as the number 5" in str(two.value.hint)
    for plain in (neither, over, flag):
        assert plain.value.hint == "Fix the value there; see the route's input schema"


def test_a_refused_true_or_null_is_written_as_json_writes_it() -> None:
    """Trial U2 (low): ``{"limit": true}`` was refused as "True is not of type 'integer'",
    Python's spelling of a value the agent wrote in JSON."""
    with LoopbackServer(lambda request: json_response([])) as api:
        router = _router(api.base_url)
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {"assignee": "ana", "limit": True})
        assert "true is not of type 'integer'" in str(refused.value), str(refused.value)
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {"assignee": None})
        assert "null is not of type 'string'" in str(refused.value), str(refused.value)
        assert api.paths() == []


def test_a_body_property_sent_as_a_parameter_says_to_send_it_inside_the_body() -> None:
    """Trial W1: ``router.call("weather/rest/create_alert", {"city": ..., "email": ...})`` for a
    route whose JSON request body holds ``city`` and ``email`` was refused as "has no parameter
    'city'" beside "'body' is a required property", and named no way to send them."""
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response({"id": "al-1"}, status=201)

    body = {
        "type": "object",
        "required": ["city", "email"],
        "properties": {"city": {"type": "string"}, "email": {"type": "string"}},
    }
    created = {"201": {"description": "created", "content": {"application/json": {"schema": {}}}}}
    operation = {
        "operationId": "createAlert",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": created,
    }
    document = openapi_document("Weather", {"/alerts": {"post": operation}})
    with LoopbackServer(app) as api:
        router = SchemaRouter(encoder=HashingEncoder())
        router.add_openapi(document, provider="weather", base_url=api.base_url)
        allowed: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda r, a: True}
        with pytest.raises(ParameterValidationError) as refused:
            router.call(
                "weather/rest/create_alert", {"city": "Paris", "email": "a@b.co"}, **allowed
            )
        message = str(refused.value)
        assert "has no parameter 'city': it is a property of the request body 'body'" in message
        assert "At $.city: send it inside 'body': {'body': {'city': ...}}" in message
        assert "At $.email: send it inside 'body': {'body': {'email': ...}}" in message
        assert seen == []  # nothing sent
        # a name that is no property of the body reads as before
        with pytest.raises(ParameterValidationError) as refused:
            router.call("weather/rest/create_alert", {"colour": "red"}, **allowed)
        assert "request body" not in str(refused.value)
        done = router.call(
            "weather/rest/create_alert", {"body": {"city": "Paris", "email": "a@b.co"}}, **allowed
        )
    assert done.output == {"id": "al-1"}
    assert len(seen) == 1


def test_executing_a_plan_that_leaves_a_required_argument_out_says_how_to_fill_it() -> None:
    """Trial W1: ``router.execute(router.plan("list tickets"))`` was refused with "'assignee'
    is a required property ... Fix the value there; see the route's input schema", where no
    value was there: the plan lists it in ``missing_arguments`` and ``with_arguments`` fills
    it, and the refusal said neither."""
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response([])

    with LoopbackServer(app) as api:
        router = _router(api.base_url)
        plan = router.plan("list helpdesk tickets")
        assert plan.missing_arguments == {ROUTE: ("assignee",)}
        with pytest.raises(ParameterValidationError) as refused:
            router.execute(plan)
        message = str(refused.value)
        assert "'assignee' is a required property (at plan step 0" in message
        assert (
            f"Fill it before executing: plan = plan.with_arguments('{ROUTE}', "
            "{'assignee': ...}) (plan.missing_arguments lists" in message
        )
        assert seen == []  # nothing sent
        # router.call reads as before: the arguments are the caller's own
        with pytest.raises(ParameterValidationError) as refused:
            router.call(ROUTE, {})
        assert "with_arguments" not in str(refused.value)
        done = router.execute(plan.with_arguments(ROUTE, {"assignee": "ana"}))
    assert done.steps[0].output == []
    assert len(seen) == 1
