"""Tool names an LLM API accepts, and the way back from a name to its route.

Route ids (``provider/access/endpoint``) contain ``/`` and may contain ``.``; the Anthropic
and OpenAI APIs take tool names of at most 64 characters from ``[A-Za-z0-9_-]`` (MCP is
looser). :func:`tool_name` is a pure function of the route id, the same on every machine:
``materials_project/rest/summary_search`` -> ``materials_project__rest__summary_search``.
Where the plain join would not be valid or could be read two ways (a ``.``, a ``__`` inside a
part, more than 64 characters) the name is the cleaned prefix plus ``_`` and eight hex
digits of the route id's SHA-256, so distinct routes keep distinct names.

:func:`route_for_tool` maps a name back through the registry snapshot (computed once per
snapshot), so a server can resolve a name it handed out in an earlier answer; it also
accepts the route id itself.
"""

from __future__ import annotations

import difflib
import hashlib
import re

from schemarouter.errors import GateError
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["MAX_TOOL_NAME", "TOOL_NAME_PATTERN", "route_for_tool", "tool_name", "tool_names"]

#: Longest tool name the Anthropic and OpenAI APIs accept.
MAX_TOOL_NAME = 64
#: What a valid tool name looks like (Anthropic, OpenAI, and MCP).
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SEPARATOR = "__"
_DIGEST = 8


def tool_name(route_id: str) -> str:
    """The tool name of ``route_id`` (see the module docstring)."""
    parts = route_id.split("/")
    plain = _SEPARATOR.join(parts)
    if (
        len(plain) <= MAX_TOOL_NAME
        and TOOL_NAME_PATTERN.match(plain)
        and all(part and _SEPARATOR not in part for part in parts)
    ):
        return plain
    digest = hashlib.sha256(route_id.encode("utf-8")).hexdigest()[:_DIGEST]
    base = re.sub(r"[^A-Za-z0-9_-]", "_", plain)[: MAX_TOOL_NAME - _DIGEST - 1]
    return f"{base}_{digest}"


def tool_names(snapshot: RegistrySnapshot) -> dict[str, str]:
    """tool name -> route id for every registered route (kept with the snapshot)."""
    return snapshot.derived("integrations.tool_names", _build)


def _build(snapshot: RegistrySnapshot) -> dict[str, str]:
    names: dict[str, str] = {}
    for route_id in snapshot.route_ids():
        name = tool_name(route_id)
        if name in names:  # pragma: no cover - needs a SHA-256 prefix collision
            raise GateError(
                f"routes {names[name]!r} and {route_id!r} have the same tool name {name!r}",
                where=f"registry version {snapshot.version}",
                hint="Rename one of the endpoints",
            )
        names[name] = route_id
    return names


def route_for_tool(snapshot: RegistrySnapshot, name: str) -> str:
    """The route id behind tool ``name`` (or ``name`` itself where it is a route id);
    a :class:`~schemarouter.errors.GateError` for a name no registered route has."""
    if isinstance(name, str):
        if name in snapshot.routes:
            return name
        found = tool_names(snapshot).get(name)
        if found is not None:
            return found
    close = difflib.get_close_matches(str(name), list(tool_names(snapshot)), n=3)
    raise GateError(
        f"no registered tool is named {str(name)[:120]!r}",
        where=f"registry version {snapshot.version}",
        hint=(f"Did you mean {', '.join(close)}? " if close else "")
        + "Use a name from search_tools / result.tools()",
    )
