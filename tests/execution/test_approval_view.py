"""What an approval callback is shown can be shown to a person: ``json.dumps(arguments)``.

Trial X3 (a support desk's agent): the callback that asks a human "create this ticket?"
printed the arguments with ``json.dumps``, and every write was refused with "the approval
callback failed ... TypeError: Object of type mappingproxy is not JSON serializable", since
the callback saw each object as a ``MappingProxyType``. The arguments it sees are still a
read-only copy (a change to them raises ``TypeError`` and never reaches what is sent). A
real server on loopback."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Route
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

BODY = {"subject": "Parcel lost", "customer": {"email": "ana@example.com"}, "tags": ["late"]}


def _tickets(request: Request) -> Response:
    return json_response({"id": "T-9", **json.loads(request.body)}, 201)


def _router(base: str) -> SchemaRouter:
    created = {"description": "created", "content": {"application/json": {"schema": {}}}}
    body = {"content": {"application/json": {"schema": {"type": "object"}}}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "desk", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/tickets": {
                "post": {
                    "operationId": "createTicket",
                    "requestBody": body,
                    "responses": {"201": created},
                }
            }
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="desk")
    return router


def test_an_approval_can_print_the_arguments_as_json() -> None:
    shown: list[str] = []

    def ask_a_person(route: Route, arguments: Mapping[str, Any]) -> bool:
        shown.append(json.dumps(arguments, sort_keys=True))
        return True

    with LoopbackServer(_tickets) as server:
        router = _router(server.base_url)
        result = router.call(
            "desk/rest/create_ticket",
            {"body": BODY},
            allow_effects=["read", "write"],
            approve=ask_a_person,
        )
        assert json.loads(server.requests[0].body) == BODY
    assert result.output == {"id": "T-9", **BODY}
    assert [json.loads(text) for text in shown] == [{"body": BODY}]


def test_what_the_approval_sees_is_still_read_only() -> None:
    def edits(route: Route, arguments: Mapping[str, Any]) -> bool:
        body = arguments["body"]
        for change in (
            lambda: body.__setitem__("subject", "changed"),
            lambda: body["customer"].update(email="eve@example.com"),
            lambda: body.pop("subject"),
            lambda: body.setdefault("priority", "urgent"),
            lambda: body.clear(),
        ):
            with pytest.raises(TypeError):
                change()
        with pytest.raises(AttributeError):
            body["tags"].append("urgent")
        return True

    with LoopbackServer(_tickets) as server:
        router = _router(server.base_url)
        router.call(
            "desk/rest/create_ticket",
            {"body": BODY},
            allow_effects=["read", "write"],
            approve=edits,
        )
        assert json.loads(server.requests[0].body) == BODY


def test_a_copy_of_what_the_approval_sees_may_be_changed() -> None:
    """The refusal says "copy them to change them": ``copy.copy``, ``copy.deepcopy`` and a
    pickle round trip each give plain dicts the callback may edit (they raised the same
    ``TypeError``), and what is sent stays what was validated."""
    import copy
    import pickle

    copies: list[Any] = []

    def edits_a_copy(route: Route, arguments: Mapping[str, Any]) -> bool:
        for make in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
            mine = make(arguments)
            mine["body"] = {**mine["body"], "subject": "changed"}
            copies.append(mine)
        deep = copy.deepcopy(arguments)
        deep["body"]["customer"]["email"] = "eve@example.com"
        return True

    with LoopbackServer(_tickets) as server:
        router = _router(server.base_url)
        router.call(
            "desk/rest/create_ticket",
            {"body": BODY},
            allow_effects=["read", "write"],
            approve=edits_a_copy,
        )
        assert json.loads(server.requests[0].body) == BODY
    assert [c["body"]["subject"] for c in copies] == ["changed"] * 3


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (None, "returned None, not True"),
        ("yes", "returned 'yes' (str), not True"),
        (1, "returned 1 (int)"),
    ],
)
def test_an_approval_that_returns_no_bool_is_named_so(answer: Any, said: str) -> None:
    """Trial X3: ``approve=lambda route, arguments: "yes"``, or a callback that asked a
    person and forgot its ``return``, read "the approval callback refused write call ...":
    the developer looked for a "no" that was never given. Only ``True`` approves still; the
    error says what came back instead, and the model reads the host's approval failed."""
    from schemarouter.errors import PolicyError
    from schemarouter.integrations import agent_error

    with LoopbackServer(_tickets) as server:
        router = _router(server.base_url)
        with pytest.raises(PolicyError, match="refused") as refused:
            router.call(
                "desk/rest/create_ticket",
                {"body": BODY},
                allow_effects=["read", "write"],
                approve=lambda route, arguments: answer,
            )
        assert server.requests == []
    assert said in str(refused.value)
    assert "return True to approve" in str(refused.value)
    assert "approval of it failed" in agent_error(refused.value)


def test_an_approval_that_says_no_is_a_refusal() -> None:
    from schemarouter.errors import PolicyError

    with LoopbackServer(_tickets) as server:
        router = _router(server.base_url)
        with pytest.raises(PolicyError, match="the approval callback refused write call"):
            router.call(
                "desk/rest/create_ticket",
                {"body": BODY},
                allow_effects=["read", "write"],
                approve=lambda route, arguments: False,
            )
        assert server.requests == []
