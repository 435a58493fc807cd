"""A request's clause that opens with the verb a change route is named for asks that change.

The verb tables of :mod:`schemarouter.retrieval.actions` know the common verbs of changes;
an on-call team's catalog names changes by verbs of its own trade ("scale", "silence",
"roll back"). Where a clause opens with the verb a write route's name opens with, or with
that verb written as two words ("roll back" for ``rollback_deployment``), the clause asks that
change whatever the tables say (trial 16: "scale checkout to 5 replicas in prod, then show me
its pods" was read as a request that only reads, so ``get_deployment`` was planned in the
scale's place; "roll back search to revision 12" read "search" as its verb and planned
``list_deployments``). A route whose name says only its method and path (docs read by
``inspect``, an OpenAPI operation without an ``operationId``: ``post_valves_valve_id_open``) is
named for the action its path ends in after an entry's id, ``/valves/{valve_id}/open`` (trial
17: "open valve V-3 for 20 minutes" read "open" as a read, "open my note", and planned
``GET /valves`` in the opening's place). A POST to a collection creates its entry, and a
request whose verb is that entry's noun asks it: "schedule irrigation for field F-7" asks
``POST /schedules`` (trial 17 planned ``DELETE /schedules/{schedule_id}``, ranked above it).

A request that writes the thing a create's name names right after its verb ("create a task
...": ``create_task``) asks that create, not another's (:func:`makes_named`; trial 20:
``add_note``, which took the contact's id, was planned in ``create_task``'s place).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.retrieval.actions import name_words, verb_forms, verb_of
from schemarouter.retrieval.identifiers import stem
from schemarouter.retrieval.intents import past_polite, split_intents

_WORDS = re.compile(r"[A-Za-z]+")
#: A collection: a path's literal last segment (``/schedules``).
_COLLECTION = re.compile(r"/([A-Za-z][A-Za-z_-]*)/?$")
#: An action on an entry: a path's literal last segment right after a parameter.
_ENTRY_ACTION = re.compile(r"/\{[^/{}]+\}/([A-Za-z][A-Za-z_-]*)/?$")


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
    changes = [r for r in routes if r.endpoint.effect is not Effect.READ]
    leads = {words[0] for r in changes if (words := name_words(r.endpoint.name))}
    leads |= {action for r in changes if (action := entry_action(r))}
    for part in split_intents(query):
        said = past_polite(_WORDS.findall(part))
        first, second = [*said, "", ""][:2]
        if any(opens_with(first, second, lead) for lead in leads):
            return True
    return False


def entry_action(route: Route) -> str | None:
    """The action an HTTP route's path ends in after an entry's id, lower case
    (``POST /valves/{valve_id}/open``: ``open``), else ``None``."""
    match = _ENTRY_ACTION.search(route.endpoint.operation.path or "")
    return match.group(1).lower().replace("-", "").replace("_", "") if match else None


def creates_named(route: Route, verb: str) -> bool:
    """Whether ``route`` is a POST to a collection whose entry ``verb`` names ("schedule":
    ``POST /schedules``, "order": ``POST /orders``): it creates what the verb asks for."""
    operation = route.endpoint.operation
    if operation.method != "POST" or route.endpoint.effect is Effect.READ:
        return False
    match = _COLLECTION.search(operation.path or "")
    if match is None or entry_action(route) is not None:
        return False
    return stem(match.group(1)) == stem(verb)


#: Words between a verb and the thing it makes ("create a new task", "add another note").
_BEFORE_THING = frozenset(("a", "an", "the", "new", "another", "one", "quick", "short"))


def makes_named(query: str, route: Route, verb: str) -> bool:
    """Whether ``query`` writes a word of ``route``'s name other than its verb right after a
    verb of ``verb`` (past :data:`_BEFORE_THING`): "create a task to follow up with C-4" of
    ``create_task``, not of ``add_note``."""
    words = name_words(route.endpoint.name)
    nouns = {stem(w) for w in words if len(w) > 2 and verb_of(w) is None}
    if not nouns:
        return False
    said = [w.lower() for w in _WORDS.findall(query)]
    for i, word in enumerate(said):
        if verb_of(word) != verb:
            continue
        j = i + 1
        while j < len(said) and said[j] in _BEFORE_THING:
            j += 1
        if j < len(said) and stem(said[j]) in nouns:
            return True
    return False
