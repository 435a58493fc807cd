"""The amount a change is asked for: filled where it can be read with certainty, else held back.

An action whose JSON body is optional goes with no body where the request fills none of its
properties, and the server's default is then what happens: trial 13's "결제 P-301에서 2000원만
부분 환불해줘" (refund only 2000 won of payment P-301) sent ``POST /payments/P-301/refund``
with no body, a refund in full (5000), and only a warning said no step took the amount 2000.
A required body already stays missing there (:func:`~schemarouter.planning.body.sent_empty`:
"refund €20"); this is the same rule for any body, required or optional.

Where a change takes an amount (a number named as a sum: ``amount``, ``total_price``, ``fee``)
and the request writes one sum of money, the amount is filled (:func:`asked_amount`), and the
currency beside it (:func:`asked_currency`), only where the route takes a currency and the
request writes the sum's with certainty (원, won, KRW and ₩ are KRW; 달러, dollars and $ are
USD unless the currency's enum lists another dollar; €, 유로 and euros EUR; ¥ is none: yen or
yuan) in a value its schema takes: a body with no currency says nothing of what "2000원" is
in. Where the request asks for an amount or a part ("only", "partially", "half", "일부",
"2000원만", "a third") and the change's amount is not given the sum asked, the plan lists it as
missing (:func:`held_amounts`), says so, and ``execute`` sends nothing until it is given
(:func:`~schemarouter.planning.arguments.is_given`).

An amount in a currency's smallest unit (``amount_cents``, ``amount_minor``, Stripe's
``amount`` "in the smallest currency unit") takes the sum in that unit (:func:`minor_amount`):
"Refund $12.50 of charge ch_1" sends 1250, never 12 nor 12.5, where the route takes a
currency and the sum's is written for certain, its minor unit known (hundredths; none for
KRW and JPY, whose smallest unit is the won and the yen; cents or pence only in hundredths).
Where the unit cannot be told (no currency beside it, a sum in no certain currency, cents of
the yen, a fraction of a cent, or a whole number of no stated unit asked 12.50), the amount
stays missing and the plan says why (:func:`held_amounts`); ``execute`` refuses the step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.body import acts_on_entry, body_fields, body_key
from schemarouter.planning.empty_changes import ONE_OF
from schemarouter.planning.named_values import coerced
from schemarouter.planning.page_size import flat_name
from schemarouter.planning.quantities import (
    currency_code,
    currency_options,
    foreign_sums,
    numeric,
    own_currency,
    sums,
)
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.values import value_schema

__all__ = [
    "asked_amount",
    "asked_currency",
    "asks_part",
    "currency_code",
    "held_amounts",
    "in_minor_units",
    "minor_amount",
    "takes_amount",
]

#: A sum's name (lower-case letters only, as :func:`flat_name` writes it); one in a
#: currency's smallest unit (``amount_cents``) is one too, but never filled from "€20".
_AMOUNT = re.compile(r"amount|price|total|cost|fee|sum")
_MINOR = re.compile(r"cent|pence|penny|minor|smallest|subunit", re.IGNORECASE)
#: A minor unit said to be a hundredth (cents, pence): of no currency without one.
_HUNDREDTHS = re.compile(r"cent|pence|penny", re.IGNORECASE)
_SMALLEST = re.compile(r"minor|smallest|subunit", re.IGNORECASE)
#: ISO 4217 minor-unit exponents other than 2, of the codes a sum is read in.
_EXPONENTS = {"JPY": 0, "KRW": 0}

#: What asks for a part of an action's whole, or an amount in words: "only", "partially",
#: "half", "a third", "twenty euros", "일부", "부분", "절반", "만큼", "2000원만" (만: only, after
#: a word; not "3만" nor "하지만"), "이만원".
_PART = re.compile(
    r"\b(?:partial(?:ly)?|part|half|portion|percent|(?:third|quarter|fifth|tenth)s?"
    r"|euros?|dollars?|bucks|yen|pounds?|eur|usd|gbp|jpy|krw)\b"
    r"|(?<!\bmy\s)(?<!\bthe\s)(?<!\ban\s)\bonly\b(?!\s+if\b)"
    r"|%|일부|부분|절반|만큼|퍼센트|분의|달러|유로|엔화|(?<=[가-힣])(?<!지)만(?![가-힣\d])"
    r"|(?<![가-힣])[일이삼사오육칠팔구십백천만억]+\s?원",
    re.I,
)


def _amounts(route: Route) -> list[tuple[Parameter, bool]]:
    """``route``'s numeric parameters named as a sum, each with whether it is a property of
    its JSON body."""
    body = body_fields(route)
    taken = [(p, False) for p in route.endpoint.parameters]
    taken += [(p, True) for p in (body.properties if body is not None else ())]
    return [(p, inside) for p, inside in taken if numeric(p) and _AMOUNT.search(flat_name(p.name))]


def takes_amount(route: Route) -> bool:
    """Whether ``route`` takes a sum (a number named as one: ``amount``, ``total_price``)."""
    return bool(_amounts(route))


def _currencies(route: Route) -> list[Parameter]:
    """``route``'s parameters (its body's properties too) named as a currency."""
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    return [p for p in taken if flat_name(p.name) in ("currency", "currencycode")]


def _one_sum(query: str, route: Route, parameter: Parameter) -> tuple[str, str] | None:
    """The one sum of money ``query`` writes and the code of its currency, where ``route``
    takes one currency and the sum's is one it takes for certain (:func:`currency_code`), or
    takes none and ``parameter`` says what it is in (:func:`own_currency`: ``amount_eur``)."""
    currencies = _currencies(route)
    found = list(dict.fromkeys(sums(query)))
    own = own_currency(parameter) if not currencies else None
    if (len(currencies) != 1 and own is None) or len({number for number, _ in found}) != 1:
        return None
    options = [own] if own is not None else currency_options(currencies[0])
    codes = {currency_code(unit, options) for _, unit in found}
    code = codes.pop() if len(codes) == 1 else None
    return (found[0][0], code) if code is not None else None


def asked_amount(parameter: Parameter, query: str, route: Route) -> Any:
    """The one sum of money the request writes, for ``parameter``, an optional amount of a
    change (its one number named as a sum, never one in cents), where ``route`` takes a
    currency the request writes the sum's for certain: "Refund 20 EUR of payment P-301"
    sends ``amount=20`` (and :func:`asked_currency` ``currency="EUR"``). A required one is
    :func:`~schemarouter.planning.quantities.money_value`'s."""
    if route.endpoint.effect is Effect.READ or parameter.required:
        return None
    if [p.name for p, _ in _amounts(route)] != [parameter.name] or _MINOR.search(
        " ".join([parameter.name, parameter.description or ""])
    ):
        return None
    found = _one_sum(query, route, parameter)
    return coerced(parameter, found[0]) if found is not None else None


