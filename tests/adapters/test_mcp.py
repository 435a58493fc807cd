"""MCP adapter: tools/list results (dicts, v1- and v2-style SDK objects), the annotation
policy, malformed listings, the LiveMCPBench dump, and a real server over stdio and HTTP."""

from __future__ import annotations

import asyncio
import copy
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemarouter import SchemaRouter
from schemarouter.adapters.live_mcp import list_mcp_tools, mcp_server_registration
from schemarouter.adapters.mcp import mcp_tools_registration, tool_effect
from schemarouter.contracts import Effect, ParameterLocation
from schemarouter.errors import (
    DanglingReferenceError,
    DocumentError,
    MissingDependencyError,
    RegistrationError,
    SchemaError,
    SchemaRouterError,
)
from schemarouter.index import HashingEncoder
from schemarouter.registry.registry import Registry

from servers.processes import http_mcp_server

SERVER = Path(__file__).parents[1] / "mcp_servers" / "materials_server.py"

TOOLS: dict[str, Any] = {
    "tools": [
        {
            "name": "get_forecast",
            "title": "Forecast",
            "description": "Weather forecast for a place.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "days": {"type": "integer", "minimum": 1, "default": 3},
                    "units": {"$ref": "#/$defs/Units"},
                },
                "required": ["city"],
                "$defs": {"Units": {"enum": ["metric", "imperial"]}},
                "$schema": "http://json-schema.org/draft-07/schema#",
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "date": {"type": "string", "format": "date"},
                                "temperature": {"type": "number", "description": "Mean, in C"},
                            },
                        },
                    },
                },
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": True},
        },
        {
            "name": "delete_alert",
            "description": "Delete a weather alert.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "annotations": {"destructiveHint": True},
        },
        {"name": "ping", "inputSchema": {"type": "object"}, "annotations": None},
    ]
}


def _routes(tools: Any = None, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("provider", "weather")
    registration = mcp_tools_registration(TOOLS if tools is None else tools, **kwargs)
    return {route.endpoint.name: route for route in registration.routes}


def test_a_tool_whose_id_is_not_its_name_is_said_so() -> None:
    """ "Get Note" beside "get_note" became get_note_2 and "café" caf without a word (a user
    trial); the tools are still called by their own names."""
    listing = {
        "tools": [
            {"name": name, "inputSchema": {"type": "object"}}
            for name in ("get_note", "Get Note", "café", "listNotes")
        ]
    }
    registration = mcp_tools_registration(listing, provider="notes")
    assert [w.split(":", 1)[0] for w in registration.warnings] == ["tools[1]", "tools[2]"]
    assert "'get_note_0847864988' ('get_note' is another tool's id" in registration.warnings[0]
    assert "outside ASCII" in registration.warnings[1]
    tools = {r.endpoint.id: r.endpoint.operation.tool for r in registration.routes}
    assert tools["get_note_0847864988"] == "Get Note" and tools["caf_850f7dc439"] == "café"


def test_the_tool_named_exactly_so_owns_its_id_wherever_it_is_listed() -> None:
    """``addNote`` listed before ``add_note`` took the id ``notes/mcp/add_note``, so a gateway
    whose ``allow.write`` named that route ran ``addNote`` (a user trial)."""
    for order in (("addNote", "add_note"), ("add_note", "addNote")):
        listing = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in order]}
        routes = mcp_tools_registration(listing, provider="notes").routes
        assert {r.endpoint.operation.tool: r.route_id for r in routes} == {
            "add_note": "notes/mcp/add_note",
            "addNote": "notes/mcp/add_note_6abfde770f",
        }


def test_an_id_depends_on_the_tools_own_name_never_on_the_listing() -> None:
    """Tools named without ASCII letters got ``x``, ``x_2``, ``x_3`` by listing order; a
    redeploy without the first moved ``x_2`` (and a gateway's ``allow.write`` entry naming it)
    from '메모.추가' to '메모.전체발송', which then ran (user trial S #7). Each id is now a hash
    of the tool's own name: any listing, any order, any tool left out, the same id."""
    names = ["메모.보기", "메모.추가", "메모.전체발송", "Get Note", "get note", "addNote"]

    def ids(listed: list[str]) -> dict[str, str]:
        listing = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in listed]}
        return {
            r.endpoint.operation.tool: r.endpoint.id
            for r in mcp_tools_registration(listing, provider="memo").routes
        }

    every = ids(names)
    assert every["메모.추가"] == "tool_a2ef2cea88" and len(set(every.values())) == len(names)
    assert every["addNote"] == "add_note"  # an ASCII name nothing else reads as keeps its slug
    for left_out in ["메모.보기", "메모.추가", "메모.전체발송", "addNote"]:
        rest = [n for n in reversed(names) if n != left_out]
        assert ids(rest) == {n: i for n, i in every.items() if n != left_out}


