"""Which identifiers of a planned step an earlier step may fill (the planner's producer chain).

A read's identifier the request does not carry is bound to a producer's ("the movies of Tom
Hanks": ``/search/person``, then its id): a read of a list's first entry is harmless. A
change is not, where the request names ids of its own: they were left open on purpose (a list
of two, "delete tickets T-1 and T-2", or one the request refuses, "do not delete ticket T-1"),
and the first entry a list returns is an entry the user never named (trial Y1).

Nor does any change, a write ("close a ticket", "assign a ticket to Ann") as much as a delete,
take the first entry of a list the request does not pick from (trial Z3: "Delete a ticket"
deleted whichever ticket the server listed first, the approval seeing only that id; trial W2:
"Close a ticket" closed it). A change takes it (:func:`pick`) only where

- the request says which entry by its place, the one a binding gives (execution fills a
  bound parameter from the first value the producer returned): "the first ticket", "the top
  one" (:func:`says_first`); not "the second", "the oldest" or "the latest", whose entry is not
  the first one unless the list is sorted so (:mod:`~schemarouter.planning.sort_values`: "the
  oldest ticket" by ``sort=created_at, order=asc, limit=1``), nor "all" or "each" (a binding
  takes one);
- the request says there is one: "my only workspace" (the word right before the thing;
  Korean "내 유일한 워크스페이스");
- or the producer's step is filtered by what the request names, and the request names one
  thing with a definite word (Korean, which has none: with no word of several or of any one,
  "ann@example.com의 티켓을 닫아줘", trial V2): "close the ticket of ann@example.com"
  (``list_tickets`` with
  ``customer_email``); "close a ticket of ann@example.com" or "the tickets" do not pick one;
  a thing's number picks one ("cancel order number 10042", ``list_orders`` with ``number``:
  :mod:`~schemarouter.planning.numbers`).

Where the filter or "only" takes an entry, execution sends the change only if the list
returns exactly one (:func:`~schemarouter.execution.bound_values.several_note`). Otherwise the
id stays missing, for the caller to give, and the plan's warnings say why and what to add
(:func:`unchained_note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from schemarouter.contracts import Effect, Route
from schemarouter.planning.numbers import is_number_filter, numbered
from schemarouter.planning.opposite_verbs import refusal, says_not_to
from schemarouter.planning.page_size import COUNT_NAMES, flat_name
from schemarouter.planning.projection import field_meta
from schemarouter.planning.sort_values import (
    ORDER_NAMES,
    SUPERLATIVE,
    korean_superlative,
    sorted_as_asked,
)
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import clauses_of, without_refused
from schemarouter.retrieval.identifiers import is_plural, needed_parameters, stem
from schemarouter.retrieval.prerequisites import identifier_source

__all__ = [
    "bound_note",
    "chained_needs",
    "filter_arguments",
    "names_one",
    "pick",
    "says_first",
    "unchained_note",
    "unranked_note",
    "with_id_field",
]

Step = TypeVar("Step", bound="_Fetching")


class _Step(Protocol):
    """What is read of a planned step here (the planner's ``PlanStep``)."""

    @property
    def missing_parameters(self) -> tuple[str, ...]: ...

    @property
    def arguments(self) -> Mapping[str, Any]: ...


class _Fetching(Protocol):
    """What :func:`with_id_field` reads of a producer's step (the planner's ``PlanStep``)."""

    @property
    def fields(self) -> tuple[str, ...]: ...

    @property
    def meta(self) -> Mapping[str, Any]: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` (pydantic's)."""
        ...


#: Words right before a thing that say which entry of a list a change takes: the one a
#: binding gives (execution fills a bound parameter from the first value the producer
#: returned): "the first ticket", "the top open ticket"; not "top priority", "first name".
_NOT_A_PLACE = r"(?:priority|rated|level|tier|name|class|half|time)\b"
WHICH = re.compile(rf"\b(?:first|1st|top)(?:\s+(?!{_NOT_A_PLACE})[A-Za-z]+)?$", re.I)
#: With no thing to read before (a binding made by hand): the same words before a word of
#: the request, "top priority" and "first name" still not (trial V1: any "top" took one).
_WHICH_ANYWHERE = re.compile(rf"\b(?:first|1st|top)\s+(?!{_NOT_A_PLACE})[A-Za-z]+", re.I)
#: Korean says it anywhere before its verb ("첫 번째 티켓", "맨 위 티켓").
_WHICH_KO = re.compile(r"첫\s?번째|첫\s?(?=[가-힣])|맨\s?(?:위|앞|처음)")
#: Places and orders a binding cannot give: it takes the first entry, whatever the list's order.
_OTHER_PLACE = re.compile(
    r"\b(?:second|third|fourth|fifth|\d+(?:nd|rd|th)|last|latest|newest|oldest|earliest|"
    r"(?:most|least)\s+recent|biggest|largest|smallest|highest|lowest)\b|"
    r"[두세네]\s?번째|마지막|최신|가장",
    re.I,
)
_EVERY = re.compile(r"\b(?:all|each|every|both)\b|모든|전부", re.I)
#: Parameters that page or order a list: filling them picks out no entry. The counts are
#: :mod:`.page_size`'s, the names that take "the top 5" (trial V1: a list paged by
#: ``max_items`` or ``page_len`` read as one filtered by the request, so "close the ticket
#: among the top 5" bound the change to its first entry).
_PAGING = COUNT_NAMES | ORDER_NAMES | frozenset(["page", "offset", "cursor", "start"])


def chained_needs(
    route: Route,
    given: frozenset[str],
    values: Sequence[BoundValue],
    step: _Step | None = None,
    warnings: list[str] | None = None,
    query: str = "",
    planned: Sequence[_Step] = (),
) -> tuple[tuple[str, str], ...]:
    """``(parameter, thing)`` of ``route`` an earlier step may bind
    (:func:`~schemarouter.retrieval.identifiers.needed_parameters`), none of a change's where
    the request (``query``) names an identifier (the ones this leaves missing in ``step`` are
    named in ``warnings``); whether a change takes a producer's entry is :func:`pick`'s.
    Nor a read's where the request names an id that no ``planned`` step takes: the entry
    named is not the first a list returns (trial 13: "도서 BK-56 대출 가능한지 알려줘", BK-56
    bound to nothing, read ``get_book`` of BK-55, the first book ``search_books`` listed)."""
    needs = needed_parameters(route, given=given)
    if route.endpoint.effect is Effect.READ and step is not None:
        kept = []
        for parameter, thing in needs:
            named = _named_elsewhere(values, query, planned, thing)
            if not named:
                kept.append((parameter, thing))
            elif parameter in step.missing_parameters and warnings is not None:
                warnings.append(_unread_note(route, parameter, named))
        return tuple(kept)
    if route.endpoint.effect is not Effect.READ and any(
        value.kind.startswith("identifier.") for value in values
    ):
        if step is not None and warnings is not None:
            left = [p for p, _ in needs if p in step.missing_parameters]
            ids = [value for value in values if value.kind.startswith("identifier.")]
            if not without_refused(ids, query):  # "don't refund order O-1": none to use
                warnings.extend(unchained_note(route, left, "says not to use the ids it names"))
            else:
                why = "" if says_not_to(query, route) else "names ids of its own"
                warnings.extend(unchained_note(route, left, why, query))
        return ()
    return needs


#: A token that names an entry: letters, then digits ("BK-56", "L-88", "T1"), not a date.
_ENTRY_ID = re.compile(r"(?<![\w-])[A-Za-z]+[-_]?\d[\w-]*")


def _named_elsewhere(
    values: Sequence[BoundValue], query: str, planned: Sequence[_Step], thing: str
) -> list[str]:
    """The ids ``query`` names of ``thing``, or of no thing ("Is BK-56 available?": an id
    the analysis read as no thing's, or did not read), in no clause said against, that no
    ``planned`` step's arguments hold; an id of another thing ("member M-17") is a filter's."""
    ids = [v for v in values if v.kind.startswith("identifier.")]
    kept = {v.value for v in without_refused(ids, query)}
    other = {v.value for v in ids if v.value not in kept or (v.of and stem(v.of) != thing)}
    clauses = clauses_of(query)
    named = [v.value for v in ids if v.value not in other]
    named += [
        m.group(0)
        for m in _ENTRY_ID.finditer(query)
        if m.group(0) not in other and not clauses.against(m)
    ]
    held = [str(a) for step in planned for a in step.arguments.values()]
    return [n for n in dict.fromkeys(named) if not any(n.lower() in h.lower() for h in held)]


def _unread_note(route: Route, parameter: str, named: Sequence[str]) -> str:
    """The warning of a read whose missing ``parameter`` no list's first entry fills, as the
    request ``named`` ids of its own."""
    return (
        f"{route.route_id} needs {parameter!r}, which the request does not bind, and it names "
        f"{', '.join(repr(n) for n in named)}: no list's first entry is read in its place; "
        f"give it with Plan.with_arguments({route.route_id!r}, {{{parameter!r}: {named[0]!r}}})"
    )


_WORD = re.compile(r"[A-Za-z0-9]+")
#: The words before a thing that say there is one ("my only", "the sole") ...
_ONLY = re.compile(r"\b(?:my|our|your|the)\s+(?:only|sole|single)$", re.I)
#: Korean says there is one ("내 유일한 워크스페이스", "하나뿐인 티켓") ...
_ONLY_KO = re.compile(r"유일한|하나뿐인|단\s?하나의")
#: ... and, having no articles and seldom a plural, marks several or any one by these words
#: (a plural 들, "여러", "몇", "각", "하나를" / "한 개" of several, "아무"); a filter the
#: request names picks its entry otherwise, run only where the list returns one.
_SEVERAL_KO = re.compile(
    r"[가-힣]들(?:[을를이가은는의에도만]|$|\s)|여러|몇|(?<![가-힣])각\s|하나|한\s?개|아무"
)
_HANGUL = re.compile(r"[가-힣]")
#: ... or point at one ("the", "my", "this", up to two words before the thing: "the open").
_DEFINITE = re.compile(r"\b(?:the|my|our|your|this|that)(?:\s+[A-Za-z]+){0,2}$", re.I)


def _before_one(query: str, thing: str) -> list[str]:
    """The three words before each place ``query`` names one ``thing`` (its stem: a plural,
    "tickets", names more than one)."""
    words = [(m.group(0), m.start()) for m in _WORD.finditer(query)]
    out = []
    for i, (word, _) in enumerate(words):
        if not is_plural(word) and stem(word) == thing:
            out.append(" ".join(w for w, _ in words[max(0, i - 3) : i]))
    return out


def names_one(query: str, thing: str) -> bool:
    """Whether ``query`` names one ``thing`` (its stem), in the singular: "the oldest ticket",
    "read one note"; not "the paid orders" (a Korean noun, unmarked, names none here)."""
    return bool(thing) and bool(_before_one(query, thing))


def says_first(query: str, thing: str) -> bool:
    """Whether ``query`` takes the first entry of a list of ``thing`` (:data:`WHICH` right
    before one of its ``thing``, "the first ticket"; a Korean "첫 번째"); with no ``thing``,
    whether it says "first" or "top" before any word but those :data:`WHICH` refuses."""
    if _WHICH_KO.search(query):
        return True
    if not thing:
        return bool(_WHICH_ANYWHERE.search(query))
    return any(WHICH.search(words) for words in _before_one(query, thing))


def filter_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The ``arguments`` of a list step that filter it (not its paging, sort or body)."""
    return {n: v for n, v in arguments.items() if flat_name(n) not in _PAGING and n != "body"}


def _filtered(producer: _Step) -> bool:
    """Whether ``producer``'s step carries an argument that filters (not one that pages)."""
    return any(flat_name(name) not in _PAGING and name != "body" for name in producer.arguments)


def pick(route: Route, thing: str, producer: _Step, query: str) -> str | None:
    """How the change ``route`` takes its ``thing``'s id from the first entry ``producer``'s
    step returns (see the module docstring): ``"read"`` (a read), ``"first"`` (the request
    says so), ``"sorted"`` (the list is sorted so that its first is the one named), ``"only"``
    (it says there is one), ``"filter"`` (the producer's filter, from the request, picks one
    thing); ``None`` where it does not take it."""
    if route.endpoint.effect is Effect.READ:
        return "read"
    if says_not_to(query, route):
        return None  # "don't close the first ticket" (trial X1)
    if says_first(query, thing):
        return "first"
    before = _before_one(query, thing)
    if any(_ONLY.search(words) for words in before) or _ONLY_KO.search(query):
        return "only"
    if _EVERY.search(query):
        return None
    if (
        any(SUPERLATIVE.search(words) for words in before) or korean_superlative(query)
    ) and sorted_as_asked(producer.arguments, query):
        return "sorted"  # "the oldest ticket", the list sorted by creation, one entry
    if _OTHER_PLACE.search(query):
        return None
    if _filtered(producer) and any(_DEFINITE.search(words) for words in before):
        return "filter"
    if _filtered(producer) and _HANGUL.search(query) and not _SEVERAL_KO.search(query):
        return "filter"  # "ann@example.com의 티켓을 닫아줘": Korean marks no definiteness
    if any(
        is_number_filter(name, thing) and numbered(query, thing, str(value))
        for name, value in producer.arguments.items()
    ):
        return "filter"  # "cancel order number 10042": a number names one (trial V2)
    return None


def unchained_note(
    route: Route, parameters: Sequence[str], why: str = "", query: str = ""
) -> list[str]:
    """The warning of a change whose missing ``parameters`` no earlier step fills (none
    where none is missing): ``why`` the request does not pick an entry. A change the request
    says not to do, or whose ids it says not to use, is not offered to be filled (trial V3:
    "Don't refund order O-1" said "supply it with Plan.with_arguments")."""
    if not parameters:
        return []
    names = ", ".join(repr(p) for p in parameters)
    place = _OTHER_PLACE.search(query)
    refused = refusal(query, route) if not why else None
    if not why:
        if refused:
            why = refused
        elif place is not None:
            why = (
                f"names an entry by a place or order ({place.group(0)!r}) "
                "a bound id cannot give (it is the first entry a list returns)"
            )
        elif _EVERY.search(query):
            why = "asks for several entries, and a bound id is one"
        else:
            why = (
                "does not say which entry (say 'the first', or name it by a value the list "
                "filters on)"
            )
    return [
        f"{route.route_id} is a {route.endpoint.effect.value} change whose {names} the request "
        f"does not give: no listed entry is taken in its place, as the request {why}; "
        + (
            "it stays open, and nothing is changed"
            if refused or why.startswith("says not to use")
            else "supply it with Plan.with_arguments"
        )
    ]


def unranked_note(route: Route, parameter: str, producers: Sequence[str]) -> list[str]:
    """The warning of an identifier ``route`` needs that only ``producers`` ranked for no part
    of the request produce (none where no route does)."""
    if not producers:
        return []
    return [
        f"{route.route_id} needs {parameter!r}, an identifier that {len(producers)} route(s) "
        f"produce ({', '.join(producers[:3])}), none of them ranked for this request: supply "
        "it, or call one first"
    ]


def bound_note(route: Route, parameter: str, producer: str, how: str | None) -> list[str]:
    """The warning of a change whose identifier is bound to a producer's first entry (a
    read's binding goes without saying); ``how`` is :func:`pick`'s."""
    if route.endpoint.effect is Effect.READ:
        return []
    because = {
        "first": "as the request says which",
        "only": "as the request says there is one; it runs only where the list returns one",
        "filter": "filtered by what the request names; it runs only where the list returns one",
        "sorted": "sorted so that its first entry is the one the request names",
    }.get(how or "", "")
    return [
        f"{route.route_id} ({route.endpoint.effect.value}) takes {parameter!r} from the first "
        f"entry {producer} returns, {because}; the approval sees that value"
    ]


def with_id_field(route: Route, step: Step, thing: str) -> Step:
    """``step`` (on ``route``, a producer of ``thing``) fetching the field holding its
    identifier."""
    found = identifier_source(route, thing)
    if found is None or found.field in step.fields:
        return step
    name = found.field
    fields = tuple(f.name for f in route.endpoint.output_fields if f.name in {*step.fields, name})
    meta = {n: step.meta.get(n) or field_meta(route, route.endpoint.field(n)) for n in fields}
    return step.model_copy(update={"fields": fields, "meta": meta})
