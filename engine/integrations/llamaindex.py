"""A LlamaIndex ``ObjectRetriever`` of tools, backed by SchemaRouter.

LlamaIndex agents take a ``tool_retriever`` (an ``ObjectRetriever`` of tools) instead of a
fixed tool list: ``FunctionAgent(tool_retriever=..., llm=...)`` asks it for the tools of
every request. :func:`tool_retriever` builds one whose retriever is ``router.retrieve``
(``retrieve_executable`` by default: only tools that can run) and whose objects are
LlamaIndex tools that run through ``router.call`` / ``router.acall`` (gate, policy, health,
output validation)::

    from llama_index.core.agent.workflow import FunctionAgent
    from schemarouter.integrations.llamaindex import tool_retriever

    agent = FunctionAgent(tool_retriever=tool_retriever(router, k=3), llm=llm)

:class:`RouterNodeRetriever` (a ``BaseRetriever``) alone gives the ranked routes as nodes
(text: the tool description; metadata: route id, tool name, score), for a query engine.

Needs ``pip install -e '.[llamaindex]'`` in the checkout (``llama-index-core``): importing this
module without it raises a MissingDependencyError that names the extra (nothing else in
SchemaRouter imports this module).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from schemarouter.contracts import Effect, Route
from schemarouter.errors import ArgumentError, MissingDependencyError, SchemaRouterError
from schemarouter.integrations.definitions import describe, tool_input_schema
from schemarouter.integrations.names import input_keys, keyed_schema, route_arguments, tool_name
from schemarouter.integrations.search import call_payload, search_state
from schemarouter.integrations.wording import agent_error
from schemarouter.retrieval.results import candidate_from_route
from schemarouter.retrieval.state import ExecutionState

__all__ = ["RouterNodeRetriever", "route_tool", "tool_retriever"]

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.objects.base import ObjectRetriever
    from llama_index.core.objects.base_node_mapping import BaseObjectNodeMapping
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from llama_index.core.tools.types import AsyncBaseTool, ToolMetadata, ToolOutput
except ImportError as _missing:  # pragma: no cover - exercised without the extra
    raise MissingDependencyError(
        "llama-index-core", extra="llamaindex", purpose="LlamaIndex tool retrieval"
    ) from _missing


def _schema_model(parameters: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model whose JSON Schema is ``parameters``: what ``ToolMetadata.fn_schema``
    must be for LlamaIndex code that reads it (``convert_tool_to_node``, the LangChain
    bridge); without one it is LlamaIndex's default, a lone ``input`` string."""

    class RouteArguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(parameters)

    return RouteArguments


class _Metadata(ToolMetadata):
    """Tool metadata whose parameters are the route's (pruned) JSON Schema."""

    def __init__(self, *, name: str, description: str, parameters: dict[str, Any]) -> None:
        super().__init__(description=description, name=name, fn_schema=_schema_model(parameters))
        self.parameters = parameters

    def get_parameters_dict(self) -> dict[str, Any]:
        return dict(self.parameters)


