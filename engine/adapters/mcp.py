"""MCP tool listings -> routes, from a ``tools/list`` result or live from a server.

A tool becomes one endpoint: ``name`` is the tool name (also the operation's ``tool``), the
id its slug; ``title`` (or ``annotations.title``) the summary; ``inputSchema`` the input
schema, each of its properties a parameter (location ``argument``, required from
``required``); ``outputSchema`` the output schema, flattened into output fields exactly as
OpenAPI responses are (:func:`schemarouter.adapters._fields.flatten_fields`). Local
``$ref`` inside a tool's schemas resolve against that schema.

Listings come as a mapping with ``"tools"``, a list of tool mappings in the protocol's
camelCase, or the ``mcp`` SDK's objects (``ListToolsResult`` or ``Tool``: v1 camelCase
attributes such as ``inputSchema`` / ``readOnlyHint`` or v2 snake_case ones such as
``input_schema`` / ``read_only_hint``), read by duck typing: the SDK is never imported here
unless a live server is asked.

**Effects: annotations are hints.** MCP says a client must not trust annotations from an
untrusted server, so they may make policy stricter, never looser:

- ``destructiveHint: true`` -> ``destructive``, from any server;
- ``readOnlyHint: true`` -> ``read`` only when the caller marks the server ``trusted=True``
  (and it does not also claim ``destructiveHint: true``);
- ``readOnlyHint: false`` from a trusted server -> ``write``;
- no ``readOnlyHint`` from a trusted server -> the caller's ``default_effect`` (``write``
  unless the caller says otherwise); the registration's warnings name those whose names read
  as reads (``get_statement``, ``list_transfers``) that thus are no ``read``;
- anything from an untrusted server -> ``write``: an untrusted tool is never ``read``,
  whatever it claims, so policy asks for permission before calling it (``default_effect``
  is refused for an untrusted server). The protocol's default ``destructiveHint: true`` for
  tools that are not read-only is *not* applied; only an explicit claim makes a tool
  destructive.

The caller's own word per tool, ``effect_overrides`` (tool name, or a pattern such as
``get_*``: :mod:`._overrides`, -> effect), wins over all of
this, for trusted and untrusted servers alike: it is the caller's declaration, not the
server's claim.

Live servers (listing, registering and attaching the tools of a running server) are
:mod:`schemarouter.adapters.live_mcp`.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from schemarouter import contracts
from schemarouter.adapters._fields import FieldLimits, declared_meaning, output_fields
from schemarouter.adapters._overrides import override_for, unused_keys
from schemarouter.adapters._schema import InlineBudget, SchemaResolver, as_object_schema
from schemarouter.errors import DocumentError, RegistrationError, SchemaError
from schemarouter.execution.invokers import mcp_listing
from schemarouter.fingerprint import canonical_json, fingerprint_json
from schemarouter.placement import shown_command
from schemarouter.registry.compile import (
    M,
    RouteSpec,
    build_contract,
    build_registration,
    format_validation_error,
    named_provider,
    slugify,
)
from schemarouter.registry.kinds import check_kind
from schemarouter.registry.parsing import optional_text, to_json_value
from schemarouter.retrieval.actions import route_action

__all__ = [
    "mcp_tools_registration",
    "server_label",
    "tool_effect",
    "tool_ids",
]

logger = logging.getLogger(__name__)

_SCALARS = (str, bytes, int, float, list, tuple)
#: The hint of a contract a tool's values fail.
_REFUSAL_HINT = "Fix the tool definition"

_TOOL_KEYS = {
    "name": ("name",),
    "title": ("title",),
    "description": ("description",),
    "inputSchema": ("inputSchema", "input_schema"),
    "outputSchema": ("outputSchema", "output_schema"),
    "annotations": ("annotations",),
}
_HINT_KEYS = {
    "title": ("title",),
    "readOnlyHint": ("readOnlyHint", "read_only_hint"),
    "destructiveHint": ("destructiveHint", "destructive_hint"),
    "idempotentHint": ("idempotentHint", "idempotent_hint"),
    "openWorldHint": ("openWorldHint", "open_world_hint"),
}


def read_any(obj: Any, names: tuple[str, ...]) -> Any:
    """The first of ``names`` present on a mapping or an object (``None`` where absent)."""
    for name in names:
        if isinstance(obj, Mapping):
            if name in obj:
                return obj[name]
        elif hasattr(obj, name):
            return getattr(obj, name)
    return None


def _plain(obj: Any, keys: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """A tool or annotations object (dict, v1 or v2 SDK model) as a camelCase dict."""
    out: dict[str, Any] = {}
    for key, names in keys.items():
        value = read_any(obj, names)
        if value is not None:
            out[key] = value
    return out


def _tool_list(tools: Any, source: str) -> list[Any]:
    if isinstance(tools, Mapping) or (
        not isinstance(tools, list | tuple) and hasattr(tools, "tools")
    ):
        listing = read_any(tools, ("tools",))
    else:
        listing = tools
    if isinstance(listing, tuple):
        listing = list(listing)
    if not isinstance(listing, list):
        hint = "Pass the result of tools/list, its 'tools' list, or the SDK's ListToolsResult"
        text = isinstance(tools, str) and (tools.lstrip()[:1] in ("{", "[") or "\n" in tools)
        if text:  # the listing's JSON or YAML text
            hint = "Pass the text parsed: add_mcp_tools(json.loads(text), ...) (yaml.safe_load)"
        elif isinstance(tools, str | PurePath):  # a recorded listing's file (--mcp-tools FILE)
            hint = (
                f"A file is not read here: pass what it holds, parsed, "
                f"add_mcp_tools(json.loads(Path({str(tools)[:120]!r}).read_text()), ...) "
                "(yaml.safe_load for YAML); or " + hint[0].lower() + hint[1:]
            )
        raise DocumentError(
            f"expected a tools/list result (a mapping with 'tools' or a list of tools), got "
            f"{type(tools).__name__}",
            where=source,
            hint=hint,
        )
    return listing


def tool_effect(
    annotations: Mapping[str, Any] | None,
    *,
    trusted: bool,
    default: contracts.Effect = contracts.Effect.WRITE,
) -> contracts.Effect:
    """The effect a tool's annotations allow (see the module docstring); ``default`` is
    what a trusted server's tool without ``readOnlyHint`` gets."""
    hints = annotations or {}
    if not trusted:
        effect = contracts.Effect.WRITE
    elif hints.get("readOnlyHint") is True:
        effect = contracts.Effect.READ
    elif hints.get("readOnlyHint") is False:
        effect = contracts.Effect.WRITE
    else:
        effect = default
    if hints.get("destructiveHint") is True:
        effect = effect.stricter(contracts.Effect.DESTRUCTIVE)
    return effect


