"""What a request says not to use is never planned into a change, also where it names a
list ("do not delete room R1 or room R2": each item is refused, not only the first), a
negation comes after the list ("room R1 and room R2 must not be deleted"), or is worded
with another word or apostrophe than the first readings knew ("aside from", "skip",
"don‘t", Korean 이외 / 말곤 / 뺀 / 아니고 / 않기 / 불가). Trial X1 (high): each planned
``DELETE /rooms/R2`` or ``/rooms/R1``, a room the user said to keep; the loopback server's
access log showed the deletion once the plan ran."""

from __future__ import annotations

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.clauses import Clauses

from helpers import planned_room

_room = planned_room


@pytest.mark.parametrize(
    "request_text",
    [
        "do not delete room R1 or room R2",
        "don't delete room R1 and room R2",
        "delete every room except room R1, room R2",
        "delete every room except R1, R2 and R3 and R4",
        "room R1 and room R2 must not be deleted",
        "room R1 or room R2 must not be deleted",
        "neither room R1 nor room R2 may be deleted",
        "delete every room aside from room R1",
        "delete all rooms excepting room R1",
        "delete all rooms but skip room R1",
        "keep room R1, delete the others",
        "room R1 is not to be deleted",
        "room R1: do not delete",
        "don‘t delete room R1",
        "donʼt delete room R1",
        "room R1이랑 room R2 빼고 다 삭제",
        "room R1과 room R2는 빼고 삭제",
        "room R1 이외의 방 삭제",
        "room R1 외 모두 삭제",
        "room R1 말곤 다 삭제",
        "room R1을 뺀 나머지 삭제",
        "room R1도 빼고 삭제",
        "room R1은 삭제하지 않기",
        "room R1 삭제 불가",
        "room R1은 절대 삭제 안 됨",
        "room R1, room R2 삭제 금지",
        "room R1 및 room R2 제외하고 삭제",
    ],
)
def test_no_room_the_request_keeps_is_planned_for_deletion(request_text: str) -> None:
    assert _room(request_text) is None


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("delete room R1", "R1"),
        ("delete room R2, not room R1", "R2"),
        ("delete room R2 but not room R1", "R2"),
        ("room R1 아니고 room R2 삭제", "R2"),
        ("room R1 말고 room R2 삭제", "R2"),
        # a negation of another clause, or a list of another thing, says nothing of it
        ("delete room R1, no confirmation needed", "R1"),
        ("no need to confirm: delete room R1", "R1"),
        ("do not ask me again, delete room R1", "R1"),
        ("don't delete room R2 and delete room R1", "R1"),
        ("room R1 외부 센서 기록 삭제", "R1"),
        ("delete room R1, it is not booked", "R1"),  # "if it is not booked" withholds it
    ],
)
def test_a_room_the_request_wants_is_still_planned(request_text: str, room: str | None) -> None:
    assert _room(request_text) == room


def test_a_long_list_is_read_once() -> None:
    """Each value of a list was first checked by walking back over the whole list (20,000
    ids: 204 s); what the list says is now worked out once per request."""
    query = "do not delete " + ", ".join(f"R{i}" for i in range(5_000))
    clauses = Clauses(query)
    spans = [(query.index(f"R{i},"), query.index(f"R{i},") + len(f"R{i}")) for i in (0, 4_000)]
    assert all(clauses.against_span(begin, end) for begin, end in spans)
    assert len(clauses.listed) == len(clauses.ends) + 1


