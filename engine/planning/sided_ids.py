"""The two sides of a move written as bare ids: "from ACC-1002 to ACC-1003" (user trial 14).

A transfer's ``from_account_id`` and ``to_account_id`` were filled where the request wrote the
thing before each id ("from account ACC-1001 to account ACC-1005": the analysis reads "from
account" as the thing of ``from_account_id``), and left open where it wrote the ids alone:
"Move €1,200.50 from ACC-1002 to ACC-1003" planned ``create_transfer`` with both missing, and
nothing could be sent. An identifier-named parameter whose name opens with a side's word
(``from_``, ``source_``, ``sender_``; ``to_``, ``destination_``, ``recipient_``) takes the one
id-shaped code written right after that side's preposition ("from" / "to"): letters and
digits, with a digit and a letter both, so "from 10 to 20" and "to 2026-10" are no ids. A side
written twice ("from ACC-1 ... from ACC-2") fills nothing, nor one whose clause says not
("not to ACC-9"), nor one in words that describe another thing ("to account AC-2 that was
opened from AC-9": :mod:`.described_ids`); the value still has to pass the parameter's schema.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Parameter
from schemarouter.planning.described_ids import describes
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.actions import verb_of
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.identifiers import identifier_thing
from schemarouter.retrieval.values import value_schema

__all__ = ["id_side", "name_side", "sided_id"]

#: The words a parameter's name opens with for each side of a move.
_SOURCE = frozenset(("from", "source", "src", "sender", "origin", "debit", "payer"))
_TARGET = frozenset(("to", "destination", "dest", "target", "recipient", "beneficiary", "payee"))
#: Another id written beside a side's as its alternative or its partner ("from AC-1 or AC-2",
#: "from AC-1, AC-2", "from AC-1/AC-2", "from AC-1 and AC-2"): the side is not told.
_ALTERNATIVE = re.compile(
    r"\s*+(?:,|/|\bor\b|\band\b|&)\s*+(?:(?:the\s+)?([A-Za-z]+)\s+)?"
    r"(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]*(?![\w-])",
    re.IGNORECASE,
)
#: Things a side's plain parameter names that no id names (``from_currency``, ``to_date``).
_NO_ID_THINGS = frozenset(
    (
        "currency", "country", "city", "language", "lang", "locale", "date", "time", "unit",
        "amount", "address", "email", "phone", "name", "zone", "timezone", "format", "state",
    )
)  # fmt: skip
#: A side's preposition and the code right after it (an id: a letter and a digit in it).
_WRITTEN = re.compile(
    r"\b(from|to)\s+((?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]*"
    r"[A-Za-z0-9])(?![\w-])",
    re.IGNORECASE,
)
#: :data:`_WRITTEN` with one word of the thing between, for a side's name that names none.
_ANY_THING_WRITTEN = re.compile(
    _WRITTEN.pattern.replace(r"\s+", r"\s+(?:(?:the\s+)?[A-Za-z]+\s+)?", 1), _WRITTEN.flags
)


def id_side(parameter: Parameter, *, money: bool = False) -> str | None:
    """``"from"`` or ``"to"``: the side of a move an identifier-named parameter takes, by its
    name's first word (``from_account_id``, ``destinationAccountId``), else ``None``. With
    ``money`` (a route that takes an amount), a plain text parameter named for a side and a
    thing, or a side's noun alone (``from_account``, ``source``, ``destination``), takes one
    too, but for a thing no id names (a currency, a country, a date: :data:`_NO_ID_THINGS`)
    and a bare ``to`` / ``from``: a file's ``destination`` is a path, not an account."""
    if identifier_thing(parameter.name):
        return name_side(parameter.name)
    schema = value_schema(parameter.json_schema)
    if not money or schema.get("type", "string") != "string":
        return None
    if {"format", "enum", "const"} & set(schema):
        return None
    words = [
        w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().split("_") if w
    ]
    if len(words) > 2 or words in (["to"], ["from"]) or _NO_ID_THINGS & set(words[1:]):
        return None
    return name_side(parameter.name)


def name_side(name: str) -> str | None:
    """``"from"`` or ``"to"``: the side of a move a parameter's ``name`` opens with
    (``origin_country``, ``destinationCity``, ``from_account_id``), else ``None``."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    first = next((w for w in words if w), "")
    if first in _SOURCE:
        return "from"
    if first in _TARGET:
        return "to"
    return None


def _thing_written(parameter: Parameter) -> re.Pattern[str]:
    """:data:`_WRITTEN`, with the thing ``parameter``'s name names between its side's word and
    ``id`` allowed between the preposition and the id: "to warehouse WH-7" for
    ``destination_warehouse_id`` (trial 15: "Reroute shipment S-310 to warehouse WH-7" left
    it open, the thing's word read as no id and the id as no side's)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().split("_")
    thing = [w for w in words[1:] if w and w != "id"]
    if not thing:  # ``source``, ``destination``: "to account AC-9" names the thing
        return _ANY_THING_WRITTEN
    named = r"\s+".join(re.escape(w) for w in thing)
    return re.compile(
        _WRITTEN.pattern.replace(r"\s+", rf"\s+(?:(?:the\s+)?{named}s?\s+)?", 1), _WRITTEN.flags
    )


def sided_id(
    parameter: Parameter, query: str, clauses: Clauses, *, money: bool = False
) -> str | None:
    """The id ``query`` writes right after the preposition of ``parameter``'s side (module
    docstring), or after that preposition and the thing the name names ("to warehouse WH-7"
    for ``destination_warehouse_id``), where it writes one there once; else ``None``."""
    side = id_side(parameter, money=money)
    if side is None:
        return None
    found = [
        m
        for m in _thing_written(parameter).finditer(query)
        if m.group(1).lower() == side and not describes(query, m.start(2), m.end(2))
    ]
    if len(found) != 1 or clauses.against_span(found[0].start(2), found[0].end(2)):
        return None
    other = _ALTERNATIVE.match(query, found[0].end())  # "from AC-1 or AC-2": which, unclear
    if other is not None and not (other.group(1) and verb_of(other.group(1))):
        return None  # (not "to AC-9 and notify C-3": a change of its own)
    value = found[0].group(2)
    return value if valid(parameter, value) else None
