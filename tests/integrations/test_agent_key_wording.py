"""Refusals a model reads name its arguments by the keys its tool definition gave them.

Trial T7: a parameter the model APIs refuse as a key (``page[size]``) is offered as
``page_size``; a call that broke its schema came back to the agent as
``(at tool shop__rest__list_products arguments $['page[size]'])`` and an unknown argument as
``Registered parameters: $filter, filter, filter[name], page[size], sort``: keys its tool
definition never had. The Anthropic / OpenAI tool results and the LangChain and LlamaIndex
tools now say ``$.page_size`` and list the keys the model was given.
"""

from __future__ import annotations

import json

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder
from schemarouter.integrations import (
    anthropic_tool_result,
    call_tool,
    deferred_tools,
    openai_function_call_output,
    tool_name,
)

from servers.loopback import LoopbackServer
from servers.user_api import SHOP_LIST, shop_app, shop_openapi

OWN = ("page[size]", "filter[name]", "$filter")
KEYS = "Registered parameters: filter, filter_, filter_name, page_size, sort"


def _texts(router: SchemaRouter, arguments: dict[str, object]) -> list[str]:
    """What the agent reads of a refused call, through each rendering of an error."""
    from schemarouter.integrations import langgraph, llamaindex

    name = tool_name(SHOP_LIST)
    with pytest.raises(SchemaRouterError) as refused:
        call_tool(router, name, arguments)
    snapshot = router.snapshot()
    texts = [
        str(anthropic_tool_result("t1", refused.value, snapshot=snapshot)["content"]),
        openai_function_call_output("c1", refused.value, snapshot=snapshot)["output"],
    ]
    route = snapshot.route(SHOP_LIST)
    lc = langgraph.route_tool(router, route)
    lc.handle_tool_error = True
    texts.append(str(lc.invoke(arguments)))
    li = llamaindex.route_tool(router, route).call(**arguments)
    assert li.is_error
    texts.append(str(li.content))
    return texts


def test_refusals_name_the_keys_the_model_was_given() -> None:
    with LoopbackServer(shop_app) as shop:
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(shop_openapi(shop.base_url), provider="shop")
        (tool,) = deferred_tools(router.snapshot(), "anthropic")
        offered = set(tool["input_schema"]["properties"])
        assert {"page_size", "filter_name", "filter_"} <= offered

        for text in _texts(router, {"page_size": "three"}):
            assert "$.page_size" in text, text
            assert not any(own in text for own in OWN), text
        for text in _texts(router, {"filter_": 5}):
            assert "$.filter_" in text, text
            assert not any(own in text for own in OWN), text
        for text in _texts(router, {"limit": 3}):
            assert KEYS in text, text
            assert not any(own in text for own in OWN), text
        assert shop.requests == []  # nothing was sent

        # a Python caller keeps the route's own names
        with pytest.raises(SchemaRouterError, match=r"\$\['page\[size\]'\]"):
            router.call(SHOP_LIST, {"page_size": "three"})
    assert json.dumps(tool)  # the definition itself is plain JSON
