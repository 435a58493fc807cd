"""Values a parameter's description says how the request writes.

Two optional settings of a read were left at their defaults though the request wrote them,
since their names say nothing a request writes (trial 16, an on-call team's MCP server):
"show me the last 50 lines of logs from pod checkout-5d9f-x2" sent ``tail=100`` (``tail``:
"Number of lines from the end"), and "show me the pods of checkout" listed every pod
(``deployment``: "Only the pods of this deployment"):

- :func:`described_count`: an integer parameter whose description counts a thing ("Number of
  lines ...", "how many results ...") takes the one count the request writes before that
  thing's word, or one word before it ("50 lines", "20 log lines"); none of two, none of
  a list or a range ("20 or 50 lines").
- :func:`owner_value`: an optional text parameter whose description keeps the things of one
  owner named by the parameter ("Only the pods of this deployment": ``deployment``) takes the
  name the request writes after the things and "of" or "for" ("the pods of checkout", "pods
  for the checkout deployment", "pods of the deployment named checkout"), where it is a name
  (not "it", "all", "them", "with" ...); one distinct name or none, none refused.
"""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import coerced, valid
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["described_count", "owner_value"]

_COUNTED = re.compile(r"\b(?:number|count|how\s+many)\s+(?:of\s+)?([a-z]+s)\b", re.IGNORECASE)
#: A count written as one of several or the end of a range, right before another.
_LISTED = re.compile(r"\d\s*(?:or|to|and|-|–|,)\s*$", re.IGNORECASE)
_OWNED = re.compile(
    r"\b(?:the\s+)?([a-z]+s)\s+(?:of|for|in|belonging\s+to)\s+(?:this|that|the\s+given|the|a)\s+"
    r"([a-z]+)\b",
    re.IGNORECASE,
)
_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*"
#: Words after "the pods of" that name no owner.
_NO_NAME = frozenset(
    (
        "a", "an", "the", "it", "its", "them", "their", "this", "that", "these", "those", "all",
        "every", "each", "any", "some", "my", "our", "your", "me", "us", "which", "what", "who",
        "whose", "one", "ones", "both", "none", "other", "others", "type", "kind", "status",
        "named", "called", "with", "in", "on", "at", "by", "from", "to", "for", "of", "and",
        "or", "that", "who", "where", "when", "now", "today", "there", "here",
    )
)  # fmt: skip


def _words(name: str) -> set[str]:
    return set(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split())


def described_count(parameter: Parameter, query: str) -> int | None:
    """The one count of the thing ``parameter``'s description counts (see the module)."""
    schema = value_schema(parameter.json_schema)
    counted = _COUNTED.search(parameter.description or str(schema.get("description") or ""))
    if schema.get("type") != "integer" or counted is None:
        return None
    plural = counted.group(1).lower()
    said = f"{re.escape(plural)}|{re.escape(plural[:-1])}"
    pattern = rf"(?<![\w.,-])(\d{{1,6}})\s+(?:[A-Za-z][\w-]*\s+)?(?:{said})\b"
    clauses = clauses_of(query)
    found = [m for m in re.finditer(pattern, query, re.I) if not clauses.against(m)]
    if any(_LISTED.search(query, max(0, m.start() - 16), m.start()) for m in found):
        return None  # "20 or 50 lines": which is not said
    counts = {int(m.group(1)) for m in found}
    if len(counts) != 1:
        return None
    count = next(iter(counts))
    return count if valid(parameter, count) else None


def owner_value(parameter: Parameter, query: str) -> Any:
    """The owner's name ``query`` writes after the things ``parameter`` keeps (see the
    module)."""
    schema = value_schema(parameter.json_schema)
    if parameter.required or schema.get("type") != "string" or {"enum", "format"} & set(schema):
        return None
    owned = _OWNED.search(parameter.description or str(schema.get("description") or ""))
    if owned is None or owned.group(2).lower() not in _words(parameter.name):
        return None
    things, owner = (re.escape(g.lower()) for g in owned.groups())
    pattern = (
        rf"\b{things}\s+(?:of|for)\s+(?:the\s+)?(?:{owner}\s+)?(?:(?:named|called)\s+)?"
        rf"({_NAME})(?![\w-])"
        rf"(?!\s+(?:{things})\b)"
    )
    clauses = clauses_of(query)
    found = [
        m.group(1)
        for m in re.finditer(pattern, query, re.IGNORECASE)
        if m.group(1).lower() not in _NO_NAME
        and m.group(1).lower() != owner
        and not clauses.against(m)
    ]
    distinct = list(dict.fromkeys(found))
    return coerced(parameter, distinct[0]) if len(distinct) == 1 else None
