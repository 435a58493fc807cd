"""Client-side tool search for the Anthropic and OpenAI APIs, and tool results both take.

**Anthropic** (client-side tool search): send every tool the model may use with
``defer_loading: true`` (:func:`deferred_tools`) plus one ordinary search tool
(:func:`anthropic_search_tool`); when the model calls it, run ``router.retrieve`` and answer
with a ``tool_result`` holding ``tool_reference`` blocks (:func:`anthropic_search_result`):
the API then loads the referenced definitions for the model.

**OpenAI** (Responses API, client-executed tool search): offer
:func:`openai_tool_search_tool`; when the model emits a ``tool_search_call``, answer with a
``tool_search_output`` item that holds the full definitions of the retrieved tools
(:func:`openai_tool_search_output`), followed by a note where some matches may not run or
none matched (:func:`openai_tool_search_items` gives both).

Either answer says what the retrieval's ``blocked`` says (matching tools left out for the
request's effects, the host's policy or health) and never that nothing matches when routes
matched but were blocked; where the retrieval flagged the request off the catalog (its
``reason``) while still serving the closest tools, it says that none seems to serve it, and
why (:func:`search_note`).

Answer a search from ``router.retrieve_executable(query, state=search_state(router))``: the
state holds the effects the calls allow and the credentials they will have, so no tool is
offered that cannot run here (the note says which were left out, and why).

Either way, when the model then calls a tool, :func:`call_tool` maps the name back to its
route and runs it through ``router.call`` (gate, policy, health, output validation);
:func:`anthropic_tool_result` and :func:`openai_function_call_output` turn the result, or
the error, into the block or item the API takes next.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.execution.credentials import EnvironmentCredentials
from schemarouter.execution.results import CallResult, FieldValue
from schemarouter.integrations.definitions import ToolSet, tool_definitions
from schemarouter.integrations.names import input_keys, route_arguments, route_for_tool, tool_name
from schemarouter.integrations.wording import (
    agent_blocked,
    agent_error,
    agent_hint,
    agent_text,
    call_route,
)
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.results import Candidate, CapabilityRetrieval
from schemarouter.retrieval.state import ExecutionState

__all__ = [
    "SEARCH_TOOL_DESCRIPTION",
    "SEARCH_TOOL_NAME",
    "SEARCH_TOOL_SCHEMA",
    "acall_tool",
    "anthropic_search_result",
    "anthropic_search_tool",
    "anthropic_tool_references",
    "anthropic_tool_result",
    "available_credentials",
    "call_payload",
    "call_tool",
    "deferred_tools",
    "openai_function_call_output",
    "openai_tool_search_items",
    "openai_tool_search_output",
    "openai_tool_search_tool",
    "search_note",
    "search_state",
]

SEARCH_TOOL_NAME = "search_tools"
SEARCH_TOOL_DESCRIPTION = (
    "Search the registered tools (APIs, MCP tools, functions) for the few that can serve a "
    "request. Describe the data or action you need in plain words; the best matches are "
    "loaded for you to call."
)
SEARCH_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool must do or return."},
        "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many tools."},
    },
    "required": ["query"],
}


def _toolset(found: CapabilityRetrieval | ToolSet | Iterable[Candidate], format: str) -> ToolSet:
    if isinstance(found, ToolSet):
        if found.format != format:
            raise ValueError(f"expected {format} definitions, got {found.format}")
        return found
    if isinstance(found, CapabilityRetrieval):
        return found.tools(format)  # type: ignore[arg-type]  # named as the registry names them
    return tool_definitions(found, format)  # type: ignore[arg-type]


def search_note(found: CapabilityRetrieval | ToolSet | Iterable[Candidate], *, empty: bool) -> str:
    """What a tool search answer says beside (or, ``empty``, instead of) its tools: where
    the retrieval flagged the request off the catalog (its ``reason``), that these are only
    the closest tools and why; the retrieval's ``blocked`` sentence(s) (matching tools left
    out, why, what would let them run); and with no tool the abstention's reason or that
    nothing matched. ``""`` where a non-empty answer has nothing to add, or ``found`` is a
    bare list of candidates."""
    blocked = reason = ""
    if isinstance(found, CapabilityRetrieval | ToolSet):
        reason = found.reason
        retrieval = found if isinstance(found, CapabilityRetrieval) else found.retrieval
        # said to the model: by the tool names it knows, never a Python call (wording.py)
        blocked = agent_blocked(retrieval) if retrieval is not None else agent_hint(found.blocked)
    if not empty:
        notes = []
        if reason:  # off the catalog: the best tools are still offered (not abstaining)
            notes.append(
                f"These are only the closest tools; none seems to serve the request: {reason}. "
                "Say so, or ask the user, rather than use one for what it does not do."
            )
        if blocked:
            notes.append(f"Matching tools left out of these results: {blocked}")
        return " ".join(notes)
    if blocked:
        return f"No tool that may run here matches the request: {blocked}" + (
            f" ({reason})" if reason else ""
        )
    return "No registered tool matches the request" + (f": {reason}" if reason else ".")


# -- Anthropic ---------------------------------------------------------------------------


def anthropic_search_tool(*, name: str = SEARCH_TOOL_NAME) -> dict[str, Any]:
    """The custom tool the model calls to search (an ordinary, non-deferred tool)."""
    return {
        "name": name,
        "description": SEARCH_TOOL_DESCRIPTION,
        "input_schema": SEARCH_TOOL_SCHEMA,
    }


def deferred_tools(routes: Iterable[Route | Candidate], format: str = "anthropic") -> ToolSet:
    """Definitions of ``routes`` marked ``defer_loading`` (``anthropic`` or ``openai``): sent
    with every request, loaded for the model only when a search references them."""
    if format not in ("anthropic", "openai"):
        raise ValueError("deferred loading exists for the anthropic and openai formats")
    return tool_definitions(routes, format, defer_loading=True)  # type: ignore[arg-type]


def anthropic_tool_references(
    found: CapabilityRetrieval | ToolSet | Iterable[Candidate],
) -> list[dict[str, Any]]:
    """``tool_reference`` blocks naming the retrieved tools, best first."""
    return [{"type": "tool_reference", "tool_name": n} for n in _toolset(found, "anthropic").names]


def anthropic_search_result(
    tool_use_id: str, found: CapabilityRetrieval | ToolSet | Iterable[Candidate]
) -> dict[str, Any]:
    """The ``tool_result`` answering a search call: ``tool_reference`` blocks (and a text
    block where the request looks off the catalog or matching tools were left out), or a text
    that says why nothing matched (an abstaining retrieval gives its reason; a retrieval
    whose matches were all blocked says which and why: :func:`search_note`)."""
    references: list[dict[str, Any]] = anthropic_tool_references(found)
    if references:
        note = search_note(found, empty=False)
        content = [*references, {"type": "text", "text": note}] if note else references
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    text = search_note(found, empty=True)
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}


def anthropic_tool_result(
    tool_use_id: str,
    result: CallResult | BaseException,
    *,
    snapshot: RegistrySnapshot | None = None,
) -> dict[str, Any]:
    """A ``tool_result`` block for a tool call: the result as JSON text, or the error
    (``is_error``) so the model can correct its arguments or do what it says. The tool is
    named as ``snapshot`` names it (the router's: what ``deferred_tools`` gave the model;
    without one, its preferred name)."""
    if isinstance(result, BaseException):
        return {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": _error_text(result, snapshot),
            "is_error": True,
        }
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": _json(call_payload(result, snapshot=snapshot)),
    }


# -- OpenAI ------------------------------------------------------------------------------


def openai_tool_search_tool(*, description: str = SEARCH_TOOL_DESCRIPTION) -> dict[str, Any]:
    """The Responses API ``tool_search`` tool, executed by the client (by the router)."""
    return {
        "type": "tool_search",
        "execution": "client",
        "description": description,
        "parameters": SEARCH_TOOL_SCHEMA,
    }


def openai_tool_search_output(
    call_id: str | None, found: CapabilityRetrieval | ToolSet | Iterable[Candidate]
) -> dict[str, Any]:
    """The ``tool_search_output`` item answering a ``tool_search_call``: the full function
    definitions of the retrieved tools. The item has no place for text: answer with
    :func:`openai_tool_search_items` to also tell the model what was blocked."""
    tools = _toolset(found, "openai")
    return {
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": list(tools),
    }


def openai_tool_search_items(
    call_id: str | None, found: CapabilityRetrieval | ToolSet | Iterable[Candidate]
) -> list[dict[str, Any]]:
    """The items answering a ``tool_search_call``: the ``tool_search_output``
    (:func:`openai_tool_search_output`), then, where the request looks off the catalog, the
    retrieval blocked matching tools or found none, a ``developer`` message saying so
    (:func:`search_note`): add both to the input."""
    if not isinstance(found, CapabilityRetrieval | ToolSet):
        found = _toolset(found, "openai")
    output = openai_tool_search_output(call_id, found)
    note = search_note(found, empty=not output["tools"])
    if not note:
        return [output]
    return [output, {"type": "message", "role": "developer", "content": note}]


def openai_function_call_output(
    call_id: str,
    result: CallResult | BaseException,
    *,
    snapshot: RegistrySnapshot | None = None,
) -> dict[str, Any]:
    """The ``function_call_output`` item for a function call (an error is reported as
    text); ``snapshot`` as :func:`anthropic_tool_result` reads it."""
    if isinstance(result, BaseException):
        output = _error_text(result, snapshot)
    else:
        output = _json(call_payload(result, snapshot=snapshot))
    return {"type": "function_call_output", "call_id": call_id, "output": output}


# -- what may run here --------------------------------------------------------------------


def available_credentials(snapshot: RegistrySnapshot, credentials: Any) -> frozenset[str]:
    """The credential names the registered routes declare that ``credentials`` (a
    ``CredentialProvider``) supplies now."""
    declared: frozenset[str] = snapshot.derived("integrations.credential_names", _declared)
    return frozenset(name for name in declared if _supplied(credentials, name))


def _declared(snapshot: RegistrySnapshot) -> frozenset[str]:
    return frozenset(n for route in snapshot.routes.values() for n in route.access.auth.credentials)


def _supplied(credentials: Any, name: str) -> bool:
    try:
        return bool(credentials.get(name))
    except Exception:  # a vault that fails now: the call would fail too
        return False


def search_state(
    router: Any,
    *,
    allow_effects: Iterable[Effect | str] = (Effect.READ,),
    credentials: Any = None,
) -> ExecutionState:
    """The state a tool search answers under (``retrieve_executable(query,
    state=search_state(router))``), so it never offers a tool whose call would be refused:
    the effects the calls allow (``allow_effects``, as ``router.call`` takes them), and the
    credential names ``credentials`` supplies (the ``CredentialProvider`` the calls get;
    default: the environment, as ``router.call`` reads it). A tool left out for either is
    said in the answer's note (its ``blocked``)."""
    provider = credentials if credentials is not None else EnvironmentCredentials()
    return ExecutionState(
        allowed_effects=frozenset(Effect(e) for e in allow_effects),
        credentials=available_credentials(router.snapshot(), provider),
    )


