"""A LlamaIndex tool retriever offers a write tool only where its calls can run.

Trial T7: ``tool_retriever(router, allow_effects=["read", "write"])`` with no ``approve``
offered ``create_alert`` first for "create a weather alert", and every call of it came back
"needs an approval callback": the agent was handed a tool that could never run. Without an
``approve`` callback the retriever now offers reads only (what its calls can run); with
one, the write tool is offered and runs.
"""

from __future__ import annotations

import json

from schemarouter.integrations.llamaindex import tool_retriever

from servers.loopback import LoopbackServer
from servers.user_api import ALERT, weather_router

QUERY = "create a weather alert for a city"


def test_a_write_tool_is_offered_only_with_an_approval(weather: LoopbackServer) -> None:
    router = weather_router(weather.base_url)
    unapproved = tool_retriever(router, k=3, allow_effects=["read", "write"])
    offered = [tool.metadata.name for tool in unapproved.retrieve(QUERY)]
    assert offered and all(name != "weather__rest__create_alert" for name in offered)

    approved = tool_retriever(
        router, k=3, allow_effects=["read", "write"], approve=lambda route, arguments: True
    )
    tools = {tool.route_id: tool for tool in approved.retrieve(QUERY)}
    assert ALERT in tools
    output = tools[ALERT].call(body={"city": "Nice", "message": "storm"})
    assert not output.is_error and json.loads(output.content)["status"] == "ok"
