"""The parts of a request that ask another change than a route's: no optional id of its
change takes a token of them by a shape it was shown.

The twentieth security review: "move D-12 to proposal, then create a task 'call Anna' due
tomorrow" sent ``create_task(title="call Anna", deal_id="D-12")``: the task's optional
``deal_id`` binds by the shape its provider's other ``deal_id`` show (``D-12``,
:func:`~.example_ids.shared_pattern`), and the one token of that shape was written in the
part that moves the deal, a change the plan left out; "add note 'called' to C-1 then create a
task 'call back'" gave the task ``contact_id="C-1"``, the note's contact. Where the request
has several parts (:func:`~schemarouter.retrieval.intents.split_intents`), such an id takes
no token of a part that opens with a change verb and writes no word of the route's name
other than its verb ("task" of ``create_task``); a part that asks no change ("... C-5 due
2026-12-12" of "create a task for C-4 and C-5 ...") is read as before, and so is a request
of one part ("create a task for C-4: send the contract").
"""

from __future__ import annotations

import re

from schemarouter.contracts import Route
from schemarouter.retrieval.actions import name_words, verb_of
from schemarouter.retrieval.identifiers import stem
from schemarouter.retrieval.intents import split_intents

__all__ = ["Spans", "other_changes"]

#: Where in a request the parts are: ``(start, end)`` each.
Spans = tuple[tuple[int, int], ...]

_WORDS = re.compile(r"[A-Za-z]+")


def other_changes(route: Route, query: str) -> Spans:
    """The spans of the parts of ``query`` that ask a change and write no word of ``route``'s
    name other than its verb (module docstring); none where the request is one part."""
    parts = split_intents(query)
    if len(parts) < 2:
        return ()
    nouns = {stem(w) for w in name_words(route.endpoint.name) if len(w) > 2 and verb_of(w) is None}
    spans: list[tuple[int, int]] = []
    at = 0
    for part in parts:
        start = query.find(part, at)
        if start < 0:
            continue  # a part read otherwise than written ("shelve AL-81 for 2 hours")
        at = start + len(part)
        words = [w.lower() for w in _WORDS.findall(part)]
        if words and verb_of(words[0]) is not None and not nouns & {stem(w) for w in words}:
            spans.append((start, at))
    return tuple(spans)
