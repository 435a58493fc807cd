"""The framework hooks with the real packages: a langgraph-bigtool agent graph and a
LlamaIndex FunctionAgent, each retrieving its tools from SchemaRouter and calling a user's
OpenAPI route served on loopback. Only the chat model is scripted (no model runs here):
langchain-core's GenericFakeChatModel and LlamaIndex's MockFunctionCallingLLM.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage

with warnings.catch_warnings():
    # langgraph-bigtool 0.0.3 needs langgraph-prebuilt < 1.0.2 (ToolNode.inject_tool_args),
    # whose own imports warn about its deprecated names: theirs, not ours
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    from langgraph_bigtool import create_agent
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.objects import ObjectRetriever
from pydantic import Field

from schemarouter import SchemaRouter
from schemarouter.integrations.langgraph import bigtool_registry, bigtool_retrievers
from schemarouter.integrations.llamaindex import RouterNodeRetriever, tool_retriever
from schemarouter.integrations.names import tool_name

from servers.loopback import LoopbackServer
from servers.user_api import (
    ALERT,
    FORECAST,
    SHOP_LIST,
    STATION,
    secured_weather_openapi,
    shop_app,
    shop_openapi,
    weather_router,
)

FORECAST_TOOL = tool_name(FORECAST)
pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning:langgraph",
    "ignore::PendingDeprecationWarning:langgraph",
)


@pytest.fixture
def router(weather: LoopbackServer) -> SchemaRouter:
    return weather_router(weather.base_url)


def test_parameters_named_like_a_frameworks_hooks_reach_the_route() -> None:
    """A route parameter named ``config`` was dropped by LangChain (its RunnableConfig) and
    one named ``self`` raised a TypeError in both frameworks (a user trial)."""
    from schemarouter.integrations import langgraph, llamaindex

    seen: list[dict[str, Any]] = []

    def deploy(self: str, config: str, args: str = "") -> dict[str, str]:
        """Deploy a service with a configuration."""
        seen.append({"self": self, "config": config, "args": args})
        return {"status": "ok"}

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_callable(deploy, provider="ops")
    route = router.snapshot().route("ops/python/deploy")
    lc = langgraph.route_tool(router, route, allow_effects={"read", "write"}, approve=_yes)
    assert set(lc.args) == {"self_", "config_", "args"}
    lc.invoke({"self_": "web", "config_": "prod", "args": "-v"})
    asyncio.run(lc.ainvoke({"self_": "api", "config_": "dev"}))
    li = llamaindex.route_tool(router, route, allow_effects={"read", "write"}, approve=_yes)
    assert not li.call(self="db", config="test").is_error  # keywords as LlamaIndex passes them
    assert seen == [
        {"self": "web", "config": "prod", "args": "-v"},
        {"self": "api", "config": "dev", "args": ""},
        {"self": "db", "config": "test", "args": ""},
    ]


def _yes(route: Any, arguments: Any) -> bool:
    return True


# -- langgraph-bigtool -----------------------------------------------------------------------


class ScriptedModel(GenericFakeChatModel):
    """Plays the scripted messages; records the tool names bound before each turn."""

    bound: list[list[str]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound.append([t.name for t in tools])
        return self


def _script() -> Iterator[AIMessage]:
    yield AIMessage(
        content="",
        tool_calls=[
            {"name": "retrieve_tools", "args": {"query": "daily weather forecast"}, "id": "c1"}
        ],
    )
    yield AIMessage(
        content="",
        tool_calls=[{"name": FORECAST_TOOL, "args": {"city": "Paris", "days": 1}, "id": "c2"}],
    )
    yield AIMessage(content="Paris: 30.5")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bigtool_agent_retrieves_and_calls(router: SchemaRouter, mode: str) -> None:
    registry = bigtool_registry(router)
    assert set(registry) == {tool_name(r) for r in router.snapshot().route_ids()}
    retrieve, aretrieve = bigtool_retrievers(router, k=2)
    assert retrieve("daily weather forecast")[0] == FORECAST_TOOL
    assert asyncio.run(aretrieve("daily weather forecast"))[0] == FORECAST_TOOL
    llm = ScriptedModel(messages=_script())
    agent = create_agent(
        llm, registry, retrieve_tools_function=retrieve, retrieve_tools_coroutine=aretrieve
    ).compile()
    request = {"messages": [("user", "What is the forecast for Paris?")]}
    state = agent.invoke(request) if mode == "sync" else asyncio.run(agent.ainvoke(request))
    assert FORECAST_TOOL in state["selected_tool_ids"]
    assert FORECAST_TOOL not in llm.bound[0] and FORECAST_TOOL in llm.bound[1]
    answer = next(
        m for m in state["messages"] if isinstance(m, ToolMessage) and m.name == FORECAST_TOOL
    )
    payload = json.loads(answer.content)
    assert payload["route_id"] == FORECAST and payload["output"]["city"] == "Paris"
    assert state["messages"][-1].content == "Paris: 30.5"


def test_bigtool_tools_report_refusals_to_the_model(router: SchemaRouter) -> None:
    tool = bigtool_registry(router, routes=[ALERT])[tool_name(ALERT)]
    text = tool.invoke({"body": {"city": "Nice", "message": "storm"}})
    assert "[SR500]" in text and "effect write" in text  # a read-only agent cannot write
    allowed = bigtool_registry(
        router, routes=[ALERT], allow_effects={"read", "write"}, approve=lambda r, a: True
    )[tool_name(ALERT)]
    assert (
        json.loads(allowed.invoke({"body": {"city": "Nice", "message": "storm"}}))["status"] == "ok"
    )


def test_bigtool_retrievers_offer_only_the_registrys_tools(router: SchemaRouter) -> None:
    """A registry of some routes (``routes=``, or built before more were registered) beside
    retrievers over the whole router: the agent looked up every retrieved id in the
    registry and crashed with a KeyError on the first one it lacked (a user trial). With
    ``registry=`` the retrievers offer only its tools, still ``k`` of them where it has."""
    registry = bigtool_registry(router, routes=[STATION])
    retrieve, aretrieve = bigtool_retrievers(router, k=2, registry=registry)
    assert retrieve("daily weather forecast") == [tool_name(STATION)]
    assert asyncio.run(aretrieve("daily weather forecast")) == [tool_name(STATION)]
    loose, _ = bigtool_retrievers(router, k=2, executable_only=False, registry=registry)
    assert loose("daily weather forecast") == [tool_name(STATION)]
    script = iter(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "retrieve_tools",
                        "args": {"query": "daily weather forecast"},
                        "id": "c1",
                    }
                ],
            ),
            AIMessage(content="done"),
        ]
    )
    agent = create_agent(
        ScriptedModel(messages=script),
        registry,
        retrieve_tools_function=retrieve,
        retrieve_tools_coroutine=aretrieve,
    ).compile()
    state = agent.invoke({"messages": [("user", "What is the forecast for Paris?")]})
    assert state["selected_tool_ids"] == [tool_name(STATION)]
    full = bigtool_registry(router)
    both, _ = bigtool_retrievers(router, k=2, registry=full)
    plain, _ = bigtool_retrievers(router, k=2)
    assert both("daily weather forecast") == plain("daily weather forecast")


# -- LlamaIndex ------------------------------------------------------------------------------


def test_object_retriever_gives_tools_that_run(router: SchemaRouter) -> None:
    retriever = tool_retriever(router, k=2)
    assert isinstance(retriever, ObjectRetriever)
    tools = retriever.retrieve("daily weather forecast")
    assert tools[0].metadata.name == FORECAST_TOOL
    assert tools[0].metadata.get_parameters_dict()["required"] == ["city"]
    output = tools[0].call(city="Paris", days=1)
    assert not output.is_error and json.loads(output.content)["output"]["city"] == "Paris"
    failed = tools[0].call(days=1)
    assert failed.is_error and "city" in failed.content
    nodes = RouterNodeRetriever(router, k=1).retrieve("daily weather forecast")
    assert nodes[0].node.metadata == {"route_id": FORECAST, "tool_name": FORECAST_TOOL}


# llama-index's workflow inspects its agent's members, pydantic's deprecated ones too
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")
def test_function_agent_uses_the_retrieved_tools(router: SchemaRouter) -> None:
    offered: list[list[str]] = []

    def respond(messages: Any, **kwargs: Any) -> ChatMessage:
        tools = kwargs.get("tools") or []
        offered.append([t.metadata.name for t in tools])
        results = [m for m in messages if m.role == MessageRole.TOOL]
        if results:
            return ChatMessage(role=MessageRole.ASSISTANT, content=f"done: {results[-1].content}")
        call = ToolCallBlock(
            tool_call_id="c1", tool_name=tools[0].metadata.name, tool_kwargs={"city": "Paris"}
        )
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])

    agent = FunctionAgent(
        tool_retriever=tool_retriever(router, k=2),
        llm=MockFunctionCallingLLM(response_generator=respond),
    )

    async def run() -> Any:
        return await agent.run(user_msg="What is the daily weather forecast for Paris?")

    result = asyncio.run(run())
    assert offered[0][0] == FORECAST_TOOL
    assert '"city": "Paris"' in str(result) or '"city":"Paris"' in str(result)
    (call,) = result.tool_calls
    assert call.tool_name == FORECAST_TOOL and not call.tool_output.is_error


def test_llamaindex_helpers_pass_a_lone_argument_positionally(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """Trial T #1: LlamaIndex's own ``call_tool`` / ``acall_tool`` (what
    ``predict_and_call`` runs) pass the one argument of a one-property tool positionally;
    RouteTool dropped it and called the route with ``{}``, and the model was told to send
    the ``station_id`` it had sent. A lone value is that property's now, and a lone dict is
    the value of a property that takes an object (a request body)."""
    from llama_index.core.tools.calling import acall_tool, call_tool

    from schemarouter.integrations import llamaindex

    snapshot = router.snapshot()
    station = llamaindex.route_tool(router, snapshot.route(STATION))
    assert list(station.metadata.get_parameters_dict()["properties"]) == ["station_id"]
    for output in (
        call_tool(station, {"station_id": "LFPO"}),
        asyncio.run(acall_tool(station, {"station_id": "LFPB"})),
    ):
        assert not output.is_error, output.content
    assert [r.path for r in weather.requests[-2:]] == ["/stations/LFPO", "/stations/LFPB"]

    def pick(messages: Any, **kwargs: Any) -> ChatMessage:
        call = ToolCallBlock(
            tool_call_id="c1", tool_name=station.metadata.name, tool_kwargs={"station_id": "LFPG"}
        )
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])

    llm = MockFunctionCallingLLM(response_generator=pick)
    answer = llm.predict_and_call([station], "Which station is LFPG?")
    assert json.loads(answer.sources[0].content)["output"]["id"] == "LFPG"

    alert = llamaindex.route_tool(
        router, snapshot.route(ALERT), allow_effects={"read", "write"}, approve=_yes
    )
    body = {"city": "Nice", "message": "storm"}
    seen = len(weather.app.alerts)  # type: ignore[attr-defined]
    assert not call_tool(alert, {"body": body}).is_error  # alert(body): the body itself
    assert not alert.call({"body": body}).is_error  # the arguments as one dict, as before
    assert weather.app.alerts[seen:] == [body, body]  # type: ignore[attr-defined]
    with pytest.raises(TypeError):  # a value for a tool of several parameters names none
        llamaindex.route_tool(router, snapshot.route(FORECAST)).call("Paris")


def test_framework_tools_offer_keys_the_model_apis_take() -> None:
    """Trial T #2, for the framework tools: their schemas go to the same APIs (a LangChain
    chat model's ``bind_tools``, a LlamaIndex LLM's tool list), so a parameter the APIs
    refuse as a key (``page[size]``, ``$filter``, a name in another script) is offered under
    one they take, and the call sends the parameter's own name."""
    from schemarouter.integrations import PROPERTY_KEY_PATTERN, langgraph, llamaindex

    with LoopbackServer(shop_app) as shop:
        router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
        router.add_openapi(shop_openapi(shop.base_url), provider="shop")
        route = router.snapshot().route(SHOP_LIST)
        keys = ["page_size", "filter_name", "filter_", "filter", "sort"]
        lc = langgraph.route_tool(router, route)
        assert list(lc.args) == keys
        json.loads(lc.invoke({"page_size": 3, "filter_": "price lt 10"}))
        li = llamaindex.route_tool(router, route)
        assert list(li.metadata.get_parameters_dict()["properties"]) == keys
        assert not li.call(filter_name="lamp", sort="name").is_error
        assert not asyncio.run(li.acall(page_size=4)).is_error
        assert [r.query for r in shop.requests] == [
            {"page[size]": ["3"], "$filter": ["price lt 10"]},
            {"filter[name]": ["lamp"], "sort": ["name"]},
            {"page[size]": ["4"]},
        ]

    def tag(名字: str) -> dict[str, str]:
        """Tag a note with a name."""
        return {"tagged": 名字}

    router.add_callable(tag, provider="notes")
    route = router.snapshot().route("notes/python/tag")
    (key,) = llamaindex.route_tool(router, route).metadata.get_parameters_dict()["properties"]
    assert PROPERTY_KEY_PATTERN.match(key)
    lc = langgraph.route_tool(router, route)
    assert lc.args[key]["description"].startswith("名字")  # the name the key stands for
    assert json.loads(lc.invoke({key: "x"}))["output"] == {"tagged": "x"}


