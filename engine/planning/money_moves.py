"""Money moved between accounts, by whichever verb the request moves it with (user trial 14).

A route's change is read from its name ("create_transfer" creates; its "transfer" is a move),
so "Send $250 from ACC-1001 to ACC-1002" and "Pay 40 GBP from ACC-1002 to ACC-1005" asked a
change (send, pay) that ``create_transfer`` was not read to do: a read was planned in its
place, or, where a route that sends something else ranked above it, that one
(``notify_customer``, its "notify" a send). Where the request asks to send, pay or move
(:data:`MONEY_VERBS`, "transfer" among move's words) and says it is money (it writes a sum,
"$250", "40 GBP", "€1,200.50", or names money, funds, cash or a share of a balance:
:func:`moves_money`), a transfer route does that change (:func:`is_transfer`): a write that
takes both sides of a move, an identifier each (``from_account_id`` and ``to_account_id``,
``source_*`` / ``destination_*``: :func:`~.sided_ids.id_side`), and an amount. Only such a
route: a notification, a card block or an unfreeze never stands for a transfer.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Effect, Route
from schemarouter.planning.asked_amounts import takes_amount
from schemarouter.planning.body import body_fields
from schemarouter.planning.quantities import sums
from schemarouter.planning.sided_ids import id_side

__all__ = ["MONEY_VERBS", "is_transfer", "moves_money", "transfers_money"]

#: The changes (canonical verbs: "transfer" is a move) that move money where money is named.
MONEY_VERBS = frozenset(("send", "pay", "move"))
#: Words that name money moved where no sum is written ("Transfer part of the balance ..."); a
#: balance only as a share of it ("Send the balance of ACC-1 to customer C-1" tells it).
_MONEY = re.compile(
    r"\b(?:money|funds?|cash)\b|\b(?:(?:part|half|rest|remainder|portion|some|all|most)\s+of"
    r"(?:\s+(?:the|its|their|my|his|her|our|your))?|whole|entire|full|remaining)\s+balance\b",
    re.IGNORECASE,
)


def moves_money(query: str, verb: str) -> bool:
    """Whether ``verb``, a change ``query`` asks, moves money there: one of
    :data:`MONEY_VERBS`, with a sum written or money named."""
    return verb in MONEY_VERBS and (bool(sums(query)) or bool(_MONEY.search(query)))


def is_transfer(route: Route) -> bool:
    """Whether ``route`` is a write that takes both sides of a move as identifiers and an
    amount (a parameter, or a property of its JSON body)."""
    if route.endpoint.effect is not Effect.WRITE or not takes_amount(route):
        return False
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    return {"from", "to"} <= {id_side(p, money=True) for p in taken}


def transfers_money(route: Route, verb: str, query: str) -> bool:
    """Whether ``route`` does the change ``verb`` that ``query`` asks because it moves the
    money asked (:func:`moves_money`, :func:`is_transfer`)."""
    return bool(query) and moves_money(query, verb) and is_transfer(route)
