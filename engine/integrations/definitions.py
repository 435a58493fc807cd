"""Retrieved routes as the tool definitions LLM APIs take: Anthropic, OpenAI, MCP.

Pure functions of a retrieval (or of registered routes): nothing here reaches the network.
A definition has

- a **name** valid for every API (:func:`~schemarouter.integrations.names.tool_name`), with
  the map back to route ids kept on the :class:`ToolSet`;
- a **concise description**: what the route does (summary, else the first sentence of its
  description), its provider, kind of evidence and licence, what it returns (the matched fields
  first, then the typed ones, each with its unit where declared), and its effect where it
  is not a read; markdown links and HTML tags read as their words, whitespace collapsed;
- **property keys the APIs take**: a parameter whose name the Anthropic API refuses as a
  property key (``page[size]``, ``$filter``) is offered under a valid one (``page_size``,
  ``filter``; MCP definitions keep the names), which
  :func:`~schemarouter.integrations.search.call_tool` maps back
  (:func:`~schemarouter.integrations.names.property_keys`);
- a **pruned input schema**: the registered input schema without the router's own
  projection parameters, vendor ``x-`` keys, titles, examples and comments, descriptions cut
  to their first sentence, and one longer than 80 characters to its last clause or word
  within them, with "…" (the router still validates calls against the full schema);
- no fingerprints, scores or output schemas (the model does not need them to call a tool).

Shapes (each checked against the official SDK types in the tests):

=============== ======================================================================
``anthropic``   Messages API tool: ``name``, ``description``, ``input_schema``
``openai``      Responses API function tool: ``type: function``, ``name``,
                ``description``, ``parameters``, ``strict: false``
``openai-chat`` Chat Completions tool: ``type: function``, ``function: {...}``
``mcp``         MCP ``Tool``: ``name``, ``title``, ``description``, ``inputSchema``,
                ``annotations`` (``readOnlyHint`` / ``destructiveHint`` from the effect)
=============== ======================================================================

``defer_loading=True`` marks Anthropic and OpenAI definitions for client-side tool search
(see :mod:`schemarouter.integrations.search`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

from schemarouter.contracts import (
    PROJECTION_PARAMETERS,
    AvailabilityStatus,
    Effect,
    Route,
    SourceType,
)
from schemarouter.errors import GateError
from schemarouter.integrations.names import assign_tool_names, input_keys, keyed_schema, tool_name
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.results import (
    Candidate,
    CandidateField,
    CapabilityRetrieval,
    candidate_from_route,
)

__all__ = [
    "DESCRIPTION_LIMIT",
    "RETURNS_LIMIT",
    "ToolFormat",
    "ToolSet",
    "describe",
    "prune_schema",
    "tool_definition",
    "tool_definitions",
    "tool_input_schema",
]

ToolFormat = Literal["anthropic", "openai", "openai-chat", "mcp"]
FORMATS: tuple[str, ...] = get_args(ToolFormat)

#: Characters of the route's own words kept in a description.
DESCRIPTION_LIMIT = 200
#: Output fields named in a description ("Returns: ..."); the rest are counted.
RETURNS_LIMIT = 6
#: Characters kept of a parameter's description (its first sentence).
_PARAMETER_WORDS = 80
#: A longer sentence is cut at its last clause break past this share of the limit.
_CLAUSE_SHARE = 0.6
#: Schema keys that say nothing a model needs to fill an argument.
_DROPPED = frozenset(
    {
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "title",
        "examples",
        "example",
        "externalDocs",
        "xml",
        "readOnly",
        "writeOnly",
        "deprecated",
        "discriminator",
        # a default is what the server does without the argument: the model needs no copy
        "default",
    }
)
_NESTED = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMAS = ("items", "additionalProperties", "not", "contains", "propertyNames")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
#: A sentence ends at ``.`` ``!`` ``?`` before a capital letter or the end, never after an
#: abbreviation (``e.g.``, ``i.e.``, ``etc.``, ``vs.``) or inside a number.
_SENTENCE = re.compile(
    r"(.+?(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?])(?:\s+(?=[A-Z(\"'`])|$)", re.DOTALL
)
#: Longest ``pattern`` kept in a pruned schema (longer ones are left to the router's check).
_PATTERN_LIMIT = 40


#: ``[text](url)`` and ``<a href=...>text</a>`` (HTML's common tags, not ``<id>``): the
#: words stay, the address and the markup go.
_MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_HTML_TAG = re.compile(
    r"</?(?:a|b|i|u|em|strong|p|br|hr|code|pre|ul|ol|li|span|div|h[1-6]|table|thead|tbody|tr"
    r"|td|th|blockquote|sup|sub|img|small|dl|dt|dd)(?:\s[^<>]{0,200})?/?>",
    re.IGNORECASE,
)


def plain_text(text: str) -> str:
    """``text`` as a model reads it best: markdown links and HTML tags as their words,
    whitespace collapsed."""
    text = _MARKDOWN_LINK.sub(lambda m: m.group(1), text)
    text = _HTML_TAG.sub(" ", text)
    return " ".join(text.split())


def _first_sentence(text: str, limit: int) -> str:
    """``text``'s first sentence, whole where it has at most ``limit`` characters; a longer
    one ends with "…" at its last clause break that keeps most of it (``, ; :``), else at
    its last word, so it never stops on a dangling "for" or "the" after a comma."""
    text = plain_text(text)
    match = _SENTENCE.match(text)
    if match and len(match.group(1)) <= limit:
        return match.group(1)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    clause = max(cut.rfind(f"{mark} ") for mark in ",;:")  # not inside 1,000 or 10:30
    if clause >= limit * _CLAUSE_SHARE:
        cut = cut[:clause]
    return cut.rstrip(",;: ") + "…"


def prune_schema(schema: Any, *, words: int = _PARAMETER_WORDS) -> Any:
    """``schema`` without what a model does not need (see the module docstring)."""
    if isinstance(schema, list):
        return [prune_schema(item, words=words) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED or key.startswith("x-"):
            continue
        if key == "pattern" and isinstance(value, str) and len(value) > _PATTERN_LIMIT:
            continue
        if key == "description" and isinstance(value, str):
            if value.strip():
                out[key] = _first_sentence(value, words)
        elif key in _NESTED and isinstance(value, Mapping):
            out[key] = {k: prune_schema(v, words=words) for k, v in value.items()}
        elif key in _SCHEMAS and isinstance(value, Mapping):
            out[key] = prune_schema(value, words=words)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [prune_schema(item, words=words) for item in value]
        else:
            out[key] = value
    return out


def tool_input_schema(
    candidate: Candidate, *, tool_names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The candidate's input schema, pruned, with parameter descriptions filled in where
    the schema has none, and without the projection parameters the router sets itself.

    ``tool_names`` (route id -> tool name) are the tools offered beside this one: a required
    identifier one of them returns (:attr:`Candidate.identifier_sources`) says which, and
    where in its output, so a model calls that tool first instead of guessing an id."""
    schema = dict(candidate.input_schema)
    properties = dict(schema.get("properties") or {})
    described = {p.name: p.description for p in candidate.parameters if p.description}
    for name in PROJECTION_PARAMETERS:
        properties.pop(name, None)
    for name, text in described.items():
        prop = properties.get(name)
        if isinstance(prop, Mapping) and not prop.get("description"):
            properties[name] = {"description": text, **prop}
    # added after the pruning below (which keeps a description's first sentence), whole
    hints = _identifier_hints(candidate, tool_names or {})
    schema["properties"] = properties
    if isinstance(schema.get("required"), list):
        required = [n for n in schema["required"] if n in properties]
        if required:
            schema["required"] = required
        else:
            schema.pop("required")
    pruned: dict[str, Any] = prune_schema(schema)
    pruned["type"] = "object"
    for name, hint in hints.items():
        prop = pruned.get("properties", {}).get(name)
        if isinstance(prop, dict):
            own = str(prop.get("description") or "").rstrip()
            if own and own[-1] not in ".!?…":
                own += "."
            prop["description"] = f"{own} {hint}".strip()
    return pruned