def test_framework_tools_word_refusals_for_the_model(router: SchemaRouter) -> None:
    """Trial T #4, for the framework tools: a refusal the agent reads (LangChain's
    ``ToolException`` text, LlamaIndex's error output) said "Pass allow_effects=[...] and an
    approve callback" of ``weather/rest/create_alert``; it names the tool and what the model
    can do now."""
    from schemarouter.integrations import llamaindex

    body = {"body": {"city": "Nice", "message": "storm"}}
    name = tool_name(ALERT)
    said = bigtool_registry(router, routes=[ALERT])[name].invoke(body)
    output = llamaindex.route_tool(router, router.snapshot().route(ALERT)).call(**body)
    assert output.is_error
    for text in (said, output.content):
        assert "[SR500]" in text and "effect write" in text and name in text
        assert ALERT not in text and "allow_effects" not in text and "approve" not in text
        assert "The host does not let this tool run here" in text


def test_a_failing_approval_callback_is_worded_for_the_model(router: SchemaRouter) -> None:
    """A host's approve callback that raised (one taking the wrong arguments) reached the
    model as "The callback is called as approve(route, arguments) and returns True or
    False ...": a Python instruction it cannot act on (a user trial). It reads that the
    host's approval failed, and nothing was sent."""
    from schemarouter.integrations import llamaindex

    def approve(route: Any) -> bool:  # the host's mistake: one parameter
        return True

    body = {"body": {"city": "Nice", "message": "storm"}}
    options: dict[str, Any] = {"allow_effects": {"read", "write"}, "approve": approve}
    said = bigtool_registry(router, routes=[ALERT], **options)[tool_name(ALERT)].invoke(body)
    route = router.snapshot().route(ALERT)
    output = llamaindex.route_tool(router, route, **options).call(**body)
    assert output.is_error
    for text in (said, output.content):
        assert "[SR500]" in text and "approval callback failed" in text
        assert "approve(route, arguments)" not in text and "copy them" not in text
        assert "The host's approval of it failed: tell the user" in text


