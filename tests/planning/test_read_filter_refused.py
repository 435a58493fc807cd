"""A read's filter is never the value the request says not to want (trial X3).

"List the tickets of customer C-43 but not the closed ones" planned ``list_tickets`` with
``status="closed"``: the one enum value the request names was filled though its clause says
*not*; the call would return exactly the tickets the user did not want. A change already
left such a value out (trial U1); a read's enum filter now does too, and stays open."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


def list_tickets(
    status: Literal["open", "pending", "closed"] | None = None, customer_id: str | None = None
) -> list[dict[str, Any]]:
    """List support tickets by status and customer."""
    return []


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(list_tickets, provider="desk")
    return router


def _arguments(router: SchemaRouter, request: str) -> dict[str, Any]:
    (step,) = router.plan(request).steps
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("List the tickets of customer C-43 but not the closed ones", {"customer_id": "C-43"}),
        ("list tickets, except closed ones", {}),
        ("list the tickets that are not closed", {}),
        # the value the request does want is still filled
        ("list the closed tickets of customer C-43", {"status": "closed", "customer_id": "C-43"}),
        # one value wanted, another refused beside it: none is guessed (the plan asks)
        ("list the pending tickets, not the closed ones", {}),
        # a verb that sets the value aside (trial Y1: "skip" filtered status=pending)
        ("list tickets but skip the pending ones", {}),
        ("show tickets, ignoring closed ones", {}),
        ("list tickets and leave out closed", {}),
    ],
)
def test_a_filter_the_request_refuses_is_left_open(
    router: SchemaRouter, request_text: str, arguments: dict[str, Any]
) -> None:
    assert _arguments(router, request_text) == arguments


@pytest.mark.parametrize(
    "request_text",
    [
        "list tickets, anything but closed",
        "list all but the closed tickets",
        "list tickets minus the closed ones",
        "list tickets where status != closed",
        "list tickets with status ≠ closed",
        "list tickets where status <> closed",
    ],
)
def test_a_filter_refused_as_anything_but_or_unequal_is_left_open(
    router: SchemaRouter, request_text: str
) -> None:
    """Trial Z1 (high): each planned ``status="closed"``, the tickets the request refuses."""
    assert "status" not in _arguments(router, request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "list tickets except the ones that are closed",
        "list tickets but not those which are closed",
        "list tickets, closed excluded",
        "list tickets, closed ones excepted",
        "closed 상태는 빼고 티켓 보여줘",
        "closed 상태 티켓은 말고 목록 보여줘",
        "closed 티켓 말고 목록",
    ],
)
def test_a_filter_refused_a_few_words_off_is_left_open(
    router: SchemaRouter, request_text: str
) -> None:
    """Trial Z1 (high): each planned ``status="closed"``, the tickets the request refuses."""
    assert "status" not in _arguments(router, request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "list tickets that are closed",
        "closed 상태 티켓 보여줘",
        "list the closed tickets that are old",
    ],
)
def test_a_filter_named_with_words_around_it_is_filled(
    router: SchemaRouter, request_text: str
) -> None:
    assert _arguments(router, request_text) == {"status": "closed"}