def _said(parameter: Parameter) -> str:
    """``parameter``'s name and descriptions (its own and its schema's)."""
    described = parameter.json_schema.get("description")
    return " ".join([parameter.name, parameter.description or "", str(described or "")])


def in_minor_units(parameter: Parameter) -> bool:
    """Whether ``parameter``, a sum, is said to be in a currency's smallest unit."""
    return bool(_MINOR.search(_said(parameter)))


def minor_amount(parameter: Parameter, query: str, route: Route) -> int | None:
    """The one sum of money the request writes in ``parameter``'s minor units, where it is
    ``route``'s one amount (a change's), said to be in them (:func:`in_minor_units`), and the
    route takes one currency the sum's is for certain: "Refund $12.50 of charge ch_1" sends
    1250; ``None`` where the unit cannot be told (module docstring)."""
    amounts = [p.name for p, _ in _amounts(route)]
    if route.endpoint.effect is Effect.READ or amounts != [parameter.name]:
        return None
    if not in_minor_units(parameter):
        return None
    found = _one_sum(query, route, parameter)
    if found is None:
        return None
    exponent = _EXPONENTS.get(found[1].upper(), 2)
    said = _said(parameter)
    if exponent != 2 and _HUNDREDTHS.search(said) and not _SMALLEST.search(said):
        return None  # cents of the yen: no unit to tell
    minor = Decimal(found[0]) * 10**exponent
    return int(minor) if minor == minor.to_integral_value() else None


def asked_currency(parameter: Parameter, query: str, route: Route) -> Any:
    """The currency of the one sum of money the request writes, for ``parameter``, a change's
    one currency beside an amount, where the request writes it for certain ("2000원": KRW)
    and its schema takes it (:func:`currency_code`)."""
    if route.endpoint.effect is Effect.READ or not _amounts(route):
        return None
    if [p.name for p in _currencies(route)] != [parameter.name]:
        return None
    found = _one_sum(query, route, parameter)
    return found[1] if found is not None else None


def asks_part(query: str, route: Route) -> bool:
    """Whether ``query`` asks for an amount or a part of what ``route`` does: a sum of money
    in digits, or, for an action on an entry (:func:`acts_on_entry`: a refund, a capture),
    a word that asks a part or a sum in words (:data:`_PART`)."""
    return bool(sums(query)) or (acts_on_entry(route) and bool(_PART.search(query)))


def _given(step: Any, key: str, inside: bool, body: str) -> Any:
    if key in step.bindings:
        return True
    if not inside:
        return step.arguments.get(key)
    held = step.arguments.get(body)
    return held.get(key.partition(".")[2]) if isinstance(held, Mapping) else None


def _holds(value: Any, numbers: Sequence[str]) -> bool:
    """Whether ``value`` is given, and is one of ``numbers`` where the request writes any."""
    if value is None:
        return False
    if value is True or not numbers:
        return True
    return isinstance(value, int | float) and any(float(n) == value for n in numbers)


