"""A question about a change plans no change, even where no read of its thing is near
(user trial 14).

"Can I close account ACC-1005?" over a bank server whose five best routes for it were all
changes (``close_account``, ``create_transfer``, ``add_payee`` ...) and whose read of an
account ranked lower: no read was found to plan in the change's place, so the change itself
was planned, and ``execute`` (every effect allowed, auto-approval) closed the account. A
question whether or why to change now plans nothing where no read of the same thing is near,
and says why; "Can you close ...?" still asks the change."""

from __future__ import annotations

import pytest
from desk_serving import answering_op, sent, serving

from schemarouter.index import HashingEncoder

from helpers import path_id

PATHS = {
    "/accounts/{account_id}/close": {
        "parameters": path_id("account_id"),
        "post": answering_op("closeAccount", "Close an account for good"),
    },
    "/accounts/{account_id}/freeze": {
        "parameters": path_id("account_id"),
        "post": answering_op("freezeAccount", "Freeze an account"),
    },
}


def _run(query: str) -> tuple[list[str], list[tuple[str, str]], str]:
    with serving(PATHS, "bank", HashingEncoder()) as served:
        plan, requests = sent(served, query)
    return [s.route_id.rsplit("/", 1)[-1] for s in plan.steps], requests, plan.reason


@pytest.mark.parametrize(
    "query",
    [
        "Can I close account ACC-1005?",
        "Should we close account ACC-1005?",
        "Why close account ACC-1005?",
    ],
)
def test_a_question_with_no_read_near_changes_nothing(query: str) -> None:
    steps, sent, reason = _run(query)
    assert (steps, sent) == ([], [])
    assert "asks whether or why" in reason and "close_account" in reason


@pytest.mark.parametrize("query", ["Can you close account ACC-1005?", "Close account ACC-1005"])
def test_a_request_for_the_change_still_sends_it(query: str) -> None:
    steps, sent, _ = _run(query)
    assert steps == ["close_account"]
    assert sent == [("POST", "/accounts/ACC-1005/close")]
