"""Arguments for a route, taken from the request text only where the schema accepts them.

The planner fills a step's arguments with :func:`fill_arguments`: identifiers the query
analysis found (formulas, DOIs, material ids, dates) bind by kind first
(:func:`~schemarouter.retrieval.analysis.bind_parameters`); then, per open parameter, an explicit
``name=value`` / ``name: value`` / ``name "value"`` (``name 42`` for numbers), the one enum
value the query names (on the side of a conversion the words give it, for ``to`` / ``from``
parameters), a value of the parameter's ``format``, a number written with the unit the
parameter's name ends with (``weight_kg``: "3 kg", ``total_eur``: "89.90 EUR";
:mod:`.unit_words`) or with a conversion's code ("30 USD" for its one required number);
last, a quoted phrase for the one required text parameter still open. The top-level
properties of a JSON object body are filled by the same rules, each as a parameter of its
own (:mod:`.body`). Every value is coerced to
the parameter's JSON type and kept only where the parameter's schema accepts it; what stays
open is the caller's to supply.
An optional parameter (``Optional[int]``, ``date | None``: an ``anyOf`` / ``oneOf`` with
``null``, or ``type: [X, "null"]``) is read as its non-null member.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.asked_amounts import (
    asked_amount,
    asked_currency,
    minor_amount,
    takes_amount,
)
from schemarouter.planning.body import body_fields, body_key, held_open, sent_empty
from schemarouter.planning.counted_values import counted_value, quantity_value
from schemarouter.planning.country_codes import country_value
from schemarouter.planning.currency_pairs import pair_value
from schemarouter.planning.date_ranges import date_range, one_date_named, written_dates
from schemarouter.planning.described_ids import described_notes, not_describing
from schemarouter.planning.described_values import described_count, owner_value
from schemarouter.planning.durations import duration_value, timed_name
from schemarouter.planning.emails import email as _email
from schemarouter.planning.emails import nested_email as _nested_email
from schemarouter.planning.emails import takes_email as _takes_email
from schemarouter.planning.emails import whose_email as _inner
from schemarouter.planning.empty_changes import ONE_OF
from schemarouter.planning.entry_ids import named_thing_id, numbered_ids
from schemarouter.planning.entry_references import creates, referenced_entries
from schemarouter.planning.enum_values import entry_words, route_nouns
from schemarouter.planning.enum_values import enum_value as _enum_value
from schemarouter.planning.enum_values import side as _side
from schemarouter.planning.filter_words import (
    created_value,
    described_at,
    filter_word_value,
    not_described,
    target_value,
)
from schemarouter.planning.id_patterns import bind_by_pattern
from schemarouter.planning.key_codes import key_code
from schemarouter.planning.keyed_names import keyed_name, percent_value
from schemarouter.planning.merged_ids import merged_id
from schemarouter.planning.message_text import carries_said, named_as_said, said_text
from schemarouter.planning.named_values import NUMBER as _NUMBER
from schemarouter.planning.named_values import URL as _URL
from schemarouter.planning.named_values import Clauses, refused_values
from schemarouter.planning.named_values import coerced as _coerced
from schemarouter.planning.named_values import named_id as _named_id
from schemarouter.planning.named_values import sendable as _sendable
from schemarouter.planning.named_values import spellings as _spellings
from schemarouter.planning.named_values import valid as _valid
from schemarouter.planning.opposite_verbs import says_not_to
from schemarouter.planning.optimade_filter import (
    FILTER_SEMANTIC_ID,
    optimade_filter,
    reduced_formula,
)
from schemarouter.planning.page_size import count_value
from schemarouter.planning.phone_numbers import phone_value, takes_phone
from schemarouter.planning.place_names import place_value
from schemarouter.planning.quantities import (
    KO_NUMBER,
    amounts,
    currency_code,
    declared_quantity,
    korean_number,
    money_value,
    quantities,
    sums,
)
from schemarouter.planning.quantities import numeric as _numeric
from schemarouter.planning.ranges import range_value, unused_bounds
from schemarouter.planning.referred import referred_back
from schemarouter.planning.route_parts import other_changes
from schemarouter.planning.set_numbers import number_before_name, set_number, set_starts
from schemarouter.planning.sided_ids import id_side, sided_id
from schemarouter.planning.signed_counts import signed_count
from schemarouter.planning.sort_values import sort_value
from schemarouter.planning.stated_options import flag_value, listed_value
from schemarouter.planning.stated_units import stated_value
from schemarouter.planning.time_values import time_value
from schemarouter.planning.unit_siblings import unit_named_for
from schemarouter.planning.unit_words import NAME_UNITS
from schemarouter.planning.verb_objects import verb_object, version_value
from schemarouter.planning.written_times import written_value
from schemarouter.retrieval.analysis import BoundValue, bind_parameters
from schemarouter.retrieval.clauses import clauses_of, one_each, without_refused
from schemarouter.retrieval.prerequisites import names_identifier
from schemarouter.retrieval.values import value_schema

if TYPE_CHECKING:
    pass

__all__ = [
    "fill_arguments",
    "holds",
    "is_given",
    "merged_arguments",
    "missing_parameters",
    "refused_values",
    "unused_values",
    "with_given",
]

#: Parameters the router fills itself (server-side projection): never taken from a request.
_ROUTER_PARAMETERS = frozenset({"response_fields", "_fields"})
_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|'([^']{1,200})'(?!\w)")
#: A Korean particle written onto the end of a URL's ASCII ("https://x.example/hook를 등록"):
#: no part of it (trial X1: the webhook was registered at ``/hook%EB%A5%BC``).
_PARTICLE_END = re.compile(
    r"(?<=[A-Za-z0-9/_-])(?:을|를|은|는|이|가|에|에서|에게|으로|로|와|과|도|의|이랑|랑|까지|부터|만)$"
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
#: A parameter whose value is an expression of a query language (an OPTIMADE filter,
#: :data:`FILTER_SEMANTIC_ID`) has spaces, operators and quotes of its own: a bare value
#: runs to the end of its line (or a ``;``) and a double-quoted one keeps its ``\"`` escapes.
_QUOTED_EXPRESSION = re.compile(
    r"\"((?:[^\"\\]|\\.){1,500})\"|“([^”]{1,500})”|'([^']{1,500})'(?!\w)"
)
_BARE_EXPRESSION = re.compile(r"[^\n;]+")
_BARE = re.compile(r"[^\s,;]+")
#: More words of the same sentence after a bare value.
_MORE_SAID = re.compile(r"[ \t]+[^\s.;!?]")


def _named_value(parameter: Parameter, query: str, clauses: Clauses | None = None) -> Any:
    """``name=value``, ``name: value`` or ``name "value"`` in the query; ``name 42`` for a
    number-valued parameter."""
    kinds = value_schema(parameter.json_schema).get("type")
    numeric = kinds in ("integer", "number") or (
        isinstance(kinds, list) and {"integer", "number"} & set(kinds)
    )
    expression = parameter.semantic_id == FILTER_SEMANTIC_ID
    for spelling in _spellings(parameter):
        name = re.escape(spelling).replace(r"\ ", r"[\s_-]")
        # spaces read once (possessive): "room" and 8,000 spaces took 1.2 s, each split of
        # the run between ``\s*`` and ``\s+`` tried in turn (trial U1)
        pattern = rf"(?<![\w-]){name}\s*+(?:[=:]\s*|(?<=\s)(?=[\"“'])|(?<=\s)(?={_NUMBER}\b))"
        for match in re.finditer(pattern, query, re.IGNORECASE):
            if clauses is not None and clauses.against(match):
                continue  # "do not delete room=R1"
            rest = query[match.end() :]
            quoted = (_QUOTED_EXPRESSION if expression else _QUOTED).match(rest)
            if quoted:
                text = next(g for g in quoted.groups() if g is not None)
                if expression and quoted.group(1) is not None:
                    text = re.sub(r"\\(.)", r"\1", text)  # filter \"Si\" -> "Si"
            else:
                # 'filter: nelements>=2 AND elements HAS "Si"' is one value, not 'nelements>=2'
                bare = (_BARE_EXPRESSION if expression else _BARE).match(rest)
                if bare is None:
                    continue
                text = bare.group(0).rstrip(".?! ")
                if not numeric and not re.search(r"[=:]\s*$", match.group(0)):
                    continue
                if carries_said(parameter) and _MORE_SAID.match(rest, bare.end()):
                    continue  # "message: card CD-1 is blocked" says more than "card"
            value = _coerced(parameter, text)
            if value is not None:
                return value
    return None


def _quantity_value(parameter: Parameter, query: str, route: Route) -> Any:
    """A number the request writes with the unit ``parameter``'s name ends with ("a 3 kg
    parcel" for ``weight_kg``; a currency's symbol or code before it too: "₩15000" for
    ``amount_krw``, trial 19), or, for the one open numeric parameter of a conversion
    (:func:`_side`), with a value of the route's source or target enum ("convert 30 USD" for
    ``amount``), else with the unit its schema or description declares ("20 L/min" for
    ``flow_lpm`` "(unit: L/min)": :func:`~.quantities.declared_quantity`); the one such
    number only."""
    if not _numeric(parameter):
        return None
    tail = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().rsplit("_", 1)
    found: list[str] = []
    if len(tail) == 2 and tail[1] in NAME_UNITS and unit_named_for(parameter, route, query):
        found = quantities(query, NAME_UNITS[tail[1]])
        if code := currency_code(tail[1]):  # and "₩15000", "KRW 15000" for ``amount_krw``
            found += [n for n, unit in sums(query) if currency_code(unit) == code]
    elif parameter.required:
        sides = [p for p in route.endpoint.parameters if _side(p) is not None]
        codes = {
            str(option)
            for p in sides
            for option in value_schema(p.json_schema).get("enum") or ()
            if isinstance(option, str) and len(option) >= 2
        }
        numeric = [p for p in route.endpoint.parameters if p.required and _numeric(p)]
        if codes and numeric == [parameter]:
            found = quantities(query, "|".join(re.escape(c) for c in sorted(codes)))
    distinct = list(dict.fromkeys(found)) or list(
        filter(None, [declared_quantity(parameter, query, route)])
    )
    return _coerced(parameter, distinct[0]) if len(distinct) == 1 else None


def _format_value(
    parameter: Parameter,
    query: str,
    values: Sequence[BoundValue],
    clauses: Clauses,
    takers: int,
    change: bool = False,
    timed: int = 0,
) -> Any:
    fmt = value_schema(parameter.json_schema).get("format")
    if fmt == "date":  # a change's as people write it too: "expires Jan 31 2027"
        text = next((v.value for v in values if v.kind == "time.date"), None)
        text = text or (written_value(parameter, query) if change else None)
        if text is None:  # "2026-12-31까지": a Korean particle on it
            ones = {m.group(1) for m in written_dates(query)}
            text = next(iter(ones)) if len(ones) == 1 else None
    elif fmt == "time" and change:  # "at 6:30 pm", "오전 6시"
        text = written_value(parameter, query)
    elif fmt == "date-time":  # one written, or a span back from now ("in the last 2 hours")
        schema = value_schema(parameter.json_schema)
        one, pair = change and timed == 1, change and timed > 1
        return time_value(parameter, schema, query, change=one, pair=pair)
    elif fmt in ("uri", "url", "uuid"):  # not one its clause says not to ("not https://...")
        found = (_UUID if fmt == "uuid" else _URL).finditer(query)
        text = next((m.group(0) for m in found if not clauses.against(m)), None)
        text = _PARTICLE_END.sub("", text) if text else text  # "https://x.example/hook를"
    elif _takes_email(parameter):
        text = _email(query, takers)
    else:
        return None
    return _coerced(parameter, text) if text else None


def fill_arguments(route: Route, query: str, values: Sequence[BoundValue] = ()) -> dict[str, Any]:
    """Arguments for ``route`` taken from the request, only where a parameter's schema
    accepts them: identifiers found in the query (formulas, DOIs, ids, dates: see
    :func:`~schemarouter.retrieval.analysis.bind_parameters`), then per parameter ``name=value`` /
    ``name: value`` / ``name "value"`` (and ``name 42`` for numbers), the one enum value the
    query names, a value of the parameter's ``format`` (date, uri, email, uuid), and last a
    quoted phrase for the one required text parameter still open (an identifier-named one
    only where the phrase has no space: a name is not an id). The top-level properties of a
    JSON object body (:func:`~schemarouter.planning.body.body_fields`) are filled by the same
    rules, as parameters of their own, into that body ("refund charge ch_500":
    ``{"body": {"charge_id": "ch_500"}}``). Never a guess the schema refuses; never the
    router's own projection parameters. An id or address whose clause says not to use it
    ("do not delete structure kop-3", "every booking except booking bk-7") binds nowhere."""
    clauses = clauses_of(query)
    values = not_described(values, query)
    kept = without_refused(values, query)  # "Don't cancel A-1001, confirm it": A-1001 again
    referred = referred_back(route, query, values, kept)
    values = [*kept, *referred]
    change = route.endpoint.effect is not Effect.READ
    if change:  # a change takes none of two ids of a thing
        values = one_each(values, query)
    arguments = bind_parameters(route, values)
    arguments.update(named_thing_id(route, values, arguments))  # "thermostat T-1": device_id
    arguments.update(numbered_ids(route, values, arguments))  # "issue 5": issue_number
    span = date_range(route, query)  # "2026-11-01 ~ 2026-11-30": start_date, end_date
    for name, day in span.items():  # None: left open, several dates and no range
        arguments.pop(name, None)
        arguments.update({name: day} if day is not None else {})
    body = body_fields(route)
    filled: dict[str, Any] = {}
    if body is not None and body.parameter.name not in arguments:
        filled = bind_parameters(_with_parameters(route, body.properties), values)
    # (parameter, whether it is a body property)
    open_ = [
        (p, False)
        for p in route.endpoint.parameters
        if p.name not in arguments
        and p.name not in _ROUTER_PARAMETERS
        and span.get(p.name, "") is not None
        and (body is None or p is not body.parameter)
    ]
    if body is not None and body.parameter.name not in arguments:
        open_ += [(p, True) for p in body.properties if p.name not in filled]
    # a route taking both sides of a conversion (``from_currency`` and ``to_currency``)
    paired = {"source", "target"} <= {_side(p) for p, _ in open_}
    # open parameters taking an address, a body's object's e-mail property too
    takers = sum(_takes_email(p) or (inside and bool(_inner(p))) for p, inside in open_)
    # a change's one date-time takes the one written (start, end: each by its bound word)
    timed = sum(value_schema(p.json_schema).get("format") == "date-time" for p, _ in open_)
    phones = sum(takes_phone(p) for p, _ in open_)
    # words naming an entry, no enum's value: "file" of "file 123", a change's own "folder"
    entries, own = entry_words(query, values), route_nouns(route) if change else frozenset()
    set_at = set_starts(query) if change else []  # "to 21": no quantity elsewhere is set
    money = change and takes_amount(route)  # "from AC-1" of a plain ``from_account``
    for parameter, inside in list(open_):
        # a message's text is never the id after its word ("delete message M-1"), nor is a
        # side of a move the id after its thing's: "from account AC-1 or AC-2" (sided_id)
        unnamed = named_as_said(parameter) or id_side(parameter, money=money) is not None
        for found in (
            _named_value(parameter, query, clauses),
            sided_id(parameter, query, clauses, money=money),  # "from AC-1 to AC-2"
            merged_id(parameter, route, query, clauses),  # "merge C-7 into C-3": keeps C-3
            filter_word_value(parameter, query, clauses, read=not change),
            target_value(parameter, query, clauses, change, route),
            created_value(parameter, route, query, clauses) if change else None,
            signed_count(parameter, query) if change else None,  # "5개 빼줘": -5
            optimade_filter(parameter, query, values),
            _enum_value(parameter, query, paired=paired, change=change, entries=entries, own=own),
            pair_value(parameter, query, route, clauses),  # "EUR to USD": base and quote
            _format_value(parameter, query, values, clauses, takers, change, timed),
            country_value(parameter, value_schema(parameter.json_schema), query),
            place_value(parameter, query, clauses),  # "to Lyon, FR", "in Dijon"
            phone_value(parameter, query, phones),
            counted_value(parameter, value_schema(parameter.json_schema), query),
            quantity_value(parameter, value_schema(parameter.json_schema), query)
            if change
            else None,
            _nested_email(parameter, query, takers) if inside else None,
            duration_value(parameter, query),  # "for 2 hours": duration_minutes=120
            None if timed_name(parameter) else _quantity_value(parameter, query, route),
            stated_value(parameter, query, route, set_at=set_at),  # "12 lb": weight_kg=5.44311
            money_value(parameter, query, route),
            asked_amount(parameter, query, route) if change else None,
            minor_amount(parameter, query, route) if change else None,  # "$12.50": 1250
            asked_currency(parameter, query, route) if change else None,
            range_value(parameter, route, KO_NUMBER.sub(korean_number, query)),
            count_value(parameter, query, route.endpoint.parameters),
            set_number(parameter, [p for p, _ in open_], query, clauses, route=route)
            if change
            else None,
            number_before_name(parameter, query, clauses) if change else None,
            sort_value(parameter, route.endpoint.parameters, query, read=not change),
            listed_value(parameter, query),  # "in staging": namespace (e.g. prod, staging)
            flag_value(parameter, query),  # "force delete": force=true
            None if unnamed else _named_id(parameter, query),  # "delete message M-1": no text
            version_value(parameter, query),  # "deploy payments v2.3.1": version
            None if unnamed else keyed_name(parameter, query),  # "in project web": projectKey
            percent_value(parameter, query),  # "out to 25%": percentage
            described_count(parameter, query),  # "last 50 lines": tail ("Number of lines")
            owner_value(parameter, query),  # "pods of checkout": deployment
            verb_object(parameter, route, query, [p for p, _ in open_]),  # "scale checkout"
        ):
            if found is not None:
                (filled if inside else arguments)[parameter.name] = found
                open_.remove((parameter, inside))
                break
    given_back = frozenset(v.value for v in referred)  # "don't touch B-2, just show ..."
    bind_by_pattern(
        open_,
        query,
        arguments,
        filled,
        clauses,
        read=not change,
        given_back=given_back,
        provider=route.provider.id,
        others=(lambda: other_changes(route, query)) if change else None,
    )
    top = [p for p, inside in open_ if not inside]  # "what did we pay for AMP-0009?": sku
    if key := key_code(route, top, query, {**arguments, **filled}, clauses):
        arguments[key[0]] = key[1]
        open_ = [(p, inside) for p, inside in open_ if inside or p.name != key[0]]
    if change and body is not None:  # "a comment on file 456": body.item = {"id": "456", ...}
        inner = [p for p, inside in open_ if inside]
        held = [*arguments.values(), *filled.values()]
        found = referenced_entries(inner, values, held, query=query)
        if filled or not creates(route):  # a create of nothing but where stays missing
            filled.update(found)
        open_ = [(p, inside) for p, inside in open_ if not inside or p.name not in filled]
    text = [
        (p, inside)
        for p, inside in open_
        if p.required
        and p.json_schema.get("type") == "string"
        and not {"enum", "format"} & set(p.json_schema)
    ]
    # a quote a parameter's name took is that parameter's ("with the message '...'")
    taken = {v for v in [*arguments.values(), *filled.values()] if isinstance(v, str)}
    quoted = [
        phrase
        for m in _QUOTED.finditer(query)
        if not clauses.against(m)
        and not described_at(m.start() + 1, query)
        and (phrase := next(g for g in m.groups() if g is not None)) not in taken
    ]
    if (
        len(text) == 1
        and len(quoted) == 1
        and _valid(text[0][0], quoted[0])
        # an identifier holds no spaces: "books by 'Ursula K. Le Guin'" names an author,
        # whose author_id a lookup gives (the planner's producer step)
        and not (names_identifier(text[0][0].name) and re.search(r"\s", quoted[0]))
    ):
        (filled if text[0][1] else arguments)[text[0][0].name] = quoted[0]
    elif len(told := [t for t in text if not names_identifier(t[0].name)]) == 1:
        # "notify C-1 that ...", "note: rolled back checkout" (its deployment's id open)
        said = said_text(told[0][0], query, route, taken)
        (filled if told[0][1] else arguments).update({told[0][0].name: said} if said else {})
    if change:  # "due tomorrow": due_date, not start_date too
        one_date_named(route.endpoint.parameters, arguments, query)
        one_date_named(body.properties if body else (), filled, query)
    again = {v.value for v in referred}
    arguments = _sendable(route, query, arguments, route.endpoint.parameters, again)
    filled = _sendable(route, query, filled, body.properties if body else ())
    # an action the request says not to do, or takes back, gets no empty body (trial V3)
    if body is not None and (
        filled or (sent_empty(route, body, query) and not says_not_to(query, route))
    ):
        arguments[body.parameter.name] = filled
    elif body is not None and held_open(route, body, query, arguments.values()):
        arguments[body.parameter.name] = {}  # its required properties are listed missing
    return arguments


def _with_parameters(route: Route, parameters: Sequence[Parameter]) -> Route:
    """``route`` taking ``parameters`` (a body's properties) in place of its own, for
    :func:`~schemarouter.retrieval.analysis.bind_parameters` to bind by its rules."""
    endpoint = route.endpoint.model_copy(update={"parameters": tuple(parameters)})
    return route.model_copy(update={"endpoint": endpoint})


def missing_parameters(route: Route, arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The required parameters ``arguments`` leave open; of a JSON object body, its required
    properties (``body.charge_id``), or the body itself where it requires none."""
    body = body_fields(route)
    out: list[str] = []
    for p in route.endpoint.parameters:
        if body is not None and p is body.parameter:
            given = arguments.get(p.name)
            if isinstance(given, Mapping) or p.required:
                needed = [q for q in body.properties if q.required]
                held = given if isinstance(given, Mapping) else {}
                out += [body_key(p, q.name) for q in needed if q.name not in held]
                if not needed and given is None:
                    out.append(p.name)
        elif p.required and p.name not in arguments:
            out.append(p.name)
    return tuple(out)


def is_given(name: str, arguments: Mapping[str, Any]) -> bool:
    """Whether ``arguments`` give ``name``: a parameter, or a body property
    (``body.charge_id``: the ``charge_id`` of the ``body`` given), or one of the names an
    update's missing changes join (``"name|room_id"``: :mod:`.empty_changes`)."""
    if name in arguments:
        return True
    if ONE_OF in name:
        return any(is_given(n, arguments) for n in name.split(ONE_OF))
    head, _, tail = name.partition(".")
    held = arguments.get(head)
    return bool(tail) and isinstance(held, Mapping) and tail in held


def with_given(step: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """The update that adds ``given`` to plan step ``step`` (:meth:`Plan.with_arguments`):
    its arguments with ``given`` merged in (:func:`merged_arguments`: ``{"body":
    {"amount_cents": 4900}}`` fills the missing ``body.amount_cents`` and keeps the
    ``charge_id`` the request gave), the names given out of its missing parameters and its
    bindings."""
    merged = merged_arguments(step.arguments, given)
    return {
        "arguments": merged,
        "missing_parameters": tuple(p for p in step.missing_parameters if not is_given(p, merged)),
        "bindings": {k: v for k, v in step.bindings.items() if not is_given(k, merged)},
    }


def merged_arguments(arguments: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with ``given`` added; a mapping given where ``arguments`` hold one (a JSON
    body the request filled in part) is merged into it, one level deep."""
    merged = dict(arguments)
    for name, value in given.items():
        before = merged.get(name)
        both = isinstance(before, Mapping) and isinstance(value, Mapping)
        merged[name] = {**before, **value} if both else value  # type: ignore[dict-item]
    return merged


def holds(argument: Any, value: str) -> bool:
    """Whether ``argument`` (or a value inside it) holds ``value``: text that contains it, or
    the number it reads as ("ticket 13" taken as ``ticket_id=13``)."""
    if isinstance(argument, Mapping):
        return any(holds(v, value) for v in argument.values())
    if isinstance(argument, list | tuple):
        return any(holds(v, value) for v in argument)
    if isinstance(argument, int | float) and not isinstance(argument, bool):
        try:
            return float(value) == argument
        except ValueError:
            return False
    return isinstance(argument, str) and value.lower() in argument.lower()


def unused_values(
    arguments: Sequence[Mapping[str, Any]],
    values: Sequence[BoundValue],
    query: str = "",
    *,
    formulas: bool = True,
) -> list[str]:
    """A sentence per formula or identifier the request names that none of the steps'
    ``arguments`` holds: the calls are then not filtered by it (a search for "Fe2O3의 밴드갭"
    sent with no formula returns other materials), and the plan says so. The same for a sum
    of money ``query`` writes: no call carries it, so a step may do more than was asked
    (trial K: "주문 ORD-20240001 3만원 환불해줘", a partial refund, planned ``cancel_order``).
    ``formulas=False`` (a registry where no parameter takes a formula) says nothing of a
    "formula" written as an acronym is ("SKU", "CPU": capitals only, one-letter elements),
    far likelier an acronym there; "Fe2O3" is still said (a table of every material's band
    gap answers for others)."""

    def stepped(value: str) -> bool:
        return any(holds(list(step.values()), value) for step in arguments)

    out = dict.fromkeys(described_notes(values, query, stepped))  # "the account AC-9 opened"
    values = not_describing(values, query)
    for amount in amounts(query):
        minor = str(Decimal(amount) * 100)  # "$12.50" carried as 1250 cents (.asked_amounts)
        if not any(holds(list(step.values()), amount) for step in arguments) and not any(
            holds(list(step.values()), minor) for step in arguments
        ):
            out[
                f"the request names the amount {amount}, which no step takes as an argument: "
                "no call carries it, so check that the plan does what was asked (a step that "
                "cancels or refunds a whole order takes no amount); pass it with "
                "Plan.with_arguments where a parameter takes it"
            ] = None
    kept = set(without_refused(values, query))  # a set: a list compared every pair
    for value in values:
        if value.kind != "chemical.formula" and not value.kind.startswith("identifier."):
            continue
        taken = any(holds(list(step.values()), value.value) for step in arguments)
        if value not in kept and not taken:  # "don't refund order O-1": no invitation (V3)
            what = f"{value.of} id" if value.of else value.kind.split(".", 1)[-1]
            out[
                f"the request names {what} {value.value!r} in a clause it says not to use or "
                "takes back: no step takes it"
            ] = None
            continue
        acronym = value.value.isalpha() and value.value.isupper()
        if value.kind == "chemical.formula" and not formulas and acronym:
            continue
        held = [value.value]
        if value.kind == "chemical.formula":  # an OPTIMADE filter holds its reduced form
            held += [reduced for reduced in [reduced_formula(value.value)] if reduced]
        if any(holds(list(step.values()), v) for step in arguments for v in held):
            continue
        kind = value.kind.split(".", 1)[-1].replace("_", " ")
        what = f"{value.of} id" if value.of else kind
        out[
            f"the request names {what} {value.value!r}, which no step takes as an argument: "
            "the calls are not filtered by it; pass it with Plan.with_arguments where a "
            "parameter takes it"
        ] = None
    out.update(dict.fromkeys(unused_bounds(arguments, KO_NUMBER.sub(korean_number, query))))
    return list(out)
