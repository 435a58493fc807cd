"""Tool names an LLM API accepts, and the way back from a name to its route.

Route ids (``provider/access/endpoint``) contain ``/`` and may contain ``.``; the Anthropic
and OpenAI APIs take tool names of at most 64 characters from ``[A-Za-z0-9_-]`` (MCP is
looser). A route's *preferred* name is a pure function of its route id, the same on every
machine: ``materials_project/rest/summary_search`` ->
``materials_project__rest__summary_search``. Where the plain join would not be valid or could
be read two ways (a ``.``, a ``__`` inside a part, more than 64 characters, or an ending that
looks like a digest, ``_`` and eight hex digits) the name is the cleaned prefix plus ``_`` and
eight hex digits of the route id's SHA-256.

Names are unique by construction: :func:`assign_tool_names` gives routes their names in
order (registration order for a registry), and a route whose preferred name is taken (an
upstream's ``get_note_1a2b3c4d`` beside its ``get.note``, or two route ids whose digests
collide) gets a longer digest, then a number: ``..._<16 hex>``, ``..._<16 hex>_2``; a route
registered later never takes the name of one registered before it. :func:`tool_name` with a
``snapshot`` answers from that assignment; without one it answers the preferred name.

:func:`route_for_tool` maps a name back through the registry snapshot (computed once per
snapshot), so a server can resolve a name it handed out in an earlier answer; it also
accepts the route id itself. No pair of routes can make lookups fail for the others.

Parameter names get the same treatment in the input schemas the APIs take: the Anthropic
API refuses a request whose tool has a top-level property key outside
``^[a-zA-Z0-9_.-]{1,64}$`` (JSON:API's ``page[size]`` and ``filter[name]``, OData's
``$filter``), and one such tool fails every request it is sent with. :func:`property_keys`
gives those parameters keys it takes (``page_size``, ``filter_name``, ``filter``), unique
and never another parameter's name, as a pure function of the parameter names, so a call
maps them back (:func:`route_arguments`) with no state; the route's registered parameters
keep their names.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from schemarouter.errors import GateError, ParameterValidationError
from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "MAX_TOOL_NAME",
    "PROPERTY_KEY_PATTERN",
    "TOOL_NAME_PATTERN",
    "assign_tool_names",
    "input_keys",
    "keyed_schema",
    "own_arguments",
    "property_keys",
    "provider_part",
    "route_arguments",
    "route_for_tool",
    "tool_name",
    "tool_names",
]

#: Longest tool name the Anthropic and OpenAI APIs accept.
MAX_TOOL_NAME = 64
#: What a valid tool name looks like (Anthropic, OpenAI, and MCP).
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: What a property key of a tool's input schema may be (the Anthropic API's pattern; the
#: OpenAI API takes these too).
PROPERTY_KEY_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_SEPARATOR = "__"
_DIGEST = 8
_LONG_DIGEST = 16
#: The ending of a hashed name: a plain join that ends so is hashed too.
_HASHED_ENDING = re.compile(r"_[0-9a-f]{8}$")


def _hashed(route_id: str, plain: str, digits: int, suffix: str = "") -> str:
    digest = hashlib.sha256(route_id.encode("utf-8")).hexdigest()[:digits]
    tail = f"_{digest}{suffix}"
    base = re.sub(r"[^A-Za-z0-9_-]", "_", plain)[: MAX_TOOL_NAME - len(tail)]
    return base + tail


def _preferred(route_id: str) -> str:
    parts = route_id.split("/")
    plain = _SEPARATOR.join(parts)
    if (
        len(plain) <= MAX_TOOL_NAME
        and TOOL_NAME_PATTERN.match(plain)
        and all(part and _SEPARATOR not in part for part in parts)
        and not _HASHED_ENDING.search(plain)
    ):
        return plain
    return _hashed(route_id, plain, _DIGEST)


def _alternatives(route_id: str) -> Iterable[str]:
    """Names for ``route_id`` where its preferred one is taken, in the order tried."""
    plain = _SEPARATOR.join(route_id.split("/"))
    yield _hashed(route_id, plain, _LONG_DIGEST)
    number = 2
    while True:
        yield _hashed(route_id, plain, _LONG_DIGEST, f"_{number}")
        number += 1


def assign_tool_names(
    route_ids: Iterable[str], *, snapshot: RegistrySnapshot | None = None
) -> dict[str, str]:
    """route id -> tool name for ``route_ids``, unique, the first of them keeping its
    preferred name on a clash (see the module docstring). With ``snapshot``, a registered
    route gets the name the registry gave it, the one :func:`route_for_tool` resolves: a
    few routes named among themselves could otherwise give one the name the registry gives
    another (two routes whose digests share their first eight digits), and a call by that
    name would run the other route. The rest never take a registered route's name."""
    registry = _by_route(snapshot) if snapshot is not None else {}
    taken: set[str] = set(registry.values())
    out: dict[str, str] = {}
    for route_id in route_ids:
        if route_id in out:
            continue
        name = registry.get(route_id)
        if name is None:
            name = _preferred(route_id)
            if name in taken:
                name = next(n for n in _alternatives(route_id) if n not in taken)
            taken.add(name)
        out[route_id] = name
    return out