def test_llamaindex_tool_fn_schema_is_the_routes(router: SchemaRouter) -> None:
    """A RouteTool's ``metadata.fn_schema`` was LlamaIndex's default, a lone ``input``
    string, while its parameters were the route's: LlamaIndex code that reads fn_schema
    (``convert_tool_to_node`` when a user indexes the tools in an ``ObjectIndex``, the
    LangChain bridge, ``MockFunctionCallingLLM``) described the tool wrongly (a user
    trial). Now both give the route's schema."""
    from llama_index.core.objects.tool_node_mapping import convert_tool_to_node

    from schemarouter.integrations import llamaindex

    tool = llamaindex.route_tool(router, router.snapshot().route(FORECAST))
    parameters = tool.metadata.get_parameters_dict()
    assert "city" in parameters["properties"]
    assert tool.metadata.fn_schema.model_json_schema() == parameters
    assert json.loads(tool.metadata.fn_schema_str) == parameters
    text = convert_tool_to_node(tool).get_content()
    assert "'city'" in text and "'input'" not in text
    assert not tool.call(city="Paris", days=1).is_error


def test_framework_retrievers_offer_only_tools_whose_credentials_are_here(
    weather: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial T #6, for ``bigtool_retrievers`` and ``tool_retriever``: a tool whose credential
    the calls will not have (not in the environment, nor in the ``credentials`` given) is
    not offered; given them, it is, and its call sends them."""
    from schemarouter import MappingCredentials

    monkeypatch.delenv("WEATHER_API_KEY", raising=False)
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(secured_weather_openapi(weather.base_url), provider="weather")
    query = "weather station by its id"
    keys = MappingCredentials({"WEATHER_API_KEY": "k-3"})
    retrieve, aretrieve = bigtool_retrievers(router, k=2)
    assert tool_name(STATION) not in retrieve(query)
    assert tool_name(STATION) not in asyncio.run(aretrieve(query))
    retrieve, _ = bigtool_retrievers(router, k=2, credentials=keys)
    assert retrieve(query)[0] == tool_name(STATION)
    assert STATION not in [t.route_id for t in tool_retriever(router, k=2).retrieve(query)]
    tools = tool_retriever(router, k=2, credentials=keys).retrieve(query)
    assert tools[0].route_id == STATION
    assert not tools[0].call(station_id="LFPG").is_error
    assert weather.requests[-1].query["appid"] == ["k-3"]


def test_bigtool_retrievers_pass_over_a_registrys_write_tools_that_cannot_run(
    router: SchemaRouter,
) -> None:
    """Trial T7 (medium, reported last stop): ``bigtool_retrievers(allow_effects=["read",
    "write"])`` offered a write tool of a registry built without ``approve``: every call of
    it was refused ("needs an approval callback"), a tool the agent could never use. Given
    the registry, the retrievers read which of its tools can run; with an approve callback
    the write tool is offered as before."""
    query = "create a weather alert for Nice"
    both = ["read", "write"]
    unapproved = bigtool_registry(router, allow_effects=both)
    retrieve, aretrieve = bigtool_retrievers(router, k=3, allow_effects=both, registry=unapproved)
    assert tool_name(ALERT) not in retrieve(query)
    assert tool_name(ALERT) not in asyncio.run(aretrieve(query))
    approved = bigtool_registry(router, allow_effects=both, approve=lambda r, a: True)
    retrieve, _ = bigtool_retrievers(router, k=3, allow_effects=both, registry=approved)
    assert tool_name(ALERT) in retrieve(query)
    loose, _ = bigtool_retrievers(router, k=3, executable_only=False, registry=unapproved)
    assert tool_name(ALERT) not in loose(query)
    assert unapproved[tool_name(ALERT)].metadata["schemarouter"]["runs"] is False
    assert approved[tool_name(ALERT)].metadata["schemarouter"]["runs"] is True
