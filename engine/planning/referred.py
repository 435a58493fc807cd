"""An id the request refuses one change of, then names by a pronoun for another.

"Don't cancel appointment A-1001, confirm it instead" asks to confirm A-1001; "Don't delete
department D-30, rename it to Treasury instead" to rename D-30; "Don't delete department
D-30, just show it" to read it. Every id of a clause that says not is held back
(:func:`~schemarouter.retrieval.clauses.without_refused`), so the change asked was planned
with its id missing and could not run (trial Z3 #19, the HR trial). :func:`referred_back`
gives such an id back to one route: the route does what the verb before "it" asks, in a
clause of its own that says no *not*, and not what the refused clause refuses.

Read narrowly, since a wrong reading sends a change to an id the user kept from one: the
refused clause must say *not* before its verb and the id ("Don't cancel A-1001"; an id
*excepted* from a list, "every booking except R1, then confirm them", is never given back),
it must name one id, the pronoun is "it", and the verb before it is not the refused one
("Don't delete D-30, delete it later" gives nothing); "its" after a verb that asks no change
gives it to a read ("Don't freeze account ACC-1001, just show me its balance": user trial 14,
which read the list's first account instead), never to a change ("freeze its card"). A
route's verb is read as :func:`~schemarouter.retrieval.actions.verb_of_route` reads it; a
read route takes the id where the verb before "it" asks no change ("just show it"). Korean
drops the object it already named ("기기 D-402 삭제하지 말고 이름을 Smoke Alarm으로 바꿔줘":
rename D-402): the change asked right after a refused one's -지 말고, where it names no
other id nor a number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.refused_verbs import refused_verbs
from schemarouter.retrieval.actions import name_words, request_action, verb_forms, verb_of_route
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["referred_back"]

#: A verb and "it": "confirm it", "rename it to Treasury", "show it".
_IT = re.compile(r"\b([A-Za-z]+)\s+(it)\b", re.IGNORECASE)
#: A verb and "its", "me" or "us" between: "show me its balance", "list its transfers".
_ITS = re.compile(r"\b([A-Za-z]+)\s+(?:(?:me|us)\s+)?(its)\b", re.IGNORECASE)
#: Korean "don't ..., (do) ...": the verb's -지 말고.
_KO_NOT = re.compile(r"지\s*(?:말고|말곤)\s*")
#: A clause's end between the id and its refused verb ("D-402는 그대로, 삭제하지 말고 ...").
_KO_CLAUSE = re.compile(r"[,;.!?]|그리고")


def referred_back(
    route: Route, query: str, values: Sequence[BoundValue], kept: Sequence[BoundValue]
) -> list[BoundValue]:
    """The one id of ``values`` held back from ``kept`` that ``query`` names again by "it"
    for what ``route`` does, or, in Korean, asks another change of right after refusing one
    (see the module's notes); else ``[]``."""
    held = set(kept)  # a list's ``in`` compared every pair (thirteenth security review)
    refused = [v for v in values if v not in held and v.kind.startswith("identifier.")]
    if len(refused) != 1:
        return []
    (value,) = refused
    clauses = clauses_of(query)
    if clauses.taken_from <= value.start < clauses.taken_back:  # "..., actually hold off"
        return []
    if not query.isascii() and (korean := _KO_NOT.search(query, value.end)) is not None:
        return _korean(route, query, value, values, korean)
    start = max((end for end in clauses.ends if end <= value.start), default=0)
    refusing = refused_verbs(query[start : value.start])
    if _TOUCH.search(query, start, value.start):  # "don't touch B-2": no change of it
        refusing = refusing | {"touch"}
    if not refusing:  # "every booking except R1": an id set aside, not a change refused
        return []
    if route.endpoint.effect is Effect.READ and _only_read(query, value, values):
        return [value]  # "don't touch B-2, just tell me the setpoint" (trial 21)
    if not _IT.search(query) and not _ITS.search(query):
        return []
    for match in _IT.finditer(query, value.end):
        if clauses.against_span(match.start(2), match.end(2)):  # read as a value there
            continue
        if _asks_of(route, match.group(0), refusing):
            return [value]
    if route.endpoint.effect is not Effect.READ:  # "freeze its card": the card, not the id
        return []
    for match in _ITS.finditer(query, value.end):
        if clauses.against_span(match.start(2), match.end(2)):
            continue
        if _asks_of(route, match.group(0), refusing):  # "just show me its balance"
            return [value]
    return []


#: "Don't touch", which refuses every change of what follows.
_TOUCH = re.compile(r"\b(?:don'?t|do\s+not|never)\s+touch\b", re.IGNORECASE)
#: A clause asking only for a read after a refused change: ", just tell me the setpoint".
_JUST = re.compile(r"[,;.]\s*(?:but\s+)?(?:just|only|simply)\s+(?=\w)", re.IGNORECASE)


def _only_read(query: str, value: BoundValue, values: Sequence[BoundValue]) -> bool:
    """Whether ``query`` asks, after the refused ``value``, one clause opened by "just" or
    "only" that asks no change and names no id ("don't touch B-2, just tell me the setpoint":
    the setpoint of B-2; before, the read was planned with its id missing, trial 21)."""
    just = _JUST.search(query, value.end)
    if just is None or any(v.start >= value.end for v in values if v is not value):
        return False
    rest = query[just.end() :]
    return not asked_verbs(rest) and request_action(rest) == "read"


def _asks_of(route: Route, text: str, refused: frozenset[str]) -> bool:
    """Whether ``text`` asks what ``route`` does and not a ``refused`` change: its verb is
    the route's, or, for a read route, it asks no change ("just show it"); a verb no change
    reads as is the route's where its name leads with it ("reroute it" for
    ``reroute_shipment``: trial 15's "Don't cancel shipment S-205, reroute it to warehouse
    WH-7 instead" left ``shipment_id`` open)."""
    asked = asked_verbs(text)
    if asked & refused:
        return False  # "Don't delete D-30, delete it later": the refused change again
    if asked:
        return verb_of_route(route) in asked
    if route.endpoint.effect is Effect.READ:
        return True
    lead = next(iter(name_words(route.endpoint.name)), "")
    word = text.split()[0] if text.split() else ""
    return bool(lead) and lead not in refused and lead in verb_forms(word)


def _korean(
    route: Route,
    query: str,
    value: BoundValue,
    values: Sequence[BoundValue],
    korean: re.Match[str],
) -> list[BoundValue]:
    """Korean drops the object it already named: "기기 D-402 삭제하지 말고 이름을 Smoke Alarm
    으로 바꿔줘" (don't delete device D-402, change its name ...) renames D-402 (trial 11). Only
    where the refused words hold a change of their own, nothing but words lies between the id
    and them, and the rest names no other id ("O-1 환불하지 말고 O-2 환불해줘" refunds O-2,
    :mod:`.contrasted_ids`) nor any number."""
    refused = refused_verbs(query[value.end : korean.end()])
    rest = query[korean.end() :]
    if not refused or not rest.strip() or any(c.isdigit() for c in rest):
        return []
    if any(v.start >= korean.end() for v in values) or _KO_CLAUSE.search(
        query, value.end, korean.start()
    ):
        return []
    return [value] if _asks_of(route, rest, refused) else []
