"""Verbs made of re- and the noun of a field ("retitle", "relabel", "reword"): each asks to set
that field again, an update, as "rename" does (retrieval's verb table reads "rename" so).

"Retitle issue 5 in octocat/hello-world to 'Crash on start'" read no change (no table knows
"retitle") and planned ``issues/list-for-repo``, a read, where ``issues/update`` takes the
title. Read here, for planning's choice among the routes retrieval ranked, where such a word
opens a clause ("Retitle ...", "..., then relabel ...", "please reword ..."), never as a word
describing a thing ("show the retitled issues"); the table, and the order it gives, stay as
they are.
"""

from __future__ import annotations

import re

__all__ = ["field_verbs"]

#: A re- verb of a field's noun opening a clause (past "please", "and", "then", "to").
_FIELD_VERB = re.compile(
    r"(?:^|[.;:!?,]|\b(?:and|then|also|please|now|to)\b)\s*(?:please\s+)?"
    r"re(?:title|label|word|phrase)(?:s|d|ed|led|ing|ling)?\b",
    re.IGNORECASE,
)


def field_verbs(text: str) -> frozenset[str]:
    """``{"update"}`` where a clause of ``text`` opens with a re- verb of a field's noun
    (module docstring), else none."""
    return frozenset(("update",)) if _FIELD_VERB.search(text) else frozenset()
