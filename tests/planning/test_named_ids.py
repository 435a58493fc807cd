"""A plain string parameter takes an id the request writes by its name: fused ("SKU-5" for
``sku``), or after it ("cold room R1" for ``room``), and a parameter named ``email`` takes
the address the request writes though its schema gives no format (trial T1: a shop back
office's own functions; each was left open and the plan asked the caller for it)."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder


def stock_level(sku: str) -> dict[str, int]:
    """How many units of a product are in stock."""
    return {"units": 7}


def room_temperature(room: str) -> dict[str, float]:
    """Current temperature of a cold room in the warehouse."""
    return {"celsius": 3.5}


def customer_orders(email: str) -> dict[str, Any]:
    """Orders of a customer, found by the customer's e-mail address."""
    return {"orders": ["O-19"]}


def _plan(fn: Any, request: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(fn, provider="shop")
    plan = router.plan(request)
    (step,) = plan.steps
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        (stock_level, "how many units of SKU-5 are in stock", {"sku": "SKU-5"}),
        (stock_level, "stock level of sku 1001-B", {"sku": "1001-B"}),
        (room_temperature, "temperature of cold room R1", {"room": "R1"}),
        # "with id", "whose id is": the id was left missing
        (room_temperature, "temperature of the room with id R1", {"room": "R1"}),
        (stock_level, "stock level of the sku whose id is 1001-B", {"sku": "1001-B"}),
        (customer_orders, "orders of customer ann@example.com", {"email": "ann@example.com"}),
        # two ids named: none is guessed
        (room_temperature, "temperature of room R1 and room R2", {}),
        # a word with no digit is no id
        (room_temperature, "temperature of the cold room now", {}),
    ],
)
def test_an_id_named_by_its_parameter_binds(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    assert _plan(fn, request_text) == arguments


def test_a_long_run_without_an_address_is_read_once() -> None:
    import time

    started = time.process_time()  # CPU: other jobs' load is not ours
    assert _plan(customer_orders, "orders of " + "a." * 50_000 + " customer") == {}
    assert time.process_time() - started < 5.0


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        # a URL's path or credentials are no value the request gives
        (room_temperature, "temperature of the room on https://wiki.example.com/room5/howto", {}),
        (customer_orders, "orders of the customer on http://admin:hunter2@crm.example.com/x", {}),
        (customer_orders, "orders of the customer at https://crm.example.com/u/bob@evil.com", {}),
        (
            customer_orders,
            "orders of ann@example.com, listed on http://admin:hunter2@crm.example.com/x",
            {"email": "ann@example.com"},
        ),
        # a Korean particle written onto the id is no part of it
        (room_temperature, "냉장실 room R1의 온도", {"room": "R1"}),
        (stock_level, "SKU-5의 재고", {"sku": "SKU-5"}),
    ],
)
def test_a_url_or_a_particle_is_no_part_of_a_named_value(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial T5: ``room`` took ``room5`` from a wiki URL's path, ``email`` took
    ``hunter2@crm.example.com`` (a password and host) from a URL's credentials and
    ``bob@evil.com`` from a URL's path, and ``room`` took ``R1을`` with its particle."""
    assert _plan(fn, request_text) == arguments


def send_mail(from_email: str, to_email: str, body: str) -> dict[str, bool]:
    """Send an e-mail message from one address to another."""
    return {"sent": True}


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        # two parameters take an address: neither takes one the request did not give it
        (send_mail, "send mail from alice@a.example to bob@b.example saying hi", {}),
        (send_mail, "send an e-mail to bob@b.example", {}),
        # named, each takes its own
        (
            send_mail,
            "send mail from_email=alice@a.example to_email=bob@b.example",
            {"from_email": "alice@a.example", "to_email": "bob@b.example"},
        ),
        # two addresses for one parameter: none is guessed
        (customer_orders, "orders of ann@example.com or of eve@evil.example", {}),
        (
            customer_orders,
            "orders of ann@example.com (ann@example.com)",
            {"email": "ann@example.com"},
        ),
    ],
)
def test_an_address_binds_only_where_the_request_gives_one_parameter_one(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial U1: "send mail from alice@a.example to bob@b.example" bound ``from_email`` and
    ``to_email`` both to alice's address (the first written), and "send an e-mail to
    bob@b.example" bound bob's as the sender's too: a write's recipient, planned wrong."""
    assert {k: v for k, v in _plan(fn, request_text).items() if k != "body"} == arguments


def test_a_long_run_of_spaces_after_a_parameter_name_is_read_once() -> None:
    """Trial U1 (medium): ``name value`` binding read the spaces after a parameter's name
    once per way of splitting them: "temperature of room" and 8,000 spaces took 1.2 s to
    plan, 20,000 spaces 7 s (quadratic; a 200,000-character request, minutes)."""
    import time

    started = time.process_time()  # CPU: other jobs' load is not ours
    assert _plan(room_temperature, "temperature of room" + " " * 20_000 + "R1") == {"room": "R1"}
    assert time.process_time() - started < 2.0


def test_many_urls_beside_many_ids_are_read_in_linear_time() -> None:
    """Trial U1 (medium): each id or address the request names was checked against every
    URL it writes: 4,000 "https://x.y/ room R1" took 1.3 s for one parameter (and 1 s for an
    address), quadratic; 10,000 took 8 s."""
    import time

    from schemarouter.planning.arguments import fill_arguments

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([room_temperature, customer_orders], provider="shop")
    routes = router.snapshot().routes
    started = time.process_time()  # CPU: other jobs' load is not ours
    rooms = "https://x.y/ room R1 " * 20_000
    assert fill_arguments(routes["shop/python/room_temperature"], rooms) == {"room": "R1"}
    mails = "https://x.y/ ann@example.com " * 20_000
    assert fill_arguments(routes["shop/python/customer_orders"], mails) == {
        "email": "ann@example.com"
    }
    # linear: about 1 s here; the quadratic reading took 8 s at half the size (about 30 s
    # at this one), so the bound holds on a loaded machine and still fails the old code
    assert time.process_time() - started < 12.0


def delete_booking(room: str) -> dict[str, bool]:
    """Delete the booking of a meeting room."""
    return {"deleted": True}


def transfer(to: str, amount: float) -> dict[str, bool]:
    """Transfer money to an account."""
    return {"sent": True}


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        (delete_booking, "delete every booking except room R1", {}),
        (delete_booking, "do not delete room R1", {}),
        (delete_booking, "room R1 말고 다른 예약 삭제", {}),
        (transfer, "transfer 50 to account A1, not to B2", {"amount": 50}),
        (
            customer_orders,
            "orders of ann@example.com, not of eve@evil.example",
            {"email": "ann@example.com"},
        ),
        # what the request does want still binds
        (delete_booking, "delete room R1 but keep room R2", {"room": "R1"}),
        (delete_booking, "delete room R1, it is not needed", {"room": "R1"}),
        (delete_booking, "room R1 말고 room R2 삭제", {"room": "R2"}),
        # "not only R1 but R2 too": both wanted, so neither alone (trial V1)
        (delete_booking, "room R1만 아니라 room R2도 삭제", {}),
    ],
)
def test_a_value_the_request_says_not_to_is_never_bound(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial U1 (high): "delete every booking except room R1" and "do not delete room R1"
    planned ``delete_booking(room="R1")``, the one room the user meant to keep, and
    "transfer 50 to account A1, not to B2" planned ``transfer(to="B2")``: an id or address
    named by its parameter bound from a negated clause into a destructive call."""
    got = {k: v for k, v in _plan(fn, request_text).items() if k in ("room", "to", "email")}
    assert got == {k: v for k, v in arguments.items() if k in ("room", "to", "email")}


def set_account_currency(account: str, currency: Literal["EUR", "USD", "GBP"]) -> dict[str, bool]:
    """Set the currency an account is kept in."""
    return {"ok": True}


def convert(amount: float, source: Literal["EUR", "USD"], target: Literal["EUR", "USD"]) -> float:
    """Convert an amount between currencies at today's rate."""
    return amount


def _plan_write(fn: Any, request: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(fn, provider="bank", effect="write")
    plan = router.plan(PlanRequest(query=request, allowed_effects=frozenset({Effect.WRITE})))
    (step,) = plan.steps
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("request_text", "currency"),
    [
        ("do not set the account currency of acct A-1 to EUR", None),
        ("set the currency of account A-1, but never to EUR", None),
        # two values named: none is guessed (the plan asks), and never the negated one
        ("set the currency of account A-1 to USD, not EUR", None),
        ("set the currency of account A-1 to EUR", "EUR"),
    ],
)
def test_a_change_takes_no_value_the_request_says_not_to_use(
    request_text: str, currency: str | None
) -> None:
    """Trial U1 (medium, reported): the older binders (an enum, a formula, a quantity) took a
    value from a negated clause: "do not set the account currency to EUR" planned a write of
    currency="EUR". A change's step leaves such a value out (the plan asks for it); a read's
    binders are as before ("I don't know the rate of 100 USD to EUR" still converts)."""
    assert _plan_write(set_account_currency, request_text).get("currency") == currency


def test_a_read_still_takes_values_written_beside_a_negation() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(convert, provider="fx")
    (step,) = router.plan("I don't know the rate: convert 100 USD to EUR").steps
    assert (step.arguments.get("source"), step.arguments.get("target")) == ("USD", "EUR")


_LAB = {
    "openapi": "3.0.0",
    "info": {"title": "lab", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/structures/{entry_id}": {
            "delete": {
                "operationId": "delete_structure",
                "summary": "Delete a stored structure",
                "parameters": [
                    {
                        "name": "entry_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {"204": {"description": "deleted"}},
            }
        },
        "/orders/{order_id}": {
            "delete": {
                "operationId": "cancel_order",
                "summary": "Cancel an order",
                "parameters": [
                    {
                        "name": "order_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "pattern": "^ORD-[0-9]{8}$"},
                    }
                ],
                "responses": {"204": {"description": "cancelled"}},
            }
        },
    },
}


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("do not delete structure kop-3", {}),
        ("delete every structure except structure kop-3", {}),
        ("don\u2019t delete structure kop-3", {}),  # the apostrophe phones and agents write
        ("dont delete structure kop-3", {}),
        ("do not delete entry_id=kop-3", {}),
        ('do not delete the structure "kop-3"', {}),
        ("don't cancel ORD-20240001", {}),
        ("structure kop-3만 빼고 삭제", {}),
        # what the request does want still binds
        ("delete structure kop-3", {"entry_id": "kop-3"}),
        ("delete structure kop-3, not structure kop-4", {"entry_id": "kop-3"}),
        ("cancel ORD-20240001", {"order_id": "ORD-20240001"}),
    ],
)
def test_no_reading_of_a_request_binds_an_id_it_says_not_to_use(
    request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial V1 (high): the fix for "except room R1" covered an id named by its parameter
    only. "do not delete structure kop-3" still planned ``DELETE /structures/kop-3`` (the id
    after its collection, bound by the request's analysis), "don't cancel ORD-20240001" bound
    it by the parameter's pattern, "do not delete entry_id=kop-3" by its name, a quoted
    "kop-3" as the one text parameter's value, and "don’t" (U+2019) or "dont" was read as no
    negation at all; Korean "kop-3만 빼고" (all but kop-3) bound kop-3 too."""
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_LAB, provider="lab")
    writes = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=writes))
    (step,) = plan.steps
    assert dict(step.arguments) == arguments


_HOOKS = {
    "openapi": "3.0.0",
    "info": {"title": "hooks", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/sessions/{sid}": {
            "delete": {
                "operationId": "revoke_session",
                "summary": "Revoke a login session",
                "parameters": [
                    {
                        "name": "sid",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "format": "uuid"},
                    }
                ],
                "responses": {"204": {"description": "revoked"}},
            }
        },
        "/webhooks": {
            "post": {
                "operationId": "add_webhook",
                "summary": "Register a webhook target URL",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["target"],
                                "properties": {"target": {"type": "string", "format": "uri"}},
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "registered"}},
            }
        },
    },
}
_SID = "123e4567-e89b-12d3-a456-426614174000"


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        (f"revoke every session except {_SID}", {}),
        (f"do not revoke session {_SID}", {}),
        ("register a webhook, not https://evil.example/hook", {}),
        ("don't register https://evil.example/hook as a webhook", {}),
        # what the request does want still binds
        (f"revoke session {_SID}", {"sid": _SID}),
        (
            "register webhook https://good.example/hook, not https://evil.example/hook",
            {"body": {"target": "https://good.example/hook"}},
        ),
    ],
)
def test_an_address_or_uuid_the_request_says_not_to_use_is_never_bound(
    request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial V1 (high): a parameter of format ``uuid`` or ``uri`` took the first one the
    request wrote, its clause unread: "do not revoke session 123e4567-..." planned
    ``DELETE /sessions/123e4567-...`` and "register a webhook, not https://evil.example/hook"
    posted the evil address as the webhook's target."""
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_HOOKS, provider="hooks")
    writes = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=writes))
    (step,) = plan.steps
    assert dict(step.arguments) == arguments


