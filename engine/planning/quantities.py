"""Numbers a request writes with a unit or a currency, and the amount a change's body takes
from one: "an expense claim of 80 EUR" fills the claim's ``amount`` (trial 10: the create
went with ``amount`` missing, and the plan warned that no step took the amount 80).

Taken out of :mod:`schemarouter.planning.arguments`, which reads them for each parameter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.named_values import NUMBER, coerced
from schemarouter.planning.page_size import flat_name
from schemarouter.retrieval.analysis import CURRENCIES
from schemarouter.retrieval.values import value_schema

__all__ = [
    "GROUPED",
    "KO_NUMBER",
    "amounts",
    "currency_code",
    "currency_options",
    "declared_quantity",
    "foreign_sums",
    "korean_number",
    "money_value",
    "numeric",
    "quantities",
    "sums",
]


def numeric(parameter: Parameter) -> bool:
    """Whether ``parameter`` takes a number (an integer or a number)."""
    kinds = value_schema(parameter.json_schema).get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    return bool(kinds & {"integer", "number"})


#: A number with thousands separators ("1,500", "50,000"): its digits are the number.
GROUPED = r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?"


#: Korean number words after digits: "3만" is 30,000, "2만 5천" 25,000, "1억" 100,000,000.
_KO_UNITS = {"억": 100_000_000, "만": 10_000, "천": 1_000}
KO_NUMBER = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?[억만천](?:\s?\d+(?:\.\d+)?[억만천])*(?:\d+(?![\d.]))?"
)


def korean_number(match: re.Match[str]) -> str:
    """The number a run of digits and Korean number words writes ("2만 5천" -> "25000")."""
    total = 0.0
    for digits, word in re.findall(r"(\d+(?:\.\d+)?)\s?([억만천]?)", match.group(0)):
        total += float(digits) * _KO_UNITS.get(word, 1)
    if not total < 1e15:  # no amount a float holds exactly (400 nines: inf, int() raised)
        return match.group(0)
    return f"{total:.0f}" if total == int(total) else str(total)


def quantities(query: str, unit: str) -> list[str]:
    """The numbers ``query`` writes with ``unit`` (a regex of its spellings) after them; one
    written with thousands separators ("1,500 kg") is read whole, and the digits after a
    comma of any other number ("1,5 kg") are no number of their own; Korean number words
    count ("3만원" is 30000 won, never 3: trial K)."""
    query = KO_NUMBER.sub(korean_number, query)
    pattern = rf"(?<![\w.-])(?<!\d,)({GROUPED}|{NUMBER})\s*(?:{unit})(?:(?![\w-])|(?=[가-힣]))"
    return [m.group(1).replace(",", "") for m in re.finditer(pattern, query, re.IGNORECASE)]


#: Money written after its number ("30 USD", "50 dollars", "3만원") or before it ("$25").
_MONEY = rf"{CURRENCIES}|pounds? sterling|원|달러|유로|엔|위안"
_MONEY_BEFORE = re.compile(
    rf"(?<![\w.])([$€£¥₩]|(?i:usd|eur|gbp|jpy|krw|cny|chf|cad|aud|inr)(?=\s?\d))\s?"
    rf"({GROUPED}|{NUMBER})(?![\w.])"
)


def sums(query: str) -> list[tuple[str, str]]:
    """The sums of money ``query`` writes, each with the currency word or symbol it is written
    with: ``("30000", "원")`` for "3만원", ``("25.50", "$")`` for "$25.50", ``("20", "usd")``
    for "usd 20" (an ISO code before its sum, in any case: "Send USD 20 from AC-1 to AC-2"
    read USD as a thing and 20 as its id, and planned a notification), in the order written
    after the number, then before it."""
    text = KO_NUMBER.sub(korean_number, query)
    after = rf"(?<![\w.-])(?<!\d,)({GROUPED}|{NUMBER})\s*({_MONEY})(?:(?![\w-])|(?=[가-힣]))"
    return [
        (m.group(1).replace(",", ""), m.group(2)) for m in re.finditer(after, text, re.IGNORECASE)
    ] + [(m.group(2).replace(",", ""), m.group(1)) for m in _MONEY_BEFORE.finditer(query)]


def amounts(query: str) -> list[str]:
    """The sums of money ``query`` writes (``"30000"`` for "3만원", ``"25.5"`` for "$25.50")."""
    return list(dict.fromkeys(number for number, _ in sums(query)))


#: The currency a word or symbol names with certainty (lower case); ¥ is yen or yuan.
_CODES = {"원": "KRW", "won": "KRW", "₩": "KRW", "€": "EUR", "유로": "EUR", "euro": "EUR"}
_CODES |= {"euros": "EUR", "엔": "JPY", "yen": "JPY", "위안": "CNY", "yuan": "CNY", "£": "GBP"}
_CODES |= {"pounds sterling": "GBP", "pound sterling": "GBP"}
_CODES |= {"$": "USD", "달러": "USD", "dollar": "USD", "dollars": "USD"}
_ISO = frozenset(["USD", "EUR", "GBP", "JPY", "KRW", "CNY", "CHF", "CAD", "AUD", "INR"])
#: Currencies named in dollars beside the US dollar: "$20" is none of them for certain.
_DOLLARS = frozenset(["AUD", "CAD", "NZD", "HKD", "SGD", "TWD", "MXN"])


def currency_code(unit: str, allowed: Sequence[str] = ()) -> str | None:
    """The ISO code ``unit`` (a currency word, symbol or code) names with certainty, among
    ``allowed`` where they are given (matched in any case, returned as ``allowed`` spells
    it); ``None`` where it names none for certain ("$" beside a Canadian dollar)."""
    word = unit.lower().strip()
    code = word.upper() if word.upper() in _ISO else _CODES.get(word)
    if code is None:
        return None
    if not allowed:
        return code
    if code == "USD" and word.upper() != "USD" and _DOLLARS & {a.upper() for a in allowed}:
        return None
    return next((a for a in allowed if a.upper() == code), None)


def currency_options(parameter: Parameter) -> list[str]:
    """The currency codes ``parameter``'s enum lists (none: it takes any)."""
    enum = value_schema(parameter.json_schema).get("enum")
    return [o for o in enum if isinstance(o, str)] if isinstance(enum, list) else []