def _unit_unknown(route: Route, numbers: Sequence[str]) -> str:
    """Why the sum ``numbers[0]`` fills no amount of ``route`` for its unit: one in minor
    units that the sum's currency does not tell (:func:`minor_amount`), or a whole number of
    no stated unit asked a fraction (12.50: never 12, nor 1250); ``""`` where neither."""
    taken = [p for p, _ in _amounts(route)]
    if not numbers or len(taken) != 1:
        return ""
    if in_minor_units(taken[0]):
        return (
            f"the amount {numbers[0]}, which it takes in a currency's minor units "
            f"({taken[0].name!r}): a currency it takes, written for certain beside the sum, "
            "tells how many, a whole number of them; it is never sent as the sum written"
        )
    whole = value_schema(taken[0].json_schema).get("type") == "integer"
    if whole and Decimal(numbers[0]) != Decimal(numbers[0]).to_integral_value():
        return (
            f"the amount {numbers[0]}, which it takes as a whole number ({taken[0].name!r}) "
            f"in a unit it does not state: it is never sent as {int(Decimal(numbers[0]))}, "
            "nor in minor units"
        )
    return ""


def _why(route: Route, numbers: Sequence[str]) -> str:
    """What the request asks for that no argument gives, and why it was not filled."""
    if not numbers:
        return "a part, which no argument gives"
    if unit := _unit_unknown(route, numbers):
        return unit
    if not _currencies(route):
        return (
            f"the amount {numbers[0]}, which it takes with no currency: what the sum is in "
            "is not known for certain"
        )
    return (
        f"the amount {numbers[0]}, which no argument gives: one sum in a currency the route "
        "takes, written for certain, fills it"
    )


def _foreign(route: Route, foreign: Sequence[tuple[str, str]]) -> str:
    """What the request asks for in a currency ``route`` does not take (:func:`foreign_sums`),
    and the currencies it takes."""
    number, unit = foreign[0]
    taken = [f"{p.name!r}: {', '.join(currency_options(p))}" for p in _currencies(route)]
    return (
        f"the amount {number} {unit}, in a currency the route does not take "
        f"({'; '.join(taken)}): it is never sent as {number} of another currency"
    )


def _example(key: tuple[str, bool]) -> str:
    """How :meth:`Plan.with_arguments` gives ``key``: ``{'body': {'amount': ...}}``."""
    head, _, tail = key[0].partition(".")
    return f"{{{head!r}: {{{tail!r}: ...}}}}" if key[1] else f"{{{head!r}: ...}}"


def held_amounts(
    snapshot: RegistrySnapshot, steps: Sequence[Any], query: str, warnings: list[str]
) -> list[Any]:
    """``steps`` (plan steps), each change whose amount the request asks for but no argument
    gives (module docstring) with the amount listed as missing (the names of several joined
    by :data:`~schemarouter.planning.empty_changes.ONE_OF`), said in ``warnings``."""
    numbers = [number for number, _ in sums(query)]
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        if route is None or route.endpoint.effect is Effect.READ or not asks_part(query, route):
            out.append(step)
            continue
        fields = body_fields(route)
        body = fields.parameter.name if fields is not None else ""
        keys = [(body_key(fields.parameter, p.name) if inside and fields else p.name, inside)
                for p, inside in _amounts(route)]  # fmt: skip
        listed = {k for k, _ in keys} | {body}
        foreign = foreign_sums(query, _currencies(route))
        if not keys or listed & {n for m in step.missing_parameters for n in m.split(ONE_OF)}:
            unit = _unit_unknown(route, numbers) if keys and not foreign else ""
            if keys and (foreign or unit):  # a required amount left missing: say why
                warnings.append(
                    f"the request asks {step.route_id} for "
                    f"{_foreign(route, foreign) if foreign else unit}: the amount is not "
                    "filled, so the step is not sent; give it with Plan.with_arguments("
                    f"{step.route_id!r}, {_example(keys[0])})"
                    + (" in a currency the route takes" if foreign else "")
                )
            out.append(step)  # no amount, or one (or the whole body) missing already
            continue
        minors = [str(m) for p, _ in _amounts(route) if (m := minor_amount(p, query, route))]
        given = [*numbers, *minors]  # "$12.50" given as 1250 cents
        if any(_holds(_given(step, key, inside, body), given) for key, inside in keys):
            out.append(step)
            continue
        missing = ONE_OF.join(k for k, _ in keys)
        why = _foreign(route, foreign) if foreign else _why(route, numbers)
        warnings.append(
            f"the request asks {step.route_id} for {why}: sent without "
            f"{missing!r}, the server's default may do the whole (a refund in full), so it is "
            f"not sent; give it with Plan.with_arguments({step.route_id!r}, {_example(keys[0])})"
        )
        missing_now = (*step.missing_parameters, missing)
        out.append(step.model_copy(update={"missing_parameters": missing_now}))
    return out
