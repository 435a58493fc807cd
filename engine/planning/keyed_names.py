"""A thing's key written beside its thing word, and a percentage written with its sign.

An API names a project, a flag or a feature by a key, a short name of words and hyphens,
and a request writes it beside the thing's word with no "named": "in project web", "the
new-checkout flag", "the old-banner feature flag", "roll the new-search feature out". Such
a key stayed missing, since it is no id (no digit), so nothing was sent (trial 16,
LaunchDarkly's ``projectKey`` and ``featureFlagKey``, an MCP server's ``feature``):

- :func:`keyed_name`: a text parameter named for a thing (``projectKey``: "project";
  ``featureFlagKey``: "feature flag" or "flag"; ``feature``) takes the one key written right
  before or right after the thing's word where the key is a slug, words joined by hyphens or
  underscores ("new-checkout"); a key the path takes (``/projects/{projectKey}``) and named
  for a key or a slug also takes a plain word right after ("project web"), where it is a name
  (not a word like "in", "the", "all", "settings"). One distinct key or none; none refused
  ("not project web").
- :func:`percent_value`: a number parameter named for a percentage (``percentage``,
  ``rolloutPercent``, ``pct``) takes the one percentage written ("25%", "25 percent"); as a
  fraction where its schema's maximum is 1.
"""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter, ParameterLocation
from schemarouter.planning.named_values import coerced, valid
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["keyed_name", "percent_value"]

#: What a parameter's name ends with where it holds a key, not the thing itself.
_KEY_WORDS = frozenset(("key", "slug"))
_SLUG = r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+"
_PLAIN = r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*"
#: Words right after a thing's word that name no key.
_NO_KEY = frozenset(
    (
        "a", "an", "the", "to", "in", "into", "on", "off", "of", "for", "from", "at", "by",
        "with", "up", "down", "out", "back", "over", "it", "them", "this", "that", "these",
        "those", "all", "every", "each", "and", "or", "but", "then", "now", "is", "are", "was",
        "be", "not", "no", "key", "keys", "name", "names", "id", "ids", "settings", "setting",
        "list", "details", "status", "statuses", "please", "called", "named", "as", "if",
        "which", "where", "when", "whose", "flag", "flags", "feature", "features", "project",
        "projects", "environment", "environments", "so", "too", "again", "first", "new",
    )
)  # fmt: skip
_PERCENT = re.compile(r"(?<![\w.,-])(\d{1,3}(?:\.\d+)?)\s*(?:%|percent\b|per cent\b|pct\b)", re.I)


def _words(name: str) -> list[str]:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split()


def keyed_name(parameter: Parameter, query: str) -> Any:
    """The key ``query`` writes beside ``parameter``'s thing word (see the module)."""
    schema = value_schema(parameter.json_schema)
    if schema.get("type") != "string" or {"enum", "format", "const"} & set(schema):
        return None
    words = _words(parameter.name)
    keyed = bool(words) and words[-1] in _KEY_WORDS
    thing = words[:-1] if keyed else words
    if not thing or len(thing) > 3 or thing[-1] in ("id", "ids", "name", "uuid"):
        return None
    if not (keyed or parameter.required):
        return None
    plain = keyed and parameter.location is ParameterLocation.PATH
    things = {r"[\s_-]".join(map(re.escape, thing)), re.escape(thing[-1])}
    said = "|".join(sorted(things, key=len, reverse=True))
    after = _PLAIN if plain else _SLUG
    patterns = (
        rf"(?<![\w-])({_SLUG})\s+(?:{said})(?![\w-])",
        rf"(?<![\w-])(?:{said})\s+({after})(?![\w-])",
    )
    clauses = clauses_of(query)
    found: list[str] = []
    for pattern in patterns:
        for m in re.finditer(pattern, query, re.IGNORECASE):
            if m.group(1).lower() not in _NO_KEY and not clauses.against(m):
                found.append(m.group(1))
    distinct = list(dict.fromkeys(found))
    return coerced(parameter, distinct[0]) if len(distinct) == 1 else None


def percent_value(parameter: Parameter, query: str) -> Any:
    """The one percentage ``query`` writes, for a number parameter named for one."""
    schema = value_schema(parameter.json_schema)
    words = _words(parameter.name)
    if schema.get("type") not in ("integer", "number") or not words:
        return None
    if words[-1] not in ("percent", "percentage", "pct"):
        return None
    values = {float(m.group(1)) for m in _PERCENT.finditer(query)}
    if len(values) != 1:
        return None
    value = next(iter(values))
    maximum = schema.get("maximum")
    if isinstance(maximum, int | float) and maximum <= 1:
        value /= 100
    number: float | int = value
    if schema.get("type") == "integer":
        if not value.is_integer():
            return None
        number = int(value)
    return number if valid(parameter, number) else None
