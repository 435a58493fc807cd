"""Provider profiles: built-in (bundled catalog), entry points with an allowlist, outcomes."""

from __future__ import annotations

import threading
from importlib import metadata
from typing import Any

import httpx
import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters import profiles as profiles_module
from schemarouter.adapters.profiles import (
    AccessMethod,
    ProviderProfile,
    add_provider,
    builtin_profiles,
    entry_point_profiles,
    resolve_profile,
)
from schemarouter.errors import RegistryLookupError


def _router() -> SchemaRouter:
    return SchemaRouter(abstention=None, embedding_cache=None)


def test_builtin_profiles_cover_bundled_providers() -> None:
    ids = {p.id for p in builtin_profiles()}
    for expected in (
        "materials_project",
        "oqmd",
        "jarvis_dft",
        "nomad",
        "cod",
        "pubchem",
        "crossref",
        "openalex",
        "arxiv",
    ):
        assert expected in ids
    mp = resolve_profile("materials_project")
    assert mp.access[0].kind == "catalog" and mp.access[0].location == "materials_project.yaml"
    assert mp.access[0].requires_credentials == ("MP_API_KEY",)
    assert mp.access[1].kind == "optimade" and not mp.access[1].enabled


@pytest.mark.parametrize(
    "name", ["OQMD", "oqmd", "Open Quantum Materials Database (OQMD)", " Oqmd "]
)
def test_resolve_by_alias_case_insensitive(name: str) -> None:
    assert resolve_profile(name).id == "oqmd"


def test_unknown_name_lists_known_profiles() -> None:
    with pytest.raises(RegistryLookupError) as info:
        resolve_profile("no-such-db")
    assert "materials_project" in str(info.value) and "oqmd" in str(info.value)


def test_add_provider_registers_only_that_provider_and_binds() -> None:
    router = _router()
    result = add_provider(router, "PubChem", env={})
    assert result.profile == "pubchem"
    (catalog,) = result.outcomes
    assert catalog.status == "registered" and catalog.route_ids
    assert {router.snapshot().route(r).provider.id for r in result.route_ids} == {"pubchem"}
    assert set(router.snapshot().route_ids()) == set(result.route_ids)  # not chembl, not CAS
    assert all(router.is_bound(r) for r in result.route_ids)


def test_a_profiles_routes_are_bound_the_moment_they_are_published() -> None:
    """Trial Q: add_provider's catalog method registered, then bound (register +
    bind_http_routes), so while the index embedded the new routes another thread that read
    them found them unbound ("not bound to an invoker at its current fingerprint"), as trial
    C found for add_catalog; it now registers as add_catalog does (register_http_routes)."""
    router = SchemaRouter(abstention=None, embedding_cache=None, reranker=None)
    seen: list[bool] = []
    registry = router.registry
    commit = registry._commit

    def published(snapshot: Any, change: Any, *, source: str) -> None:
        commit(snapshot, change, source=source)  # the snapshot swapped in: published
        added = getattr(change, "added", ())
        if added and not seen and registry._snapshot is snapshot:
            thread = threading.Thread(target=lambda: seen.append(router.is_bound(added[0])))
            thread.start()
            thread.join(10)

    registry._commit = published  # type: ignore[method-assign]
    assert add_provider(router, "PubChem", env={}).outcomes[0].status == "registered"
    assert seen == [True]


def test_needs_credentials_and_disabled_optimade() -> None:
    router = _router()
    result = add_provider(router, "MP", env={})
    catalog, optimade = result.outcomes
    assert catalog.status == "needs_credentials"
    assert catalog.missing_credentials == ("MP_API_KEY",)
    assert catalog.route_ids and result.registered
    assert optimade.status == "disabled" and not optimade.route_ids
    again = add_provider(_router(), "MP", env={}, credentials={"MP_API_KEY": "x"})
    assert again.outcomes[0].status == "registered"
    assert add_provider(_router(), "MP", env={"MP_API_KEY": "x"}).outcomes[0].status == "registered"


def test_enabled_optimade_unavailable_on_network_error() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("offline", request=request)

    router = _router()
    with httpx.Client(transport=httpx.MockTransport(down)) as client:
        result = add_provider(router, "oqmd", enable=("optimade",), client=client)
    catalog, optimade = result.outcomes
    assert catalog.status == "registered"
    assert optimade.status == "unavailable" and optimade.detail
    assert all(r.startswith("oqmd/") for r in router.snapshot().route_ids())
    assert set(router.snapshot().route_ids()) == set(catalog.route_ids)


def test_missing_optional_dependency_and_bad_catalog_file() -> None:
    profile = ProviderProfile(
        id="lab",
        display_name="Lab",
        access=(
            AccessMethod(
                kind="mcp", location="lab-server --stdio", requires_extra="no_such_extra_pkg_xyz"
            ),
            AccessMethod(kind="catalog", location="../../etc/passwd"),
            AccessMethod(kind="catalog", location="oqmd.yaml"),
        ),
    )
    result = add_provider(_router(), profile, env={})
    statuses = [o.status for o in result.outcomes]
    assert statuses == ["missing_optional_dependency", "unavailable", "unavailable"]
    assert not result.registered and result.route_ids == ()


class _EntryPoint:
    def __init__(self, name: str, value: object) -> None:
        self.name = name
        self._value = value

    def load(self) -> object:
        return self._value


def test_entry_point_profiles_need_the_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    third = ProviderProfile(
        id="oqmd",  # a third-party profile reusing the bundled OQMD catalog file
        display_name="Third-party OQMD",
        aliases=("tp-oqmd",),
        access=(AccessMethod(kind="catalog", location="oqmd.yaml"),),
    )
    loaded: list[str] = []

    def factory() -> list[ProviderProfile]:
        loaded.append("yes")
        return [third]

    def fake_entry_points(*, group: str):
        assert group == "schemarouter.profiles"
        return [_EntryPoint("thirdparty", factory)]

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)
    assert entry_point_profiles(()) == ()
    assert entry_point_profiles(["other"]) == () and loaded == []
    with pytest.raises(RegistryLookupError):
        resolve_profile("tp-oqmd")
    assert resolve_profile("tp-oqmd", allow_entry_points=["thirdparty"]) == third
    result = add_provider(_router(), "tp-oqmd", allow_entry_points=["thirdparty"], env={})
    assert result.outcomes[0].status == "registered"
    assert profiles_module.ENTRY_POINT_GROUP == "schemarouter.profiles"
