"""A count parameter named for what it counts takes the number the request writes before
that word: "price room R3 for 2 nights" fills ``nights=2``, "book 3 seats" ``seats=3``
(trial Z3: ``nights`` stayed open; ``name 42``, the name first, was the only form read).

Only an integer parameter whose name is a plural noun (``nights``, ``seats``, ``guests``)
takes it, from a number written right before that word or its singular ("1 night"), once
(two counts, "2 or 3 nights", name no one value); a bound ("at least 10 seats", "up to 4
guests", "over 3 nights") is no count of its own, nor a number the request says not to use
("not 2 nights").

A change's integer ``quantity`` (``qty``, ``count``) takes the one count the request writes
with a counting word or before "of" (:func:`quantity_value`): "reserve 2 units of PED-0107"
and "reserve 2 of PED-0107" reserved one, the parameter's default, once the SKU bound (trial
22); a count of no such form ("reserve PED-0107 for 2 days") fills nothing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["counted_value", "quantity_value"]

#: A word before a number that makes it a bound, not the count itself.
_BOUND = re.compile(
    r"(?:\b(?:least|most|more\s+than|less\s+than|fewer\s+than|over|under|above|below|up\s+to|"
    r"min(?:imum)?|max(?:imum)?|than|between|from|and)|[<>≤≥]=?)\s*$",
    re.IGNORECASE,
)
#: A number before it that makes it the end of a list or a span ("2 or 3 nights", "2-3").
_LISTED = re.compile(r"(?<![\w.-])\d+\s*(?:or|to|,|-|–|/)\s*$", re.IGNORECASE)
_PLURAL = re.compile(r"^[a-z]{3,}s$")
#: How far before a count its bound or list words are read.
_BEFORE = 40
#: Endings of a word in -s that is no plural (``status``, ``address``, ``analysis``).
_SINGULAR = ("ss", "us", "is")


def counted_value(parameter: Parameter, schema: Mapping[str, Any], query: str) -> int | None:
    """The count the request writes before ``parameter``'s name (``schema``: its value
    schema), where it is an integer named by a plural noun; else ``None``."""
    name = parameter.name.lower()
    if schema.get("type") != "integer" or not _PLURAL.match(name) or name.endswith(_SINGULAR):
        return None
    words = {name, name[:-1]} | ({name[:-2]} if name.endswith("es") else set())
    spelled = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.,-])(\d{{1,6}})\s*(?:{spelled})\b", re.IGNORECASE)
    clauses = clauses_of(query)
    found = [m for m in pattern.finditer(query) if not clauses.against(m)]

    def before(word: re.Pattern[str], m: re.Match[str]) -> bool:
        # only the words right before it: the request read again from its start for each
        # count took 8 s for 4,000 of them (review of trial Z3)
        return bool(word.search(query, max(0, m.start() - _BEFORE), m.start()))

    if any(before(_LISTED, m) for m in found):
        return None  # "2 or 3 nights": which is not said
    counts = {int(m.group(1)) for m in found if not before(_BOUND, m)}
    if len(counts) != 1:
        return None
    count = next(iter(counts))
    return count if valid(parameter, count) else None


#: A parameter that holds how many of a thing a change takes.
_QUANTITY_NAMES = frozenset(("quantity", "qty", "count"))
#: A count: a number with a counting word after it, or before "of" ("2 of PED-0107").
_COUNTED = re.compile(
    r"(?<![\w.,$€£¥₩-])(\d{1,6})\s*(?:units?|pcs|pieces?|items?|ea|of)\b(?![.,]\d)", re.IGNORECASE
)


def quantity_value(parameter: Parameter, schema: Mapping[str, Any], query: str) -> int | None:
    """The one count :data:`_COUNTED` reads, for an integer parameter of
    :data:`_QUANTITY_NAMES`; else ``None``."""
    if schema.get("type") != "integer" or parameter.name.lower() not in _QUANTITY_NAMES:
        return None
    clauses = clauses_of(query)
    counts = {int(m.group(1)) for m in _COUNTED.finditer(query) if not clauses.against(m)}
    if len(counts) != 1:
        return None
    count = next(iter(counts))
    return count if valid(parameter, count) else None