def _build(model: type[M], at: str, /, **values: Any) -> M:
    return build_contract(model, where=at, hint=_REFUSAL_HINT, **values)


def _named(tools: list[str]) -> tuple[str, bool]:
    """The first ten of ``tools`` for a warning (each cut to 80 characters, "and N more"
    after), and whether there are several."""
    names = ", ".join(n[:80] for n in tools[:10])
    more = f" and {len(tools) - 10} more" if tools[10:] else ""
    return names + more, len(tools) > 1


class EffectRules:
    """How one listing's tools get their effects (see the module docstring)."""

    def __init__(
        self,
        *,
        trusted: bool,
        default: contracts.Effect | str | None,
        overrides: Mapping[str, contracts.Effect | str] | None,
        source: str,
    ) -> None:
        if default is not None and not trusted:
            raise RegistrationError(
                "default_effect applies to trusted servers only: an untrusted server's tools "
                "are write",
                where=source,
                hint="Pass trusted=True, or declare single tools with effect_overrides",
            )
        self.trusted = trusted
        self.source = source
        try:
            self.default = (
                contracts.Effect(default) if default is not None else contracts.Effect.WRITE
            )
            self.overrides = {name: contracts.Effect(e) for name, e in (overrides or {}).items()}
        except ValueError as exc:
            raise RegistrationError(
                f"unknown effect: {exc}", where=source, hint="Use read, write or destructive"
            ) from None
        self.used: set[str] = set()
        #: tools that say ``readOnlyHint: true`` and are writes here (an untrusted server)
        self.held_back: list[str] = []
        #: tools named as reads that say no ``readOnlyHint`` and are writes here (trusted)
        self.unhinted: list[str] = []
        self.notes: list[str] = []  # patterns matching no tool, or held from a firm one

    def of(self, name: str, hints: Mapping[str, Any]) -> contracts.Effect:
        # a pattern makes no tool laxer than its server says it is (trial Y1)
        firm = (
            contracts.Effect.DESTRUCTIVE
            if hints.get("destructiveHint") is True
            else contracts.Effect.WRITE
            if hints.get("readOnlyHint") is False
            else None
        )
        effect, keys = override_for(self.overrides, (name,), firm=firm, notes=self.notes)
        self.used.update(keys)
        if effect is not None:
            return effect
        if not self.trusted and hints.get("readOnlyHint") is True:
            self.held_back.append(name)
        effect = tool_effect(hints, trusted=self.trusted, default=self.default)
        unhinted = self.trusted and "readOnlyHint" not in hints
        if unhinted and effect is not contracts.Effect.READ and route_action(name) == "read":
            self.unhinted.append(name)  # get_statement, list_transfers (user trial 14)
        return effect

    def held_back_warning(self) -> list[str]:
        """A warning naming the tools that say they only read and are writes here, since
        the server is not trusted: the approval is asked for them and plans pass them over,
        which their own server's author did not expect (trial X3)."""
        if not self.held_back:
            return []
        names, many = _named(self.held_back)
        return [
            f"{len(self.held_back)} tool{'s' * many} of this server "
            f"{'say' if many else 'says'} readOnlyHint: true ({names}) and "
            f"{'are' if many else 'is'} registered as write, since the server is not trusted: "
            "such calls need allow_effects and an approve callback, and plans pass them over; "
            "for a server you run yourself pass trusted=True (trusted: true in a gateway "
            "config), or name the tools that read in effect_overrides"
        ]

    def unhinted_warning(self) -> list[str]:
        """A warning naming the tools of a trusted server whose names read as reads
        (``get_statement``, ``list_transfers``) that say no ``readOnlyHint`` and so are
        writes (``default_effect``): plans of a read pass them over for a read that may
        serve less, and running one asks for approval (user trial 14)."""
        if not self.unhinted:
            return []
        names, many = _named(self.unhinted)
        return [
            f"{len(self.unhinted)} tool{'s' * many} of this server named as a read "
            f"({names}) {'say' if many else 'says'} no readOnlyHint and "
            f"{'are' if many else 'is'} registered as {self.default.value} (default_effect): "
            "plans of a read pass them over and running one needs allow_effects and an "
            "approval; where they only read, set readOnlyHint: true in the server, or name "
            "them in effect_overrides ({'get_*': 'read'})"
        ]

    def check_used(self, names: Sequence[str]) -> None:
        """Refuse an override naming no tool; a pattern matching none is a warning."""
        if unknown := unused_keys(self.overrides, self.used, self.notes):
            raise RegistrationError(
                f"effect_overrides name tools the server does not list: {', '.join(unknown)}",
                where=self.source,
                hint=f"Its tools: {', '.join(names[:40]) or 'none'}",
            )