def test_an_id_a_server_gave_once_stays_with_its_tool() -> None:
    """``held_ids`` (an earlier listing's ids): a tool keeps its id, and an id held by a
    tool since removed is never another tool's."""
    listing = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("add_note",)]}
    routes = mcp_tools_registration(
        listing, provider="notes", held_ids={"add_note": "addNote"}
    ).routes
    assert [r.endpoint.id for r in routes] == ["add_note_c4acb76513"]


def test_tools_list_result_compiles_to_routes() -> None:
    routes = _routes(server="npx weather-mcp")
    assert set(routes) == {"get_forecast", "delete_alert", "ping"}
    forecast = routes["get_forecast"]
    assert forecast.route_id == "weather/mcp/get_forecast"
    assert forecast.endpoint.operation.tool == "get_forecast"
    assert forecast.endpoint.summary == "Forecast"
    assert forecast.access.server == "npx weather-mcp"
    assert forecast.access.trusted is False
    params = {p.name: p for p in forecast.endpoint.parameters}
    assert [(p.name, p.required, p.location) for p in params.values()] == [
        ("city", True, ParameterLocation.ARGUMENT),
        ("days", False, ParameterLocation.ARGUMENT),
        ("units", False, ParameterLocation.ARGUMENT),
    ]
    assert params["units"].json_schema == {"enum": ["metric", "imperial"]}  # $ref resolved
    assert "$defs" not in forecast.endpoint.input_schema
    assert "$schema" not in forecast.endpoint.input_schema
    fields = {f.name: f for f in forecast.endpoint.output_fields}
    assert [(f.name, f.path) for f in fields.values()] == [
        ("city", "city"),
        ("days.date", "days.*.date"),
        ("days.temperature", "days.*.temperature"),
    ]
    assert fields["days.temperature"].description == "Mean, in C"
    assert routes["ping"].endpoint.output_fields == ()


def test_a_plain_list_and_a_tools_dict_register_alike() -> None:
    a = mcp_tools_registration(TOOLS, provider="weather", source="w")
    b = mcp_tools_registration(TOOLS["tools"], provider="weather", source="w")
    assert [r.fingerprint for r in a.routes] == [r.fingerprint for r in b.routes]


@pytest.mark.parametrize(
    ("hints", "trusted", "effect"),
    [
        (None, False, Effect.WRITE),
        (None, True, Effect.WRITE),
        ({"readOnlyHint": True}, False, Effect.WRITE),  # a claim, not a fact
        ({"readOnlyHint": True}, True, Effect.READ),
        ({"destructiveHint": True}, False, Effect.DESTRUCTIVE),
        ({"readOnlyHint": True, "destructiveHint": True}, True, Effect.DESTRUCTIVE),
        ({"readOnlyHint": False, "destructiveHint": False}, True, Effect.WRITE),
    ],
)
def test_annotations_only_tighten_policy(hints: Any, trusted: bool, effect: Effect) -> None:
    assert tool_effect(hints, trusted=trusted) is effect
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": hints}
    assert _routes([tool], trusted=trusted)["t"].endpoint.effect is effect


def test_trusted_servers_are_recorded_on_the_access_path() -> None:
    routes = _routes(trusted=True)
    assert routes["get_forecast"].endpoint.effect is Effect.READ
    assert routes["delete_alert"].endpoint.effect is Effect.DESTRUCTIVE
    assert routes["get_forecast"].access.trusted is True


def test_sdk_v2_objects_snake_case() -> None:
    types = pytest.importorskip("mcp.types")
    tool = types.Tool(
        name="band_gap",
        input_schema={"type": "object", "properties": {"formula": {"type": "string"}}},
        output_schema={"type": "object", "properties": {"gap": {"type": "number"}}},
        annotations=types.ToolAnnotations(read_only_hint=True, title="Band gap"),
    )
    listing = types.ListToolsResult(tools=[tool])
    (route,) = mcp_tools_registration(listing, provider="mp", trusted=True).routes
    assert route.endpoint.effect is Effect.READ
    assert route.endpoint.summary == "Band gap"
    assert [f.name for f in route.endpoint.output_fields] == ["gap"]
    assert [p.name for p in route.endpoint.parameters] == ["formula"]