_HOTEL = {
    "openapi": "3.1.0",
    "info": {"title": "Hotel back office", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/rooms/{room}": {
            "delete": {
                "operationId": "delete_room",
                "summary": "Delete a hotel room and its bookings",
                "parameters": [
                    {"name": "room", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"204": {"description": "gone"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("delete room R1&R2", None),
        ("delete room R1+R2", None),
        ("delete room R1|R2", None),
        ("delete room R1?x=1", None),
        ("delete room R1#R2", None),
        ("can you delete room R1?", "R1"),
        ("delete room R1? yes", "R1"),
    ],
)
def test_an_id_written_on_with_a_list_or_query_sign_binds_nowhere(
    request_text: str, room: str | None
) -> None:
    """Trial X1 (medium): "delete room R1&R2" planned ``DELETE /rooms/R1`` alone, and
    "delete room R1?x=1" sent ``DELETE /rooms/R1`` to the server, as "R1/../R2" did before
    it was refused."""
    from schemarouter.planning.arguments import fill_arguments

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_HOTEL, provider="hotel")
    route = router.snapshot().routes["hotel/rest/delete_room"]
    assert fill_arguments(route, request_text).get("room") == room
    (step,) = router.plan(PlanRequest(query=request_text, allowed_effects=set(Effect))).steps
    assert dict(step.arguments).get("room") == room


_REFERENCES = {
    "openapi": "3.1.0",
    "info": {"title": "Reference manager", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/library/items/{doi}": {
            "delete": {
                "operationId": "remove_reference",
                "summary": "Remove a paper from the reference library",
                "parameters": [
                    {
                        "name": "doi",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "x-semantic-id": "identifier.doi"},
                    }
                ],
                "responses": {"204": {"description": "gone"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "doi"),
    [
        ("10.1000/xyz123이랑 10.1000/abc456 빼고 라이브러리에서 논문 삭제", None),
        ("논문 10.1000/xyz123을 라이브러리에서 삭제해", "10.1000/xyz123"),
        ("remove paper 10.1000/xyz123 from the library", "10.1000/xyz123"),
    ],
)
def test_a_korean_particle_is_no_part_of_a_doi(request_text: str, doi: str | None) -> None:
    """Trial X1 (high): a DOI took the Korean particle written onto it, so "10.1000/xyz123이랑
    10.1000/abc456 빼고 ... 삭제" (all but these two) planned the removal of
    ``10.1000/xyz123이랑``, the paper the user said to keep, and "10.1000/xyz123을 삭제해"
    removed no paper."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_REFERENCES, provider="refs")
    (step,) = router.plan(PlanRequest(query=request_text, allowed_effects=set(Effect))).steps
    assert dict(step.arguments).get("doi") == doi


def send_invoice(email: str, invoice: str) -> dict[str, bool]:
    """Send an invoice by e-mail to a customer."""
    return {"sent": True}


@pytest.mark.parametrize(
    ("request_text", "email"),
    [
        ("invoice INV-7을 ann@example.com에게 보내", "ann@example.com"),
        ("invoice INV-7 메일 ann@mail.example.co.kr로 보내", "ann@mail.example.co.kr"),
        ("send invoice INV-7 to ann@example.com", "ann@example.com"),
    ],
)
def test_a_korean_particle_is_no_part_of_an_address(request_text: str, email: str) -> None:
    """Trial X1 (high): "ann@example.com에게 보내" (send to ann@...) bound the address
    ``ann@example.com에게``: the e-mail format check took it, and the invoice was for a
    domain "com에게" that is not the customer's."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(send_invoice, provider="shop", effect="write")
    (step,) = router.plan(PlanRequest(query=request_text, allowed_effects=set(Effect))).steps
    assert dict(step.arguments).get("email") == email


@pytest.mark.parametrize(
    ("request_text", "url"),
    [
        ("웹훅 https://hooks.example.com/orders를 등록해", "https://hooks.example.com/orders"),
        ("웹훅 https://hooks.example.com/v2/으로 등록", "https://hooks.example.com/v2/"),
        ("웹훅 https://ko.wikipedia.org/wiki/나이 등록", "https://ko.wikipedia.org/wiki/나이"),
        ("register webhook https://hooks.example.com/orders", "https://hooks.example.com/orders"),
    ],
)
def test_a_korean_particle_is_no_part_of_a_url(request_text: str, url: str) -> None:
    """Trial X1 (medium): "https://hooks.example.com/orders를 등록해" (register it) bound the
    URL with 를 on its path, and the webhook would be registered at ``/orders%EB%A5%BC``."""
    from schemarouter.planning.arguments import fill_arguments

    document = {
        "openapi": "3.1.0",
        "info": {"title": "Shop webhooks", "version": "1.0"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/webhooks": {
                "post": {
                    "operationId": "register_webhook",
                    "summary": "Register a webhook URL for order events",
                    "parameters": [
                        {
                            "name": "url",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string", "format": "uri"},
                        }
                    ],
                    "responses": {"201": {"description": "registered"}},
                }
            }
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    route = router.snapshot().routes["shop/rest/register_webhook"]
    assert fill_arguments(route, request_text) == {"url": url}


_STRUCTURES = {
    "openapi": "3.1.0",
    "info": {"title": "Structure store", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/structures/{entry_id}": {
            "get": {
                "operationId": "get_structure",
                "summary": "Read a stored crystal structure",
                "parameters": [
                    {
                        "name": "entry_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {"200": {"description": "the structure"}},
            },
            "delete": {
                "operationId": "delete_structure",
                "summary": "Delete a stored crystal structure",
                "parameters": [
                    {
                        "name": "entry_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {"204": {"description": "gone"}},
            },
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "entry_id"),
    [
        ("delete structure kop-1 or structure kop-2", None),
        ("delete structure kop-1 and structure kop-2", None),
        ("delete structures kop-1, kop-2", None),
        ("delete structure kop-1", "kop-1"),
        ("delete structure kop-1, then delete structure kop-1 again", "kop-1"),
        ("delete structure kop-1, it is obsolete", "kop-1"),
        ("delete structure kop-1, not kop-2", "kop-1"),
    ],
)
def test_a_change_takes_none_of_two_ids_of_a_thing(request_text: str, entry_id: str | None) -> None:
    """Trial X1 (medium): "delete structure kop-1 or structure kop-2" planned
    ``DELETE /structures/kop-1``, the first id written, where a parameter named by its own
    name guesses none of two ("structures kop-1, kop-2" did so with no warning: kop-2 is no
    id on its own); a read still takes the first."""
    from schemarouter.planning.arguments import fill_arguments
    from schemarouter.retrieval.analysis import find_values

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_STRUCTURES, provider="st")
    routes, values = router.snapshot().routes, find_values(request_text)
    change = fill_arguments(routes["st/rest/delete_structure"], request_text, values)
    assert change.get("entry_id") == entry_id
    read = fill_arguments(routes["st/rest/get_structure"], request_text, values)
    assert read == {"entry_id": "kop-1"}