_REPOS = {
    "openapi": "3.0.0",
    "info": {"title": "code host", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/repos/{owner}/{repo}": {
            "delete": {
                "operationId": "delete_repo",
                "summary": "Delete a repository",
                "parameters": [
                    {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                    for n in ("owner", "repo")
                ],
                "responses": {"204": {"description": "deleted"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("delete every repository except alice/prod", {}),
        ("do not delete alice/prod", {}),
        ("delete alice/scratch", {"owner": "alice", "repo": "scratch"}),
        ("delete alice/scratch, not alice/prod", {"owner": "alice", "repo": "scratch"}),
    ],
)
def test_a_repository_the_request_says_not_to_use_is_never_bound(
    request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial V1 (high): an owner/repo the request wrote bound the route's owner and repo
    whatever its clause said: "do not delete alice/prod" planned ``DELETE
    /repos/alice/prod``."""
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_REPOS, provider="code")
    writes = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=writes))
    (step,) = plan.steps
    assert dict(step.arguments) == arguments


def test_a_retrieval_offers_no_id_the_request_says_not_to_use() -> None:
    """Trial V1 (medium): the plan left the id out, but the candidates of the same request
    still showed it bound: "do not delete structure kop-3" gave the delete route
    ``bound_parameters`` ``{"entry_id": "kop-3"}``, in the contracts a prompt reads too."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_LAB, provider="lab")
    kept = router.retrieve("do not delete structure kop-3", k=1)
    assert kept.route_ids == ("lab/rest/delete_structure",)
    assert kept.candidates[0].bound_parameters == {}
    assert "bound_parameters" not in kept.contracts(compact=True)[0]
    meant = router.retrieve("delete structure kop-3", k=1)
    assert meant.candidates[0].bound_parameters == {"entry_id": "kop-3"}


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        (delete_booking, "delete room R1/../R2", {}),
        (delete_booking, "delete room R1%2F..%2FR2", {}),
        (delete_booking, "delete room R1*", {}),
        (delete_booking, "delete room R1,R2,R3", {}),
        (delete_booking, "delete room R1.", {"room": "R1"}),
        (delete_booking, "delete room R1?", {"room": "R1"}),
    ],
)
def test_an_id_written_on_past_its_end_is_not_cut_to_its_first_part(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial V1 (medium): an id the request wrote on past its end bound its first part:
    "delete room R1/../R2", "delete room R1*" and "delete room R1,R2,R3" planned
    ``delete_booking(room="R1")``, and "delete structure kop-3/../../admin" or
    "kop-3%2F..%2Fadmin" ``DELETE /structures/kop-3``, a room or structure the request never
    named alone, with no warning."""
    assert _plan(fn, request_text) == arguments


@pytest.mark.parametrize("written", ["kop-3/../../admin", "kop-3%2F..%2Fadmin", "kop-3*"])
def test_an_id_after_its_collection_written_on_binds_nowhere(written: str) -> None:
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_LAB, provider="lab")
    writes = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})
    plan = router.plan(PlanRequest(query=f"delete structure {written}", allowed_effects=writes))
    (step,) = plan.steps
    assert dict(step.arguments) == {}


_CALENDAR = {
    "openapi": "3.0.0",
    "info": {"title": "calendar", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/events": {
            "delete": {
                "operationId": "delete_events",
                "summary": "Delete the calendar events of a day",
                "parameters": [
                    {
                        "name": "date",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "format": "date"},
                    }
                ],
                "responses": {"204": {"description": "deleted"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("delete the events of every day except 2026-01-05", {}),
        ("do not delete the events of 2026-01-05", {}),
        ("delete the events of 2026-01-05", {"date": "2026-01-05"}),
        ("delete the events of 2026-01-06, not 2026-01-05", {"date": "2026-01-06"}),
    ],
)
def test_a_date_the_request_says_not_to_use_is_never_bound(
    request_text: str, arguments: dict[str, Any]
) -> None:
    """Trial V1 (high): "delete the events of every day except 2026-01-05" planned
    ``DELETE /events?date=2026-01-05``, the one day the user meant to keep."""
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_CALENDAR, provider="cal")
    writes = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=writes))
    (step,) = plan.steps
    assert dict(step.arguments) == arguments


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("room R1 must not be deleted", None),
        ("booking of room R1 shouldn't be deleted", None),
        ("room R1은 삭제하지 마", None),
        ("room R1 삭제 금지", None),
        ("room R1 삭제하면 안 돼", None),
        # a negation of another clause says nothing of this one
        ("delete room R1, it should not be kept", "R1"),
        ("room R1 삭제해줘", "R1"),
    ],
)
def test_a_negation_written_after_the_id_keeps_it_out(request_text: str, room: str | None) -> None:
    """Trial V1 (medium, reported): a negation after the value ("room R1 must not be
    deleted", Korean "room R1은 삭제하지 마", "삭제 금지") bound R1 into the delete."""
    assert _plan(delete_booking, request_text).get("room") == room


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("Do not, under any circumstances, delete room R1", None),
        ("never, ever delete room R1", None),
        ("Please don't, whatever happens, delete room R1", None),
        ("Delete the old bookings; keep room R1", None),
        ("leave room R1 alone and delete the rest", None),
        ("room R1은 남기고 나머지 예약 삭제", None),
        # what the request does want still binds
        ("Don't worry, delete room R1", "R1"),
        ("delete room R1, keep the rest", "R1"),
        ("Do not, I repeat, do not delete room R2, delete room R1", "R1"),
    ],
)
def test_a_negation_set_apart_or_a_kept_id_stays_out(request_text: str, room: str | None) -> None:
    """A negation set apart by a comma ("Do not, under any circumstances, delete room R1")
    ended its clause before the id, and "keep room R1" beside a delete did not say not: both
    planned ``delete_booking(room="R1")``, the room the user meant to keep."""
    assert _plan(delete_booking, request_text).get("room") == room


def test_keeping_is_no_negation_in_a_request_that_changes_nothing() -> None:
    """ "keep" turns against its values only beside a change: a read keeps its id."""
    assert _plan(room_temperature, "keep an eye on room R1's temperature").get("room") == "R1"


def customer_order_list(customer_id: str) -> dict[str, Any]:
    """List the orders of a customer."""
    return {"orders": ["O-5001"]}


@pytest.mark.parametrize(
    "request_text",
    [
        "List the orders of customer C-42 - not C-43's",
        "orders of customer C-42, never C-43",
        "orders of customer C-42 except C-43",
    ],
)
def test_a_negation_is_no_thing_an_id_is_named_after(request_text: str) -> None:
    """Trial X3: "List the orders of customer C-42 - not C-43's" planned ``customer_id`` =
    C-42 and warned "the request names not id 'C-43', which no step takes as an argument":
    "not" was read as a thing that C-43 identifies. The id the request says not to use is
    neither bound nor named as a thing's."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(customer_order_list, provider="shop")
    plan = router.plan(request_text)
    assert dict(plan.steps[0].arguments) == {"customer_id": "C-42"}
    said = [w for w in plan.warnings if "C-43" in w]
    assert not [w for w in said if re.search(r"names (?:not|never|except) id", w)], said


def skip_track(track: str) -> dict[str, bool]:
    """Skip a track in the player's queue."""
    return {"skipped": True}


@pytest.mark.parametrize(
    ("request_text", "track"),
    [("skip track T1", "T1"), ("delete the queue but skip track T1", None)],
)
def test_skipping_says_not_only_beside_a_change(request_text: str, track: str | None) -> None:
    """ "skip" is the action of "skip track T1" (trial X1's word list read it as a refusal
    everywhere); beside a delete it keeps its value out."""
    assert _plan(skip_track, request_text).get("track") == track
