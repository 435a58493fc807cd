"""Tool definitions for LLM APIs, checked against the official SDKs' own types, and the
client-side tool-search loops of both APIs run with the real SDK clients over loopback.

``anthropic`` and ``openai`` are dev dependencies; their TypedDicts (what the SDKs accept)
validate every shape through pydantic, keys included, and their clients serialize what we
hand them to a loopback stand-in of each API (tests/servers/llm_apis.py).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, get_type_hints

import anthropic
import mcp.types
import openai
import pytest
from anthropic.types import (
    TextBlockParam,
    ToolParam,
    ToolReferenceBlockParam,
    ToolResultBlockParam,
)
from hypothesis import given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import EasyInputMessageParam, FunctionToolParam, ToolSearchToolParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from openai.types.responses.response_tool_search_output_item_param_param import (
    ResponseToolSearchOutputItemParamParam,
)
from pydantic import TypeAdapter

from schemarouter import Effect, SchemaRouter
from schemarouter.errors import GateError, ParameterValidationError, PolicyError
from schemarouter.index import HashingEncoder
from schemarouter.integrations import (
    MAX_TOOL_NAME,
    PROPERTY_KEY_PATTERN,
    TOOL_NAME_PATTERN,
    acall_tool,
    anthropic_search_result,
    anthropic_search_tool,
    anthropic_tool_result,
    call_payload,
    call_tool,
    deferred_tools,
    openai_function_call_output,
    openai_tool_search_items,
    openai_tool_search_output,
    openai_tool_search_tool,
    route_for_tool,
    search_note,
    search_state,
    tool_definitions,
    tool_name,
)
from schemarouter.retrieval.state import ExecutionState

from helpers import BUNDLED_CATALOG, REPO
from servers.llm_apis import FakeAnthropic, FakeOpenAI
from servers.loopback import LoopbackServer, json_response
from servers.user_api import (
    ALERT,
    BROKEN,
    FORECAST,
    SHOP_LIST,
    STATION,
    secured_weather_openapi,
    shop_app,
    shop_openapi,
    weather_openapi,
    weather_router,
)


def _typed(cls: Any, value: Any) -> None:
    """``value`` validates as the SDK TypedDict ``cls`` and carries no key it does not know."""
    TypeAdapter(cls).validate_python(value)
    unknown = set(value) - set(get_type_hints(cls))
    assert not unknown, f"{cls.__name__} has no keys {unknown}"


@pytest.fixture(scope="module")
def bundled() -> SchemaRouter:
    return SchemaRouter.from_catalog(
        BUNDLED_CATALOG, encoder=HashingEncoder(), embedding_cache=None, reranker=None
    )


@pytest.fixture
def router(weather: LoopbackServer) -> SchemaRouter:
    return weather_router(weather.base_url)


# -- names -----------------------------------------------------------------------------------

_PART = st.from_regex(r"[a-z0-9][a-z0-9_.\-]{0,40}", fullmatch=True)


@given(st.lists(st.tuples(_PART, _PART, _PART), min_size=1, max_size=30, unique=True))
def test_names_are_valid_and_distinct(parts: list[tuple[str, str, str]]) -> None:
    route_ids = {"/".join(p) for p in parts}
    names = {tool_name(r) for r in route_ids}
    assert len(names) == len(route_ids)
    for name in names:
        assert TOOL_NAME_PATTERN.match(name) and len(name) <= MAX_TOOL_NAME


def test_names_read_plainly_and_map_back(bundled: SchemaRouter) -> None:
    assert tool_name("materials_project/rest/summary_search") == (
        "materials_project__rest__summary_search"
    )
    dotted = tool_name("api.example/v1.2/get")
    assert TOOL_NAME_PATTERN.match(dotted) and dotted.startswith("api_example__v1_2__get_")
    snapshot = bundled.snapshot()
    for route_id in snapshot.route_ids():
        assert route_for_tool(snapshot, tool_name(route_id)) == route_id
        assert route_for_tool(snapshot, route_id) == route_id  # a route id is accepted too
    with pytest.raises(GateError, match="no registered tool") as error:
        route_for_tool(snapshot, "materials_project__rest__summary_serch")
    assert "materials_project__rest__summary_search" in str(error.value)


def test_a_few_routes_are_named_as_the_registry_names_them() -> None:
    """Two upstream tools whose route ids share their digest's first eight hex digits: the
    registry names the first ``X`` and the second ``X_<16 hex>``. A retrieval holding only the
    second named it ``X`` among its own candidates, and a call by that name ran the first (here
    a delete). Every rendering of a retrieval now uses the registry's names."""
    first, second = "x" * 60 + "0049518", "x" * 60 + "0092424"  # a 32-bit digest clash
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    listing = [
        {"name": first, "description": "Delete every record in the archive.", "inputSchema": {}},
        {"name": second, "description": "Read the current weather in Paris.", "inputSchema": {}},
    ]
    router.add_mcp_tools({"tools": listing}, provider="up")
    snapshot = router.snapshot()
    wanted = f"up/mcp/{second}"
    assert tool_name(f"up/mcp/{first}") == tool_name(wanted)  # the clash: one preferred name
    assert tool_name(wanted, snapshot=snapshot) != tool_name(wanted)  # the second's is longer
    found = router.retrieve("read the current weather in Paris", k=1)
    assert found.route_ids == (wanted,)
    for tools in (found.tools("openai"), found.tools("anthropic"), deferred_tools(snapshot)):
        for definition in tools:
            assert route_for_tool(snapshot, definition["name"]) == tools.route_id(
                definition["name"]
            )
    (reference,) = anthropic_search_result("t1", found)["content"]
    assert route_for_tool(snapshot, reference["tool_name"]) == wanted