def _identifier_hints(candidate: Candidate, tool_names: Mapping[str, str]) -> dict[str, str]:
    """Parameter -> "Take it from TOOL (results[].id of its output)." for the candidate's
    identifiers that an offered tool returns."""
    out: dict[str, str] = {}
    for name, source in candidate.identifier_sources.items():
        tool = tool_names.get(source.route_id)
        if tool:
            where = re.sub(r"\.?\*", "[]", source.path)  # results.*.id: results[].id
            out[name] = f"An identifier: take it from {tool} ({where} of its output)."
    return out


def _field_label(item: CandidateField) -> str:
    if item.unit and item.canonical_unit and item.canonical_unit != item.unit:
        return f"{item.name} [{item.unit}, as {item.canonical_unit}]"
    return f"{item.name} [{item.unit}]" if item.unit else item.name


def _returned(candidate: Candidate) -> list[CandidateField]:
    """Fields in the order a description names them: matched, typed, then the rest."""
    matched = set(candidate.matched_fields)
    fields = list(candidate.output_fields)

    def order(item: CandidateField) -> int:
        if item.name in matched:
            return 0
        if item.semantic_id or item.unit:
            return 1
        return 3 if item.identifier else 2

    return sorted(fields, key=order)


#: How many licences a description names, and how long each may be: a document declaring an
#: ``x-license`` of 200 characters on each of 40 fields made a description of 6,838 (trial Z1).
LICENSES_LIMIT, LICENSE_CHARS = 3, 40