def _check_required(tool: Mapping[str, Any], name: str, where: str) -> None:
    """Refuse an ``inputSchema`` whose ``required`` is not a list of names: read as no list,
    it made every parameter optional and let calls without them through."""
    schema = tool["inputSchema"]
    if not isinstance(schema, Mapping) or "required" not in schema:
        return
    required = schema["required"]
    if isinstance(required, list) and all(isinstance(v, str) for v in required):
        return
    raise SchemaError(
        f"tool {name!r}: inputSchema 'required' must be a list of parameter names, "
        f"got {required!r:.80}",
        where=f"{where}.inputSchema.required",
        hint='Write required as a list, such as ["name"]',
    )


def _endpoint(
    raw: Any,
    index: int,
    *,
    source: str,
    effects: EffectRules,
    limits: FieldLimits,
    ids: Mapping[str, str],
    budget: InlineBudget,
) -> contracts.Endpoint:
    where = f"{source}: tools[{index}]"
    if isinstance(raw, _SCALARS):
        raise DocumentError(
            f"a tool must be an object, got {type(raw).__name__}",
            where=where,
            hint="List tools as objects with name, description and inputSchema",
        )
    plain = _plain(raw, _TOOL_KEYS)
    if "annotations" in plain:
        if isinstance(plain["annotations"], _SCALARS):
            raise DocumentError(
                f"annotations must be an object, got {type(plain['annotations']).__name__}",
                where=f"{where}.annotations",
                hint="Write annotations as an object of hints, or leave them out",
            )
        plain["annotations"] = _plain(plain["annotations"], _HINT_KEYS)
    tool = to_json_value(plain, where)
    name = tool.get("name")
    if not isinstance(name, str) or not name.strip():
        raise DocumentError("tool has no name", where=where, hint="Every tool needs a name")
    hints = tool.get("annotations", {})
    for key in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        if key in hints and not isinstance(hints[key], bool):
            raise DocumentError(
                f"annotation {key} must be true or false, got {hints[key]!r}",
                where=f"{where}.annotations.{key}",
                hint="Annotations are booleans (or absent)",
            )
    if "inputSchema" not in tool:
        raise DocumentError(
            f"tool {name!r} has no inputSchema",
            where=where,
            hint="Every MCP tool declares an inputSchema (at least {'type': 'object'})",
        )

    _check_required(tool, name, where)

    def resolve(key: str) -> Any:
        """The tool's ``inputSchema`` or ``outputSchema``, its references resolved."""
        raw, at = tool[key], f"tools[{index}].{key}"
        resolver = SchemaResolver(raw, source=source, dialect="jsonschema", root=at, budget=budget)
        return resolver.schema(raw, location=at)

    input_schema = as_object_schema(resolve("inputSchema"))
    properties = input_schema.get("properties", {})
    required = input_schema.get("required", [])
    if not isinstance(properties, Mapping):
        properties = {}
    parameters = tuple(
        _build(
            contracts.Parameter,
            f"{where}.inputSchema.properties.{pname}",
            name=pname,
            location=contracts.ParameterLocation.ARGUMENT,
            json_schema=as_object_schema(pschema),
            required=isinstance(required, list) and pname in required,
            description=str(as_object_schema(pschema).get("description", "")),
            **declared_meaning(
                pschema, where=f"{where}.inputSchema.properties.{pname}", notes=None
            ),
        )
        for pname, pschema in properties.items()
    )
    output_schema: dict[str, Any] | None = None
    fields: tuple[contracts.OutputField, ...] = ()
    if tool.get("outputSchema") is not None:
        resolved = resolve("outputSchema")
        output_schema = as_object_schema(resolved)
        fields = output_fields(
            resolved, limits=limits, where=f"{where}.outputSchema", hint=_REFUSAL_HINT
        )
    tool_name = name.strip()
    endpoint_id = ids[tool_name]
    title = optional_text(tool.get("title"), where, "title") or optional_text(
        hints.get("title"), where, "title"
    )
    description = optional_text(tool.get("description"), where, "description")
    return _build(
        contracts.Endpoint,
        where,
        id=endpoint_id,
        name=tool_name[:256],
        operation=contracts.Operation(tool=tool_name),
        summary=title,
        description=description or title,
        input_schema=input_schema,
        parameters=parameters,
        output_schema=output_schema,
        output_fields=fields,
        effect=effects.of(tool_name, hints),
    )


