"""langgraph-bigtool hooks: SchemaRouter as the tool retriever of a big-tool agent.

``langgraph_bigtool.create_agent(llm, tool_registry, retrieve_tools_function=...,
retrieve_tools_coroutine=...)`` asks a retrieval function for tool ids (``query -> list of
ids``) and binds the registry's tools with those ids to the model. Here the ids are the tool
names of :mod:`schemarouter.integrations.names`, the registry's tools are LangChain
``StructuredTool`` objects that run through ``router.call`` / ``router.acall`` (gate,
policy, health, output validation), and retrieval is ``router.retrieve_executable``, so the
model is only ever offered tools that can run::

    from langgraph_bigtool import create_agent
    from schemarouter.integrations.langgraph import bigtool_registry, bigtool_retrievers

    registry = bigtool_registry(router)
    retrieve, aretrieve = bigtool_retrievers(router, k=3, registry=registry)
    agent = create_agent(llm, registry, retrieve_tools_function=retrieve,
                         retrieve_tools_coroutine=aretrieve).compile()

Needs ``pip install -e '.[langgraph]'`` in the checkout (``langgraph-bigtool`` and
``langchain-core``); importing this module does not import them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.errors import SchemaRouterError, require
from schemarouter.integrations.definitions import describe, tool_input_schema
from schemarouter.integrations.names import input_keys, keyed_schema, route_arguments, tool_name
from schemarouter.integrations.search import call_payload, search_state
from schemarouter.integrations.wording import agent_error
from schemarouter.retrieval.prerequisites import identifier_sources
from schemarouter.retrieval.results import candidate_from_route
from schemarouter.retrieval.state import ExecutionState

__all__ = ["bigtool_registry", "bigtool_retrievers", "route_tool"]


def _langchain() -> Any:
    return require(
        "langchain_core.tools",
        extra="langgraph",
        purpose="LangGraph tools",
        package="langchain-core",
    )


#: Argument names LangChain takes for itself (a RunnableConfig, the callback manager): a
#: route's parameter of that name was silently dropped from the call, so it gets a key of
#: its own (``config_``).
_HOOKS = frozenset({"config", "run_manager", "callbacks", "self"})


def route_tool(
    router: Any, route: Route, *, offered: Mapping[str, str] | None = None, **call_options: Any
) -> Any:
    """One route as a LangChain ``StructuredTool`` that runs through ``router.call``.

    The tool returns the call's payload as JSON text (validated output, typed fields with
    units); a refused or failed call becomes a ``ToolException`` whose message the agent
    sees (``handle_tool_error``), worded for it (the tool by its name, never a Python call:
    :mod:`~schemarouter.integrations.wording`), so the model can correct its arguments.
    ``offered`` (route id -> tool name) are the tools the agent has: a required identifier
    one of them returns names that tool in the parameter's description.
    """
    tools = _langchain()
    names: Mapping[str, str] = offered or {}  # shared by every tool of a registry: no copy
    sources = identifier_sources(router.snapshot(), route, names) if names else {}
    candidate = candidate_from_route(route, rank=0, score=0.0, identifier_sources=sources)
    route_id = route.route_id
    name = tool_name(route_id, snapshot=router.snapshot())
    # parameters named like a LangChain hook (``config`` -> ``config_``), or that the model
    # APIs cannot take as a key (``page[size]`` -> ``page_size``), under keys mapped back
    keys = input_keys(candidate.input_schema, avoid=_HOOKS)
    schema = keyed_schema(tool_input_schema(candidate, tool_names=names), keys)

    def run(**arguments: Any) -> str:
        try:
            sent = route_arguments(arguments, keys, tool=name)
            result = router.call(route_id, sent, **call_options)
        except SchemaRouterError as exc:
            raise tools.ToolException(agent_error(exc, names={route_id: name}, keys=keys)) from None
        payload = call_payload(result, snapshot=router.snapshot())
        return json.dumps(payload, ensure_ascii=False, default=str)

    async def arun(**arguments: Any) -> str:
        try:
            sent = route_arguments(arguments, keys, tool=name)
            result = await router.acall(route_id, sent, **call_options)
        except SchemaRouterError as exc:
            raise tools.ToolException(agent_error(exc, names={route_id: name}, keys=keys)) from None
        payload = call_payload(result, snapshot=router.snapshot())
        return json.dumps(payload, ensure_ascii=False, default=str)

    return tools.StructuredTool(
        name=name,
        description=describe(candidate),
        args_schema=schema,
        func=run,
        coroutine=arun,
        handle_tool_error=True,
        # whether its call options let it run at all: a change needs its effect allowed and
        # an approve callback (bigtool_retrievers reads this from the registry it is given)
        metadata={"schemarouter": {"route_id": route_id, "runs": _runs(route, call_options)}},
    )


def _runs(route: Route, call_options: Mapping[str, Any]) -> bool:
    """Whether ``router.call`` with ``call_options`` can run ``route`` (by its effect)."""
    effect = route.endpoint.effect
    if effect is Effect.READ:
        return True
    allowed = {str(getattr(e, "value", e)) for e in call_options.get("allow_effects", ("read",))}
    return effect.value in allowed and call_options.get("approve") is not None


def bigtool_registry(
    router: Any,
    *,
    routes: Iterable[str] | None = None,
    executable_only: bool = True,
    **call_options: Any,
) -> dict[str, Any]:
    """``tool_registry`` for ``create_agent``: tool name -> ``StructuredTool``, for
    ``routes`` (route ids) or every registered route (bound ones only, by default).
    ``call_options`` go to ``router.call`` (``allow_effects``, ``approve``, ``credentials``)."""
    snapshot = router.snapshot()
    ids = list(routes) if routes is not None else list(snapshot.route_ids())
    kept = {
        r: tool_name(r, snapshot=snapshot) for r in ids if not executable_only or router.is_bound(r)
    }
    return {
        name: route_tool(router, snapshot.route(route_id), offered=kept, **call_options)
        for route_id, name in kept.items()
    }


def _can_run(tool: Any) -> bool:
    """Whether a registry's tool can run (:func:`route_tool` says so in its metadata: a
    write without an approve callback cannot); a tool of another making is taken as able."""
    own = (getattr(tool, "metadata", None) or {}).get("schemarouter")
    return not isinstance(own, Mapping) or own.get("runs") is not False


def bigtool_retrievers(
    router: Any,
    *,
    k: int = 5,
    allow_effects: Iterable[Effect | str] = (Effect.READ,),
    executable_only: bool = True,
    credentials: Any = None,
    registry: Mapping[str, Any] | None = None,
) -> tuple[Callable[[str], list[str]], Callable[[str], Awaitable[list[str]]]]:
    """``(retrieve_tools_function, retrieve_tools_coroutine)`` for ``create_agent``: the
    tool ids of the ``k`` best routes for a query, best first: by default executable ones
    with an allowed effect whose credentials ``credentials`` supplies (the
    ``CredentialProvider`` the registry's tools call with; default: the environment, as
    ``router.call`` reads it), so the model is never offered a tool that cannot run.

    ``registry`` (the ``tool_registry`` given to ``create_agent``) keeps the ids to its
    tools: ``create_agent`` looks every retrieved id up in it and fails with a ``KeyError``
    on one it lacks (a registry of some ``routes``, or one built before more routes were
    registered). The ranked order is kept; routes outside it are passed over, and so are
    its tools that cannot run with the call options they were built with (a write tool of
    a ``bigtool_registry`` with no ``approve``: every call of it would be refused)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    effects = tuple(allow_effects)
    kept = None if registry is None else frozenset(registry)

    def outside(snapshot: Any) -> frozenset[str]:
        if kept is None or registry is None:
            return frozenset()
        return frozenset(
            r
            for r in snapshot.route_ids()
            if (name := tool_name(r, snapshot=snapshot)) not in kept or not _can_run(registry[name])
        )

    def state() -> ExecutionState:  # per query: the registry and the credentials may change
        found = search_state(router, allow_effects=effects, credentials=credentials)
        return found.model_copy(
            update={"tried_routes": found.tried_routes | outside(router.snapshot())}
        )

    def any_route() -> ExecutionState:  # executable_only=False: only the registry's filter
        return ExecutionState(
            allowed_effects=frozenset(Effect), tried_routes=outside(router.snapshot())
        )

    def ids(found: Any) -> list[str]:
        snapshot = router.snapshot()
        return [tool_name(c.route_id, snapshot=snapshot) for c in found.candidates]

    def retrieve_tools(query: str) -> list[str]:
        """Retrieve the tools that can serve a request, given a plain-words query."""
        if executable_only:
            return ids(router.retrieve_executable(query, k=k, state=state()))
        if kept is not None:
            return ids(router.reretrieve_state_aware(query, k=k, state=any_route()))
        return ids(router.retrieve(query, k=k))

    async def aretrieve_tools(query: str) -> list[str]:
        """Retrieve the tools that can serve a request, given a plain-words query."""
        if executable_only:
            return ids(await router.aretrieve_executable(query, k=k, state=state()))
        if kept is not None:
            found = await router.areretrieve_state_aware(query, k=k, state=any_route())
            return ids(found)
        return ids(await router.aretrieve(query, k=k))

    return retrieve_tools, aretrieve_tools
