"""Trusted provider profiles and ``add_provider(name)``.

A :class:`ProviderProfile` names a provider (id, display name, aliases, homepage, license,
source type) and the ways it can be reached (:class:`AccessMethod`): a file of the packaged
bundled catalog (``schemarouter.data/catalogs/materials/<file>``, restricted to the
profile's provider), an OpenAPI document, an OPTIMADE base URL, or an MCP server command.

Built-in profiles are derived from the bundled catalog (one per provider in it; their
OPTIMADE methods, where the provider runs an OPTIMADE service, are declared but disabled
unless asked for with ``enable=("optimade",)``). Third-party profiles come from the
``schemarouter.profiles`` entry-point group and load only when their entry-point name is
in the caller's explicit ``allow_entry_points``.

:func:`add_provider` resolves a name or alias (case-insensitive) and registers each
enabled method through the same pipeline as everything else; the
:class:`ProviderResolution` says per method: ``registered``, ``needs_credentials``
(registered, but the named credentials are in neither ``credentials`` nor ``env``),
``missing_optional_dependency``, ``disabled`` or ``unavailable`` (with the reason).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from collections.abc import Iterable, Mapping
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field

from schemarouter.contracts import Provider, Registration, SourceType
from schemarouter.errors import (
    DocumentError,
    RegistryLookupError,
    SchemaRouterError,
    install_hint,
)
from schemarouter.registry.catalog import load_catalog, load_catalog_document, read_structured_file

__all__ = [
    "AccessMethod",
    "MethodOutcome",
    "ProviderProfile",
    "ProviderResolution",
    "add_provider",
    "builtin_profiles",
    "entry_point_profiles",
    "resolve_profile",
]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "schemarouter.profiles"
CATALOG_PACKAGE = "schemarouter.data"
CATALOG_FOLDER = "catalogs/materials"
#: Bundled providers that also run an OPTIMADE service (declared, disabled by default).
OPTIMADE_SERVICES = {
    "materials_project": "https://optimade.materialsproject.org/v1",
    "oqmd": "https://oqmd.org/optimade/v1",
    "jarvis_dft": "https://jarvis.nist.gov/optimade/jarvisdft/v1",
    "cod": "https://www.crystallography.net/cod/optimade/v1",
    "nomad": "https://nomad-lab.eu/prod/v1/optimade/v1",
}

Status = Literal[
    "registered", "needs_credentials", "missing_optional_dependency", "disabled", "unavailable"
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AccessMethod(_Model):
    """One way to reach a provider."""

    kind: Literal["catalog", "openapi", "optimade", "mcp"]
    #: catalog: a file of the packaged bundled catalog; openapi / optimade: a URL (openapi
    #: also a path); mcp: a server command line.
    location: str
    requires_credentials: tuple[str, ...] = ()
    requires_extra: str | None = None
    enabled: bool = True


class ProviderProfile(_Model):
    """A trusted description of a provider and how to reach it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.\-]*$")
    display_name: str
    aliases: tuple[str, ...] = ()
    homepage: str | None = None
    license: str | None = None
    source_type: SourceType = SourceType.UNKNOWN
    access: tuple[AccessMethod, ...] = Field(min_length=1)

    def names(self) -> set[str]:
        return {n.casefold() for n in (self.id, self.display_name, *self.aliases)}

    def provider(self) -> Provider:
        """The registered provider: the profile's fields that a :class:`Provider` has."""
        shared = Provider.model_fields.keys() & type(self).model_fields.keys()
        return Provider(**{name: getattr(self, name) for name in shared})


class MethodOutcome(_Model):
    kind: str
    location: str
    status: Status
    route_ids: tuple[str, ...] = ()
    missing_credentials: tuple[str, ...] = ()
    detail: str = ""


class ProviderResolution(_Model):
    """What :func:`add_provider` did, per access method."""

    profile: str
    outcomes: tuple[MethodOutcome, ...]

    @property
    def route_ids(self) -> tuple[str, ...]:
        return tuple(r for o in self.outcomes for r in o.route_ids)

    @property
    def registered(self) -> bool:
        return any(o.status in ("registered", "needs_credentials") for o in self.outcomes)


# -- profiles -------------------------------------------------------------------------------


def _catalog_dir() -> Path:
    return Path(str(resources.files(CATALOG_PACKAGE).joinpath(CATALOG_FOLDER)))


@functools.cache
def builtin_profiles() -> tuple[ProviderProfile, ...]:
    """One trusted profile per provider of the packaged bundled catalog."""
    profiles = []
    for path in sorted(_catalog_dir().glob("*.yaml")):
        document = load_catalog_document(read_structured_file(path), source=str(path))
        for spec in document.providers:
            needed = sorted(
                {c for a in spec.access if not a.auth.optional for c in a.auth.credentials}
            )
            methods = [
                AccessMethod(kind="catalog", location=path.name, requires_credentials=tuple(needed))
            ]
            if spec.id in OPTIMADE_SERVICES:
                methods.append(
                    AccessMethod(
                        kind="optimade", location=OPTIMADE_SERVICES[spec.id], enabled=False
                    )
                )
            profiles.append(
                ProviderProfile(
                    id=spec.id,
                    display_name=spec.display_name,
                    aliases=spec.aliases,
                    homepage=spec.homepage,
                    license=spec.license,
                    source_type=spec.source_type,
                    access=tuple(methods),
                )
            )
    return tuple(profiles)