#: What a sum's description says it is in: "in EUR", "in euros", "in euro cents".
_IN_CURRENCY = re.compile(r"\bin\s+(?:the\s+)?(€|\$|£|₩|[A-Za-z]+)", re.IGNORECASE)


def own_currency(parameter: Parameter) -> str | None:
    """The one currency a sum's own name or description says it is in (``amount_eur``,
    ``priceUsd``, "The new amount, in euro cents."), for a route that takes no currency
    parameter beside it (user trial 20: "create a deal for Globex, 12,500 EUR" filled no
    ``amount_eur``); ``None`` where it names none, or two."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).upper().split("_")
    codes = {w for w in words if w in _ISO}
    codes |= {c for m in _IN_CURRENCY.finditer(_said(parameter)) if (c := currency_code(m[1]))}
    return codes.pop() if len(codes) == 1 else None


#: The names of a sum of money (lower-case letters only, as :func:`flat_name` writes them).
_AMOUNT = re.compile(r"amount|price|total|cost|fee|sum")


#: A sum in a currency's smallest unit (``amount_cents``, "amount in cents"; Stripe's).
_MINOR = re.compile(r"cent|pence|penny|minor|smallest|subunit", re.IGNORECASE)


def _said(parameter: Parameter) -> str:
    """``parameter``'s name and what its schema says of it."""
    schema = value_schema(parameter.json_schema)
    return " ".join(
        [parameter.name, str(schema.get("description") or ""), parameter.description or ""]
    )


def money_value(parameter: Parameter, query: str, route: Route) -> Any:
    """The one sum of money the request writes ("80 EUR", "$25", "3만원"), for ``parameter``
    where it is the one required number ``route`` takes (a parameter or a property of its
    body), it is named as a sum (``amount``, ``total_price``, ``fee``) and the route also
    takes a currency, and one that takes the sum's: "submit an expense claim of 80 EUR" sends
    ``amount=80`` (its currency is the enum value's to fill); never "20 CAD" where the currency
    takes KRW, USD or EUR (sent as 20 of the server's default, or of a currency the caller then
    gives: :func:`foreign_sums`), and never one in cents (``amount_cents``, or "in the smallest
    currency unit"), which "80 EUR" does not give. ``None`` where the request writes no or
    several sums."""
    if not parameter.required or not numeric(parameter):
        return None
    if not _AMOUNT.search(flat_name(parameter.name)) or _MINOR.search(_said(parameter)):
        return None  # "49 EUR" is no amount in cents, and nothing says to multiply
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    if [p.name for p in taken if p.required and numeric(p)] != [parameter.name]:
        return None
    currencies = [p for p in taken if flat_name(p.name).endswith("currency")]
    own = own_currency(parameter) if not currencies else None
    if own is not None:  # ``amount_eur``: every sum written is in euros for certain
        if not all(currency_code(unit, (own,)) for _, unit in sums(query)):
            return None
    elif not currencies or foreign_sums(query, currencies):
        return None  # "20 CAD" where the currency takes KRW, USD, EUR: no amount in another
    found = amounts(query)
    return coerced(parameter, found[0]) if len(found) == 1 else None


def foreign_sums(query: str, currencies: Sequence[Parameter]) -> list[tuple[str, str]]:
    """The sums of money ``query`` writes (:func:`sums`) in a currency none of ``currencies``
    (a route's currency parameters) takes for certain (:func:`currency_code` of the enum it
    lists): "20 CAD" beside ``[KRW, USD, EUR]``, "$20" beside ``[USD, CAD]``; none where the
    route takes no currency (what its amount is in is then not known: the callers hold it)."""
    return [
        (number, unit)
        for number, unit in sums(query)
        if currencies and not any(currency_code(unit, currency_options(c)) for c in currencies)
    ]


#: The unit a parameter's description declares, as ``inspect`` writes it: ``(unit: L/min)``.
_DECLARED = re.compile(r"\(unit:\s*([^()\s][^()]{0,15})\)")


def declared_unit(parameter: Parameter) -> str | None:
    """The unit ``parameter`` declares: its schema's ``x-unit``, else its description's
    ``(unit: L/min)``; ``None`` where it declares none."""
    declared = value_schema(parameter.json_schema).get("x-unit")
    if isinstance(declared, str) and declared.strip():
        return declared.strip()
    found = _DECLARED.search(parameter.description or "")
    return found.group(1).strip() if found else None


def declared_quantity(parameter: Parameter, query: str, route: Route) -> str | None:
    """The one number ``query`` writes with the unit ``parameter`` declares, spelt as it
    declares it (trial 17: "open valve V-8 for 45 minutes at 20 L/min" opened it at its
    default flow, ``flow_lpm`` "(unit: L/min)" left out), where it is the route's one number in
    that unit; ``None`` else (two such numbers, or a number in another unit)."""
    unit = declared_unit(parameter)
    if unit is None or not numeric(parameter):
        return None
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    if sum(numeric(p) and declared_unit(p) == unit for p in taken) != 1:
        return None
    found = list(dict.fromkeys(quantities(query, re.escape(unit))))
    return found[0] if len(found) == 1 else None