def tool_name(route_id: str, *, snapshot: RegistrySnapshot | None = None) -> str:
    """The tool name of ``route_id``: the one ``snapshot`` assigned it (unique among the
    registered routes), else its preferred name (see the module docstring)."""
    if snapshot is not None:
        name = _by_route(snapshot).get(route_id)
        if name is not None:
            return name
    return _preferred(route_id)


def tool_names(snapshot: RegistrySnapshot) -> dict[str, str]:
    """tool name -> route id for every registered route (kept with the snapshot)."""
    return snapshot.derived("integrations.tool_names", _build)


def _by_route(snapshot: RegistrySnapshot) -> dict[str, str]:
    return snapshot.derived("integrations.route_tool_names", _assign)


def _assign(snapshot: RegistrySnapshot) -> dict[str, str]:
    # registration order: a route keeps its name when a later one would clash with it
    return assign_tool_names(snapshot.routes)


def _build(snapshot: RegistrySnapshot) -> dict[str, str]:
    return {name: route_id for route_id, name in _by_route(snapshot).items()}


def route_for_tool(snapshot: RegistrySnapshot, name: str) -> str:
    """The route id behind tool ``name`` (or ``name`` itself where it is a route id);
    a :class:`~schemarouter.errors.GateError` for a name no registered route has."""
    if isinstance(name, str):
        if name in snapshot.routes:
            return name
        found = tool_names(snapshot).get(name)
        if found is not None:
            return found
    removed = _removed_as(snapshot, name)
    if removed is not None:
        route_id, version = removed
        raise GateError(
            f"the tool {str(name)[:120]!r} ({route_id}) was removed at registry version {version}",
            where=f"registry version {snapshot.version}",
            hint="Search again (search_tools / retrieve) for a route that is registered now",
        )
    close = _look_alikes(str(name), tool_names(snapshot))
    raise GateError(
        f"no registered tool is named {str(name)[:120]!r}",
        where=f"registry version {snapshot.version}",
        hint=(f"Did you mean {', '.join(close)}? " if close else "")
        + "Use a name from search_tools / result.tools()",
    )


def provider_part(name: str) -> str:
    """The provider a tool name starts with (``weather`` of ``weather__rest__forecast``;
    the whole name where it has no ``__``)."""
    return name.split(_SEPARATOR, 1)[0]


def _look_alikes(name: str, names: Iterable[str]) -> list[str]:
    """Up to three registered tool names close to ``name``. A name of a provider
    (``evil__mcp__get_note``) is offered tools of that provider, or of one spelt nearly so
    (a typo), never another provider's tool of the same name (trial G: a tool of an
    unavailable upstream was offered the same tool of another server)."""
    pool = list(names)
    folded = name.casefold()  # case is no difference a model means (trial U2: none offered)
    if _SEPARATOR in name:
        providers = {provider_part(n).casefold() for n in pool}
        near = set(difflib.get_close_matches(provider_part(folded), providers, n=3, cutoff=0.8))
        pool = [n for n in pool if provider_part(n).casefold() in near]
    by_folded = {n.casefold(): n for n in pool}
    return [by_folded[n] for n in difflib.get_close_matches(folded, list(by_folded), n=3)]