# -- shapes, checked against the SDKs' types -------------------------------------------------


def test_every_format_validates_against_its_sdk(bundled: SchemaRouter) -> None:
    found = bundled.retrieve("Young's modulus and band gap of GaN", k=5)
    anthropic_tools = found.tools("anthropic")
    for tool in anthropic_tools:
        _typed(ToolParam, tool)
    for tool in found.tools("openai"):
        _typed(FunctionToolParam, tool)
    for tool in found.tools("openai-chat"):
        _typed(ChatCompletionFunctionToolParam, tool)
    for tool in found.tools("mcp"):
        mcp.types.Tool.model_validate(tool)
    assert [anthropic_tools.route_id(t["name"]) for t in anthropic_tools] == list(found.route_ids)
    with pytest.raises(GateError, match="not one of the tools offered"):
        anthropic_tools.route_id("nope")
    with pytest.raises(ValueError, match="unknown tool format"):
        found.tools("gemini")  # type: ignore[arg-type]


def test_definitions_are_concise_and_carry_no_registry_internals(bundled: SchemaRouter) -> None:
    found = bundled.retrieve("bulk modulus of Fe2O3 from Materials Project", k=5)
    tools = found.tools("anthropic")
    text = json.dumps(list(tools))
    assert "sha256:" not in text and "fingerprint" not in text and '"x-' not in text
    summary = next(
        t for t in tools if tools.route_id(t["name"]) == "materials_project/rest/summary_search"
    )
    properties = summary["input_schema"]["properties"]
    assert "_fields" not in properties  # the router fills the projection itself
    assert "formula" in properties
    description = summary["description"]
    assert "Materials Project" in description  # the provider
    assert "[GPa, as Pa]" in description  # units where declared, and the declared conversion
    assert "Returns:" in description and len(description) < 700
    mcp_tool = found.tools("mcp")[0]
    assert mcp_tool["annotations"]["readOnlyHint"] is True