# -- calls -------------------------------------------------------------------------------


def call_tool(
    router: Any, name: str, arguments: Mapping[str, Any] | None = None, **options: Any
) -> CallResult:
    """Run the tool ``name`` (a tool name or a route id) with ``arguments`` through
    ``router.call``; ``options`` are its keywords (``allow_effects``, ``approve`` ...).
    An argument under the key a definition gave a parameter the APIs cannot take as a
    key (``page_size`` for ``page[size]``) is sent under the parameter's own name."""
    route_id, arguments = _route_and_arguments(router, name, arguments)
    result: CallResult = router.call(route_id, arguments, **options)
    return result


async def acall_tool(
    router: Any, name: str, arguments: Mapping[str, Any] | None = None, **options: Any
) -> CallResult:
    """:func:`call_tool` with ``router.acall``."""
    route_id, arguments = _route_and_arguments(router, name, arguments)
    result: CallResult = await router.acall(route_id, arguments, **options)
    return result


def _route_and_arguments(
    router: Any, name: str, arguments: Mapping[str, Any] | None
) -> tuple[str, Any]:
    snapshot = router.snapshot()
    route_id = route_for_tool(snapshot, name)
    if not isinstance(arguments, Mapping):  # None, or what the router refuses, as before
        return route_id, arguments or {}
    keys = input_keys(snapshot.route(route_id).endpoint.input_schema)
    return route_id, route_arguments(arguments, keys, tool=str(name))