def _hashed(name: str, slug: str) -> str:
    """``slug`` (``tool`` where the name has no ASCII letter or digit), ``_`` and ten hex
    digits of the SHA-256 of ``name``: the same for the same name, whatever else is listed
    (ten, not eight: a route id ending in ``_`` and eight hex digits gets a second digest in
    its tool name, :mod:`schemarouter.integrations.names`)."""
    prefix = slug[:85].rstrip("_.-") if re.search(r"[A-Za-z0-9]", name) else "tool"
    return f"{prefix}_{hashlib.sha256(name.encode()).hexdigest()[:10]}"


def tool_ids(names: Sequence[str], *, held: Mapping[str, str] | None = None) -> dict[str, str]:
    """Tool name -> endpoint id for one listing, each id a function of the tool's own name,
    never of the listing's order, so a listing without one tool never moves another
    tool's id (nor a gateway's ``allow`` entry or an agent's remembered tool name) to
    another tool:

    - a name that is its own slug (``add_note``, ``agenda.today``) is its id;
    - any other ASCII name gets its slug (``addNote``: ``add_note``) where no other listed
      tool's name reads as the same slug; where one does, each of them but the one named
      exactly so gets the slug and a hash of its name (``add_note_6abfde770f``);
    - a name with letters outside ASCII (``메모.추가``, ``café``) gets the slug of its ASCII
      part (``tool`` where there is none) and a hash of its name (``tool_a2ef2cea88``), as a
      Python function's does: two such names no longer share ``x``, ``x_2`` by position.

    ``held`` (id -> tool name) are the ids earlier listings of the same server gave: a
    tool listed then keeps its id, and an id held by another tool (one since removed
    included) is never given to this one, which gets its hashed id instead."""
    held = held or {}
    kept = {name: endpoint_id for endpoint_id, name in held.items()}
    slugs = {name: slugify(name) for name in names}
    readers = Counter(slugs.values())
    owners = {slug for name, slug in slugs.items() if name == slug}
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in sorted(slugs):  # sorted: an id clash below is settled the same way each time
        slug = slugs[name]
        if name in kept:
            endpoint_id = kept[name]
        elif held.get(slug, name) != name or not name.isascii():
            endpoint_id = _hashed(name, slug)
        elif name == slug or (readers[slug] == 1 and slug not in owners):
            endpoint_id = slug
        else:
            endpoint_id = _hashed(name, slug)
        base, n = endpoint_id, 2
        while endpoint_id in used or (held.get(endpoint_id, name) != name):
            endpoint_id, n = f"{base}_{n}", n + 1
        used.add(endpoint_id)
        out[name] = endpoint_id
    return out