class RouteTool(AsyncBaseTool):
    """One registered route as a LlamaIndex tool: ``call`` / ``acall`` run it through
    ``router.call`` / ``router.acall``; a refusal or failure is an error output."""

    def __init__(self, router: Any, route: Route, **call_options: Any) -> None:
        candidate = candidate_from_route(route, rank=0, score=0.0)
        self.router = router
        self.route_id = route.route_id
        self.route_fingerprint = route.fingerprint
        self.call_options = call_options
        self.name = tool_name(route.route_id, snapshot=router.snapshot())
        # a parameter the model APIs cannot take as a key (``page[size]``) under one they
        # can (``page_size``), mapped back for the call
        self._keys = input_keys(candidate.input_schema)
        self._metadata = _Metadata(
            name=self.name,
            description=describe(candidate),
            parameters=keyed_schema(tool_input_schema(candidate), self._keys),
        )

    @property
    def metadata(self) -> Any:
        return self._metadata

    def _output(self, arguments: dict[str, Any], result: Any) -> Any:
        if isinstance(result, SchemaRouterError):  # worded for the model (wording.py)
            content, error = (
                agent_error(result, names={self.route_id: self.name}, keys=self._keys),
                True,
            )
        else:
            payload = call_payload(result, snapshot=self.router.snapshot())
            content = json.dumps(payload, ensure_ascii=False, default=str)
            error = not result.ok
        return ToolOutput(
            content=content,
            tool_name=self.name,
            raw_input={"kwargs": arguments},
            raw_output=result,
            is_error=error,
        )

    def _arguments(self, args: tuple[Any, ...], arguments: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments: the keywords, or what one positional value stands for.

        LlamaIndex's own ``call_tool`` / ``acall_tool`` (``predict_and_call``) pass the lone
        argument of a one-property tool positionally, as ``FunctionTool`` takes it: so for
        a tool with one property a lone value is that property's, and so is a lone dict
        where the property takes an object (a request body) and the dict's keys are not
        just that property's name. Otherwise a lone dict is the arguments by name."""
        if not args:
            return arguments
        if len(args) > 1 or arguments:
            raise ArgumentError(
                f"tool {self.name!r} takes its arguments by name, or one value",
                where=f"{self.name}.call",
                hint="Pass keywords (tool.call(city='Paris')) or one dict of them",
            )
        (value,) = args
        properties = self._metadata.parameters.get("properties") or {}
        if len(properties) == 1:
            ((only, schema),) = properties.items()
            if not isinstance(value, dict):
                return {only: value}
            if set(value) != {only} and _takes_object(schema):
                return {only: value}
        if isinstance(value, dict):
            return dict(value)
        raise ArgumentError(
            f"tool {self.name!r} has {len(properties)} parameters: a lone "
            f"{type(value).__name__} names none of them",
            where=f"{self.name}.call",
            hint="Pass the arguments by name (keywords), or one dict of them",
        )

    # ``self`` is positional only: a route may have a parameter named ``self``
    def call(self, /, *args: Any, **arguments: Any) -> Any:
        arguments = self._arguments(args, arguments)
        try:
            sent = route_arguments(arguments, self._keys, tool=self.name)
            result: Any = self.router.call(self.route_id, sent, **self.call_options)
        except SchemaRouterError as exc:
            result = exc
        return self._output(arguments, result)

    async def acall(self, /, *args: Any, **arguments: Any) -> Any:
        arguments = self._arguments(args, arguments)
        try:
            sent = route_arguments(arguments, self._keys, tool=self.name)
            result: Any = await self.router.acall(self.route_id, sent, **self.call_options)
        except SchemaRouterError as exc:
            result = exc
        return self._output(arguments, result)


def _takes_object(schema: Any) -> bool:
    """Whether a property of this (pruned) schema may be an object."""
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    if kind is not None:
        return kind == "object" or (isinstance(kind, list) and "object" in kind)
    alternatives = [s for key in ("anyOf", "oneOf") for s in schema.get(key) or ()]
    if alternatives:
        return any(_takes_object(s) for s in alternatives)
    return "enum" not in schema and "const" not in schema


def route_tool(router: Any, route: Route, **call_options: Any) -> RouteTool:
    """One route as a LlamaIndex tool (see :class:`RouteTool`)."""
    return RouteTool(router, route, **call_options)


class RouterNodeRetriever(BaseRetriever):
    """``router.retrieve`` as a LlamaIndex retriever of nodes, one per route."""

    def __init__(
        self,
        router: Any,
        *,
        k: int = 5,
        executable_only: bool = True,
        allow_effects: Iterable[Effect | str] = (Effect.READ,),
        credentials: Any = None,
    ) -> None:
        super().__init__()
        if k < 1:
            raise ValueError("k must be at least 1")
        self.router = router
        self.k = k
        self.executable_only = executable_only
        self.state = ExecutionState(allowed_effects=frozenset(Effect(e) for e in allow_effects))
        #: the ``CredentialProvider`` the tools call with (``None``: the environment, as
        #: ``router.call`` reads it): a route whose credentials it lacks is not offered
        self.credentials = credentials

    def _state(self) -> ExecutionState:
        """:attr:`state` with the credentials supplied now (where it names none itself)."""
        if self.state.credentials is not None:
            return self.state
        now = search_state(
            self.router, allow_effects=self.state.allowed_effects, credentials=self.credentials
        )
        return self.state.model_copy(update={"credentials": now.credentials})

    def _nodes(self, found: Any) -> list[Any]:
        snapshot = self.router.snapshot()
        return [
            NodeWithScore(
                node=TextNode(
                    id_=c.route_id,
                    text=describe(c),
                    metadata={
                        "route_id": c.route_id,
                        "tool_name": tool_name(c.route_id, snapshot=snapshot),
                    },
                ),
                score=c.score,
            )
            for c in found.candidates
        ]

    def _retrieve(self, query_bundle: QueryBundle) -> list[Any]:
        query = query_bundle.query_str
        if self.executable_only:
            state = self._state()
            return self._nodes(self.router.retrieve_executable(query, k=self.k, state=state))
        return self._nodes(self.router.retrieve(query, k=self.k))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[Any]:
        query = query_bundle.query_str
        if self.executable_only:
            found = await self.router.aretrieve_executable(query, k=self.k, state=self._state())
        else:
            found = await self.router.aretrieve(query, k=self.k)
        return self._nodes(found)


class _RouteToolMapping(BaseObjectNodeMapping["RouteTool"]):
    """Nodes of :class:`RouterNodeRetriever` -> :class:`RouteTool` objects (made on demand,
    from the registry snapshot current at retrieval)."""

    def __init__(self, router: Any, **call_options: Any) -> None:
        self.router = router
        self.call_options = call_options
        self._tools: dict[str, RouteTool] = {}

    @classmethod
    def from_objects(cls, objs: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the mapping is made from a router: tool_retriever(router)")

    @property
    def obj_node_mapping(self) -> dict[str, RouteTool]:
        return self._tools

    def _add_object(self, obj: Any) -> None:
        self._tools[obj.route_id] = obj

    def to_node(self, obj: Any) -> Any:
        return TextNode(id_=obj.route_id, text=obj.metadata.description)

    def _from_node(self, node: Any) -> RouteTool:
        route = self.router.snapshot().route(node.node_id)
        cached = self._tools.get(route.route_id)
        if cached is None or cached.route_fingerprint != route.fingerprint:
            cached = RouteTool(self.router, route, **self.call_options)
            self._tools[route.route_id] = cached
        return cached

    def persist(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("nothing to persist: the router holds the registry")

    @classmethod
    def from_persist_dir(cls, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("nothing to persist: the router holds the registry")


def tool_retriever(
    router: Any,
    *,
    k: int = 5,
    executable_only: bool = True,
    **call_options: Any,
) -> Any:
    """An ``ObjectRetriever`` of tools for a LlamaIndex agent (``tool_retriever=``):
    the ``k`` best routes for each request, as tools that run through ``router.call``.
    ``call_options`` go to ``router.call``; an ``allow_effects`` among them also lets
    retrieval offer routes with those effects (a write or destructive one only beside an
    ``approve`` callback: without one its every call is refused), and retrieval offers only
    routes whose credentials their ``credentials`` (default: the environment) supplies."""
    effects = call_options.get("allow_effects", (Effect.READ,))
    if call_options.get("approve") is None:  # router.call refuses every other effect
        effects = [e for e in effects if Effect(e) is Effect.READ]
    retriever = RouterNodeRetriever(
        router,
        k=k,
        executable_only=executable_only,
        allow_effects=effects,
        credentials=call_options.get("credentials"),
    )
    return ObjectRetriever(
        retriever=retriever, object_node_mapping=_RouteToolMapping(router, **call_options)
    )