def call_payload(result: CallResult, *, snapshot: RegistrySnapshot | None = None) -> dict[str, Any]:
    """What a model reads back from a call: the validated output, and the typed fields
    (value, unit, meaning, provenance) where the route declares them; the tool named as
    ``snapshot`` names it (see :func:`~schemarouter.integrations.names.tool_name`). A call
    whose status is not ``ok`` (``partial=True``) says why: a ``partial`` one carries its
    ``issues`` (path, kind and message of each value that is missing or breaks the route's
    schema), so a model does not read a schema-breaking value as data; a ``failed`` one its
    ``error`` (code and message, worded for the model). A ``201 Created`` answer's
    ``Location`` comes as ``location``."""
    payload: dict[str, Any] = {
        "tool": tool_name(result.route_id, snapshot=snapshot),
        "route_id": result.route_id,
        "status": result.status,
        "output": result.output,
    }
    if result.location is not None:  # a 201's Location: where the created thing is
        payload["location"] = result.location
    typed = {
        name: _typed(value)
        for name, value in result.fields.items()
        if value.semantic_id or value.unit
    }
    if typed:
        payload["fields"] = typed
    # what the output is under, as the typed fields say theirs (user trial U4)
    payload["licenses"], payload["source_types"] = list(result.licenses), list(result.source_types)
    if result.attribution:
        payload["attribution"] = result.attribution
    if result.status != "ok":
        if result.issues:
            payload["issues"] = [
                {"path": i.path, "kind": i.kind, "message": i.message} for i in result.issues
            ]
        if result.error is not None:
            # worded for the model, as a raised error is (_error_text)
            message = agent_text(result.error.message, names={result.route_id: payload["tool"]})
            payload["error"] = {"code": result.error.code, "message": message}
    if result.warnings:
        payload["warnings"] = list(result.warnings)
    return payload


