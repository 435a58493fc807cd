"""A request's clause that opens with the verb a change route is named for asks that change.

The verb tables of :mod:`schemarouter.retrieval.actions` know the common verbs of changes;
an on-call team's catalog names changes by verbs of its own trade ("scale", "silence",
"roll back"). Where a clause opens with the verb a write route's name opens with, or with
that verb written as two words ("roll back" for ``rollback_deployment``), the clause asks that
change whatever the tables say (trial 16: "scale checkout to 5 replicas in prod, then show me
its pods" was read as a request that only reads, so ``get_deployment`` was planned in the
scale's place; "roll back search to revision 12" read "search" as its verb and planned
``list_deployments``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.retrieval.actions import name_words, verb_forms
from schemarouter.retrieval.intents import split_intents

_WORDS = re.compile(r"[A-Za-z]+")
#: Words a request may open a clause with before its verb.
_POLITE = frozenset(("please", "pls", "now", "just", "also", "then", "and", "so", "ok", "okay"))


def opens_with(first: str, second: str, lead: str) -> bool:
    """Whether the words ``first`` (``second`` after it) are the verb ``lead``: an inflection
    of it, or a phrasal verb written apart ("roll back": ``rollback``; "rolled back" too)."""
    if not lead or not first:
        return False
    if lead in verb_forms(first):
        return True
    return bool(second) and any(f + second.lower() == lead for f in verb_forms(first))


def asks_named_change(query: str, routes: Sequence[Route]) -> bool:
    """Whether a part of ``query`` opens with the verb one of the change ``routes`` (those not
    ``read``) is named for."""
    names = [name_words(r.endpoint.name) for r in routes if r.endpoint.effect is not Effect.READ]
    leads = {words[0] for words in names if words}
    for part in split_intents(query):
        said = _WORDS.findall(part)
        while said and said[0].lower() in _POLITE:
            said.pop(0)
        first, second = [*said, "", ""][:2]
        if any(opens_with(first, second, lead) for lead in leads):
            return True
    return False
