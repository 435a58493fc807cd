"""Two contractions are no quoted value (the twelfth security review).

A quoted title, name or comment is blanked before a request's verbs, refusals and conditions
are read (its words are a value, never the request's). The apostrophe of "don't", "isn't",
"it's" was read as a quote mark, so a request with two of them had the words between them
blanked as a value: "Don't cancel appointment A-1001, confirm appointment A-1002; we don't
want to cancel anything" read no refusal and asked only to cancel, and the cancel of A-1002
was sent; "It's urgent: delete customer C-1 if order O-1 is refunded, don't ask" read no
condition and the deletion was sent. An apostrophe between two letters is no quote mark;
a quoted value with one inside ("'don't call'") is still one value. What the loopback server
receives is checked."""

from __future__ import annotations

import pytest

from schemarouter.planning.refusals import unquoted
from tests.planning.test_conditional_changes_not_sent import _run
from tests.planning.test_refused_then_it import _sent


@pytest.mark.parametrize(
    "query",
    [
        "Don't cancel appointment A-1001, confirm appointment A-1002; we don't want to cancel "
        "anything",
        "Confirm appointment A-1002, don't cancel appointment A-1001 and don't cancel anything "
        "else",
    ],
)
def test_a_refusal_between_two_contractions_is_still_read(query: str) -> None:
    assert _sent(query) == [("POST", "/appointments/A-1002/confirm", None)]


@pytest.mark.parametrize(
    "query",
    [
        "It's urgent: delete customer C-1 if order O-1 is refunded, don't ask",
        "Don't wait, delete customer C-1 if order O-1 is refunded, I don't mind",
    ],
)
def test_a_condition_between_two_contractions_still_withholds_the_change(query: str) -> None:
    plan, sent = _run(query)
    assert sent == [("GET", "/orders/O-1")], (plan.route_ids, plan.warnings)
    assert [w for w in plan.warnings if "condition" in w], plan.warnings


def test_a_quoted_value_with_an_apostrophe_is_still_one_value() -> None:
    text = "Set the note of ticket T-1 to 'don't cancel it', don't close it"
    blanked = unquoted(text)
    assert "cancel" not in blanked and "close" in blanked
    assert blanked.startswith("Set the note of ticket T-1 to ") and "don't close" in blanked
    assert unquoted("Don't cancel it, we don't want to") == "Don't cancel it, we don't want to"