def _typed(value: FieldValue) -> dict[str, Any]:
    """A typed field as a model reads it back: a value a declared spec converted says what
    the server sent and in which unit (``raw_value`` 97.8, ``source_unit`` GPa beside 9.78e10
    Pa), since the raw ``output`` beside it holds the server's number with no unit (before,
    nothing tied the two: user trial U4); a licence's URL where one is declared."""
    out: dict[str, Any] = {"value": value.value, "unit": value.unit}
    if value.normalized:
        out.update(raw_value=value.raw_value, source_unit=value.source_unit)
    out.update(
        semantic_id=value.semantic_id,
        source_type=value.source_type,
        license=value.license,
    )
    if value.license_url:
        out["license_url"] = value.license_url
    out["status"] = value.status
    return out


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def _error_text(error: BaseException, snapshot: RegistrySnapshot | None = None) -> str:
    """What the model reads of a refusal or failure: worded for it (no Python call), its
    tool by its tool name (:func:`~schemarouter.integrations.wording.agent_error`), its
    arguments by the keys the tool's Anthropic / OpenAI definition gave them."""
    route_id = call_route(error)
    keys: dict[str, str] = {}
    if snapshot is not None and route_id is not None and route_id in snapshot.routes:
        keys = input_keys(snapshot.routes[route_id].endpoint.input_schema)
    return agent_error(error, snapshot=snapshot, keys=keys)