def test_sdk_v1_style_objects_camel_case() -> None:
    tool = SimpleNamespace(
        name="search",
        title=None,
        description="Search things.",
        inputSchema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        outputSchema=None,
        annotations=SimpleNamespace(readOnlyHint=True, destructiveHint=None, title=None),
    )
    (route,) = mcp_tools_registration(
        SimpleNamespace(tools=[tool]), provider="s", trusted=True
    ).routes
    assert route.endpoint.effect is Effect.READ
    assert route.endpoint.parameters[0].required is True


MALFORMED: list[tuple[str, Any, type[SchemaRouterError], str]] = [
    ("not a listing", "tools", DocumentError, "m"),
    ("tool not an object", ["get"], DocumentError, "tools[0]"),
    ("no name", [{"inputSchema": {"type": "object"}}], DocumentError, "tools[0]"),
    ("no input schema", [{"name": "a"}], DocumentError, "tools[0]"),
    (
        "duplicate names",
        [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}],
        DocumentError,
        "tools[1]",
    ),
    (
        "hint not boolean",
        [{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}],
        DocumentError,
        "tools[0].annotations.readOnlyHint",
    ),
    (
        "annotations not an object",
        [{"name": "a", "inputSchema": {}, "annotations": "readonly"}],
        DocumentError,
        "tools[0].annotations",
    ),
    (
        "invalid schema",
        [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": 3}}}}],
        SchemaError,
        "tools[0]",
    ),
    (
        "required not a list",  # read as no list: the parameter became optional (trial B §4)
        [{"name": "a", "inputSchema": {"properties": {"n": {}}, "required": "n"}}],
        SchemaError,
        "tools[0].inputSchema.required",
    ),
    (
        "required of non-names",
        [{"name": "a", "inputSchema": {"properties": {"n": {}}, "required": [1]}}],
        SchemaError,
        "tools[0].inputSchema.required",
    ),
    (
        "nested required not a list",
        [{"name": "a", "inputSchema": {"properties": {"p": {"required": "q"}}}}],
        SchemaError,
        "tools[0].inputSchema.properties.p.required",
    ),
    (
        "dangling ref",
        [{"name": "a", "inputSchema": {"properties": {"x": {"$ref": "#/$defs/X"}}}}],
        DanglingReferenceError,
        "tools[0].inputSchema.properties.x",
    ),
]


@pytest.mark.parametrize(
    ("tools", "error", "where"),
    [pytest.param(t, e, w, id=name) for name, t, e, w in MALFORMED],
)
def test_malformed_listings(tools: Any, error: type[SchemaRouterError], where: str) -> None:
    with pytest.raises(error) as raised:
        mcp_tools_registration(tools, provider="bad", source="m")
    assert type(raised.value) is error
    assert where in (raised.value.where or "")


def test_a_required_that_is_no_list_names_the_tool_and_the_key() -> None:
    tool = {
        "name": "lookup_city",
        "inputSchema": {"type": "object", "properties": {"name": {}}, "required": "name"},
    }
    with pytest.raises(SchemaError) as raised:
        mcp_tools_registration([tool], provider="p", source="m")
    assert raised.value.code == "SR102"
    assert "tool 'lookup_city': inputSchema 'required' must be a list" in str(raised.value)
    tool["inputSchema"]["required"] = ["name"]
    (route,) = mcp_tools_registration([tool], provider="p").routes
    assert [(p.name, p.required) for p in route.endpoint.parameters] == [("name", True)]


def test_text_fields_are_stripped_and_checked() -> None:
    tool = {"name": "a", "inputSchema": {}, "description": "  Reads a.  "}
    (route,) = mcp_tools_registration([tool], provider="p").routes
    assert route.endpoint.description == "Reads a."
    with pytest.raises(DocumentError, match="'description' must be a string, got int") as raised:
        mcp_tools_registration([{**tool, "description": 7}], provider="p", source="m")
    assert raised.value.where == "m: tools[0].description"
    assert raised.value.hint == "Write it as text"


@pytest.mark.shared_data
def test_livemcpbench_tools_register(shared_data: Path) -> None:
    servers = json.loads((shared_data / "mcp" / "livemcp_tools.json").read_text(encoding="utf-8"))
    registry = Registry()
    started = time.perf_counter()
    tools = fields = 0
    for entry in servers:
        for server_name, listing in entry["tools"].items():
            registration = mcp_tools_registration(
                listing,
                provider=entry["name"],
                server=server_name,
                source=f"livemcp:{entry['name']}",
            )
            registry.register(registration)
            tools += len(registration.routes)
            fields += sum(len(r.endpoint.output_fields) for r in registration.routes)
    seconds = time.perf_counter() - started
    print(
        f"\nLiveMCPBench: {len(servers)} servers, {tools} routes, {fields} fields, {seconds:.1f} s"
    )
    assert tools == 527 == len(registry)
    assert len(registry.snapshot().providers) == 70
    # untrusted: no tool is read-only, whatever its annotations claim
    assert {route.endpoint.effect for route in registry.snapshot()} <= {
        Effect.WRITE,
        Effect.DESTRUCTIVE,
    }