def _licenses(candidate: Candidate) -> list[str]:
    """The licences the route's values are under: its fields' own (a route with none, its
    provider's), so that a model choosing among tools can keep to the ones a host may use;
    "no declared license" where some fields have one and others none (trial Z1: a route of a
    CC0-1.0 field and one with no licence read "CC0-1.0", which a host allowing CC0-1.0 then
    refused)."""
    licenses = {f.license for f in candidate.output_fields if f.license}
    if not candidate.output_fields and candidate.license:
        licenses.add(candidate.license)
    names = [
        name if len(name) <= LICENSE_CHARS else name[: LICENSE_CHARS - 1] + "…"
        for name in sorted(licenses)
    ]
    if licenses and any(not f.license for f in candidate.output_fields):
        names.append("no declared license")
    if len(names) > LICENSES_LIMIT:
        more = len(names) - LICENSES_LIMIT + 1
        names = [*names[: LICENSES_LIMIT - 1], f"{more} more licenses"]
    return names


def describe(candidate: Candidate) -> str:
    """A concise description: what it does, who serves it and under which licence, what it
    returns, its effect."""
    own = candidate.summary or candidate.description or candidate.endpoint
    text = _first_sentence(own, DESCRIPTION_LIMIT)
    room = DESCRIPTION_LIMIT - len(text) - 2
    if candidate.summary and candidate.description and room > 40:
        extra = _first_sentence(candidate.description, room)
        whole = not extra.endswith("…")  # a second sentence only where it fits whole
        if whole and extra.rstrip(".").lower() != text.rstrip(".").lower():
            text = f"{text.rstrip('.')}. {extra}"
    text = text.rstrip()
    if text and text[-1] not in ".!?…":
        text += "."
    source, _ = candidate.values_standing()  # the fields' own, where they all agree
    origin = candidate.provider_name
    if source is not SourceType.UNKNOWN:
        origin += f", {source.value} data"
    licenses = _licenses(candidate)
    if licenses:
        origin += f", {' and '.join(licenses)}"
    parts = [f"{text} ({origin})"]
    fields = _returned(candidate)
    if fields:
        named = ", ".join(_field_label(f) for f in fields[:RETURNS_LIMIT])
        more = len(fields) - RETURNS_LIMIT
        parts.append(f"Returns: {named}" + (f" and {more} more fields." if more > 0 else "."))
    if candidate.effect is not Effect.READ:
        parts.append(f"Effect: {candidate.effect.value}; runs only where the host allows it.")
    if candidate.availability is AvailabilityStatus.DEPRECATED:
        parts.append("Deprecated by its provider: prefer another tool that serves the request.")
    return " ".join(parts)


def _as_candidate(item: Candidate | Route) -> Candidate:
    if isinstance(item, Candidate):
        return item
    if isinstance(item, Route):
        return candidate_from_route(item, rank=0, score=0.0)
    raise TypeError(f"expected a Candidate or a Route, got {type(item).__name__}")