def test_definitions_cost_a_tenth_of_the_contracts(bundled: SchemaRouter) -> None:
    """k=5 definitions against today's k=5 contracts (``result.contracts()``) for the bundled
    catalog's labelled queries, in MiniLM word pieces (the project's TokenCounter); the
    benchmark with the shipped router is training/bench/integrations.py."""
    from schemarouter.training.baselines import TokenCounter

    counter = TokenCounter()
    queries = json.loads((REPO / "data" / "queries" / "materials.json").read_text())["queries"]
    definitions = contracts = 0
    for query in queries[::4]:
        found = bundled.retrieve(query["query"], k=5)
        definitions += counter.count(_compact(list(found.tools("anthropic"))))
        contracts += counter.count(_compact(found.contracts()))
    assert contracts > 0 and definitions <= 0.10 * contracts, (definitions, contracts)


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def test_write_routes_say_so(router: SchemaRouter) -> None:
    snapshot = router.snapshot()
    (tool,) = tool_definitions([snapshot.route("weather/rest/create_alert")], "mcp")
    assert "Effect: write" in tool["description"]
    assert tool["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "title": "Create a weather alert for a city",
    }


# -- Anthropic: client-side tool search with tool_reference, through the real SDK ------------


def test_anthropic_tool_search_loop(router: SchemaRouter) -> None:
    with LoopbackServer(FakeAnthropic()) as api:
        client = anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0)
        tools = [anthropic_search_tool(), *deferred_tools(router.snapshot())]
        for tool in tools:
            _typed(ToolParam, tool)
        messages: list[Any] = [{"role": "user", "content": "weather forecast for Paris"}]
        for _ in range(4):
            reply = client.messages.create(
                model="claude-test", max_tokens=512, tools=tools, messages=messages
            )
            messages.append(
                {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
            )
            uses = [b for b in reply.content if b.type == "tool_use"]
            if not uses:
                break
            answers = []
            for use in uses:
                if use.name == "search_tools":
                    found = router.retrieve_executable(use.input["query"], k=3)
                    answer = anthropic_search_result(use.id, found)
                    for block in answer["content"]:  # references, then what was blocked
                        reference = block["type"] == "tool_reference"
                        _typed(ToolReferenceBlockParam if reference else TextBlockParam, block)
                else:
                    answer = anthropic_tool_result(use.id, call_tool(router, use.name, use.input))
                _typed(ToolResultBlockParam, answer)
                answers.append(answer)
            messages.append({"role": "user", "content": answers})
        assert reply.stop_reason == "end_turn"
        assert "Paris" in reply.content[0].text and "30.5" in reply.content[0].text
        bodies = api.app.bodies  # type: ignore[attr-defined]
        assert len(bodies) == 3
        assert all(t.get("defer_loading") for t in bodies[0]["tools"][1:])
        references = bodies[1]["messages"][-1]["content"][0]["content"]
        assert references[0] == {"type": "tool_reference", "tool_name": tool_name(FORECAST)}


def test_anthropic_results_say_why(router: SchemaRouter) -> None:
    empty = router.retrieve("anything", k=1).model_copy(
        update={"candidates": (), "abstained": True, "reason": "no route can serve it"}
    )
    answer = anthropic_search_result("toolu_1", empty)
    _typed(ToolResultBlockParam, answer)
    assert answer["content"] == "No registered tool matches the request: no route can serve it"
    refused = anthropic_tool_result("toolu_2", PolicyError("write needs approval", where="x"))
    _typed(ToolResultBlockParam, refused)
    assert refused["is_error"] is True and "[SR500]" in refused["content"]


def test_tool_search_answers_say_what_was_blocked(router: SchemaRouter) -> None:
    """Trial P §2: a search whose only match was blocked (a write, read-only state) answered
    "No registered tool matches the request." and ``tools: []``; with reads left, the
    ``blocked`` sentence was dropped. Both answers carry it now, from the retrieval or from
    its ``tools(...)``; the old call shapes still work."""
    query = "create a weather alert for Paris"
    alone = router.retrieve_state_aware(query, state=ExecutionState(), k=1)
    assert alone.route_ids == () and ALERT in alone.blocked
    # the model reads the left-out tool by its tool name (trial T #4)
    said = f"1 matching tool is not allowed: {tool_name(ALERT)} (effect write"
    answer = anthropic_search_result("toolu_1", alone)
    _typed(ToolResultBlockParam, answer)
    assert "No registered tool matches" not in answer["content"]
    assert said in answer["content"]
    for answered in (alone, alone.tools("openai")):
        output, note = openai_tool_search_items("call_1", answered)
        _typed(ResponseToolSearchOutputItemParamParam, output)
        _typed(EasyInputMessageParam, note)
        assert output["tools"] == [] and said in note["content"]
        assert "No registered tool matches" not in note["content"]
    assert openai_tool_search_output("call_1", alone)["tools"] == []  # as before

    some = router.retrieve_state_aware(query, state=ExecutionState(), k=3)
    assert some.route_ids and some.blocked == alone.blocked
    for answered in (some, some.tools("anthropic")):
        content = anthropic_search_result("toolu_2", answered)["content"]
        *references, text = content
        assert [r["tool_name"] for r in references] == [tool_name(r) for r in some.route_ids]
        assert text["type"] == "text" and said in text["text"]
    output, note = openai_tool_search_items("call_2", some.tools("openai"))
    assert len(output["tools"]) == len(some.route_ids) and said in note["content"]
    # nothing blocked: the answers are as before, references or one item only
    plain = router.retrieve("weather forecast for Paris", k=2)
    assert plain.blocked == ""
    assert all(
        b["type"] == "tool_reference" for b in anthropic_search_result("t", plain)["content"]
    )
    assert len(openai_tool_search_items("c", plain)) == 1


def test_a_call_that_is_not_ok_tells_the_model_its_issues(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """Trial P §3: a ``partial`` call's tool result showed the schema-breaking output as data
    (``status: "exploded"``) without the issues that flag it. Now the payload lists them
    (path and message) whenever the status is not ``ok``; an ``ok`` call carries none."""
    result = call_tool(router, tool_name(BROKEN), {}, partial=True)
    assert result.status == "partial" and result.issues
    payload = call_payload(result)
    assert payload["output"] == {"aqi": "moderate"}
    assert payload["issues"] == [
        {"path": i.path, "kind": i.kind, "message": i.message} for i in result.issues
    ]
    assert all(i["path"] and i["message"] for i in payload["issues"])
    for text in (
        anthropic_tool_result("toolu_1", result)["content"],
        openai_function_call_output("call_1", result)["output"],
    ):
        assert json.loads(text)["issues"] == payload["issues"]
    fine = call_tool(router, tool_name(FORECAST), {"city": "Paris"})
    assert fine.status == "ok" and "issues" not in call_payload(fine)


def test_a_tool_whose_route_was_removed_is_refused_as_removed(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """A route id of a removed route was refused as removed, but its tool name (what a model
    holds from an earlier search) only as "no registered tool is named ...", the answer to
    a typo: the model learned nothing about searching again."""
    name = tool_name(FORECAST, snapshot=router.snapshot())
    router.remove_provider("weather")
    version = router.snapshot().version
    for asked in (name, FORECAST):
        with pytest.raises(GateError) as removed:
            call_tool(router, asked, {"city": "Paris"})
        assert removed.value.what == (
            f"the tool {asked!r} ({FORECAST}) was removed at registry version {version}"
        )
        assert "Search again" in (removed.value.hint or "")
    with pytest.raises(GateError, match="no registered tool is named 'weather__rest__nowhere'"):
        call_tool(router, "weather__rest__nowhere", {})


def test_an_unknown_tool_is_offered_look_alikes_of_its_own_provider_only(
    router: SchemaRouter,
) -> None:
    """Trial G §3: ``evil__mcp__get_note`` (a tool of a server that never joined) was
    answered "Did you mean good__mcp__get_note": another server's tool offered as the fix.
    A provider's name gets that provider's look-alikes, or those of a provider spelt nearly
    so (a typo); a bare name still gets any."""
    name = tool_name(FORECAST, snapshot=router.snapshot())
    provider, rest = name.split("__", 1)
    with pytest.raises(GateError) as other:
        call_tool(router, f"evil__{rest}", {})
    assert "Did you mean" not in (other.value.hint or "")
    with pytest.raises(GateError, match=f"Did you mean {name}"):
        call_tool(router, f"{provider[:-1]}__{rest}", {})  # the provider misspelt
    with pytest.raises(GateError, match=f"Did you mean {name}"):
        call_tool(router, f"{name}s", {})
    # trial U2 (low): a name in another case was offered nothing
    with pytest.raises(GateError, match=f"Did you mean {name}"):
        call_tool(router, name.upper(), {})


# -- OpenAI: client-executed tool search with tool_search_output, through the real SDK -------


def test_openai_tool_search_loop(router: SchemaRouter) -> None:
    with LoopbackServer(FakeOpenAI()) as api:
        client = openai.OpenAI(base_url=f"{api.base_url}/v1", api_key="test-key", max_retries=0)
        search = openai_tool_search_tool()
        _typed(ToolSearchToolParam, search)
        inputs: list[Any] = [{"role": "user", "content": "weather forecast for Paris"}]
        for _ in range(4):
            response = client.responses.create(model="gpt-test", input=inputs, tools=[search])
            inputs += [item.model_dump(exclude_none=True) for item in response.output]
            calls = [i for i in response.output if i.type in ("tool_search_call", "function_call")]
            if not calls:
                break
            for item in calls:
                if item.type == "tool_search_call":
                    found = router.retrieve_executable(item.arguments["query"], k=3)
                    answer = openai_tool_search_output(item.call_id, found.tools("openai"))
                    _typed(ResponseToolSearchOutputItemParamParam, answer)
                else:
                    result = call_tool(router, item.name, json.loads(item.arguments))
                    answer = openai_function_call_output(item.call_id, result)
                    _typed(FunctionCallOutput, answer)
                inputs.append(answer)
        assert "30.5" in response.output_text
        bodies = api.app.bodies  # type: ignore[attr-defined]
        offered = bodies[1]["input"][-1]["tools"]
        assert offered[0]["name"] == tool_name(FORECAST) and offered[0]["type"] == "function"
        assert json.loads(bodies[2]["input"][-1]["output"])["output"]["city"] == "Paris"


def test_a_deprecated_operation_says_so_in_its_definition_and_the_cli_table() -> None:
    """A document's ``deprecated: true`` reached neither the tool description an agent reads
    nor the CLI's table; an agent picked it over its replacement (trial N §9)."""
    from schemarouter.cli.report import render_retrieval

    from helpers import openapi_document

    ok = {"200": {"description": "the reorder point"}}
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
    router.add_openapi(
        openapi_document(
            "Stock",
            {
                "/reorder-point": {
                    "get": {"operationId": "getReorderPoint", "deprecated": True, "responses": ok}
                },
                "/policy": {"get": {"operationId": "getReplenishmentPolicy", "responses": ok}},
            },
        )
    )
    old, new = (
        router.snapshot().route(f"stock/rest/{name}")
        for name in ("get_reorder_point", "get_replenishment_policy")
    )
    old_tool, new_tool = tool_definitions([old, new], "anthropic")
    assert "Deprecated by its provider" in old_tool["description"]
    assert "Deprecated" not in new_tool["description"]
    table = render_retrieval(router.retrieve("reorder point", k=2, abstain=False))
    line = next(x for x in table.splitlines() if "stock/rest/get_reorder_point" in x)
    assert line.rstrip().endswith("deprecated")


def test_parameters_the_apis_refuse_as_keys_are_offered_under_keys_they_take() -> None:
    """Trial T #2: JSON:API and OData query parameters (``page[size]``, ``filter[name]``,
    ``$filter``) reached ``input_schema.properties`` as they are; the Anthropic API refuses
    such a key (``^[a-zA-Z0-9_.-]{1,64}$``), and with ``deferred_tools`` every request. The
    definitions offer them under valid keys now, and a call maps the keys back: the server
    receives the parameters' own names; the route keeps them."""
    with LoopbackServer(shop_app) as shop:
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(shop_openapi(shop.base_url), provider="shop")
        registered = router.snapshot().route(SHOP_LIST).endpoint.input_schema
        assert list(registered["properties"]) == [
            "page[size]",
            "filter[name]",
            "$filter",
            "filter",
            "sort",
        ]
        keys = ["page_size", "filter_name", "filter_", "filter", "sort"]
        for format, schema_key in (("anthropic", "input_schema"), ("openai", "parameters")):
            (tool,) = deferred_tools(router.snapshot(), format)
            properties = tool[schema_key]["properties"]
            assert list(properties) == keys
            assert all(PROPERTY_KEY_PATTERN.match(key) for key in properties)
            assert properties["filter_"]["description"] == "An OData filter expression"
        _typed(ToolParam, tool_definitions(router.snapshot(), "anthropic")[0])
        chat = tool_definitions(router.snapshot(), "openai-chat")[0]["function"]["parameters"]
        assert list(chat["properties"]) == keys
        (mcp_tool,) = tool_definitions(router.snapshot(), "mcp")  # MCP takes any key
        assert list(mcp_tool["inputSchema"]["properties"]) == list(registered["properties"])

        name = tool_name(SHOP_LIST)
        sent = {"page_size": 5, "filter_name": "lamp", "filter_": "price lt 10", "filter": "mine"}
        assert call_tool(router, name, sent).ok
        asyncio.run(acall_tool(router, name, {"page_size": 7}))
        assert call_tool(router, name, {"page[size]": 9}).ok  # a Python caller's own names
        got = [request.query for request in shop.requests]
        assert got == [
            {
                "page[size]": ["5"],
                "filter[name]": ["lamp"],
                "$filter": ["price lt 10"],
                "filter": ["mine"],
            },
            {"page[size]": ["7"]},
            {"page[size]": ["9"]},
        ]
        with pytest.raises(ParameterValidationError, match="given twice"):
            call_tool(router, name, {"page_size": 1, "page[size]": 2})
        assert len(shop.requests) == 3  # nothing sent


def test_an_off_catalog_search_says_so_beside_the_closest_tools(weather: LoopbackServer) -> None:
    """Trial T #3: a request the retrieval flags off the catalog (``off_catalog``, with a
    ``reason``) still gets the closest tools (``abstain=False``, the default), and both
    search answers held them with no word of the verdict, so the model read them as
    matches. They say it now, as the gateway's ``search_tools`` does."""
    from schemarouter.retrieval.abstention import AbstentionModel

    strict = AbstentionModel(weights={"top_dense": 0.0}, bias=-5.0, threshold=0.5, card={})
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=strict, reranker=None
    )
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    found = router.retrieve_executable("book a flight to Tokyo", k=2)
    assert found.off_catalog and found.route_ids
    said = "none seems to serve the request: " + found.reason
    for answered in (found, found.tools("anthropic")):
        answer = anthropic_search_result("toolu_1", answered)
        _typed(ToolResultBlockParam, answer)
        *references, text = answer["content"]
        assert [r["tool_name"] for r in references] == [tool_name(r) for r in found.route_ids]
        assert text["type"] == "text" and said in text["text"]
    for answered in (found, found.tools("openai")):
        output, note = openai_tool_search_items("call_1", answered)
        _typed(EasyInputMessageParam, note)
        assert len(output["tools"]) == len(found.route_ids) and said in note["content"]
    assert found.tools("openai").reason == found.reason  # kept while tools are served
    assert search_note(router.retrieve("weather forecast for Paris", k=2), empty=False) == ""


#: What the host's Python code reads in the library's errors, never a model (trial T #4).
PYTHON_WORDS = ("router.", "ExecutionState", "allow_effects", "approve", "mark_healthy")


def test_what_the_model_reads_names_its_tools_and_no_python_call(router: SchemaRouter) -> None:
    """Trial T #4: tool-search notes and tool results told the model to "allow the effect
    in ExecutionState(allowed_effects=...)", "Pass allow_effects=['read', 'write'] and an
    approve callback", "reset it now with router.mark_healthy(...)", named tools by route id
    (the model knows ``weather__rest__create_alert``), and a route the host marked unhealthy
    was "cooling down after repeated failures". Both APIs' renderings say what the model
    can do now, as the gateway does (one wording: integrations/wording.py); the library's
    errors keep theirs for Python callers."""
    router.mark_unhealthy(FORECAST)
    found = router.retrieve_executable("weather forecast or alert for Paris", k=4)
    assert ALERT in found.blocked and FORECAST in found.blocked  # the host's words
    notes = [
        anthropic_search_result("toolu_1", found)["content"][-1]["text"],
        openai_tool_search_items("call_1", found.tools("openai"))[-1]["content"],
    ]
    for note in notes:
        assert tool_name(ALERT) in note and tool_name(FORECAST) in note
        assert ALERT not in note and FORECAST not in note
        assert not [w for w in PYTHON_WORDS if w in note], note
        assert "the host marked it unhealthy" in note and "the host does not let them" in note

    refusals = []
    for name, arguments in (
        (tool_name(ALERT), {"body": {"city": "Nice", "message": "storm"}}),
        (tool_name(FORECAST), {"city": "Paris"}),
    ):
        with pytest.raises(PolicyError) as refused:
            call_tool(router, name, arguments)
        assert "router." in str(refused.value) or "allow_effects" in str(refused.value)
        snapshot = router.snapshot()
        texts = [
            anthropic_tool_result("toolu_2", refused.value)["content"],
            anthropic_tool_result("toolu_2", refused.value, snapshot=snapshot)["content"],
            openai_function_call_output("call_2", refused.value)["output"],
        ]
        for text in texts:
            assert name in text and "/rest/" not in text
            assert not [w for w in PYTHON_WORDS if w in text], text
        refusals.append(texts[0])
    assert "The host does not let this tool run here" in refusals[0]
    cooling = refusals[1]
    assert "cooling down after the host marked it unhealthy" in cooling
    assert "repeated failures" not in cooling
    assert "Call again after the cooldown" in cooling


def test_the_payload_of_a_call_that_is_not_ok_is_as_documented(router: SchemaRouter) -> None:
    """Trial T #5: docs/integrations.md said a call whose status is not ``ok`` (``partial=True``
    on output that breaks the route's schema) lists its ``issues`` and its ``error``; a
    ``partial`` call has no error (its issues say what broke), only a ``failed`` one has. The
    page says which now, and the payloads are so."""
    partial = call_payload(call_tool(router, tool_name(BROKEN), {}, partial=True))
    assert partial["status"] == "partial" and partial["issues"] and "error" not in partial
    assert partial["output"] == {"aqi": "moderate"}  # the raw value stays, flagged
    with LoopbackServer(lambda request: json_response({"detail": "no such city"}, 404)) as down:
        result = weather_router(down.base_url).call(FORECAST, {"city": "Atlantis"}, partial=True)
    failed = call_payload(result)
    assert failed["status"] == "failed" and failed["output"] is None and "issues" not in failed
    assert failed["error"]["code"] == "SR602" and "HTTP 404" in failed["error"]["message"]
    assert tool_name(FORECAST) in failed["error"]["message"]  # as the model knows it
    page = " ".join((REPO / "docs" / "integrations.md").read_text(encoding="utf-8").split())
    assert "a `partial` one (output that breaks the route's schema) lists its `issues`" in page
    assert (
        "a `failed` one (the server answered with an error, or not at all) has its `error`" in page
    )
    assert "also lists its `issues` (path, kind, message) and its `error`" not in page


def test_a_tool_search_offers_only_tools_whose_credentials_are_here(
    weather: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial T #6: the documented search loop (``retrieve_executable(query, k=3)``) offered a
    tool whose credential the host lacked, and the model's call then failed ("needs
    credentials ..."); the gateway's search leaves such tools out. ``search_state(router)``
    holds the credentials the calls will have (the environment by default, as
    ``router.call`` reads it, or the provider passed), so the search leaves them out too and
    says why, by tool name."""
    from schemarouter import MappingCredentials

    monkeypatch.delenv("WEATHER_API_KEY", raising=False)
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(secured_weather_openapi(weather.base_url), provider="weather")
    query = "weather station by its id"
    assert router.retrieve_executable(query, k=2).route_ids[0] == STATION  # as before
    found = router.retrieve_executable(query, k=2, state=search_state(router))
    assert STATION not in found.route_ids
    note = search_note(found, empty=False)
    assert f"needs a credential that is missing: {tool_name(STATION)}" in note
    assert "WEATHER_API_KEY" in note

    keys = MappingCredentials({"WEATHER_API_KEY": "k-1"})
    state = search_state(router, credentials=keys)
    assert router.retrieve_executable(query, k=2, state=state).route_ids[0] == STATION
    assert call_tool(router, tool_name(STATION), {"station_id": "LFPG"}, credentials=keys).ok
    assert weather.requests[-1].query["appid"] == ["k-1"]
    monkeypatch.setenv("WEATHER_API_KEY", "k-2")  # the environment, as router.call reads it
    found = router.retrieve_executable(query, k=2, state=search_state(router))
    assert found.route_ids[0] == STATION
    writes = search_state(router, allow_effects=["read", "write"])
    assert writes.allowed_effects == {Effect.READ, Effect.WRITE}


def 배송비(무게_kg: float, 등급: str = "일반") -> int:
    """무게(kg)와 회원 등급으로 배송비(원)를 계산합니다."""
    return 3000 if 등급 == "일반" else int(무게_kg * 0)


def test_router_call_takes_the_keys_a_tool_definition_offered() -> None:
    """Trial K: the README's loop, ``router.call(tools.route_id(name), arguments)`` with the
    model's arguments, failed for every tool whose parameters the definitions renamed (a
    Korean function's ``무게_kg`` offered as ``kg`` and ``등급`` as ``parameter``; ``page[size]``
    as ``page_size``): "has no parameter 'kg'", a key the caller never wrote. ``call`` and
    ``acall`` read the offered keys as ``call_tool`` does; the gate still checks the rest."""
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_callable(배송비, provider="마켓온")
    (route_id,) = router.snapshot().routes
    tools = router.retrieve("배송비 계산", k=1).tools("anthropic")
    (tool,) = tools
    keys = list(tool["input_schema"]["properties"])
    assert all(PROPERTY_KEY_PATTERN.match(key) for key in keys) and keys != ["무게_kg", "등급"]
    model_says = dict(zip(keys, (2.5, "VIP"), strict=True))
    assert router.call(tools.route_id(tool["name"]), model_says).output == 0
    assert router.call(route_id, {"무게_kg": 2.5}).output == 3000  # the own names still
    with pytest.raises(ParameterValidationError, match="given twice"):
        router.call(route_id, {"무게_kg": 2.5, keys[0]: 1.0})
    with pytest.raises(ParameterValidationError, match="no parameter 'nope'"):
        router.call(route_id, {"nope": 1, keys[0]: 1.0})

    with LoopbackServer(shop_app) as shop:
        router.add_openapi(shop_openapi(shop.base_url), provider="shop")
        assert router.call(SHOP_LIST, {"page_size": 5, "filter_": "price lt 10"}).ok
        asyncio.run(router.acall(SHOP_LIST, {"page_size": 7}))
        got = [request.query for request in shop.requests]
    assert got == [{"page[size]": ["5"], "$filter": ["price lt 10"]}, {"page[size]": ["7"]}]
