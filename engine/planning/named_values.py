"""A value a request writes for a parameter: as the parameter's JSON type (:func:`coerced`),
by the parameter's name (:func:`spellings`, :func:`named_id`), never out of a URL the request
writes (:func:`url_spans`, :func:`inside`). Used by :mod:`schemarouter.planning.arguments`."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from schemarouter.contracts import Effect, Parameter, Route, schema_validator
from schemarouter.planning.described_ids import describes
from schemarouter.retrieval.analysis import BoundValue, bind_parameters
from schemarouter.retrieval.clauses import CONTINUED, Clauses, clauses_of
from schemarouter.retrieval.gate import value_refusal
from schemarouter.retrieval.identifiers import ID_LABEL
from schemarouter.retrieval.values import value_schema

__all__ = [
    "NUMBER",
    "URL",
    "Clauses",
    "coerced",
    "inside",
    "named_id",
    "refused_values",
    "sendable",
    "spellings",
    "url_spans",
    "valid",
]

NUMBER = r"-?\d+(?:\.\d+)?"
URL = re.compile(r"https?://[^\s\"'<>]+[^\s\"'<>.,;)]")


def valid(parameter: Parameter, value: Any) -> bool:
    return bool(schema_validator(parameter.json_schema).is_valid(value))


def coerced(parameter: Parameter, text: str) -> Any:
    """``text`` as the parameter's JSON type (``None`` where it is not one); an optional's
    type is its non-null member's (:func:`value_schema`)."""
    schema = value_schema(parameter.json_schema)
    kinds = schema.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds} if kinds else set()
    candidates: list[Any] = []
    if kinds & {"integer", "number"} and re.fullmatch(NUMBER, text):
        candidates.append(float(text) if "." in text else int(text))
    if "boolean" in kinds and text.lower() in ("true", "false"):
        candidates.append(text.lower() == "true")
    if "array" in kinds:
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        inner = Parameter(name=parameter.name, json_schema=dict(items or {}))
        parts = [coerced(inner, part.strip()) for part in text.split(",") if part.strip()]
        if parts and all(part is not None for part in parts):
            candidates.append(parts)
    if not kinds or "string" in kinds:
        candidates.append(text)
    return next((c for c in candidates if valid(parameter, c)), None)


def spellings(parameter: Parameter) -> list[str]:
    names = [parameter.name, *parameter.aliases]
    out = set()
    for name in names:
        out.add(name.lower())
        out.add(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower().replace("_", " "))
    return sorted((n for n in out if len(n) >= 2), key=len, reverse=True)


#: A character of an id a request names by its parameter (``SKU-5``, ``R1``), or a colon
#: joining its parts (``us-east-1:9f8e7d``, as :mod:`~schemarouter.retrieval.analysis` reads).
_ID = "(?:[A-Za-z0-9_-]|:(?=[A-Za-z0-9]))"


def url_spans(query: str) -> list[tuple[int, int]]:
    return [m.span() for m in URL.finditer(query)]


def inside(match: re.Match[str], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``match`` lies in one of ``spans`` (a URL of the request: its path's
    ``room5`` or its credentials' ``pass@host`` are no value of their own). ``spans`` are
    :func:`url_spans`' (in order, apart): the one that may hold it is found by bisection,
    not by reading them all per match (4,000 URLs and ids: 1.3 s, quadratic; trial U1)."""
    at = bisect.bisect_right(spans, (match.start(), math.inf)) - 1
    return at >= 0 and match.end() <= spans[at][1]


def named_id(parameter: Parameter, query: str) -> Any:
    """For a plain string parameter (no enum, no format): its name fused with an id ("SKU-5"
    for ``sku``), or followed by an id-like word, letters and a digit ("cold room R1" for
    ``room``, "warehouse W-7"). One distinct value or none (trial T1: each was left open, and
    the plan asked the caller for it)."""
    schema = value_schema(parameter.json_schema)
    if schema.get("type") != "string" or {"enum", "format", "const"} & set(schema):
        return None
    found: list[str] = []
    urls = url_spans(query)
    clauses = clauses_of(query)
    for spelling in spellings(parameter):
        name = re.escape(spelling).replace(r"\ ", r"[\s_-]")
        # ASCII ids: a Korean particle written onto one is no part of it ("R1을")
        fused = rf"(?<![\w-])({name}[-_#]?\d{_ID}*)(?!{_ID})"
        after = (
            rf"(?<![\w-]){name}\s+{ID_LABEL}?((?={_ID}*[A-Za-z])(?={_ID}*\d)[A-Za-z0-9]{_ID}*)"
            rf"(?!{_ID})"
        )
        for pattern in (fused, after):
            found += [
                m.group(1)
                for m in re.finditer(pattern, query, re.IGNORECASE)
                if not inside(m, urls)
                and not clauses.against(m)
                and not describes(query, m.start(1), m.end(1))  # "like room R1"
                and not CONTINUED.match(query, m.end())  # "R1/../R2", "R1*", "R1,R2"
            ]
    distinct = list(dict.fromkeys(found))
    return coerced(parameter, distinct[0]) if len(distinct) == 1 else None


def sendable(
    route: Route,
    query: str,
    given: dict[str, Any],
    parameters: Sequence[Parameter],
    referred: Collection[str] = (),
) -> dict[str, Any]:
    """``given`` without a value the call refuses to send (a date for a date-time, CR LF
    for a header), nor, for a change, one the request says not to use ("do not set the
    account currency to EUR", trial U1) but where it names it again for this change
    (``referred``: :func:`~schemarouter.planning.referred.referred_back`)."""
    params = {p.name: p for p in parameters}
    against = clauses_of(query).only_against if route.endpoint.effect is not Effect.READ else None
    return {
        k: v
        for k, v in given.items()
        if not value_refusal(params[k], v)
        and not (against is not None and v not in referred and against(v))
    }


def refused_values(
    route: Route, arguments: Mapping[str, Any], values: Sequence[BoundValue]
) -> list[str]:
    """A sentence per value of the request a parameter of ``route`` takes by its kind that
    the step leaves out, since the call would refuse it (a date for a ``date-time``)."""
    out = []
    for name, value in bind_parameters(route, values).items():
        if name not in arguments and (why := value_refusal(route.endpoint.parameter(name), value)):
            out.append(
                f"{route.route_id}: the request's {value!r} is not sent as {name!r} ({why}); "
                "pass a value it takes with Plan.with_arguments"
            )
    return out