def server_label(server: Sequence[str] | str) -> str:
    """The command line, or the URL without its userinfo and query: an HTTP server's
    credential travels there, and this label is the routes' ``server`` and source, shown in
    every retrieval and error. A command line's secret flags are shown ``[redacted]``
    (:func:`~schemarouter.placement.shown_command`, which names a server in every message)."""
    return shown_command(server)


def mcp_tools_registration(
    tools: Any,
    *,
    provider: str | contracts.Provider,
    server: str | None = None,
    trusted: bool = False,
    access_id: str = "mcp",
    source: str | None = None,
    limits: FieldLimits | None = None,
    default_effect: contracts.Effect | str | None = None,
    effect_overrides: Mapping[str, contracts.Effect | str] | None = None,
    held_ids: Mapping[str, str] | None = None,
    max_tools: int = mcp_listing.DEFAULT_MAX_TOOLS,
) -> contracts.Registration:
    """Compile a ``tools/list`` result into a Registration (see the module docstring).

    ``server`` records how the server is reached (a command line or URL; a URL is kept
    without its userinfo and query, where a hosted server's token travels); ``trusted=True``
    lets the server's ``readOnlyHint`` make a tool ``read`` and ``default_effect`` say what
    a trusted tool without it is; ``effect_overrides`` (tool name -> effect) is the caller's
    own declaration; ``held_ids`` (endpoint id -> tool name: the ids an earlier listing of
    the same server gave) keeps each of those ids with its tool (:func:`tool_ids`); a listing
    of more than ``max_tools`` tools is refused before any is read, and its schemas may have
    :data:`~schemarouter.execution.invokers.mcp_listing.NODES_PER_TOOL` JSON nodes per tool
    it may list (250,000 at the default; one document's). Raises a
    :class:`~schemarouter.errors.RegistrationError` naming the listing, the tool and the
    reason; nothing is registered from a listing that fails anywhere.
    """
    server = server_label(server) if server is not None else None
    provider_model = named_provider(provider, where=source or "<mcp tools>")
    name = source or f"mcp:{server or provider_model.id}"
    check_kind(tools, "mcp_tools", where=name)
    listing = _tool_list(tools, name)
    if len(listing) > max_tools:
        refused = mcp_listing.TooManyTools(len(listing), max_tools)
        raise DocumentError(
            f"the listing has {len(listing):,} tools, more than max_tools ({max_tools:,})",
            where=name,
            hint=refused.hint,
        )
    effects = EffectRules(
        trusted=trusted, default=default_effect, overrides=effect_overrides, source=name
    )
    ids = tool_ids(
        [
            raw_name.strip()
            for raw_name in (read_any(raw, ("name",)) for raw in listing)
            if isinstance(raw_name, str) and raw_name.strip()
        ],
        held=held_ids or {},
    )
    names: dict[str, int] = {}
    endpoints: list[contracts.Endpoint] = []
    # one for the whole listing, as for one OpenAPI document, raised with max_tools
    budget = InlineBudget()
    budget.max_total = max(budget.max_total, mcp_listing.NODES_PER_TOOL * max_tools)
    for index, raw in enumerate(listing):
        endpoint = _endpoint(
            raw,
            index,
            source=name,
            effects=effects,
            limits=limits or FieldLimits(),
            ids=ids,
            budget=budget,
        )
        if endpoint.name in names:
            raise DocumentError(
                f"tool name {endpoint.name!r} is listed twice (tools[{names[endpoint.name]}] "
                f"and tools[{index}])",
                where=f"{name}: tools[{index}]",
                hint="Tool names are unique within a server",
            )
        names[endpoint.name] = index
        endpoints.append(endpoint)
        mcp_listing.progress(
            index + 1, index, "%s: %d of %d tools compiled", name, index + 1, len(listing)
        )
    effects.check_used(list(names))
    try:
        # each endpoint's canonical JSON once: the digest is the list's (``[a,b]``, as
        # canonical_json writes a list), and each text is the endpoint's fingerprint
        texts = [canonical_json(e.canonical()) for e in endpoints]
        digest = fingerprint_json("[" + ",".join(texts) + "]")
        access = contracts.AccessPath(
            id=access_id,
            kind=contracts.AccessKind.MCP,
            server=server,
            document=name,
            document_hash=digest,
            trusted=trusted,
        )
    except ValidationError as exc:
        what, loc = format_validation_error(exc)
        raise DocumentError(what, where=f"{name}: access ({loc})") from None
    specs = [
        RouteSpec(provider_model, access, endpoint, f"tools[{names[endpoint.name]}]", text)
        for endpoint, text in zip(endpoints, texts, strict=True)
    ]
    return build_registration(
        specs,
        source=name,
        providers=[provider_model],
        warnings=_renamed(endpoints, names)
        + effects.held_back_warning()
        + effects.unhinted_warning()
        + effects.notes,
    )


def _renamed(endpoints: list[contracts.Endpoint], names: Mapping[str, int]) -> list[str]:
    """A warning for each tool whose endpoint id is not what its name reads as (see
    :func:`tool_ids`): another tool's name reads the same (``Get Note`` beside
    ``get_note``), letters outside ASCII (``café``), or cut. The tool is still called by
    its own name."""
    out = []
    for endpoint in endpoints:
        plain = slugify(endpoint.name)
        if not endpoint.name.isascii():
            why = "letters outside ASCII are left out of ids; a hash of its name ends it"
        elif endpoint.id != plain:
            why = f"{plain!r} is another tool's id or reads as one; a hash of its name ends it"
        elif len(endpoint.name) > 47 and len(slugify(endpoint.name, max_length=10_000)) > 96:
            why = "ids are cut to 96 characters"
        else:
            continue
        out.append(
            f"tools[{names[endpoint.name]}]: tool {endpoint.name[:80]!r} has endpoint id "
            f"{endpoint.id!r} ({why}); it is still called by its own name"
        )
    return out