def tool_definition(
    item: Candidate | Route,
    format: ToolFormat = "anthropic",
    *,
    defer_loading: bool = False,
    tool_names: Mapping[str, str] | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """One route as a tool definition in ``format`` (see the module docstring);
    ``tool_names`` as :func:`tool_input_schema` reads them; ``name``: the tool name where it
    is not the route's preferred one (a registry or tool set assigned it another)."""
    if format not in FORMATS:
        raise ValueError(f"unknown tool format {format!r}; use one of {', '.join(FORMATS)}")
    candidate = _as_candidate(item)
    name = name or tool_name(candidate.route_id)
    description = describe(candidate)
    schema = tool_input_schema(candidate, tool_names=tool_names)
    if format != "mcp":  # keys the Anthropic and OpenAI APIs take; call_tool maps them back
        schema = keyed_schema(schema, input_keys(candidate.input_schema))
    out: dict[str, Any]
    if format == "anthropic":
        out = {"name": name, "description": description, "input_schema": schema}
    elif format == "openai":
        out = {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": schema,
            "strict": False,
        }
    elif format == "openai-chat":
        function = {"name": name, "description": description, "parameters": schema}
        return {"type": "function", "function": function}
    else:
        annotations: dict[str, Any] = {
            "readOnlyHint": candidate.effect is Effect.READ,
            "destructiveHint": candidate.effect is Effect.DESTRUCTIVE,
        }
        out = {"name": name, "description": description, "inputSchema": schema}
        if candidate.summary:
            out["title"] = plain_text(candidate.summary)[:200]
            annotations["title"] = out["title"]
        out["annotations"] = annotations
        return out
    if defer_loading:
        out["defer_loading"] = True
    return out


class ToolSet(list[dict[str, Any]]):
    """Tool definitions (a plain list, ready for an SDK) that remember their routes:
    :meth:`route_id` maps a tool name the model used back to the registered route. Built by
    a retrieval (``found.tools(...)``), they also keep its ``blocked`` and ``reason``, so a
    tool search answer made from them says what matched but may not run, why none did, or
    that the request looks off the catalog."""

    def __init__(
        self,
        definitions: Iterable[dict[str, Any]],
        *,
        format: str,
        names: dict[str, str],
        blocked: str = "",
        reason: str = "",
        retrieval: CapabilityRetrieval | None = None,
    ):
        super().__init__(definitions)
        self.format = format
        #: tool name -> route id
        self.names = names
        #: the retrieval's :attr:`~schemarouter.retrieval.results.CapabilityRetrieval.blocked`
        self.blocked = blocked
        #: the retrieval's :attr:`~schemarouter.retrieval.results.CapabilityRetrieval.reason`:
        #: why it flagged the request off the catalog (``off_catalog``; the tools here, if
        #: any, are only the closest there are, unless it abstained), or why nothing
        #: matched; ``""`` where neither
        self.reason = reason
        #: the retrieval they were made from (``found.tools(...)``), ``None`` otherwise: a
        #: search answer names its left-out tools from it as the model knows them
        self.retrieval = retrieval

    def route_id(self, name: str) -> str:
        """The route id behind tool ``name``; a GateError for a name not in this set."""
        try:
            return self.names[name]
        except (KeyError, TypeError):
            raise GateError(
                f"{str(name)[:120]!r} is not one of the tools offered",
                where=f"tool set of {len(self)}",
                hint=f"Offered: {', '.join(list(self.names)[:20])}",
            ) from None

    def name(self, route_id: str) -> str:
        """The tool name of ``route_id`` in this set."""
        for name, rid in self.names.items():
            if rid == route_id:
                return name
        raise KeyError(route_id)


def tool_definitions(
    items: Iterable[Candidate | Route],
    format: ToolFormat = "anthropic",
    *,
    defer_loading: bool = False,
    snapshot: RegistrySnapshot | None = None,
) -> ToolSet:
    """Definitions for ``items`` (candidates of a retrieval, or registered routes); a
    candidate's identifier that another of them returns names that tool. With the registry
    ``snapshot`` the items came from, every registered one is named as the registry names it
    (what ``call_tool`` and ``route_for_tool`` resolve); ``result.tools()`` passes it."""
    definitions: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    if snapshot is None and isinstance(items, RegistrySnapshot):
        snapshot = items  # every registered route: the registry's names
    items = list(items)
    # unique within the set, and the registry's own names where it has them
    offered = assign_tool_names((item.route_id for item in items), snapshot=snapshot)
    for item in items:
        if item.route_id in names.values():
            continue
        definition = tool_definition(
            item,
            format,
            defer_loading=defer_loading,
            tool_names=offered,
            name=offered[item.route_id],
        )
        names[offered[item.route_id]] = item.route_id
        definitions.append(definition)
    return ToolSet(definitions, format=format, names=names)
