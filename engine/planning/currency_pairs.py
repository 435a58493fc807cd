"""The two currencies of a pair written as codes: "EUR to USD", "from EUR to USD", "EUR into
USD", "EUR/USD" (user trial 14).

A conversion's sides were read only where they are enums (:func:`~.enum_values.enum_value`),
and only by the side names ``from`` / ``to`` / ``source`` / ``target`` / ``base``: a callable
``fx_rate(base: str, quote: str)`` asked "What is the EUR to USD exchange rate?" filled
neither, and nothing could be sent. Here a pair of free text parameters named as a pair's
sides (``base`` / ``quote``, ``from`` / ``to``, ``source`` / ``target``, ``sell`` / ``buy``,
``from_currency`` / ``to_currency`` ...) takes the one pair of ISO 4217 codes the request
writes, the first code on the source side, where the pair is a currency pair: a parameter's
name or description says currency, or the route's own words say currency, exchange or FX.
Codes are read as written, in capitals ("TRY", never the word "try"); two different pairs
written, or one refused ("not EUR to USD"), fill nothing, and the value still has to pass
the parameter's schema.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.values import value_schema

__all__ = ["ISO_4217", "pair_value"]

_CODES = """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN
    BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD
    FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY
    KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP
    MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR
    RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT
    TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XAG XAU XCD XOF XPF YER
    ZAR ZMW ZWL
"""
#: The active ISO 4217 currency codes (and gold and silver, XAU and XAG).
ISO_4217 = frozenset(_CODES.split())
#: A parameter taking a pair's source side, or its target side, by its name.
_SOURCE = re.compile(r"^(?:from|source|src|base|origin|sell|selling)(?:_|$)|_(?:from|source|base)$")
_TARGET = re.compile(
    r"^(?:to|into|target|dest|destination|quote|counter|buy|buying)(?:_|$)|_(?:to|target|quote)$"
)
#: What says a parameter or a route deals in currencies.
_CURRENCY = re.compile(r"currenc|\bccy\b|iso[\s_-]?4217", re.IGNORECASE)
_EXCHANGE = re.compile(r"currenc|exchange|\bfx\b|forex|\bccy\b", re.IGNORECASE)
#: Two capital codes as a pair: "EUR to USD", "EUR into USD", "EUR/USD", "EUR -> USD".
_PAIR = re.compile(r"(?<![\w/-])([A-Z]{3})\s*(?:\bto\b|\binto\b|/|->|→)\s*([A-Z]{3})(?![\w/-])")


def _side(parameter: Parameter) -> str | None:
    """``"source"``, ``"target"`` or ``None``: the side of a pair ``parameter``'s name gives."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower()
    if _TARGET.search(name):
        return "target"
    if _SOURCE.search(name):
        return "source"
    return None


def _free_text(parameter: Parameter) -> bool:
    schema = value_schema(parameter.json_schema)
    return schema.get("type") == "string" and "enum" not in schema and "format" not in schema


def _says(parameter: Parameter) -> str:
    schema = value_schema(parameter.json_schema)
    return f"{parameter.name} {schema.get('description') or ''} {parameter.description or ''}"


def _pair(route: Route) -> dict[str, Parameter] | None:
    """The route's one source and one target free text parameter, where they are a currency
    pair (module docstring); else ``None``."""
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    sides: dict[str, list[Parameter]] = {"source": [], "target": []}
    for parameter in taken:
        side = _side(parameter)
        if side is not None and _free_text(parameter):
            sides[side].append(parameter)
    if len(sides["source"]) != 1 or len(sides["target"]) != 1:
        return None
    pair = {side: found[0] for side, found in sides.items()}
    endpoint = route.endpoint
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", endpoint.name).replace("_", " ")
    said = f"{name} {endpoint.summary or ''} {endpoint.description or ''}"
    if any(_CURRENCY.search(_says(p)) for p in pair.values()) or _EXCHANGE.search(said):
        return pair
    return None


def pair_value(parameter: Parameter, query: str, route: Route, clauses: Clauses) -> str | None:
    """The code on ``parameter``'s side of the one pair of ISO 4217 codes ``query`` writes,
    where ``parameter`` is a side of ``route``'s currency pair (module docstring); else
    ``None``."""
    pair = _pair(route)
    side = _side(parameter)
    if pair is None or side is None or pair[side].name != parameter.name:
        return None
    found = [
        m
        for m in _PAIR.finditer(query)
        if m.group(1) in ISO_4217 and m.group(2) in ISO_4217 and m.group(1) != m.group(2)
    ]
    if len({m.groups() for m in found}) != 1 or any(clauses.against(m) for m in found):
        return None
    value = found[0].group(1 if side == "source" else 2)
    return value if valid(parameter, value) else None
