"""What a model reads of a refusal, a failure or a search's left-out tools.

The library's own texts speak to the host's Python code: "Pass allow_effects=['read',
'write'] and an approve callback", "reset it now with router.mark_healthy(...)", "allow the
effect in ExecutionState(allowed_effects=...)", and name routes by route id. A model can make
none of those calls, and knows the tools by the names it was given. Here is the one wording
for it, used by the in-process renderings (:mod:`.search`: tool-search notes and tool
results; the LangChain and LlamaIndex tools) and by the MCP gateway (``schemarouter.serve``):

- :func:`agent_hint` rewrites a text's Python instructions (:data:`AGENT_HINTS`) as what the
  model can do, the host's part named ("ask the user to set them up"; the gateway names
  its operator);
- :func:`agent_error` gives an error's text so, with its routes as tool names and, given
  ``keys``, its arguments by the keys the model's tool definition gave them
  (:func:`agent_keys`: ``$.page_size`` for ``$['page[size]']``);
- :func:`agent_blocked` says a retrieval's left-out tools (its ``blocked``) by their tool
  names, with :data:`AGENT_BLOCKED_HINTS`.

The library's errors keep their own wording for Python callers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.errors import REBUILD_HINT, SchemaRouterError
from schemarouter.integrations.names import tool_name
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.results import CapabilityRetrieval
from schemarouter.retrieval.state import blocked_summary

__all__ = [
    "AGENT_BLOCKED_HINTS",
    "AGENT_HINTS",
    "agent_blocked",
    "agent_error",
    "agent_hint",
    "agent_keys",
    "agent_text",
]

_REFUSED = (
    "The host does not let this tool run here: use another tool, or tell the user what it would do"
)

#: Texts of the library that name Python calls a model cannot make, and what it reads
#: instead (``{operator}``: who can change the setup, "the user" in process, "the gateway's
#: operator" behind the gateway).
AGENT_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), instead)
    for pattern, instead in (
        (
            r"Pass partial=True to keep what validates",
            "The tool's server sends output that breaks the outputSchema it declares: use "
            "another tool, or ask {operator} to have that server fixed",
        ),
        (
            r"on a later call, partial=True keeps what validates",
            "its server sends output that breaks the outputSchema it declares ({operator} "
            "can have that server fixed)",
        ),
        (r", or reset it now with router\.mark_healthy\([^)]*\)", ""),
        (
            r"Rebuild it \(`schemarouter index build`\), or load it with sync=True "
            r"\(SchemaRouter\(index=IndexFolder\(path, sync=True\)\)\) to bring it to this "
            r"registry(?:; an access path is .*)?"
            r"|Load it with the encoder it was built with \(encoder= in SchemaRouter or "
            r"HybridIndex\.load\), or rebuild it here \(`schemarouter index build`\)",
            "Tool search here cannot run until {operator} rebuilds its index for the tools "
            "registered now: tell them",
        ),
        (
            r"Build one with `schemarouter index build` or HybridIndex\.save",
            "Tool search here cannot run until {operator} builds its index: tell them",
        ),
        (
            r"Rebuild the index(?: with this version of SchemaRouter|"
            + re.escape(REBUILD_HINT.removeprefix("Rebuild the index"))
            + ")?",
            "Tool search here cannot run until {operator} rebuilds its index: tell them",
        ),
        (
            r"Bind it \(router\.bind, bind_http_routes, bind_mcp_session\) first",
            "No server here can run it now (its upstream may be reconnecting): call it "
            "again later, or use another tool",
        ),
        (
            r"Its document gave no server URL that could be used .*?or bind it \(router\.bind\)",
            "No server here can run it: use another tool",
        ),
        (r"Pass allow_effects=.*? \(allow_effects replaces the default \['read'\]\)", _REFUSED),
        (r"Pass allow_effects including 'read' \(a read needs no approve callback\)", _REFUSED),
        (
            r"Pass approve=lambda route, arguments: \.\.\. that returns True for this call",
            "The host has no approval for it here: use another tool, or tell the user what "
            "it would do",
        ),
        (
            r"(?:Pass a plain function|Make the callback) return(?:ing|) True or False"
            r"(?: \([^)]*\))?",
            "The host's approval of it failed: tell the user",
        ),
        (
            r"The callback is called as approve\(route, arguments\) and returns True or "
            r"False(?: \([^)]*\))?",
            "The host's approval of it failed: tell the user",
        ),
        (
            r"Set them in the environment or pass a CredentialProvider that has them",
            "They are not set up here: use another tool, or ask {operator} to set them up",
        ),
        (
            r"Raise ExecutionPolicy\.max_response_bytes or request fewer records"
            r"|Raise Budget\.max_bytes or request fewer fields or records"
            r"|Ask for less, or raise max_response_bytes of this server \([^)]*\)",
            "Ask for less (narrower arguments, fewer records)",
        ),
        (
            r"Connect its server again with router\.add_mcp_server\([^)]*\)",
            "Its server is not connected here now: use another tool, or call it again later",
        ),
        (
            r"register some first \(add_openapi, add_mcp_tools, add_callable or add_catalog; "
            r"SchemaRouter\.from_catalog\(\.\.\.\) for a catalog folder\)",
            "none is offered here yet (tell {operator}, or search again if servers are still "
            "connecting)",
        ),
        (
            r"Pass the arguments as a dict of parameter name -> value \(None: none\)",
            "Send the arguments as one JSON object of parameter name -> value",
        ),
        (
            r"Call a route id that retrieve\(\) returned \(a tool name maps back with "
            r"ToolSet\.route_id\(name\)\)",
            "Use a tool you were offered that is registered now",
        ),
        # words of a message or an exclusion's detail
        (
            r"; retrieve again for the routes that serve the request now",
            "; use another tool that serves the request (search for tools again where you can)",
        ),
        (r" \(router\.mark_unhealthy\)| \(router\.close\(\)\)", ""),
        (r"; router\.add_mcp_server\(\.\.\., replace=True\) connects its server again", ""),
        (r" / result\.tools\(\)", ""),
        # the library's own words for its parts: a model knows tools and their input schemas
        (r"\broute ('[^'\s]*' is not registered)", r"tool \1"),
        (r"\bthe (?:registered|route's) input schema\b", "the tool's input schema"),
        # a registry version tells a model nothing it can act on
        (r" \(at registry version \d+\)", ""),
        (r"\b(was removed) at registry version \d+", r"\1"),
    )
)

#: What a model can make of tools a search left out, per reason (``blocked_summary``'s
#: ``hints``; the library's own speak to the host: ``BLOCKED_HINTS``).
AGENT_BLOCKED_HINTS: Mapping[str, str] = {
    "effect": "the host does not let them run here: tell the user if the request needs one",
    "credentials": "their credentials are not set up here",
    "unbound": "nothing here can run them now",
    "unhealthy": "they come back when their cooldown ends",
    "unhealthy_host": "the host took them out of service for now",
    "license": "their data's license is not one the host may use",
}

#: a call's route, where an error names it: ``call (weather/rest/get_forecast)``, or a plan's
#: ``plan step 0 (weather/rest/get_forecast)``
_STEP = re.compile(r"\b(?:plan step \d+|call) \(([^()\s]+)\)")
#: a route a refusal says is not registered (removed since it was offered)
_UNREGISTERED = re.compile(r"\broute '([^'\s]+)' is not registered")


def agent_hint(text: str, *, operator: str = "the user") -> str:
    """``text`` with each Python instruction of :data:`AGENT_HINTS` worded for a model."""
    for pattern, instead in AGENT_HINTS:
        text = pattern.sub(instead.replace("{operator}", operator), text)
    return text


def agent_text(
    text: str, *, names: Mapping[str, str] | None = None, operator: str = "the user"
) -> str:
    """``text`` worded for a model (:func:`agent_hint`), each route of ``names`` (route id
    -> the tool name the model was given) by its tool name, a call's ``call (NAME)`` (or
    ``plan step 0 (NAME)``) as ``tool NAME``."""
    text = agent_hint(text, operator=operator)
    named = names or {}
    for route_id in sorted(named, key=len, reverse=True):  # never a part of a longer one
        pattern = re.compile(rf"(?<![\w/.-]){re.escape(route_id)}(?![\w/-]|\.\w)")
        text = pattern.sub(named[route_id].replace("\\", "\\\\"), text)
    return re.sub(r"\b(?:plan step 0|call) \(([\w-]+)\)", r"tool \1", text)


def agent_error(
    error: BaseException,
    *,
    names: Mapping[str, str] | None = None,
    snapshot: RegistrySnapshot | None = None,
    operator: str = "the user",
    keys: Mapping[str, str] | None = None,
) -> str:
    """What a model reads of ``error``: a SchemaRouter error's text by :func:`agent_text`,
    the route of a call (its ``call (...)`` or ``plan step 0 (...)``) by the tool name ``names`` or
    ``snapshot`` gives it (else its preferred name), its arguments by ``keys`` (parameter
    name -> the key the model's tool definition gave it: :func:`agent_keys`); any other
    error as ``Type: message``."""
    if not isinstance(error, SchemaRouterError):
        return f"{type(error).__name__}: {error}"
    named = dict(names or {})
    for route_id in _STEP.findall(error.where or "") + _UNREGISTERED.findall(str(error.what)):
        named.setdefault(route_id, tool_name(route_id, snapshot=snapshot))
    return agent_keys(agent_text(str(error), names=named, operator=operator), keys or {})


def call_route(error: BaseException) -> str | None:
    """The one route a call's error names (its ``call (...)``), else ``None``."""
    if not isinstance(error, SchemaRouterError):
        return None
    found = set(_STEP.findall(error.where or ""))
    return found.pop() if len(found) == 1 else None


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LISTED = re.compile(r"(Registered parameters: )(.+?)(?= \(a JSON |$)")


def _path(name: str) -> str:
    """The JSON path of a top-level argument, as the library's errors write it."""
    return f"$.{name}" if _PLAIN_KEY.match(name) else f"$[{name!r}]"


def agent_keys(text: str, keys: Mapping[str, str]) -> str:
    """``text`` (an error about a call's arguments) with each parameter of ``keys`` (name
    -> the key the model's tool definition gave it, :func:`~.names.input_keys`) by its key:
    in a path (``$['page[size]']`` -> ``$.page_size``), quoted (``'page[size]'``) and in a
    list of the registered parameters; the model knows no other name for it. A text about
    an argument given under both leaves them (it names both on purpose)."""
    renamed = {name: key for name, key in keys.items() if key != name}
    if not renamed:
        return text

    def listed(match: re.Match[str]) -> str:
        names = match.group(2).split(", ")
        return match.group(1) + ", ".join(sorted(renamed.get(n, n) for n in names))

    text = _LISTED.sub(listed, text)
    for name in sorted(renamed, key=len, reverse=True):  # never a part of a longer one
        key = renamed[name]
        text = re.sub(re.escape(_path(name)) + r"(?!\w)", _path(key).replace("\\", r"\\"), text)
        if "is given twice" not in text:
            text = text.replace(repr(name), repr(key))
    return text


def agent_blocked(found: CapabilityRetrieval) -> str:
    """The retrieval's ``blocked`` as a model reads it: the tools left out among its best
    ``k`` by their tool names (as the registry names them), why, and what it can make of
    that (:data:`AGENT_BLOCKED_HINTS`); its ``blocked`` reworded (:func:`agent_hint`) where
    it has no exclusions to say it from."""
    if not found.exclusions:
        return agent_hint(found.blocked)
    snapshot: Any = found._snapshot

    def name(route_id: str) -> str:
        return tool_name(route_id, snapshot=snapshot)

    exclusions = [e.model_copy(update={"detail": agent_hint(e.detail)}) for e in found.exclusions]
    return blocked_summary(
        exclusions, within=found.k, name=name, hints=AGENT_BLOCKED_HINTS, noun="tool"
    )
