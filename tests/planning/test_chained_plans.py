"""Plans that call a producer first: a route needing an identifier the request does not
carry (``/author/{author_id}/books``) is planned after the route that returns it
(``/search/author``), its parameter bound to that step's output and filled at execution.

A user's own OpenAPI document (tests/servers/library.py) served for real on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from schemarouter import PlanRequest, SchemaRouter, capability
from schemarouter.contracts import Effect
from schemarouter.errors import (
    ArgumentError,
    ExecutionError,
    GateError,
    OutputValidationError,
    ParameterValidationError,
)
from schemarouter.integrations.definitions import tool_definitions
from schemarouter.integrations.names import tool_name
from schemarouter.planning.planner import Binding, Plan
from schemarouter.retrieval.prerequisites import identifier_sources
from schemarouter.retrieval.results import IdentifierSource
from schemarouter.serve.gateway import Gateway

from servers.library import LibraryApp, library_openapi
from servers.loopback import LoopbackServer

QUERY = "list the books written by 'Ursula K. Le Guin'"


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(LibraryApp()) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    server.reset()
    server.app.author_ids = "integer"  # type: ignore[attr-defined]
    made = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    made.add_openapi(library_openapi(server.base_url), provider="library")
    return made


def _id(router: SchemaRouter, operation: str) -> str:
    return next(
        r.route_id for r in router.snapshot().routes.values() if r.endpoint.name == operation
    )


def test_the_producer_is_planned_first_and_its_identifier_bound(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(QUERY, max_calls=2)
    search, books = _id(router, "searchAuthors"), _id(router, "authorBooks")
    assert plan.route_ids == (search, books)
    lookup, needing = plan.steps
    assert lookup.arguments == {"query": "Ursula K. Le Guin"}  # the quoted name
    assert "results.id" in lookup.fields  # the field the binding reads is fetched
    assert needing.bindings == {
        "author_id": Binding(step=0, field="results.id", path="results.*.id", thing="author")
    }
    assert needing.arguments == {} and needing.missing_parameters == ()
    assert plan.missing_arguments == {}

    result = router.execute(plan)
    assert [s.status for s in result.steps] == ["ok", "ok"]
    assert server.paths() == ["/search/author?query=Ursula+K.+Le+Guin", "/author/7/books"]
    assert result.steps[1].arguments == {"author_id": 7}
    assert [b["title"] for b in result.steps[1].output["results"]] == [
        "The Dispossessed",
        "The Lathe of Heaven",
    ]
    server.reset()
    again = asyncio.run(router.aexecute(plan))
    assert again.steps[1].arguments == {"author_id": 7} and len(server.paths()) == 2


def test_a_plan_of_one_call_says_which_route_would_give_the_identifier(
    router: SchemaRouter,
) -> None:
    plan = router.plan(QUERY)  # max_calls=1
    books, search = _id(router, "authorBooks"), _id(router, "searchAuthors")
    assert plan.route_ids == (books,)
    assert plan.steps[0].bindings == {}
    assert plan.missing_arguments == {books: ("author_id",)}
    assert any(search in w and "max_calls=2" in w for w in plan.warnings)


def test_the_caller_fills_what_is_missing_and_the_gate_still_checks_it(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(QUERY)  # max_calls=1: author_id is the caller's to give
    books = _id(router, "authorBooks")
    assert plan.missing_arguments == {books: ("author_id",)}
    filled = plan.with_arguments(books, {"author_id": 7})
    assert filled.missing_arguments == {} and filled.steps[0].arguments == {"author_id": 7}
    assert plan.missing_arguments == {books: ("author_id",)}  # the plan itself is unchanged
    assert plan.with_arguments(0, {"author_id": 7}) == filled  # by index too
    result = router.execute(filled)
    assert [s.status for s in result.steps] == ["ok"]
    assert server.paths() == ["/author/7/books"]
    with pytest.raises(ParameterValidationError, match="author_id"):
        router.execute(plan.with_arguments(books, {"author_id": "seven"}))
    assert server.paths() == ["/author/7/books"]  # nothing more was sent
    with pytest.raises(ArgumentError, match="has no such step"):
        plan.with_arguments(3, {"author_id": 7})
    with pytest.raises(ArgumentError, match="mapping"):
        plan.with_arguments(books, [("author_id", 7)])  # type: ignore[arg-type]


def test_an_identifier_the_request_gives_needs_no_producer(router: SchemaRouter) -> None:
    plan = router.plan("books written by the author with author_id=12", max_calls=2)
    books = _id(router, "authorBooks")
    assert plan.route_ids == (books,)
    assert plan.steps[0].arguments == {"author_id": 12} and plan.steps[0].bindings == {}


def test_an_identifier_written_after_its_thing_is_bound_and_run(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan("list the books of author 7", max_calls=2)
    books = _id(router, "authorBooks")
    assert plan.route_ids == (books,)
    assert plan.steps[0].arguments == {"author_id": 7} and plan.steps[0].bindings == {}
    # the id is taken (as an integer): no note that no step takes it (trial P: "ticket 13")
    assert not any("which no step takes" in w for w in plan.warnings), plan.warnings
    result = router.execute(plan)
    assert [s.status for s in result.steps] == ["ok"]
    assert server.paths() == ["/author/7/books"]


def test_a_write_request_is_not_planned_as_a_read(router: SchemaRouter) -> None:
    """ "Add an author" ranks POST /author first; with writes not allowed, planning the best
    read in its place would answer "ok" without adding anyone: the plan is empty and says
    why, and allowing writes plans the write."""
    query = "add a new author called 'Octavia E. Butler'"
    add = _id(router, "addAuthor")
    plan = router.plan(query)
    assert plan.steps == () and add in plan.reason
    assert "effect write" in plan.reason and "allowed_effects" in plan.reason
    assert "MCP" not in plan.reason  # no MCP tool among them
    allowed = router.plan(
        PlanRequest(query=query, allowed_effects=frozenset({Effect.READ, Effect.WRITE}))
    )
    assert allowed.route_ids == (add,)
    # a read request is planned as before
    assert router.plan("the most read authors").route_ids == (_id(router, "popularAuthors"),)


def test_a_lookup_that_finds_nothing_stops_the_bound_step(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan("list the books written by 'Nobody Atall'", max_calls=2)
    assert plan.steps[1].bindings
    with pytest.raises(ExecutionError, match=r"returned no 'results\.\*\.id' to fill 'author_id'"):
        router.execute(plan)
    assert server.paths() == ["/search/author?query=Nobody+Atall"]  # the second never sent
    server.reset()
    partial = router.execute(plan, partial=True)
    assert [s.status for s in partial.steps] == ["ok", "failed"]
    assert partial.steps[1].error is not None and "author_id" in partial.steps[1].error.message
    assert len(server.paths()) == 1


def test_a_lookup_whose_output_breaks_its_schema_binds_nothing(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(QUERY, max_calls=2)
    server.app.author_ids = "text"  # type: ignore[attr-defined]  # "7" where ids are integers
    with pytest.raises(OutputValidationError, match=r"results\[0\]\.id"):
        router.execute(plan)
    server.reset()
    partial = router.execute(plan, partial=True)
    # the lookup's output is kept where it validates; nothing is bound from what does not
    assert [s.status for s in partial.steps] == ["partial", "failed"]
    assert partial.steps[1].error is not None
    assert "returned no output that validates" in partial.steps[1].error.message
    assert server.paths() == ["/search/author?query=Ursula+K.+Le+Guin"]


def test_a_bound_value_the_parameter_refuses_is_not_sent(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    forged = _rebind(
        router.plan(QUERY, max_calls=2), 1, field="results.name", path="results.*.name"
    )
    with pytest.raises(ParameterValidationError, match="author_id"):
        router.execute(forged)  # a name is no integer id
    assert server.paths() == ["/search/author?query=Ursula+K.+Le+Guin"]


def test_an_integer_id_fills_a_text_parameter(server: LoopbackServer) -> None:
    """Path parameters declared as strings are common; the integer id is sent as its text."""
    document = library_openapi(server.base_url)
    books = document["paths"]["/author/{author_id}/books"]["get"]
    books["parameters"][0]["schema"] = {"type": "string"}
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(document, provider="library")
    server.reset()
    result = router.execute(router.plan(QUERY, max_calls=2))
    assert result.steps[1].arguments == {"author_id": "7"}
    assert server.paths()[-1] == "/author/7/books"


def _rebind(plan: Plan, index: int, **change: Any) -> Plan:
    step = plan.steps[index]
    bindings = {name: binding.model_copy(update=change) for name, binding in step.bindings.items()}
    steps = list(plan.steps)
    steps[index] = step.model_copy(update={"bindings": bindings})
    return plan.model_copy(update={"steps": tuple(steps)})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"step": 1}, "does not run before this one"),
        # issue #24, finding 9: Python reads step -1 as the last step (step 0 was sent)
        ({"step": -1}, "which is no step number"),
        ({"step": True}, "which is no step number"),
        ({"step": "0"}, "which is no step number"),
        ({"field": "results.title"}, "no registered output field 'results.title'"),
        ({"path": "results.*.name"}, "not the registered path"),
    ],
)
def test_a_forged_binding_is_refused_before_any_call(
    router: SchemaRouter, server: LoopbackServer, change: dict[str, Any], message: str
) -> None:
    plan = _rebind(router.plan(QUERY, max_calls=2), 1, **change)
    with pytest.raises(GateError, match=message):
        router.execute(plan)
    assert server.paths() == []


def test_a_binding_of_no_parameter_or_of_a_given_argument_is_refused(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(QUERY, max_calls=2)
    step = plan.steps[1]
    binding = step.bindings["author_id"]
    for update, message in (
        ({"bindings": {"writer_id": binding}}, "no parameter 'writer_id' to bind"),
        ({"arguments": {"author_id": 7}}, "both given and bound"),
    ):
        forged = plan.model_copy(update={"steps": (plan.steps[0], step.model_copy(update=update))})
        with pytest.raises(GateError, match=message):
            router.execute(forged)
    assert server.paths() == []


def test_a_chained_plan_travels_as_json(router: SchemaRouter, server: LoopbackServer) -> None:
    """An agent hands the plan around as JSON; read back, it runs the same."""
    plan = router.plan(QUERY, max_calls=2)
    back = Plan.model_validate_json(plan.model_dump_json())
    assert back == plan
    assert router.execute(back).steps[1].arguments == {"author_id": 7}


# -- the same, for a model that calls tools itself ---------------------------------------------


def test_tool_definitions_say_which_offered_tool_gives_an_identifier(router: SchemaRouter) -> None:
    res = router.retrieve("list the books written by Ursula K. Le Guin", k=3)
    books, search = _id(router, "authorBooks"), _id(router, "searchAuthors")
    top = res.candidates[0]
    assert top.route_id == books
    assert top.identifier_sources == {
        "author_id": IdentifierSource(route_id=search, field="results.id", path="results.*.id")
    }
    tools = res.tools("anthropic")
    hint = tools[0]["input_schema"]["properties"]["author_id"]["description"]
    assert hint == (
        f"An identifier: take it from {tools.name(search)} (results[].id of its output)."
    )
    # a set without the producer names nothing it does not offer
    alone = tool_definitions([top], "openai")
    assert "description" not in alone[0]["parameters"]["properties"]["author_id"]


def test_an_agent_loop_over_the_gateway_follows_the_hint(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """search_tools -> call the tool the hint names -> call the tool that needed its id."""
    gateway = Gateway(router)
    found = gateway.search("list the books written by Ursula K. Le Guin", k=3)
    books = found["tools"][0]
    hint = books["inputSchema"]["properties"]["author_id"]["description"]
    lookup = next(t["name"] for t in found["tools"] if t["name"] in hint)
    first = gateway.call(lookup, {"query": "Ursula K. Le Guin"})
    author_id = first.output["results"][0]["id"]
    second = gateway.call(books["name"], {"author_id": author_id})
    assert second.output["results"][0]["title"] == "The Dispossessed"
    assert server.paths() == ["/search/author?query=Ursula+K.+Le+Guin", "/author/7/books"]


def test_each_part_of_a_request_gets_its_route_and_its_producer(router: SchemaRouter) -> None:
    """A two-part request plans the request's best route and each other part's best, a
    part needing an identifier with its producer before it, within max_calls, in the order
    the request writes its parts (since the tenth security review also where a step takes
    another's output: the producer goes with the step it serves)."""
    query = (
        "list the books written by 'Ursula K. Le Guin', and also show every genre of the library"
    )
    search, books, genres = (_id(router, op) for op in ("searchAuthors", "authorBooks", "genres"))
    assert router.retrieve(query, k=1).route_ids == (genres,)  # the whole request's best
    plan = router.plan(query, max_calls=3)
    assert plan.route_ids == (search, books, genres)
    assert plan.steps[1].bindings["author_id"].step == 0
    assert plan.warnings[0].startswith("no semantic field resolved")
    assert any("several parts" in w for w in plan.warnings)
    # two calls: the part's route, with no room for its producer, says so; no step takes
    # another's output, so each runs in the order the request writes its part
    short = router.plan(query, max_calls=2)
    assert short.route_ids == (books, genres)
    assert short.missing_arguments == {books: ("author_id",)}
    assert any(search in w and "max_calls=3" in w for w in short.warnings)
    # one-part requests plan as before; parts=False plans the request's best alone
    assert router.plan(QUERY, max_calls=3).route_ids == (search, books)
    off = router.plan(PlanRequest(query=query, parts=False), max_calls=3)
    assert off.route_ids == (genres,)


def test_a_part_left_out_of_a_plan_is_always_named_in_its_warnings(router: SchemaRouter) -> None:
    """Trial P §5: a part whose best route falls under the part cosine floor (an MCP tool's
    ``title`` had moved it there) was dropped from a 2-call plan with a call to spare and no
    word; so was a part whose route the request does not allow, and every other part of a
    ``max_calls=1`` plan planned by the request's best route. Each is named now, with why."""
    query = (
        "list the books written by 'Ursula K. Le Guin', and also show every genre of the library"
    )
    books, genres = _id(router, "authorBooks"), _id(router, "genres")
    router.intent_min_similarity = 0.99  # no route is close enough to either part
    plan = router.plan(query, max_calls=3)
    assert plan.route_ids == (genres,)  # the request's best; its part needs no note
    (note,) = [w for w in plan.warnings if "closely enough" in w]
    assert "list the books written by 'Ursula" in note and books in note and "not planned" in note
    router.intent_min_similarity = 0.45
    write = "show every genre of the library, and also add the author Ursula K. Le Guin"
    plan = router.plan(write, max_calls=3)
    assert plan.route_ids == (genres,)
    (note,) = [w for w in plan.warnings if "is not planned" in w]
    assert "'add the author Ursula K. Le Guin'" in note and _id(router, "addAuthor") in note
    assert "effect write" in note
    allowed = PlanRequest(query=write, allowed_effects=frozenset({Effect.READ, Effect.WRITE}))
    assert router.plan(allowed, max_calls=3).route_ids == (genres, _id(router, "addAuthor"))
    one = router.plan(query, max_calls=1)
    assert one.route_ids == (genres,)
    (note,) = [w for w in one.warnings if "max_calls=1" in w]
    assert "2 parts" in note and "not planned" in note and "'show every genre" in note


class PowerReading(BaseModel):
    meter_id: str
    power_kw: float


class BatteryStatus(BaseModel):
    battery_id: str
    state_of_charge_pct: float


@capability(fields={"power_kw": {"unit": "kW", "semantic_id": "energy.power_draw"}})
def get_current_power_usage(meter_id: str = "main") -> PowerReading:
    """Current power drawn by the house from the grid, as read by the smart meter."""
    return PowerReading(meter_id=meter_id, power_kw=2.35)


@capability(fields={"state_of_charge_pct": {"unit": "percent", "semantic_id": "energy.soc"}})
def get_battery_status(battery_id: str = "powerwall") -> BatteryStatus:
    """State of charge of the home battery."""
    return BatteryStatus(battery_id=battery_id, state_of_charge_pct=76.0)


def get_weather_forecast(city: str) -> float:
    """Daily weather forecast for a city."""
    return 1.0


def test_a_part_that_names_no_field_is_planned_beside_the_fields_of_another() -> None:
    """Trial M: "power draw" resolves a semantic id and "the battery state of charge" none;
    the battery part used to be dropped from a two-call plan with full coverage and no word.
    Now it gets its best route after the field's, and with no room the plan names it."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_callable(
        [get_current_power_usage, get_battery_status, get_weather_forecast], provider="energy"
    )
    power, battery = "energy/python/get_current_power_usage", "energy/python/get_battery_status"
    query = "current power draw in W, and also the battery state of charge"
    for projection in ("recall", "minimal"):
        plan = router.plan(query, max_calls=2, projection=projection)
        assert plan.route_ids == (power, battery)
        assert plan.coverage.required == ("energy.power_draw",) and plan.coverage.complete
        assert plan.steps[0].covers == ("energy.power_draw",)
        assert plan.steps[1].covers == () and "state_of_charge_pct" in plan.steps[1].fields
        assert plan.steps[1].whole_output is (projection == "recall")
        assert any("several parts" in w for w in plan.warnings)
    result = router.execute(router.plan(query, max_calls=2))
    assert [s.status for s in result.steps] == ["ok", "ok"]
    assert result.steps[1].output == {"battery_id": "powerwall", "state_of_charge_pct": 76.0}
    # no room: the plan says which part it leaves out
    three = "current power draw in W, and also the battery state of charge, and also the weather"
    full = router.plan(f"{three} forecast for Lisbon", max_calls=2)
    assert full.route_ids == (power, battery)
    (note,) = [w for w in full.warnings if "no room" in w]
    assert "'the weather forecast for Lisbon'" in note and "get_weather_forecast" in note
    short = router.plan(query, max_calls=1)
    assert short.route_ids == (power,)
    (note,) = [w for w in short.warnings if "max_calls=1" in w]
    assert "'the battery state of charge' names no semantic field and is not planned" in note
    # a one-part request plans as before, and so does parts=False
    alone = router.plan("current power draw in W", max_calls=2)
    assert alone.route_ids == (power,) and alone.warnings == ()
    off = router.plan(PlanRequest(query=query, parts=False), max_calls=2)
    assert off.route_ids == (power,) and off.warnings == ()


# -- typed Python callables --------------------------------------------------------------------


class Author(BaseModel):
    id: int
    name: str


class Book(BaseModel):
    id: int
    title: str


def search_authors(query: str) -> list[Author]:
    """Search authors by name."""
    return [Author(id=7, name="Ursula K. Le Guin")] if "guin" in query.lower() else []


def author_books(author_id: int) -> list[Book]:
    """Books written by an author."""
    return [Book(id=70, title="The Dispossessed")] if author_id == 7 else []


def test_python_callables_chain_like_any_other_catalog() -> None:
    """A callable returning ``list[Author]`` lists ids (``*.id``); one taking ``author_id``
    is planned after it, and the tool definitions say so."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_callable([search_authors, author_books], provider="lib")
    plan = router.plan(QUERY, max_calls=2)
    assert plan.route_ids == ("lib/python/search_authors", "lib/python/author_books")
    assert plan.steps[1].bindings["author_id"].path == "*.id"
    result = router.execute(plan)
    assert result.steps[1].arguments == {"author_id": 7}
    assert result.steps[1].output == [{"id": 70, "title": "The Dispossessed"}]
    tools = router.retrieve(QUERY, k=2).tools("openai")
    hint = tools[0]["parameters"]["properties"]["author_id"]["description"]
    assert hint.endswith("take it from lib__python__search_authors ([].id of its output).")


def test_a_lookup_that_matches_several_binds_the_first_and_says_so(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan("list the books written by 'Le'", max_calls=2)  # Le Guin and Lem
    result = router.execute(plan)
    assert result.steps[1].arguments == {"author_id": 7}
    (note,) = [w for w in result.warnings if "first of" in w]
    assert "'author_id' is the first of 2 values" in note and "$.results[0].id" in note
    assert server.paths()[-1] == "/author/7/books"


def test_tools_built_without_a_request_name_the_producer_too(router: SchemaRouter) -> None:
    """The gateway's describe_tool and a LangGraph bigtool registry (every route a tool, no
    request) name the offered lookup for a required identifier; a registry without it names
    nothing."""
    from schemarouter.integrations.langgraph import bigtool_registry

    books, search = _id(router, "authorBooks"), _id(router, "searchAuthors")
    described = Gateway(router).describe(tool_name(books))
    hint = described["inputSchema"]["properties"]["author_id"]["description"]
    assert f"take it from {tool_name(search)} (results[].id of its output)" in hint
    registry = bigtool_registry(router)
    schema = registry[tool_name(books)].args_schema
    assert tool_name(search) in schema["properties"]["author_id"]["description"]
    alone = bigtool_registry(router, routes=[books])[tool_name(books)].args_schema
    assert "description" not in alone["properties"]["author_id"]


def test_an_identifier_comes_from_the_routes_own_provider_never_another(
    server: LoopbackServer,
) -> None:
    """Identifiers are provider-scoped (trial P §1: Square's ``list_customers`` was lifted,
    hinted and chained as the producer of a billing API's ``customer_id``). Another provider's
    author lookup is neither lifted, nor named in the tool's hint, nor planned; the library's
    own producer (``/author/popular``, no lookup) is, and only library calls are sent."""
    server.reset()
    own = library_openapi(server.base_url)
    store_lookup = own["paths"].pop("/search/author")  # the library has no lookup of its own
    store = {
        "openapi": "3.0.3",
        "info": {"title": "Bookstore", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": {"/search/author": store_lookup},
    }
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(own, provider="library")
    router.add_openapi(store, provider="store")
    books, popular = _id(router, "authorBooks"), _id(router, "popularAuthors")
    foreign = _id(router, "searchAuthors")
    assert foreign.startswith("store/")

    found = router.retrieve(QUERY, k=3)
    lifted = [c.route_id for c in found.candidates if c.scores.get("prerequisite")]
    assert foreign not in lifted and popular in lifted
    needing = next(c for c in found.candidates if c.route_id == books)
    assert {k: s.route_id for k, s in needing.identifier_sources.items()} == {"author_id": popular}
    tool = next(t for t in found.tools("anthropic") if t["name"] == tool_name(books))
    hint = tool["input_schema"]["properties"]["author_id"]["description"]
    assert tool_name(popular) in hint and tool_name(foreign) not in hint
    # without a request (a gateway's describe: every route offered), the library's own too
    snapshot = router.snapshot()
    sources = identifier_sources(snapshot, snapshot.routes[books], snapshot.routes)
    assert {k: s.route_id for k, s in sources.items()} == {"author_id": popular}

    plan = router.plan(QUERY, max_calls=2)
    assert plan.route_ids == (popular, books)
    assert plan.steps[1].bindings["author_id"].step == 0
    assert foreign not in " ".join(plan.warnings)
    result = router.execute(plan)
    assert [s.status for s in result.steps] == ["ok", "ok"]
    assert server.paths()[0] == "/author/popular"  # the store was never called

    # a provider with no producer of its own: nothing of another provider is bound
    bare = library_openapi(server.base_url)
    for path in ("/search/author", "/author/popular"):
        del bare["paths"][path]
    alone = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    alone.add_openapi(bare, provider="library")
    alone.add_openapi(store, provider="store")
    plan = alone.plan(QUERY, max_calls=2)
    assert plan.route_ids == (_id(alone, "authorBooks"),)
    assert plan.steps[0].bindings == {}
    assert plan.missing_arguments == {_id(alone, "authorBooks"): ("author_id",)}
    assert not any(c.scores.get("prerequisite") for c in alone.retrieve(QUERY, k=3).candidates)
