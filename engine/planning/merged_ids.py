"""Which of two ids a merge keeps: "merge contact C-7 into C-3" keeps C-3 (user trial 20).

A merge of two entries takes both ids, one for the entry that stays and one for the entry
folded into it and removed (``merge_contacts(keep_id, drop_id)``, ``primary_id`` /
``duplicate_id``, ``target_id`` / ``source_id``). Both stayed open where the request wrote
the ids alone ("merge contact C-7 into C-3"), and a rule that filled them by the order the
ids are written would delete the contact the user keeps. Here an identifier-named parameter
of a change whose name opens with a kept side's word (``keep``, ``primary``, ``survivor``,
``target``, ...) or a removed side's (``drop``, ``duplicate``, ``secondary``, ``source``, ...)
beside one of the other side, where the request says to merge (or combine) and writes
exactly two ids, takes:

- the id after "into" as the kept one and the id before "into" as the removed one ("merge
  C-7 into C-3", "merge contact C-7 into contact C-3");
- the id after "keep" or "keeping" as the kept one and the other as the removed one ("merge
  C-9 and C-4, keep C-4").

Two readings that disagree, an id the request says not to use, a third id, or no such words
fill neither side: the merge stays missing them, and nothing is removed.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.identifiers import names_identifier

__all__ = ["merge_side", "merged_id"]

#: The words a parameter's name opens with for the entry a merge keeps, and the one it removes.
_KEPT = frozenset(
    ("keep", "kept", "keeper", "primary", "survivor", "surviving", "winner", "master",
     "target", "into", "canonical", "main", "destination")
)  # fmt: skip
_REMOVED = frozenset(
    ("drop", "dropped", "duplicate", "dup", "secondary", "merged", "loser", "source", "from",
     "other", "remove", "removed", "discard", "discarded", "old")
)  # fmt: skip
_MERGE = re.compile(
    r"\b(?:merg(?:e|es|ed|ing)|combin(?:e|es|ed|ing)|dedupe|de-?duplicate|fold)\b", re.I
)
_ID = r"(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9]|\d"
_TOKEN = re.compile(rf"(?<![\w-])(?:{_ID})(?![\w-])")
#: "C-7 into C-3", "C-7 into contact C-3", "C-7 into the contact C-3".
_INTO = re.compile(
    rf"(?<![\w-])({_ID})\s+into\s+(?:the\s+)?(?:[A-Za-z]+\s+)?({_ID})(?![\w-])", re.I
)
_KEEP = re.compile(rf"\bkeep(?:ing)?\s+(?:the\s+)?(?:[A-Za-z]+\s+)?({_ID})(?![\w-])", re.I)


def merge_side(parameter: Parameter) -> str | None:
    """``"kept"`` or ``"removed"``: the side of a merge an identifier-named parameter takes by
    its name's first word (``keep_id``, ``duplicateId``), else ``None``."""
    if not names_identifier(parameter.name):
        return None
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().split("_")
    first = next((w for w in words if w), "")
    return "kept" if first in _KEPT else "removed" if first in _REMOVED else None


def merged_id(parameter: Parameter, route: Route, query: str, clauses: Clauses) -> str | None:
    """The id ``query`` gives ``parameter``'s side of a merge (module docstring), else
    ``None``."""
    side = merge_side(parameter)
    if side is None or route.endpoint.effect is Effect.READ or not _MERGE.search(query):
        return None
    sides = [merge_side(p) for p in route.endpoint.parameters]
    if sides.count("kept") != 1 or sides.count("removed") != 1:
        return None
    ids = list(dict.fromkeys(m.group(0) for m in _TOKEN.finditer(query)))
    if len(ids) != 2 or any(clauses.against(m) for m in _TOKEN.finditer(query)):
        return None
    readings: set[tuple[str, str]] = set()
    for m in _INTO.finditer(query):
        readings.add((m.group(2), m.group(1)))
    for m in _KEEP.finditer(query):
        kept = m.group(1)
        if kept in ids:
            readings.add((kept, next(i for i in ids if i != kept)))
    if len(readings) != 1:
        return None
    kept, removed = readings.pop()
    if {kept, removed} != set(ids):
        return None
    value = kept if side == "kept" else removed
    return value if valid(parameter, value) else None
