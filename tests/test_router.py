"""The router facade: retrieve, async twins, state-aware filtering and refill, executable
routes, named providers, provenance filters, abstention, plan, concurrency."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect, SourceType
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.abstention import AbstentionModel
from schemarouter.retrieval.state import ExecutionState

from helpers import BUNDLED_CATALOG


def make_router(*paths: Path, **kwargs: object) -> SchemaRouter:
    kwargs.setdefault("abstention", None)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, **kwargs)  # type: ignore[arg-type]
    for path in paths:
        router.add_catalog(path)
    return router


@pytest.fixture(scope="module")
def bundled() -> SchemaRouter:
    return make_router(BUNDLED_CATALOG)


def test_retrieve_names_routes_plainly(bundled: SchemaRouter) -> None:
    result = bundled.retrieve("band gap of GaN from the Materials Project", k=5)
    assert result.k == 5 and len(result) == 5
    assert result.registry_version == bundled.registry.version
    top = result.candidates[0]
    assert top.provider == "materials_project"
    assert (top.rank == 1 and top.score >= result.candidates[1].score) or result.candidates[
        1
    ].rank == 2
    assert top.method == "GET" and top.path and top.path.startswith("/materials")
    assert top.route_id == f"{top.provider}/{top.access_id}/{top.route_id.split('/')[-1]}"
    assert "band_gap" in top.matched_fields
    gap = top.field("band_gap")
    assert gap.unit == "eV" and gap.semantic_id == "electronic.band_gap"
    assert gap.license and gap.source_type is SourceType.CALCULATED
    assert top.bound_parameters.get("formula") == "GaN"
    assert top.fingerprint == bundled.snapshot().route(top.route_id).fingerprint
    assert [c.rank for c in result.candidates] == [1, 2, 3, 4, 5]


def test_contract_view_has_no_rank_or_score(bundled: SchemaRouter) -> None:
    result = bundled.retrieve("molecular weight of aspirin", k=3)
    for contract in result.contracts():
        assert "rank" not in contract and "score" not in contract and "scores" not in contract
        assert contract["route_id"] and contract["input_schema"] is not None
        assert contract["output_fields"]


def test_compact_contracts_keep_units_provenance_and_licence_at_half_the_tokens(
    bundled: SchemaRouter,
) -> None:
    """Last stop's low (trial T6): ``contracts()`` for a prompt cost 9,464 tokens at k=5
    against 992 for ``tools("anthropic")``, with no shorter form that keeps what the product
    promises a prompt: exact units, provenance and licence of every field."""
    from schemarouter.training.baselines import TokenCounter

    counter = TokenCounter()
    full = compact = 0
    for query in ("band gap of GaN", "molecular weight of aspirin", "bulk modulus of Fe2O3"):
        result = bundled.retrieve(query, k=5)
        for candidate, short in zip(result.candidates, result.contracts(compact=True), strict=True):
            assert json.loads(json.dumps(short)) == short  # JSON data, as the full form is
            assert short["route_id"] == candidate.route_id
            # what the values carry: the fields' own where they agree, else the provider's
            source_type, license = candidate.values_standing()
            assert short["source_type"] == source_type.value and short["license"] == license
            assert [p["name"] for p in short["parameters"]] == [
                p.name for p in candidate.parameters
            ]
            assert short.get("matched_fields", []) == list(candidate.matched_fields)
            for item, field in zip(short["output_fields"], candidate.output_fields, strict=True):
                assert item["name"] == field.name
                assert item.get("unit") == field.unit
                assert item.get("semantic_id") == field.semantic_id
                # a field's provenance and licence: its own where it says one, else the route's
                assert item.get("source_type", short["source_type"]) == field.source_type.value
                assert item.get("license", short["license"]) == field.license
            text = json.dumps(short)
            for secret in ("fingerprint", "credentials", "base_url", "access_id"):
                assert secret not in text
        full += counter.count(json.dumps(result.contracts()))
        compact += counter.count(json.dumps(result.contracts(compact=True)))
    assert 0 < compact <= full / 2, (compact, full)  # 0.44 measured here; 0.24 on T6's APIs


def test_source_constraint_filters_by_provenance(bundled: SchemaRouter) -> None:
    result = bundled.retrieve("experimentally measured cell volume of NaCl", k=5)
    assert result.analysis is not None
    assert result.analysis.source_constraints == (SourceType.EXPERIMENTAL,)
    for candidate in result.candidates:
        sources = {f.source_type for f in candidate.output_fields} | {candidate.source_type}
        assert SourceType.EXPERIMENTAL in sources


def test_named_provider_is_forced_to_the_top(bundled: SchemaRouter) -> None:
    result = bundled.retrieve("OQMD stability of Fe2O3", k=5)
    assert result.candidates[0].provider == "oqmd"


def test_korean_query_finds_its_route(bundled: SchemaRouter) -> None:
    result = bundled.retrieve("아스피린 분자량", k=5)
    assert any(c.provider == "pubchem" for c in result.candidates)


def test_state_aware_filter_and_refill(bundled: SchemaRouter) -> None:
    query = "band gap of silicon"
    plain = bundled.retrieve(query, k=5)
    first = plain.candidates[0].route_id
    state = ExecutionState(tried_routes=frozenset({first}), credentials=frozenset())
    filtered = bundled.retrieve_state_aware(query, state=state, k=5)
    excluded = {e.route_id: e.reason for e in filtered.exclusions}
    assert excluded[first] == "tried"
    assert first not in filtered.route_ids
    assert set(filtered.route_ids) <= set(plain.route_ids)  # fixed Top-K: filtered only
    for exclusion in filtered.exclusions:
        assert exclusion.detail
    refilled = bundled.reretrieve_state_aware(query, state=state, k=5)
    assert len(refilled) == 5 or refilled.exhausted
    assert first not in refilled.route_ids
    assert refilled.examined >= len(refilled) + 1
    for route_id, rank in refilled.original_ranks.items():
        assert rank >= 1 and route_id in refilled.route_ids
    assert sorted(refilled.original_ranks.values()) == list(refilled.original_ranks.values())
    # the stateless method did not change
    assert bundled.retrieve(query, k=5).route_ids == plain.route_ids


def test_state_credentials_and_effects(bundled: SchemaRouter) -> None:
    state = ExecutionState(credentials=frozenset(), allowed_effects=frozenset({Effect.READ}))
    result = bundled.reretrieve_state_aware("band gap of GaN", state=state, k=5)
    for exclusion in result.exclusions:
        if exclusion.reason == "credentials":
            assert "needs credentials" in exclusion.detail
    snapshot = bundled.snapshot()
    for candidate in result.candidates:
        auth = snapshot.route(candidate.route_id).access.auth
        assert not auth.credentials or auth.optional


def test_reretrieve_says_when_the_list_runs_out(bundled: SchemaRouter) -> None:
    everything = ExecutionState(allowed_effects=frozenset())
    result = bundled.reretrieve_state_aware("band gap", state=everything, k=5)
    assert result.candidates == () and result.exhausted
    assert result.examined == len(result.exclusions) > 0
    assert any("ran out" in w for w in result.warnings)
    # trial S2 §6: "effect read is not allowed, only none"
    details = {e.detail for e in result.exclusions if e.reason == "effect"}
    assert "effect read is not allowed (allowed_effects is empty: no effect is)" in details


def test_retrieve_executable_needs_binding_and_health() -> None:
    router = make_router()

    def band_gap(formula: str) -> float:
        """Band gap of a material in eV."""
        return 1.1

    def band_structure(formula: str) -> list[float]:
        """Band structure of a material."""
        return []

    router.add_callable([band_gap, band_structure], provider="lab")
    assert router.retrieve_executable("band gap", k=2).route_ids[0] == "lab/python/band_gap"
    router.mark_unhealthy("lab/python/band_gap", cooldown=60)
    result = router.retrieve_executable("band gap", k=2)
    assert "lab/python/band_gap" not in result.route_ids
    assert {e.reason for e in result.exclusions} == {"unhealthy"}
    router.mark_healthy("lab/python/band_gap")
    assert "lab/python/band_gap" in router.retrieve_executable("band gap", k=2).route_ids


def test_unbound_routes_are_not_executable(tiny_catalog: Path) -> None:
    router = make_router(tiny_catalog)
    # a catalog is the caller's own declaration: routes with a base_url bind at once
    assert router.retrieve_executable("band gap", k=2).route_ids[0] == "matproj/rest/summary"
    tools = {
        "tools": [
            {
                "name": "band_gap_lookup",
                "description": "Band gap of a material",
                "annotations": {"readOnlyHint": True},
                "inputSchema": {"type": "object", "properties": {"formula": {"type": "string"}}},
            }
        ]
    }
    router.add_mcp_tools(tools, provider="gaps", trusted=True)
    route_id = "gaps/mcp/band_gap_lookup"
    result = router.retrieve_executable("band gap lookup tool", k=3)
    assert route_id not in result.route_ids
    assert {e.route_id: e.reason for e in result.exclusions}.get(route_id) == "unbound"
    router.bind(route_id, invoker=object())
    assert route_id in router.retrieve_executable("band gap lookup tool", k=3).route_ids
    # a changed fingerprint unbinds
    tools["tools"][0]["description"] = "Band gap of a material, in eV"
    router.add_mcp_tools(tools, provider="gaps", trusted=True, replace=True)
    assert not router.is_bound(route_id) and router.binding(route_id) is None


def test_async_twins_match_and_do_not_block() -> None:
    router = make_router(BUNDLED_CATALOG)

    async def main() -> tuple[tuple[str, ...], tuple[str, ...], int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        a = await router.aretrieve("density of NaCl", k=5)
        b = await router.aretrieve_executable("density of NaCl", k=5)
        task.cancel()
        # a sync call inside a running loop works too
        c = router.retrieve("density of NaCl", k=5)
        assert c.route_ids == a.route_ids
        return a.route_ids, b.route_ids, ticks

    sync = router.retrieve("density of NaCl", k=5).route_ids
    route_ids, executable, ticks = asyncio.run(main())
    assert route_ids == sync
    assert len(executable) == 5 and all(router.is_bound(r) for r in executable)
    assert ticks > 1  # the loop kept running while retrieval worked in a thread


def test_aplan_plans_as_plan_does_without_blocking_the_loop() -> None:
    """Trial W2 (low): an async service had ``aretrieve``, ``aexecute`` and ``acall`` but no
    ``aplan``, so its planning (a retrieval's work) ran on the event loop."""
    router = make_router(BUNDLED_CATALOG)
    request = "band gap and bulk modulus of GaN"

    async def main() -> tuple[Any, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        plan = await router.aplan(request, max_calls=2)
        task.cancel()
        return plan, ticks

    plan, ticks = asyncio.run(main())
    sync = router.plan(request, max_calls=2)
    assert plan.route_ids == sync.route_ids and plan.steps == sync.steps
    assert ticks > 1


def test_abstention_uses_the_calibrated_model(tiny_catalog: Path) -> None:
    strict = AbstentionModel(weights={"top_dense": 0.0}, bias=-5.0, threshold=0.5, card={})
    router = make_router(tiny_catalog, abstention=strict)
    result = router.retrieve("band gap", k=3, abstain=True)
    assert result.abstained and result.candidates == ()
    assert "calibrated threshold 0.50" in result.reason
    flagged = router.retrieve("band gap", k=3)  # the default: flagged, not hidden
    assert flagged.off_catalog and flagged.candidates and not flagged.abstained
    assert (
        make_router(tiny_catalog, abstention=strict, abstain=True)
        .retrieve("band gap", k=3)
        .abstained
    )
    lenient = AbstentionModel(weights={"top_dense": 0.0}, bias=5.0, threshold=0.5, card={})
    assert make_router(tiny_catalog, abstention=lenient).retrieve("band gap", k=3).candidates


def test_removed_provider_never_comes_back(tiny_catalog: Path) -> None:
    router = make_router(tiny_catalog)
    assert "cod/rest/result" in router.retrieve("cell volume", k=5).route_ids
    router.remove_provider("cod")
    for _ in range(3):
        assert "cod/rest/result" not in router.retrieve("cell volume cod", k=5).route_ids


def test_a_router_with_nothing_registered_says_so() -> None:
    """A router built without a catalog answered "no registered route matches the request",
    as if the request were the problem; retrieve and plan now say nothing is registered and
    how to register."""
    router = SchemaRouter(encoder=HashingEncoder())
    result = router.retrieve("send an SMS to +15551234567")
    assert not result.route_ids and result.off_catalog
    assert result.reason.startswith("no route is registered: register some first (add_openapi")
    assert router.plan("send an SMS to +15551234567").reason == result.reason


def test_plan_is_gated_and_reports_coverage(bundled: SchemaRouter) -> None:
    plan = bundled.plan("bulk modulus and band gap of Si", max_calls=2)
    assert set(plan.coverage.required) >= {"mechanical.bulk_modulus", "electronic.band_gap"}
    assert plan.coverage.complete
    snapshot = bundled.snapshot()
    for step in plan.steps:
        route = snapshot.route(step.route_id)
        assert step.fingerprint == route.fingerprint
        assert set(step.fields) <= {f.name for f in route.endpoint.output_fields}


def test_retrieve_while_a_provider_registers(tiny_catalog: Path, tmp_path: Path) -> None:
    router = make_router(tiny_catalog)
    router.retrieve("band gap", k=3)  # build the index
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                result = router.retrieve("band gap cell volume", k=5)
                snapshot = router.snapshot()
                ids = result.route_ids
                assert len(set(ids)) == len(ids)
                # only routes of providers that were registered at some point are emitted
                assert all(re.match(r"(matproj|cod)\d*/", r) for r in ids), ids
                assert result.registry_version <= snapshot.version
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    text = tiny_catalog.read_text("utf-8")
    for i in range(15):
        path = tmp_path / f"p{i}.yaml"
        path.write_text(
            text.replace("id: matproj", f"id: matproj{i}").replace("id: cod", f"id: cod{i}"),
            "utf-8",
        )
        router.add_catalog(path)
        if i % 3 == 2:
            router.remove_provider(f"cod{i}")
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors
    final = router.retrieve("band gap", k=50)
    assert not [r for r in final.route_ids if r.startswith(("cod2/", "cod5/"))]


def test_build_index_builds_once_with_a_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
    router.add_catalog(BUNDLED_CATALOG)
    index = router.build_index(progress=True)
    assert "texts (100%)" in capsys.readouterr().err  # a line: stderr is no terminal here
    assert len(index) == len(router.snapshot().routes)
    assert router.build_index() is index and router.index is index
    assert router.retrieve("band gap of GaN", k=3).candidates
    assert "embedding" not in capsys.readouterr().err  # the first query built nothing more


def test_a_formula_before_a_korean_particle_filters_the_search(
    bundled: SchemaRouter, tmp_path: Path
) -> None:
    """Trial Q §1: "Fe2O3의 밴드갭" planned summary_search with no arguments (formula is
    optional), and the unfiltered search answered with other materials' band gaps."""
    for query in ("Fe2O3의 밴드갭", "Materials Project에서 Fe2O3의 밴드갭"):
        plan = bundled.plan(query)
        assert plan.steps[0].arguments.get("formula") == "Fe2O3", query
        assert not any("no step takes" in w for w in plan.warnings)
    # a formula the chosen route cannot take is said, not dropped silently
    catalog = {
        "schemarouter_catalog": 1,
        "providers": [
            {
                "id": "gaps",
                "display_name": "Gap table",
                "source_type": "calculated",
                "access": [
                    {
                        "id": "rest",
                        "kind": "http",
                        "base_url": "https://gaps.example.org",
                        "endpoints": [
                            {
                                "id": "all",
                                "name": "GET /gaps",
                                "operation": {"method": "GET", "path": "/gaps"},
                                "summary": "Band gaps of every material in the table.",
                                "parameters": [],
                                "output_fields": [
                                    {
                                        "name": "band_gap",
                                        "path": "gap",
                                        "json_schema": {"type": "number"},
                                        "semantic_id": "electronic.band_gap",
                                        "aliases": ["band gap", "밴드갭"],
                                    }
                                ],
                            }
                        ],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "gaps.yaml"
    path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
    plan = make_router(path).plan("Fe2O3의 밴드갭")
    assert plan.route_ids == ("gaps/rest/all",) and plan.steps[0].arguments == {}
    assert any("formula 'Fe2O3', which no step takes as an argument" in w for w in plan.warnings), (
        plan.warnings
    )


def test_route_ids_of_the_state_that_are_not_registered_are_named(bundled: SchemaRouter) -> None:
    """A typo in ``tried_routes`` / ``unhealthy_routes`` (or a route removed since) excluded
    nothing and said nothing: the host's loop went on as if the route were left out (user
    trial trials2). The result's warnings name each such id, the field that holds it, and
    the registered id it is closest to."""
    query = "band gap of silicon"
    first = bundled.retrieve(query, k=5).candidates[0].route_id
    typo = first[:-1]
    state = ExecutionState(
        tried_routes=frozenset({typo}), unhealthy_routes=frozenset({"gone/rest/old_route"})
    )
    for result in (
        bundled.retrieve_state_aware(query, state=state, k=5),
        bundled.reretrieve_state_aware(query, state=state, k=5),
        bundled.retrieve_executable(query, state=state, k=5),
    ):
        named = [w for w in result.warnings if "not registered" in w]
        assert len(named) == 2, result.warnings
        tried = next(w for w in named if "ExecutionState.tried_routes" in w)
        assert typo in tried and f"did you mean {first!r}" in tried
        assert "excludes nothing" in tried
        assert any(
            "ExecutionState.unhealthy_routes" in w and "gone/rest/old_route" in w for w in named
        )
    # a state naming only registered routes adds no such warning
    clean = bundled.retrieve_state_aware(
        query, state=ExecutionState(tried_routes=frozenset({first})), k=5
    )
    assert not [w for w in clean.warnings if "not registered" in w]


def test_semantic_ids_of_the_state_that_no_field_offers_are_named(bundled: SchemaRouter) -> None:
    """Trial T1 (low): a misspelt semantic id in ``fields_held`` excluded nothing and said
    nothing, where the same typo in ``tried_routes`` was warned of."""
    query = "band gap of silicon"
    held = next(
        f.semantic_id
        for c in bundled.retrieve(query, k=5).candidates
        for f in bundled.snapshot().routes[c.route_id].endpoint.output_fields
        if f.semantic_id
    )
    typo = held + "x"
    state = ExecutionState(fields_held=frozenset({typo, held}))
    for result in (
        bundled.retrieve_state_aware(query, state=state, k=5),
        bundled.retrieve_executable(query, state=state, k=5),
    ):
        named = [w for w in result.warnings if "ExecutionState.fields_held" in w]
        assert len(named) == 1, result.warnings
        assert repr(typo) in named[0] and repr(held) not in named[0]
        assert "exclude nothing" in named[0]
    clean = bundled.retrieve_state_aware(
        query, state=ExecutionState(fields_held=frozenset({held})), k=5
    )
    assert not [w for w in clean.warnings if "fields_held" in w]


def test_a_cooldown_that_ends_during_the_retrieval_is_not_blamed_on_the_host(
    bundled: SchemaRouter,
) -> None:
    """The router read its cooldowns before ranking and asked again why a route was out
    after it: a cooldown that ended in between left the route out as one "the host marked
    unhealthy", telling the host to remove it from ``ExecutionState.unhealthy_routes``,
    where it had never put it (user trial trials2: 48 of 200 retrievals). The reason is
    read with the cooldowns, at one instant."""
    query = "band gap of silicon"
    first = bundled.retrieve(query, k=5).candidates[0].route_id
    state = ExecutionState()
    started = time.perf_counter()
    for _ in range(5):
        bundled.retrieve_state_aware(query, state=state, k=5)
    took = (time.perf_counter() - started) / 5
    details = set()
    try:
        for i in range(120):  # cooldowns that end before, during and after one retrieval
            bundled.mark_unhealthy(first, cooldown=took * (i % 40) / 20, reason="flaky upstream")
            result = bundled.retrieve_state_aware(query, state=state, k=5)
            details |= {e.detail for e in result.exclusions if e.route_id == first}
            assert "ExecutionState.unhealthy_routes" not in result.blocked, result.blocked
    finally:
        bundled.mark_healthy(first)
    assert details and all(d.startswith("flaky upstream") for d in details), details


def test_a_misspelt_state_key_names_the_field_meant() -> None:
    """Trial S2: ``ExecutionState(tried_rotes=...)`` (or the same key in a dict a loop
    validates) said only pydantic's "Extra inputs are not permitted"."""
    for build in (
        lambda: ExecutionState(tried_rotes=frozenset({"a/rest/b"})),  # type: ignore[call-arg]
        lambda: ExecutionState.model_validate({"tried_rotes": ["a/rest/b"]}),
    ):
        with pytest.raises(
            ValueError, match="has no field 'tried_rotes': did you mean 'tried_routes'"
        ):
            build()
    state = ExecutionState.model_validate(
        {"tried_routes": ["a/rest/b"], "allowed_effects": ["read"]}
    )
    assert ExecutionState.model_validate_json(state.model_dump_json()) == state


def test_a_constraint_one_part_states_does_not_empty_the_others(bundled: SchemaRouter) -> None:
    """A request of two parts, the second asking for literature and naming arXiv: read whole,
    "recent arXiv preprints" made literature the source constraint and arXiv the provider of
    the whole request, so retrieval left every route of the band gap out and the plan was
    empty ("'electronic.band_gap' is served only by routes the request's constraints
    exclude"). A constraint holds where every part states it; one part's stays a ranking hint
    (named providers still lead)."""
    query = "band gap of GaN, and also find recent arXiv preprints about GaN LEDs"
    result = bundled.retrieve(query, k=44)
    assert result.analysis.source_constraints == ()
    assert "materials_project/rest/summary_search" in result.route_ids
    assert result.route_ids[0] == "arxiv/api/query"  # the provider named still leads
    plan = bundled.plan(query, max_calls=3)
    assert "electronic.band_gap" in plan.coverage.covered, plan.reason
    assert any(
        bundled.snapshot().routes[r].provider.source_type is SourceType.LITERATURE
        for r in plan.route_ids
    )
    # one part, or every part, stating it: the constraint holds as before
    alone = bundled.retrieve("recent arXiv preprints about GaN LEDs", k=5)
    assert alone.analysis.source_constraints == (SourceType.LITERATURE,)
    both = bundled.retrieve("measured band gap of GaN, and also its measured density", k=5)
    assert both.analysis.source_constraints == (SourceType.EXPERIMENTAL,)
    kept = bundled.plan("band gap of GaN from Materials Project", max_calls=3)
    assert kept.route_ids and all(r.startswith("materials_project/") for r in kept.route_ids)


def test_a_korean_request_of_two_clauses_keeps_each_parts_routes(bundled: SchemaRouter) -> None:
    """The Korean twin of the request above, its clauses joined by -고: read as one part,
    arXiv held for the band gap too, retrieval left every band gap route out and the plan
    was empty."""
    query = "GaN의 밴드갭을 알려주고 GaN LED에 관한 최근 arXiv 논문도 찾아줘"
    result = bundled.retrieve(query, k=44)
    assert result.analysis.source_constraints == ()
    assert "materials_project/rest/summary_search" in result.route_ids
    plan = bundled.plan(query, max_calls=3)
    assert "electronic.band_gap" in plan.coverage.covered, plan.reason


def test_an_empty_request_is_said_to_be_empty(bundled: SchemaRouter) -> None:
    """Trial W1 (low): a blank request answered "no registered route matches the request",
    as if the catalog lacked something."""
    for query in ("", "   \n"):
        result = bundled.retrieve(query, k=5)
        assert result.candidates == () and "the request is empty" in result.reason, result
