"""A country parameter's ISO 3166-1 alpha-2 code from the request: "create a shipment to FR",
"orders from DE" (trial Z3: ``country`` stayed open, where the schema's ``^[A-Z]{2}$`` is
too plain a shape for :mod:`.id_patterns` to bind).

Only a parameter named for a country (``country``, ``country_code``, ``destination_country``
...) whose schema or description says it takes a two-letter code takes one, and only a code
the request writes in capitals, after a preposition ("to FR", "in DE", "to the US", or after a
city: "to Lyon, FR"), as a word of its own, once (two codes name no one country, "to FR or DE"
too), in a request that is not all capitals, its clause not saying not to use it ("not to
FR"). A parameter named for a side of a move (``origin_country``, ``destination_country``:
:func:`~.sided_ids.name_side`) takes no code written after the other side's preposition:
"from FR to DE" fills both (trial 15: each saw two codes and took none)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.planning.sided_ids import name_side
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["country_value"]

#: ISO 3166-1 alpha-2, officially assigned codes.
_ASSIGNED = """
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ
BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM
DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS
GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN
KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI
VN VU WF WS YE YT ZA ZM ZW
"""
CODES = frozenset(_ASSIGNED.split())
_NAME = re.compile(r"(?:^|_)country(?:_?code|_?iso2?)?$", re.IGNORECASE)
_TWO_LETTERS = re.compile(r"alpha[- ]?2|iso[- ]?3166|two[- ]letter|2[- ]letter", re.IGNORECASE)
_WRITTEN = re.compile(
    r"\b(to|in|into|from|for|country)\s+(?:the\s+)?"
    r"(?:[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2},\s*)?([A-Z]{2})\b(?![-'’]?\w)"
)
#: The prepositions each side of a move writes its country after ("from FR to DE").
_SIDE_WORDS = {"from": ("from",), "to": ("to", "into")}
_OTHER = {"from": "to", "to": "from"}
#: A code listed on after one (", DE", " or DE", "/CA"): read as a second code, so that "to
#: FR or DE" names no one country (trial W1: it shipped to FR).
_LISTED = re.compile(r"\s*(?:,|/|\bor\b|\band\b)\s*(?:the\s+)?([A-Z]{2})\b(?![-'’]?\w)")


def _takes_code(parameter: Parameter, schema: Mapping[str, Any]) -> bool:
    if not _NAME.search(parameter.name) or schema.get("type", "string") != "string":
        return False
    said = f"{parameter.description} {schema.get('description', '')}"
    return (
        schema.get("pattern") in ("^[A-Z]{2}$", "^[A-Za-z]{2}$", "^[a-zA-Z]{2}$")
        or schema.get("maxLength") == 2
        or bool(_TWO_LETTERS.search(said))
    )


def country_value(parameter: Parameter, schema: Mapping[str, Any], query: str) -> str | None:
    """The one ISO 3166-1 alpha-2 code the request writes for ``parameter`` (``schema``: its
    value schema), where the parameter takes one; else ``None``."""
    if query.upper() == query or not _takes_code(parameter, schema):
        return None
    clauses = clauses_of(query)
    side = name_side(parameter.name)  # ``origin_country``: no code after "to"
    codes = set()
    for m in _WRITTEN.finditer(query):
        if side is not None and m.group(1).lower() in _SIDE_WORDS[_OTHER[side]]:
            continue  # "from FR" is no destination's
        found, at = [(m, 2)], m.end()
        while listed := _LISTED.match(query, at):  # "to FR or DE": DE is a second code
            found.append((listed, 1))
            at = listed.end()
        codes |= {
            c.group(g)
            for c, g in found
            if c.group(g) in CODES and not clauses.against_span(c.start(g), c.end(g))
        }
    if len(codes) != 1:
        return None
    code = next(iter(codes))
    return code if valid(parameter, code) else None