def entry_point_profiles(allow: Iterable[str]) -> tuple[ProviderProfile, ...]:
    """Profiles from the ``schemarouter.profiles`` entry points named in ``allow`` only.

    An entry point loads to a :class:`ProviderProfile`, a list of them, or a callable
    returning either; anything else is a :class:`DocumentError`.
    """
    allowed = set(allow)
    if not allowed:
        return ()
    out: list[ProviderProfile] = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in allowed:
            logger.info("profile entry point %r is not in the allowlist; skipped", entry.name)
            continue
        value = entry.load()
        if callable(value) and not isinstance(value, ProviderProfile):
            value = value()
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if not isinstance(item, ProviderProfile):
                raise DocumentError(
                    f"entry point {entry.name!r} gave a {type(item).__name__}, not a "
                    "ProviderProfile",
                    where=f"entry point {ENTRY_POINT_GROUP}:{entry.name}",
                    hint="Point the entry point at a ProviderProfile or a function returning one",
                )
            out.append(item)
    return tuple(out)


def resolve_profile(
    name: str | ProviderProfile, *, allow_entry_points: Iterable[str] = ()
) -> ProviderProfile:
    """The profile whose id, display name or alias is ``name`` (case-insensitive)."""
    if isinstance(name, ProviderProfile):
        return name
    key = str(name).strip().casefold()
    candidates = (*entry_point_profiles(allow_entry_points), *builtin_profiles())
    for profile in candidates:
        if key in profile.names():
            return profile
    known = ", ".join(sorted(p.id for p in candidates))
    raise RegistryLookupError(
        f"no provider profile named {name!r}",
        where="add_provider",
        hint=f"Known profiles: {known}",
    )


# -- registration ---------------------------------------------------------------------------


def _catalog_registration(profile: ProviderProfile, method: AccessMethod) -> Registration:
    folder = _catalog_dir()
    file = folder / method.location
    if file.name != method.location or not file.is_file():
        raise DocumentError(
            f"{method.location!r} is not a file of the bundled catalog",
            where=f"profile {profile.id}: access (catalog)",
            hint=f"Use one of: {', '.join(sorted(p.name for p in folder.glob('*.yaml')))}",
        )
    shared = folder / "catalog.yaml"
    full = load_catalog([shared, file] if shared.is_file() and shared != file else [file])
    routes = tuple(r for r in full.routes if r.provider.id == profile.id)
    if not routes:
        raise DocumentError(
            f"the bundled file {method.location!r} has no routes of provider {profile.id!r}",
            where=str(file),
            hint="Point the profile at the catalog file that declares the provider",
        )
    return Registration(
        source=str(file),
        providers=tuple(p for p in full.providers if p.id == profile.id),
        routes=routes,
        field_groups=full.field_groups,
        intents=full.intents,
    )


def _register_method(
    router: Any,
    profile: ProviderProfile,
    method: AccessMethod,
    *,
    client: httpx.Client | None,
    replace: bool,
) -> tuple[str, ...]:
    from schemarouter.execution.invokers.http import register_http_routes

    if method.kind == "catalog":
        # bound for every thread from the moment the registry publishes them (trial Q)
        change = register_http_routes(
            router, _catalog_registration(profile, method), replace=replace
        )
    elif method.kind == "optimade":
        from schemarouter.adapters.optimade import add_optimade

        change = add_optimade(
            router, method.location, provider=profile.provider(), client=client, replace=replace
        )
    elif method.kind == "openapi":
        change = router.add_openapi(
            method.location, provider=profile.provider(), client=client, replace=replace
        )
    else:
        change = router.add_mcp_server(
            method.location, provider=profile.provider(), trusted=True, replace=replace
        )
    ids = set(change.added) | set(change.replaced)
    if not ids:  # an identical re-registration changes nothing: report what is there
        ids = {r.route_id for r in router.snapshot().routes_of(profile.id)}
    return tuple(sorted(ids))


def add_provider(
    router: Any,
    name: str | ProviderProfile,
    *,
    allow_entry_points: Iterable[str] = (),
    credentials: Mapping[str, str] | None = None,
    env: Mapping[str, str] = os.environ,
    enable: Iterable[str] = (),
    client: httpx.Client | None = None,
    replace: bool = False,
) -> ProviderResolution:
    """Resolve ``name`` to a profile and register each of its enabled access methods.

    ``enable`` names method kinds to use even where the profile disables them (e.g.
    ``("optimade",)``). A method that fails is reported (``unavailable``, with the reason)
    and leaves nothing registered; the others go on. Credential *names* are checked against
    ``credentials`` and ``env``; their values are never read into the registry.
    """
    profile = resolve_profile(name, allow_entry_points=allow_entry_points)
    enabled_kinds = set(enable)
    available = {**env, **(credentials or {})}
    outcomes: list[MethodOutcome] = []
    for method in profile.access:
        base = {"kind": method.kind, "location": method.location}
        if not method.enabled and method.kind not in enabled_kinds:
            outcomes.append(MethodOutcome(**base, status="disabled"))
            continue
        extra = method.requires_extra or ("mcp" if method.kind == "mcp" else None)
        if extra and importlib.util.find_spec(extra) is None:
            outcomes.append(
                MethodOutcome(
                    **base,
                    status="missing_optional_dependency",
                    detail=install_hint(extra, extra=extra),
                )
            )
            continue
        try:
            route_ids = _register_method(router, profile, method, client=client, replace=replace)
        except (SchemaRouterError, OSError, httpx.HTTPError) as exc:
            outcomes.append(MethodOutcome(**base, status="unavailable", detail=str(exc)))
            continue
        missing = tuple(c for c in method.requires_credentials if not available.get(c))
        outcomes.append(
            MethodOutcome(
                **base,
                status="needs_credentials" if missing else "registered",
                route_ids=route_ids,
                missing_credentials=missing,
            )
        )
    return ProviderResolution(profile=profile.id, outcomes=tuple(outcomes))