# -- live servers ---------------------------------------------------------------------------


def test_stdio_server_registers_live() -> None:
    registration = asyncio.run(
        mcp_server_registration([sys.executable, str(SERVER)], provider="materials", timeout=60)
    )
    routes = {route.endpoint.name: route for route in registration.routes}
    assert set(routes) == {"band_gap", "delete_structure", "add_composition"}
    band_gap = routes["band_gap"].endpoint
    assert band_gap.summary == "Band gap lookup"
    assert band_gap.description == "Band gap of a material by its id."
    assert [(p.name, p.required) for p in band_gap.parameters] == [
        ("material_id", True),
        ("functional", False),
    ]
    assert [f.name for f in band_gap.output_fields] == ["material_id", "band_gap_ev", "functional"]
    assert band_gap.field("band_gap_ev").description == "Band gap in eV"
    # untrusted server: readOnlyHint ignored, destructiveHint honoured
    assert band_gap.effect is Effect.WRITE
    assert routes["delete_structure"].endpoint.effect is Effect.DESTRUCTIVE
    composition = routes["add_composition"].endpoint.parameter("composition").json_schema
    assert composition["properties"]["formula"]["type"] == "string"  # pydantic $ref inlined
    assert routes["band_gap"].access.server.endswith("materials_server.py")
    assert registration.source.startswith("mcp:")


def test_stdio_server_trusted_read_only() -> None:
    registration = asyncio.run(
        mcp_server_registration(
            [sys.executable, str(SERVER)], provider="materials", trusted=True, timeout=60
        )
    )
    effects = {route.endpoint.name: route.endpoint.effect for route in registration.routes}
    assert effects == {
        "band_gap": Effect.READ,
        "delete_structure": Effect.DESTRUCTIVE,
        "add_composition": Effect.WRITE,
    }


@pytest.fixture
def http_server() -> Iterator[str]:
    with http_mcp_server(SERVER) as url:
        yield url


def test_streamable_http_server_registers_live(http_server: str) -> None:
    registration = asyncio.run(mcp_server_registration(http_server, provider="materials"))
    assert {r.endpoint.name for r in registration.routes} == {
        "band_gap",
        "delete_structure",
        "add_composition",
    }
    assert all(r.access.server == http_server for r in registration.routes)


def test_a_command_that_is_no_server_is_a_registration_error() -> None:
    with pytest.raises(RegistrationError, match=r"cannot list|did not list"):
        asyncio.run(list_mcp_tools([sys.executable, "-c", "print('hello')"], timeout=20))
    with pytest.raises(RegistrationError):
        asyncio.run(list_mcp_tools(["/nonexistent/mcp-server"], timeout=20))


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(MissingDependencyError, match=r"pip install -e .*\[mcp\]"):
        asyncio.run(list_mcp_tools(["whatever"]))


# -- fuzz -----------------------------------------------------------------------------------

_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 5),
    st.text(max_size=6),
    st.sampled_from(["#/$defs/Nope", "#", "#/properties"]).map(lambda ref: {"$ref": ref}),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.sampled_from(["type", "properties", "$ref", "items"]), st.text(max_size=4)),
)