def own_arguments(snapshot: RegistrySnapshot, route_id: Any, arguments: Any, *, method: str) -> Any:
    """``arguments`` of a call of ``route_id`` under the route's own parameter names where
    they come under the keys its tool definitions offered (:func:`input_keys`: a model's tool
    call sends ``page_size`` for ``page[size]``); anything else as given, for the gate."""
    if not isinstance(route_id, str) or not isinstance(arguments, Mapping):
        return arguments
    route = snapshot.routes.get(route_id)
    if route is None:
        return arguments
    keys = input_keys(route.endpoint.input_schema)
    return route_arguments(arguments, keys, tool=f"{method} ({route_id})")


def _removed_as(snapshot: RegistrySnapshot, name: object) -> tuple[str, int] | None:
    """``(route id, the version that removed it)`` where ``name`` is a removed route's id
    or the tool name it would have had; else ``None``."""
    if not isinstance(name, str):
        return None
    removed = snapshot.removed_routes()
    if name in removed:
        return name, removed[name]
    for route_id, version in removed.items():
        if _preferred(route_id) == name:
            return route_id, version
    return None


# -- property keys ----------------------------------------------------------------------


def _key(name: str, attempt: int) -> str:
    """``name``'s runs of characters a key may not have as ``_``, with ``attempt`` ``_``
    more; cut, with a digest of ``name``, where it would pass 64 characters."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "parameter"
    tail = "_" * attempt
    if len(base) + len(tail) <= MAX_TOOL_NAME:
        return base + tail
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{base[: MAX_TOOL_NAME - _DIGEST - 1 - len(tail)]}_{digest}{tail}"


def property_keys(names: Iterable[str], *, avoid: Iterable[str] = ()) -> dict[str, str]:
    """parameter name -> its key in a tool's input schema, for each of ``names`` (in
    order) that :data:`PROPERTY_KEY_PATTERN` refuses or that is in ``avoid`` (names a
    framework takes for itself); the others keep their names. ``page[size]`` ->
    ``page_size``, ``$filter`` -> ``filter``, with ``_`` added while the key is another
    parameter's name or key (``filter_`` beside a ``filter``)."""
    names = list(names)
    avoided = frozenset(avoid)
    taken = set(names) | avoided
    out: dict[str, str] = {}
    for name in names:
        if name not in avoided and PROPERTY_KEY_PATTERN.match(name):
            continue
        attempt = 0
        while (key := _key(name, attempt)) in taken:
            attempt += 1
        taken.add(key)
        out[name] = key
    return out


def input_keys(input_schema: Mapping[str, Any], *, avoid: Iterable[str] = ()) -> dict[str, str]:
    """:func:`property_keys` of a route's registered input schema (its top-level
    properties, in order: what a rendering and a call both read)."""
    properties = input_schema.get("properties")
    return property_keys(properties if isinstance(properties, Mapping) else (), avoid=avoid)


def _alnum(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text)


def keyed_schema(schema: Mapping[str, Any], keys: Mapping[str, str]) -> dict[str, Any]:
    """``schema`` (an input schema) with its top-level properties and ``required`` under
    their ``keys``. A key whose letters and digits are not the name's (a name in another
    script) keeps the name at the start of the property's description."""
    out = dict(schema)
    properties = schema.get("properties")
    if not keys or not isinstance(properties, Mapping):
        return out
    renamed: dict[str, Any] = {}
    for name, prop in properties.items():
        key = keys.get(name, name)
        if key != name and _alnum(key) != _alnum(name) and isinstance(prop, Mapping):
            own = str(prop.get("description") or "")
            prop = {**prop, "description": f"{name}: {own}" if own else name}
        renamed[key] = prop
    out["properties"] = renamed
    if isinstance(schema.get("required"), list):
        out["required"] = [keys.get(n, n) for n in schema["required"]]
    return out


def route_arguments(
    arguments: Mapping[str, Any], keys: Mapping[str, str], *, tool: str = "the tool"
) -> dict[str, Any]:
    """``arguments`` by the route's own parameter names: a key of ``keys`` (name -> key)
    read as its name, any other argument as it is (a caller may use the names)."""
    if not keys:
        return dict(arguments)
    back = {key: name for name, key in keys.items()}
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        name = back.get(key, key)
        if name in out:
            raise ParameterValidationError(
                f"parameter {name!r} is given twice, as {name!r} and as {keys[name]!r}",
                where=f"{tool} arguments",
                hint=f"Send it once, as {keys[name]!r}",
            )
        out[name] = value
    return out
