"""Incremental snapshots (issue #26): a registration costs what it adds, and changes nothing
a reader can see: the same routes, order, lookups and fingerprints as the registry that
rebuilt every table per registration (kept here as the oracle ``_DictRegistry``), whether
sources are registered one by one, in a batch or with ``add_many``."""

from __future__ import annotations

import pickle
import threading
from importlib.resources import files
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemarouter import SchemaRouter
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Registration, Route
from schemarouter.errors import DuplicateRouteError, RegistrationError
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import (
    FieldProvision,
    Registry,
    RegistryChange,
    RegistrySnapshot,
)
from schemarouter.registry.shared import SharedMap

_TOOLS = [
    {"name": "get_forecast", "description": "Weather forecast for a city, by day."},
    {"name": "search_flights", "description": "Search flights between two airports."},
    {"name": "convert_currency", "description": "Convert an amount between currencies."},
    {"name": "get_forecast_hourly", "description": "Hourly weather forecast for a city."},
]

# -- the oracle: the registry before issue #26, which copied every table per change ---------


class _DictRegistry:
    """Plain dicts, every table rebuilt from all routes at each change (the old code)."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.providers: dict[str, object] = {}

    def register(self, registration: Registration, *, replace: bool = False) -> None:
        routes = dict(self.routes)
        new_ids = {r.route_id: r for r in registration.routes}
        if replace:
            scopes = {(r.provider.id, r.access.id) for r in registration.routes}
            for route_id, existing in self.routes.items():
                in_scope = (existing.provider.id, existing.access.id) in scopes
                if in_scope and route_id not in new_ids:
                    del routes[route_id]
        for route_id, route in new_ids.items():
            if route_id in self.routes and not replace:
                raise DuplicateRouteError("already registered")
            routes[route_id] = route
        providers = dict(self.providers)
        for provider in registration.providers:
            providers[provider.id] = provider
        for route in new_ids.values():
            providers.setdefault(route.provider.id, route.provider)
        self.routes, self.providers = routes, providers

    def remove(self, provider: str) -> None:
        self.routes = {k: v for k, v in self.routes.items() if v.provider.id != provider}
        del self.providers[provider]

    def by_provider(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for route_id in sorted(self.routes):
            out.setdefault(self.routes[route_id].provider.id, []).append(route_id)
        return {k: tuple(v) for k, v in out.items()}

    def by_semantic(self) -> dict[str, tuple[tuple[str, str], ...]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for route_id in sorted(self.routes):
            for item in self.routes[route_id].endpoint.output_fields:
                if item.semantic_id is not None:
                    out.setdefault(item.semantic_id, []).append((route_id, item.name))
        return {k: tuple(v) for k, v in out.items()}


def _same_as_oracle(snap: RegistrySnapshot, oracle: _DictRegistry) -> None:
    assert list(snap.routes) == list(oracle.routes)  # insertion order, as a dict's
    assert dict(snap.routes) == oracle.routes
    assert dict(snap.providers) == oracle.providers
    assert len(snap) == len(oracle.routes)
    for provider, ids in oracle.by_provider().items():
        assert tuple(r.route_id for r in snap.routes_of(provider)) == ids
    assert {p for p in snap.providers if snap.routes_of(p)} == set(oracle.by_provider())
    semantic = oracle.by_semantic()
    assert snap.semantic_ids() == tuple(sorted(semantic))
    for sid, offers in semantic.items():
        assert tuple((o.route_id, o.field.name) for o in snap.providers_of(sid)) == offers
    rebuilt = RegistrySnapshot.build(snap.version, oracle.routes, oracle.providers)
    assert snap.fingerprint == rebuilt.fingerprint
    assert all(isinstance(o, FieldProvision) for s in semantic for o in snap.providers_of(s))


# -- sources: the bundled catalog's providers, one registration each ----------------------


def _bundled() -> Registration:
    return load_catalog(Path(str(files("schemarouter.data").joinpath("catalogs", "materials"))))


_BUNDLED = _bundled()
_PROVIDERS = sorted({r.provider.id for r in _BUNDLED.routes})


def _source(provider: str, *, variant: int = 0, keep: int = 0) -> Registration:
    """``provider``'s routes of the bundled catalog; ``variant`` edits their descriptions
    (new fingerprints), ``keep`` > 0 keeps only the first ``keep`` routes."""
    routes = [r for r in _BUNDLED.routes if r.provider.id == provider]
    if keep:
        routes = routes[:keep]
    if variant:
        routes = [
            Route.build(
                r.provider,
                r.access,
                r.endpoint.model_copy(
                    update={"description": f"{r.endpoint.description} (v{variant})"}
                ),
                source=r.source,
            )
            for r in routes
        ]
    return Registration(
        source=f"{provider}-v{variant}", routes=tuple(routes), providers=(routes[0].provider,)
    )


# -- SharedMap ------------------------------------------------------------------------------


def test_shared_map_evolve_leaves_the_parent_as_it_was() -> None:
    base = SharedMap({f"k{i}": i for i in range(5000)})
    child = base.evolve({"k3": -3, "new": 1}, delete=["k7"])
    assert len(base) == 5000 and base["k3"] == 3 and "k7" in base and "new" not in base
    assert len(child) == 5000 and child["k3"] == -3 and "k7" not in child
    assert list(child)[-1] == "new" and list(child)[3] == "k3"  # replaced keeps its place
    grandchild = base.evolve({"other": 2})  # the parent is no longer the newest of its line
    assert list(grandchild)[-1] == "other" and "new" not in grandchild
    assert list(base) == [f"k{i}" for i in range(5000)]
    with pytest.raises(KeyError):
        base.evolve(delete=["missing"])
    assert child.get("missing", 0) == 0 and child.get("k1") == 1
    assert pickle.loads(pickle.dumps(child)) == child
    assert list(pickle.loads(pickle.dumps(child))) == list(child)


def test_shared_map_shares_what_a_change_does_not_touch() -> None:
    base = SharedMap({f"k{i}": i for i in range(5000)})
    child = base.evolve({"k1": 10})
    shared = sum(a is b for a, b in zip(base._root, child._root, strict=True))
    assert shared == 63  # one of the 64 slots of the root was copied
    assert child._order is base._order  # same keys: the order list is shared


# -- equality with the old registry ----------------------------------------------------------

_OPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "replace", "remove"]),
        st.sampled_from(_PROVIDERS),
        st.integers(0, 2),  # variant
        st.integers(0, 3),  # keep
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_OPS)
def test_incremental_snapshots_equal_the_old_full_rebuild(ops) -> None:
    registry, oracle = Registry(), _DictRegistry()
    for op, provider, variant, keep in ops:
        before = registry.snapshot()
        try:
            if op == "remove":
                if provider not in oracle.providers:
                    continue
                oracle.remove(provider)
                registry.remove(provider=provider)
            else:
                source = _source(provider, variant=variant, keep=keep)
                oracle_before = (dict(oracle.routes), dict(oracle.providers))
                try:
                    oracle.register(source, replace=op == "replace")
                except DuplicateRouteError:
                    oracle.routes, oracle.providers = oracle_before
                    with pytest.raises((DuplicateRouteError, RegistrationError)):
                        registry.register(source, replace=False)
                    assert registry.snapshot() is before
                    continue
                registry.register(source, replace=op == "replace")
        finally:
            assert before.fingerprint == before.fingerprint  # earlier snapshots unchanged
        _same_as_oracle(registry.snapshot(), oracle)


def test_one_by_one_batched_and_add_many_give_the_same_fingerprints() -> None:
    sources = [_source(p) for p in _PROVIDERS]
    one = SchemaRouter(abstention=None, reranker=None)
    for source in sources:
        one.register(source)
    batched = SchemaRouter(abstention=None, reranker=None)
    with batched.batch() as done:
        for source in sources:
            batched.register(source)
    many = SchemaRouter(abstention=None, reranker=None)
    change = many.add_many(sources)
    oracle = _DictRegistry()
    for source in sources:
        oracle.register(source)
    for router in (one, batched, many):
        _same_as_oracle(router.snapshot(), oracle)
        snap = router.snapshot()
        assert [(r.route_id, r.fingerprint) for r in snap] == [
            (r.route_id, r.fingerprint) for r in one.snapshot()
        ]
        assert snap.fingerprint == one.snapshot().fingerprint
        assert {p: snap.providers[p].content_fingerprint() for p in snap.providers} == {
            p: one.snapshot().providers[p].content_fingerprint() for p in snap.providers
        }
    assert change == done.change
    assert change.added == tuple(sorted(r.route_id for s in sources for r in s.routes))
    assert many.registry.version == one.registry.version == len(sources)


# -- batches ---------------------------------------------------------------------------------


def test_a_batch_keeps_every_registrations_warnings_after_its_source() -> None:
    """The merged change of a batch (the only answer add_many gives) had no warnings: 392
    repair warnings of 124 documents came back as none (a user trial)."""

    def document(title: str, path: str = "/x") -> dict:
        query = {"name": "n", "in": "query", "schema": {"type": "integer", "minimum": "1"}}
        ok = {"200": {"description": "ok"}}
        return {
            "openapi": "3.0.3",
            "info": {"title": title, "version": "1"},
            "paths": {path: {"get": {"parameters": [query], "responses": ok}}},
        }

    registrations = [
        openapi_registration(document(t), source=f"{t}.json") for t in ("alpha", "beta")
    ]
    assert all(len(r.warnings) == 1 for r in registrations)
    change = SchemaRouter(abstention=None, reranker=None).add_many(registrations)
    assert [w.split(": ", 1)[0] for w in change.warnings] == ["alpha.json", "beta.json"]
    assert all("minimum" in w for w in change.warnings)
    # two documents titled alike in one add_many: the error names the other and the way out
    twins = [
        openapi_registration(document(title, path), source=f"{n}.json")
        for n, title, path in (("one", "Same Thing", "/x"), ("two", "Same-Thing!", "/y"))
    ]
    assert twins[0].providers[0].id == twins[1].providers[0].id
    with pytest.raises(RegistrationError, match=r"from one\.json.*pass provider="):
        SchemaRouter(abstention=None, reranker=None).add_many(twins)


def test_batch_tells_listeners_once_and_other_threads_see_the_old_snapshot() -> None:
    registry = Registry()
    registry.register(_source(_PROVIDERS[0]))
    start = registry.snapshot()
    calls: list[RegistryChange] = []
    registry.subscribe(lambda snap, change: calls.append(change))
    seen_elsewhere: list[RegistrySnapshot] = []
    with registry.batch() as done:
        registry.register(_source(_PROVIDERS[1]))
        registry.register(_source(_PROVIDERS[2]))
        registry.register(_source(_PROVIDERS[0], variant=1), replace=True)
        registry.remove(provider=_PROVIDERS[2])
        reader = threading.Thread(target=lambda: seen_elsewhere.append(registry.snapshot()))
        reader.start()
        reader.join()
        assert registry.snapshot().version == start.version + 4  # this thread: its own
        assert not calls
    assert seen_elsewhere == [start]
    assert calls == [done.change]
    assert done.change is not None and done.change.version == start.version + 4
    assert done.change.added == tuple(sorted(r.route_id for r in _source(_PROVIDERS[1]).routes))
    assert done.change.replaced == tuple(sorted(r.route_id for r in _source(_PROVIDERS[0]).routes))
    assert done.change.removed == ()  # added and removed inside the batch: no change
    assert registry.snapshot().version == start.version + 4


def test_an_exception_in_a_batch_undoes_all_of_it(tiny_catalog: Path) -> None:
    router = SchemaRouter(abstention=None, reranker=None)
    router.add_catalog(tiny_catalog)
    before = router.snapshot()
    bindings = router.bindings()
    with pytest.raises(DuplicateRouteError), router.batch():
        router.register(_source(_PROVIDERS[1]))
        router.add_openapi(
            {
                "openapi": "3.0.0",
                "info": {"title": "t", "version": "1"},
                "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {}}}}},
            },
            provider="batchapi",
            base_url="https://a.example.org",
        )
        assert router.is_bound("batchapi/rest/a")
        router.add_catalog(tiny_catalog)  # already registered: the whole batch goes
    assert router.snapshot() is before
    assert router.bindings() == bindings and not router.is_bound("batchapi/rest/a")


def test_a_listener_failing_at_the_end_of_a_batch_undoes_it() -> None:
    registry = Registry()
    registry.register(_source(_PROVIDERS[0]))
    start = registry.snapshot()

    def failing(snap: RegistrySnapshot, change: RegistryChange) -> None:
        if change.added:
            raise RuntimeError("index down")

    registry.subscribe(failing)
    with pytest.raises(RegistrationError, match="index down"), registry.batch():
        registry.register(_source(_PROVIDERS[1]))
    assert registry.snapshot() is start


def test_mcp_tools_one_by_one_and_batched_retrieve_alike() -> None:
    from schemarouter.index import HashingEncoder

    tools = [{**t, "inputSchema": {"type": "object"}} for t in _TOOLS]
    one = SchemaRouter(encoder=HashingEncoder(64), abstention=None, reranker=None)
    batched = SchemaRouter(encoder=HashingEncoder(64), abstention=None, reranker=None)
    one.retrieve("anything", k=1)  # the index exists: each registration updates it
    batched.retrieve("anything", k=1)
    for i, tool in enumerate(tools):
        one.add_mcp_tools({"tools": [tool]}, provider=f"server{i}")
    with batched.batch():
        for i, tool in enumerate(tools):
            batched.add_mcp_tools({"tools": [tool]}, provider=f"server{i}")
    assert one.snapshot().fingerprint == batched.snapshot().fingerprint
    assert one.index.registry_fingerprint == batched.index.registry_fingerprint
    query = tools[0]["description"]
    assert [(c.route_id, c.score) for c in one.retrieve(query, k=3).candidates] == [
        (c.route_id, c.score) for c in batched.retrieve(query, k=3).candidates
    ]


def test_snapshot_build_takes_plain_mappings() -> None:
    snap = RegistrySnapshot.build(3, MappingProxyType({}), {})
    assert snap.version == 3 and len(snap) == 0 and snap.semantic_ids() == ()


def test_one_registration_does_the_same_work_at_any_registry_size() -> None:
    """O(routes added): the calls one registration makes do not grow with the registry
    (measured with the code before issue #26, which rebuilt every table: 130 calls at 50
    routes, 6,030 at 3,000; now 114 at both)."""
    import sys

    from schemarouter.contracts import AccessKind, AccessPath, Endpoint, Operation, Provider

    access = AccessPath(id="mcp", kind=AccessKind.MCP)

    def route(i: int) -> Route:
        provider = Provider(id=f"p{i}", display_name=f"P {i}")
        endpoint = Endpoint(
            id=f"e{i}", name=f"e{i}", description="d", operation=Operation(tool="t")
        )
        return Route.build(provider, access, endpoint, source="test")

    def calls(size: int) -> int:
        registry = Registry()
        registry.register(Registration(source="base", routes=tuple(route(i) for i in range(size))))
        one = Registration(source="one", routes=(route(size),))
        count = 0

        def profile(frame: object, event: str, arg: object) -> None:
            nonlocal count
            count += event in ("call", "c_call")  # Python and C calls (dict, sort, ...)

        sys.setprofile(profile)
        try:
            registry.register(one)
        finally:
            sys.setprofile(None)
        return count

    assert calls(50) == calls(3000)
