"""What an agent reads of a removed tool's call, or of arguments that are not an object.

Trial T7: a tool removed after it was offered (a LangChain / LlamaIndex tool of the agent, a
tool name an earlier ``result.tools()`` mapped back) came back to the agent as "... retrieve
again for the routes that serve the request now (at registry version 2). Call a route id that
retrieve() returned (a tool name maps back with ToolSet.route_id(name))", and arguments sent
as a JSON string as "(at call weather/rest/get_forecast arguments $). Pass the arguments as a
dict of parameter name -> value": Python calls and route ids a model cannot use. They are
worded for the model now, the tool by its tool name; a Python caller's text is unchanged.
"""

from __future__ import annotations

import pytest

from schemarouter.errors import SchemaRouterError
from schemarouter.integrations import anthropic_tool_result, call_tool, tool_name

from servers.loopback import LoopbackServer
from servers.user_api import FORECAST, weather_router

PYTHON = ("retrieve()", "ToolSet", "route_id(", "retrieve again", "dict of", FORECAST)


def test_removed_tools_and_non_object_arguments_are_worded_for_the_model(
    weather: LoopbackServer,
) -> None:
    from schemarouter.integrations import langgraph, llamaindex

    router = weather_router(weather.base_url)
    route = router.snapshot().route(FORECAST)
    name = tool_name(FORECAST)
    lc = langgraph.route_tool(router, route)
    lc.handle_tool_error = True
    li = llamaindex.route_tool(router, route)

    with pytest.raises(SchemaRouterError) as not_an_object:
        call_tool(router, name, '{"city": "Paris"}')  # type: ignore[arg-type]
    text = str(
        anthropic_tool_result("t0", not_an_object.value, snapshot=router.snapshot())["content"]
    )
    assert f"tool {name}" in text and "JSON object" in text, text
    assert not any(word in text for word in PYTHON), text

    router.remove_routes([FORECAST])
    with pytest.raises(SchemaRouterError) as removed:
        router.call(FORECAST, {"city": "Paris"})
    assert "ToolSet.route_id" in str(removed.value)  # the Python caller's own words
    texts = [
        str(anthropic_tool_result("t1", removed.value, snapshot=router.snapshot())["content"]),
        str(lc.invoke({"city": "Paris"})),
        str(li.call(city="Paris").content),
    ]
    for text in texts:
        assert "was removed" in text or "removed at registry version" in text, text
        assert not any(word in text for word in PYTHON), text
    assert weather.paths() == []  # nothing reached the server


def test_an_agent_reads_of_tools_not_routes_and_no_registry_version(
    weather: LoopbackServer,
) -> None:
    """Trial T7 (low): texts an agent read still spoke of "the registered input schema",
    "route '...' is not registered" and "(at registry version 2)": the library's own parts,
    which a model can do nothing with. It reads of the tool and its input schema now; a
    Python caller's text is unchanged."""
    router = weather_router(weather.base_url)
    name = tool_name(FORECAST)
    with pytest.raises(SchemaRouterError) as wrong_type:
        call_tool(router, name, {"city": 5})
    text = str(anthropic_tool_result("t0", wrong_type.value, snapshot=router.snapshot())["content"])
    assert (
        "arguments break the tool's input schema" in text and 'Send it as the string "5"' in text
    ), text
    assert "registered input schema" in str(wrong_type.value)  # the Python caller's words

    router.remove_routes([FORECAST])
    with pytest.raises(SchemaRouterError) as removed:
        router.call(FORECAST, {"city": "Paris"})
    text = str(anthropic_tool_result("t1", removed.value, snapshot=router.snapshot())["content"])
    assert f"tool {name!r} is not registered: it was removed (" in text, text
    assert "registry version" not in text and "route" not in text, text
    assert "at registry version" in str(removed.value)
