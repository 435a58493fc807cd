"""The change a Korean request asks for with an English verb before its verbal ending
("booking create 해줘", "티켓 delete 해 주세요", "list 해줘"): planned before a route that
does another.

Retrieval reads a Korean clause's verb from its Korean stems only, so an English verb
written before 해줘 names no change there, and ranking (left as it is) may put another
route first: trial Z3's "booking create 해줘" planned ``delete_booking``, a destructive
change where a booking was to be made. Here, where the one English verb before such an
ending is a change and the best eligible route does another (or only reads), the first of the
:data:`~schemarouter.planning.refusals.READ_DEPTH` best that does it is planned first; where
it is a read verb and the best is a change, the first read is; the plan's warnings say so."""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import verb_of, verb_of_route

__all__ = ["DEPTH", "asked_verb_first"]

#: How far down the eligible routes the route doing the asked change is looked for.
DEPTH = 5
#: An English word right before a Korean verbal ending ("create 해줘", "delete 해 주세요",
#: "create 좀 해줘", "create 하기", "create 요청").
_MIXED = re.compile(
    r"(?<![A-Za-z])([A-Za-z]{3,})\s*(?=(?:좀\s*)?(?:해|하|할|합|시켜|부탁|요청|진행))"
)
_READS = frozenset(("list", "show", "get", "find", "search", "view", "display", "fetch", "read"))


def asked_verb_first(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), with the route that does the change the request's one
    mixed English verb names (:data:`_MIXED`) first, where the best does not do it."""
    words = {m.group(1).lower() for m in _MIXED.finditer(query)}
    if query.isascii() or len(words) != 1 or not eligible:
        return list(eligible)
    word = next(iter(words))
    routes = snapshot.routes
    verb = verb_of(word)
    top = routes[eligible[0]]
    if verb is not None:
        done = verb_of_route(top)
        if done == verb or (done is None and top.endpoint.effect is not Effect.READ):
            return list(eligible)  # it does that change, or may (its name says no verb)
        doing = [r for r in eligible[:DEPTH] if verb_of_route(routes[r]) == verb]
    elif word in _READS and top.endpoint.effect is not Effect.READ:
        doing = [r for r in eligible[:DEPTH] if routes[r].endpoint.effect is Effect.READ]
    else:
        return list(eligible)
    if not doing:
        return list(eligible)
    passed = eligible[: eligible.index(doing[0])]
    warnings.append(
        f"the request asks to {word} ('{word}' before its Korean ending), so {doing[0]} is "
        f"planned before {', '.join(passed)}, ranked above it"
    )
    return [doing[0], *(r for r in eligible if r != doing[0])]