def _slots(node: Any, trail: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [trail]
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in children:
        out.extend(_slots(value, (*trail, key)))
    return out


@settings(max_examples=150, deadline=None, database=None)
@given(data=st.data())
def test_mutated_listings_raise_only_schemarouter_errors(data: st.DataObject) -> None:
    tools = copy.deepcopy(TOOLS)
    for _ in range(data.draw(st.integers(1, 3))):
        slots = _slots(tools)[1:]
        if not slots:
            break
        trail = data.draw(st.sampled_from(slots))
        parent = tools
        for step in trail[:-1]:
            parent = parent[step]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[trail[-1]]
        else:
            parent[trail[-1]] = data.draw(_JUNK)
    registry = Registry()
    before = registry.snapshot()
    try:
        registry.register(mcp_tools_registration(tools, provider="fuzz"))
    except SchemaRouterError:
        assert registry.snapshot() is before
    else:
        assert registry.snapshot().version == before.version + 1


def test_fingerprints_made_once_equal_the_contracts_own() -> None:
    """The adapter serializes each endpoint once (for the listing's digest and the route's
    endpoint fingerprint) and the provider and access path once per listing: every route's
    fingerprints are still exactly the contracts' own."""
    from schemarouter.fingerprint import fingerprint

    listing = copy.deepcopy(TOOLS)
    listing["tools"].append({"name": "second", "inputSchema": {"type": "object"}})
    registration = mcp_tools_registration(listing, provider="Weather")
    names = [tool["name"] for tool in listing["tools"]]
    assert len(registration.routes) == len(names) > 1
    endpoints = sorted((r.endpoint for r in registration.routes), key=lambda e: names.index(e.name))
    for route in registration.routes:
        assert route.provider_fingerprint == route.provider.content_fingerprint()
        assert route.access_fingerprint == route.access.content_fingerprint()
        assert route.endpoint_fingerprint == route.endpoint.content_fingerprint()
        assert route.access.document_hash == fingerprint([e.canonical() for e in endpoints])


@pytest.mark.parametrize(
    "url",
    [
        "https://bob:s3cret-token-99@mcp.example.com/mcp",
        "https://mcp.example.com/mcp?api_key=s3cret-token-99",
    ],
)
def test_a_recorded_listings_server_url_is_kept_without_its_credential(url: str) -> None:
    """A hosted server's token travels in its URL; the routes' server, the retrieval shown to
    an LLM and a registration error carry the URL without userinfo and query, as
    add_mcp_server and add_openapi do (a user trial found it verbatim in all three)."""
    registration = mcp_tools_registration(TOOLS, provider="weather", server=url)
    (server,) = {route.access.server for route in registration.routes}
    assert server == "https://mcp.example.com/mcp"
    with pytest.raises(SchemaError) as refused:
        mcp_tools_registration([{"name": "x", "inputSchema": 5}], provider="w", server=url)
    assert "s3cret" not in str(refused.value)
    assert "https://mcp.example.com/mcp" in str(refused.value)


def test_an_output_schemas_x_unit_is_its_fields_unit_and_a_bad_one_refuses_the_listing() -> None:
    """As in OpenAPI documents: ``x-unit`` on an ``outputSchema`` property is the field's
    unit; one that cannot be read refuses the listing, naming the tool and the field."""
    tool = {
        "name": "get_power",
        "description": "Current power draw of the house",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {
            "type": "object",
            "properties": {"power": {"type": "number", "x-unit": "kW", "x-dimension": "power"}},
        },
    }
    (route,) = mcp_tools_registration({"tools": [tool]}, provider="home").routes
    assert [(f.name, f.unit, f.dimension) for f in route.endpoint.output_fields] == [
        ("power", "kW", "power")
    ]
    bad = copy.deepcopy(tool)
    bad["outputSchema"]["properties"]["power"]["x-unit"] = "kilowattz"
    with pytest.raises(SchemaRouterError, match="unknown unit 'kilowattz'") as refused:
        mcp_tools_registration({"tools": [bad]}, provider="home")
    assert "tools[0].outputSchema (output field 'power')" in str(refused.value.where)


def test_a_recorded_listing_s_file_given_as_a_path_says_to_pass_what_it_holds(
    tmp_path: Path,
) -> None:
    """Trial W1: ``--mcp-tools FILE`` reads a recorded tools/list result, and
    ``add_mcp_tools("tools.json", provider=...)`` was refused with "got str ... Pass the result
    of tools/list", which did not say that a path is not read there, nor how to read it."""
    recorded = tmp_path / "tools.json"
    recorded.write_text(json.dumps(TOOLS), "utf-8")
    router = SchemaRouter(encoder=HashingEncoder())
    for path in (recorded, str(recorded)):
        with pytest.raises(DocumentError) as refused:
            router.add_mcp_tools(path, provider="notes")
        message = str(refused.value)
        assert "A file is not read here: pass what it holds, parsed" in message
        assert f"add_mcp_tools(json.loads(Path({str(recorded)!r}).read_text()), ...)" in message
    with pytest.raises(DocumentError, match=r"Pass the text parsed: add_mcp_tools\(json.loads"):
        router.add_mcp_tools(recorded.read_text("utf-8"), provider="notes")
    with pytest.raises(DocumentError) as refused:
        router.add_mcp_tools(5, provider="notes")
    assert "file" not in str(refused.value)
    # what the hint says to do registers
    change = router.add_mcp_tools(json.loads(recorded.read_text("utf-8")), provider="notes")
    assert len(change.added) == len(TOOLS["tools"])
