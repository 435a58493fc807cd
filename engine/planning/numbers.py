"""A thing's number is not its id: "Cancel order #10043" or "order no. 10041" (trial V2).

Retrieval reads "order #10043" and "order no. 10041" as the order's identifier (a thing, then
``#`` or ``no.``, then its id), so the change took ``order_id="10043"`` and was sent to
``/orders/10043/cancel``, where the order with that number is ``O-5003``. Where the id
parameters of the ranked routes that take the thing's id are not numbers (``order_id`` is a
string) and a list of that thing filters by its ``number`` (``list_orders(number=...)``), the
digits the request gives as "<thing> #N", "<thing> no. N" or "<thing> number N" are that
filter's value (:mod:`~schemarouter.planning.filter_words`), not the id: the id is then taken
from the one entry the list returns (:func:`~schemarouter.planning.chained_needs.pick`),
or nothing is sent. An id parameter that is a number ("issue #42" where ``issue_number`` is an
integer) keeps the digits as the id."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from schemarouter.contracts import Effect
from schemarouter.planning.page_size import flat_name
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.identifiers import is_plural, needed_parameters, stem
from schemarouter.retrieval.prerequisites import producers

__all__ = ["by_number", "is_number_filter", "numbered"]

#: The words between a thing and its number ("order number 10042", "order #10043", "order
#: no. 10041").
NUMBER_WORDS = r"(?:number\s*|no\.\s*|#\s*)"


def is_number_filter(name: str, thing: str = "") -> bool:
    """Whether a list's parameter ``name`` filters by a thing's number (``number``,
    ``order_number``, ``orderNo``)."""
    flat = flat_name(name)
    return flat in {"number", "no", f"{thing}number", f"{thing}no"} if thing else flat == "number"


def numbered(query: str, thing: str, value: str) -> bool:
    """Whether ``query`` gives ``value`` (digits) as the number of one ``thing`` (its stem):
    "order number 10042", "order #10043", "order no. 10041"; not "orders number ...", which
    names several."""
    return any(
        stem(word) == thing and not is_plural(word) for word in _numbered(query).get(value, ())
    )


_NUMBERED = re.compile(rf"\b([A-Za-z]+)\s+{NUMBER_WORDS}(\d+)(?![\w-])", re.I)


@lru_cache(maxsize=32)
def _numbered(query: str) -> dict[str, tuple[str, ...]]:
    """The words each number of ``query`` is written after with a number word, read once per
    request: a pattern per value read the whole request again for each (2,400 ids of Box's
    numeric kind in a request of 62,000 characters: 14 s of a 21 s plan)."""
    found: dict[str, list[str]] = {}
    for m in _NUMBERED.finditer(query):
        found.setdefault(m.group(2), []).append(m.group(1))
    return {value: tuple(words) for value, words in found.items()}


def by_number(
    query: str, snapshot: RegistrySnapshot, ranked: Sequence[str], values: Sequence[BoundValue]
) -> list[BoundValue]:
    """``values`` without the named identifiers the request gives as a thing's number, where
    the ``ranked`` routes taking that thing's id take it as text and a list of the thing
    filters by number (see the module docstring)."""
    table = producers(snapshot)
    kept = []
    for value in values:
        thing = stem(value.of or "")
        if (
            value.kind != NAMED_IDENTIFIER
            or not value.value.isdigit()
            or not numbered(query, thing, value.value)
            or not _listed_by_number(snapshot, table.get(thing, ()), thing)
            or _number_ids(snapshot, ranked, thing)
        ):
            kept.append(value)
    return kept


def _listed_by_number(snapshot: RegistrySnapshot, route_ids: Sequence[str], thing: str) -> bool:
    """Whether one of ``route_ids`` (producers of ``thing``) is a read filtering by number."""
    for route_id in route_ids:
        route = snapshot.routes[route_id]
        if route.endpoint.effect is Effect.READ and any(
            is_number_filter(p.name, thing) for p in route.endpoint.parameters
        ):
            return True
    return False


def _number_ids(snapshot: RegistrySnapshot, ranked: Sequence[str], thing: str) -> bool:
    """Whether a ``ranked`` route takes ``thing``'s id as a number (or none takes it)."""
    types = set()
    for route_id in ranked:
        route = snapshot.routes.get(route_id)
        if route is None:
            continue
        for name, of in needed_parameters(route):
            if of == thing:
                types.add(route.endpoint.parameter(name).json_schema.get("type"))
    return not types or bool(types & {"integer", "number"})
