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
("Don't delete D-30, delete it later" gives nothing). A route's verb is read as
:func:`~schemarouter.retrieval.actions.verb_of_route` reads it; a read route takes the id
where the verb before "it" asks no change ("just show it").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.retrieval.actions import verb_of_route
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["referred_back"]

#: A verb and "it": "confirm it", "rename it to Treasury", "show it".
_IT = re.compile(r"\b([A-Za-z]+)\s+(it)\b", re.IGNORECASE)
#: Not said before a verb: "Don't cancel", "Do not delete", "never delete".
_NOT = re.compile(r"\b(?:do\s+not|does\s+not|don[’']?t|dont|never|not)\b", re.IGNORECASE)


def referred_back(
    route: Route, query: str, values: Sequence[BoundValue], kept: Sequence[BoundValue]
) -> list[BoundValue]:
    """The one id of ``values`` held back from ``kept`` that ``query`` names again by "it"
    for what ``route`` does (see the module's notes); else ``[]``."""
    refused = [v for v in values if v not in kept and v.kind.startswith("identifier.")]
    if len(refused) != 1 or not _IT.search(query):
        return []
    (value,) = refused
    clauses = clauses_of(query)
    if value.start < clauses.taken_back:  # "..., actually hold off": taken back, not refused
        return []
    start = max((end for end in clauses.ends if end <= value.start), default=0)
    negated = _NOT.search(query, start, value.start)
    if negated is None:  # "every booking except R1": an id set aside, not a change refused
        return []
    refused_verbs = asked_verbs(query[negated.end() : value.start])
    if not refused_verbs:
        return []
    does = verb_of_route(route)
    for match in _IT.finditer(query, value.end):
        if clauses.against_span(match.start(2), match.end(2)):  # read as a value there
            continue
        asked = asked_verbs(match.group(0))
        if asked & refused_verbs:
            continue  # "Don't delete D-30, delete it later": the refused change again
        if (asked and does in asked) or (not asked and route.endpoint.effect is Effect.READ):
            return [value]
    return []
