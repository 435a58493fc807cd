"""Registry: versions, atomic registration, replace/remove, lookups, snapshots, threads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Registration
from schemarouter.errors import DuplicateRouteError, RegistryLookupError
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry


def test_version_changes_on_every_successful_registration(tiny_catalog: Path) -> None:
    registry = Registry()
    assert registry.version == 0
    change = registry.register(load_catalog(tiny_catalog))
    assert change.version == registry.version == 1
    assert change.added == ("cod/rest/result", "matproj/rest/summary")
    with pytest.raises(DuplicateRouteError, match="already registered"):
        registry.register(load_catalog(tiny_catalog))
    assert registry.version == 1  # a failed registration does not bump the version
    change = registry.register(load_catalog(tiny_catalog), replace=True)
    assert registry.version == 2
    assert change.empty  # same document, same fingerprints: nothing replaced


def test_replace_reports_changed_and_removed_routes(tiny_catalog: Path, tmp_path: Path) -> None:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    old_fp = registry.snapshot().route("matproj/rest/summary").fingerprint
    edited = tiny_catalog.read_text("utf-8").replace(
        "Summary properties of materials.", "Summary properties (v2)."
    )
    edited = edited.replace("id: result\n", "id: result_v2\n")
    path = tmp_path / "edited.yaml"
    path.write_text(edited, "utf-8")
    change = registry.register(load_catalog(path), replace=True)
    assert change.replaced == ("matproj/rest/summary",)
    assert change.added == ("cod/rest/result_v2",)
    assert change.removed == ("cod/rest/result",)
    assert registry.snapshot().route("matproj/rest/summary").fingerprint != old_fp


def test_lookups(tiny_catalog: Path) -> None:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    snap = registry.snapshot()
    assert [r.route_id for r in snap.routes_of("matproj")] == ["matproj/rest/summary"]
    (offer,) = snap.providers_of("mechanical.bulk_modulus")
    assert offer.route_id == "matproj/rest/summary"
    assert offer.unit == "GPa" and offer.canonical_unit == "Pa"
    assert offer.source_type.value == "calculated"
    assert offer.license == "CC-BY-4.0"
    (gap,) = snap.providers_of("electronic.band_gap")
    assert dict(gap.qualifiers) == {"functional": "PBE"}
    assert snap.providers_of("no.such.field") == ()
    assert "structure.cell_volume" in snap.semantic_ids()
    assert set(snap.intents) == {"property_lookup"}
    with pytest.raises(RegistryLookupError, match="no route 'nope'"):
        snap.route("nope")
    with pytest.raises(RegistryLookupError, match="Known providers: cod, matproj"):
        snap.provider("nope")


def test_remove_provider_and_snapshot_isolation(tiny_catalog: Path) -> None:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    held = registry.snapshot()
    change = registry.remove(provider="cod")
    assert change.removed == ("cod/rest/result",)
    assert registry.snapshot().route_ids() == ("matproj/rest/summary",)
    assert "cod/rest/result" in held  # a held snapshot never changes
    assert held.version == 1 and registry.version == 2
    with pytest.raises(RegistryLookupError):
        registry.remove(provider="cod")
    assert registry.version == 2


def test_registry_fingerprint_is_content_based(tiny_catalog: Path) -> None:
    a, b = Registry(), Registry()
    a.register(load_catalog(tiny_catalog))
    b.register(load_catalog(tiny_catalog))
    b.register(load_catalog(tiny_catalog), replace=True)
    assert a.version != b.version
    assert a.snapshot().fingerprint == b.snapshot().fingerprint
    b.remove(provider="cod")
    assert a.snapshot().fingerprint != b.snapshot().fingerprint


def test_listeners_see_each_change(tiny_catalog: Path) -> None:
    registry = Registry()
    seen: list[tuple[int, tuple[str, ...]]] = []
    registry.subscribe(lambda snap, change: seen.append((snap.version, change.added)))
    registry.register(load_catalog(tiny_catalog))
    assert seen == [(1, ("cod/rest/result", "matproj/rest/summary"))]


def test_readers_see_consistent_snapshots_while_writers_register(tiny_catalog: Path) -> None:
    base = load_catalog(tiny_catalog)
    router = SchemaRouter()
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(n: int) -> None:
        try:
            for i in range(40):
                routes = tuple(
                    r.model_copy(
                        update={
                            "route_id": r.route_id.replace("/rest/", f"/w{n}_{i}/"),
                            "provider": r.provider.model_copy(update={"id": f"{r.provider.id}{n}"}),
                        }
                    )
                    for r in base.routes
                )
                router.register(Registration(source=f"writer{n}", routes=routes))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        try:
            while not stop.is_set():
                snap = router.snapshot()
                ids = snap.route_ids()
                assert len(ids) == len(snap)
                assert len(ids) % 2 == 0  # registrations add routes two at a time
                for route_id in ids[:5]:
                    assert snap.route(route_id).route_id == route_id
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(3)]
    writers = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert not errors, errors
    assert router.registry.version == 120
    assert len(router.snapshot()) == 240


def test_replace_without_pruning_keeps_the_routes_a_registration_lacks(
    tiny_catalog: Path, tmp_path: Path
) -> None:
    """``prune=False`` replaces the registration's own routes and removes nothing; the
    duplicate hint says what ``replace=True`` does in each mode."""
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    with pytest.raises(DuplicateRouteError) as pruning:
        registry.register(load_catalog(tiny_catalog))
    assert "access path 'rest' that this registration lacks are removed" in str(pruning.value.hint)
    with pytest.raises(DuplicateRouteError, match="replace just this route"):
        registry.register(load_catalog(tiny_catalog), prune=False)
    edited = tiny_catalog.read_text("utf-8").replace(
        "Summary properties of materials.", "Summary properties (v2)."
    )
    edited = edited.replace("id: result\n", "id: result_v2\n")
    path = tmp_path / "edited.yaml"
    path.write_text(edited, "utf-8")
    change = registry.register(load_catalog(path), replace=True, prune=False)
    assert change.replaced == ("matproj/rest/summary",)
    assert change.added == ("cod/rest/result_v2",)
    assert change.removed == ()
    assert "cod/rest/result" in registry.snapshot()
