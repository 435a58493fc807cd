"""A code written bare is the one key a route takes and returns as its entry's (trial 22).

A music-gear shop's inventory MCP server takes an item by ``sku: str`` (the MCP SDK's plain
``str``: no description, no pattern) and returns the item with its ``sku``. "take 2 off the
stock of PED-0107", "what did we pay for AMP-0009?" and "move AMP-0009 to bin C-1" left
``sku`` open: no thing's word is written before the code, and the parameter's name names no
identifier (``*_id``), so no rule read it, and nothing was sent.

:func:`key_code` binds such a parameter: a route's open required string parameter (no enum,
format or pattern of its own) whose name is one of the route's own output fields (the entry
it returns carries it: ``sku`` of the ``Item``), where it is the only one open, takes the
one code the request writes: letters, a ``-`` or ``_`` and digits (``PED-0107``, ``cus_42``),
that no argument holds, no clause refuses ("don't write off PED-0111, just take 1 off the
stock of PED-0107": PED-0107) and no describing words hold ("like PED-0107"). A code written
after the name of another field of the entry ("bin A-3" where the item has a ``bin``) is that
field's, not the key's; two codes, or a number alone ("order 88123"), bind nothing. A code
written after the word of a thing the route is not named for is that thing's (the twentieth
review: "take 2 off the stock for order RV-8812" sent ``adjust_stock(sku="RV-8812")`` and
"reserve 2 units for customer CU-77" reserved ``CU-77``): only a code after a verb, a
preposition or article, the key's name or a word of the route's name ("item" of
``get_item``), or opening the request, is the key's (:func:`_keyed_here`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.described_ids import describes
from schemarouter.planning.named_values import Clauses, valid
from schemarouter.retrieval.actions import name_words, verb_of
from schemarouter.retrieval.identifiers import stem

__all__ = ["key_code"]

#: A code: letters, a separator, digits, standing alone ("PED-0107", not "1Z999AA1" nor "v2").
_CODE = re.compile(r"(?<![\w-])([A-Za-z]{1,12})[-_][0-9]{1,12}(?![\w-])")
#: The word right before a place in the text, and the one before it.
_WORD_BEFORE = re.compile(r"(?:([A-Za-z_]+)\W+)?([A-Za-z_]+)\W*$")
#: How far before a code its two words are looked for: the whole text before each of many
#: codes took time in its square (100,000 characters of "PED-0107 ": 12.3 s; the twentieth
#: review).
_REACH = 80
#: Words before a code that name no thing of their own ("of PED-0107", "off PED-0111").
_PLAIN = frozenset(
    {"a", "an", "and", "at", "about", "by", "for", "from", "in", "is", "of", "off", "on"}
    | {"or", "out", "the", "to", "up", "with"}
)


def _keyed_here(route: Route, key: str, before: re.Match[str] | None) -> bool:
    """Whether a code after the words ``before`` matched (``None``: nothing before it) may be
    ``route``'s key: a verb's word after an article or a preposition is a thing's ("for
    order RV-8812")."""
    if before is None:
        return True
    word, ahead = before.group(2).lower(), (before.group(1) or "").lower()
    own = {stem(w) for w in [*name_words(route.endpoint.name), *name_words(key)]}
    if word in _PLAIN or stem(word) in own:
        return True
    return verb_of(word) is not None and ahead not in _PLAIN


def _keys(route: Route) -> frozenset[str]:
    """The names of the route's output fields, their last part (``items.*.sku``: ``sku``)."""
    return frozenset(f.name.rpartition(".")[2].lower() for f in route.endpoint.output_fields)


def _open_key(route: Route, open_: Sequence[Parameter]) -> Parameter | None:
    """The one open required string parameter the route also returns as a field."""
    keys = _keys(route)
    found = [
        p
        for p in open_
        if p.required
        and p.json_schema.get("type") == "string"
        and not {"enum", "format", "pattern"} & set(p.json_schema)
        and p.name.lower() in keys
    ]
    return found[0] if len(found) == 1 else None


def key_code(
    route: Route,
    open_: Sequence[Parameter],
    query: str,
    held: Mapping[str, Any],
    clauses: Clauses,
) -> tuple[str, str] | None:
    """``(parameter, code)`` for the route's one open key (see the module), or ``None``."""
    parameter = _open_key(route, open_)
    if parameter is None:
        return None
    taken = {str(v) for v in held.values()}
    others = _keys(route) - {parameter.name.lower()}
    codes = []
    for match in _CODE.finditer(query):
        before = _WORD_BEFORE.search(query, max(0, match.start() - _REACH), match.start())
        if before is not None and before.group(2).lower() in others:
            continue  # "bin A-3": the item's bin
        if not _keyed_here(route, parameter.name, before):
            continue  # "for order RV-8812": the order's
        codes.append(match)
    codes = [
        m
        for m in codes
        if m.group(0) not in taken
        and not clauses.against(m)  # "don't write off PED-0111, just take 1 off PED-0107"
        and not describes(query, m.start(), m.end())
    ]
    if len(codes) != 1:
        return None
    code = codes[0].group(0)
    return (parameter.name, code) if valid(parameter, code) else None
