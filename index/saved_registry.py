"""The registry a saved index was built from, kept in the index folder
(``registry.json.gz``: JSON, gzip-compressed, :mod:`.registry_file`).

A save writes it into the generation beside the index data, listed with its sha256 and
size in ``manifest.json`` like every other file (JSON, never pickle; committed with the
rest by the manifest's ``os.replace``). :func:`registry_document` makes it::

    {"schemarouter_registry": 1,
     "registry_fingerprint": "sha256:...",
     "sources": {route id: where it was registered from},
     "fingerprints": {route id: [provider, access path, endpoint fingerprints]},
     "catalog": {"schemarouter_catalog": 1, "providers": [...], ...}}

``catalog`` is the registry as a catalog document (:mod:`schemarouter.registry.export`):
registered again (``add_catalog``) it gives the same route ids and fingerprints, so the
index loads against it exactly as against the sources it was built from. The file holds it
as gzip-compressed JSON lines, one provider a line (:mod:`.registry_file`): compressed, as
the contracts' schemas repeat (33,376 OpenAPI routes: 449 MB of JSON, 35 MB compressed,
beside 143 MB of index data; trial Z2), and a line at a time, so a reader never holds the
whole JSON.

:func:`saved_registration` reads it for ``SchemaRouter.from_index``, a line at a time
(parsed, its short strings shared, then validated: :func:`_parsed`), and takes each
route's part fingerprints as saved: the file's sha256 is checked against the manifest
first, so these are the contracts and fingerprints the build computed when it registered
and checked the sources. Hashing every contract again cost a third of a restore (trial Z2)
and is not done, so the sha256 and fingerprints find damage, not an edit: an index folder
is as trusted as code (README). Each endpoint is checked as a catalog's is
(``check_endpoint``: its JSON Schemas, path template, credential carriers), so an edited
file cannot hold a route no catalog could (4,172 OpenAPI routes: reading 2.6 s -> 4.4 s;
trial W1). The routes' registry fingerprint is still computed and compared with the
manifest's. An index saved
before this file existed has none (:class:`~schemarouter.errors.IndexStoreError`, saying
to rebuild it or give the sources).
"""

from __future__ import annotations

import gc
import hashlib
import logging
from pathlib import Path
from typing import Any, Literal

import pydantic_core
from pydantic import Field, ValidationError

from schemarouter.contracts import (
    Contract,
    Registration,
    Route,
    make_route_id,
)
from schemarouter.errors import CorruptIndexError, IndexStoreError, SchemaRouterError
from schemarouter.fingerprint import fingerprint
from schemarouter.index.registry_file import REGISTRY_FILE, registry_bytes, registry_lines
from schemarouter.index.shared_schemas import shared, shared_json
from schemarouter.registry.bounds import UnreadableFile, read_file_bytes
from schemarouter.registry.catalog import CatalogDocument, ProviderSpec
from schemarouter.registry.compile import RouteSpec, check_endpoint, format_validation_error
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["registration_of", "registry_document", "registry_file", "saved_registration"]

logger = logging.getLogger(__name__)

REGISTRY_FORMAT = 1
#: What a damaged or missing registry file is told to do.
_REBUILD = (
    "Rebuild the index from its sources: `schemarouter index build SOURCES --out {path}` "
    "(or router.index.save(FOLDER) after registering them)"
)


def registry_document(snapshot: RegistrySnapshot) -> dict[str, Any] | None:
    """What ``registry.json.gz`` holds for ``snapshot`` (its catalog's providers an
    iterator, dumped as they are written: :func:`.registry_file.registry_bytes`); ``None``
    (logged) where a catalog cannot express it (see :mod:`schemarouter.registry.export`):
    the index is saved without it and loads as an older one does, with the sources given."""
    from schemarouter.registry.export import catalog_parts, route_sources

    try:
        head, providers = catalog_parts(snapshot)
    except SchemaRouterError as exc:
        logger.warning("the index is saved without its registry: %s", exc)
        return None
    return {
        "schemarouter_registry": REGISTRY_FORMAT,
        "registry_fingerprint": snapshot.fingerprint,
        "sources": route_sources(snapshot),
        "fingerprints": {
            r.route_id: [r.provider_fingerprint, r.access_fingerprint, r.endpoint_fingerprint]
            for r in snapshot.routes.values()
        },
        "catalog": {**head, "providers": providers},
    }


def registry_file(snapshot: RegistrySnapshot) -> bytes | None:
    """The bytes of ``registry.json.gz`` for ``snapshot`` (``None``: see
    :func:`registry_document`), made a provider at a time."""
    document = registry_document(snapshot)
    return None if document is None else registry_bytes(document)


class _Head(Contract):
    """The first line of ``registry.json.gz``: the registry without its providers."""

    schemarouter_registry: Literal[1]
    registry_fingerprint: str
    catalog: CatalogDocument


class _ProviderLine(Contract):
    """Each further line: one provider, with its routes' sources and fingerprints."""

    provider: ProviderSpec
    sources: dict[str, str] = Field(default_factory=dict)
    fingerprints: dict[str, tuple[str, str, str]]


def _damaged(what: str, path: Path, file: Path) -> CorruptIndexError:
    return CorruptIndexError(
        f"the saved registry {REGISTRY_FILE} {what}",
        where=str(file),
        hint=_REBUILD.format(path=path),
    )


def saved_registration(path: str | Path, *, manifest: dict[str, Any] | None = None) -> Registration:
    """The registration of the registry saved in the index folder ``path``, checked (its
    size and sha256 against the manifest, its shape, its routes' registry fingerprint
    against the manifest's): :class:`CorruptIndexError` naming the file where any check
    fails, :class:`IndexStoreError` where the index holds no registry. ``manifest``: the
    folder's, where the caller has read it (the generation it names is the one read)."""
    from schemarouter.index.store import read_manifest

    path = Path(path)
    manifest = read_manifest(path) if manifest is None else manifest
    generation = manifest.get("generation")
    files = manifest.get("files")
    name = f"{generation}/{REGISTRY_FILE}"
    info = files.get(name) if isinstance(files, dict) else None
    if not isinstance(info, dict):
        raise IndexStoreError(
            "the index holds no registry (saved by SchemaRouter "
            f"{str(manifest.get('schemarouter_version'))[:40]}, before indexes kept one), so "
            "it cannot start without the sources it was built from",
            where=str(path),
            hint="Give the sources it was built from (they are registered and checked "
            f"against it), or rebuild it to keep its registry: `schemarouter index build "
            f"SOURCES --out {path}`",
        )
    file = path / name
    size = info.get("bytes")
    actual = file.stat().st_size if file.is_file() else None
    if actual is not None and actual != size:  # not "more than the limit" (trial Y3)
        raise _damaged(
            f"has {actual} bytes, the manifest says {size} (truncated, altered or from "
            "another build)",
            path,
            file,
        )
    try:  # a regular file of the manifest's size: a FIFO there waited for ever (trial W1)
        data = read_file_bytes(file, max_bytes=size if isinstance(size, int) else 0)
    except UnreadableFile as exc:
        raise _damaged(f"cannot be read: {exc}", path, file) from None
    if len(data) != info.get("bytes") or hashlib.sha256(data).hexdigest() != info.get("sha256"):
        raise _damaged("does not match its size and sha256 in the manifest (altered)", path, file)
    try:
        registration, said = registration_of(data, source=str(path))
    except ValueError as exc:
        raise _damaged(f"is not a saved registry of this format: {exc}", path, file) from None
    found = fingerprint(sorted((r.route_id, r.fingerprint) for r in registration.routes))
    if found != manifest.get("registry_fingerprint") or found != said:
        raise _damaged(
            "does not give the registry the index was built from (another fingerprint)",
            path,
            file,
        )
    return registration


def registration_of(data: bytes, *, source: str) -> tuple[Registration, str]:
    """The registration ``registry.json.gz``'s bytes ``data`` hold (:func:`registry_file`'s),
    and the registry fingerprint its first line names; ``ValueError`` naming the line where
    they are not such a file. Routes without a saved source are from ``source``."""
    collecting = gc.isenabled()
    gc.disable()  # no cycles made here; full collections walked the growing registry
    number = 1
    try:
        lines = registry_lines(data)
        number, first = next(lines, (1, b""))
        head = _Head.model_validate_json(first)
        providers, routes = [], []
        strings: dict[str, str] = {}  # one object for each longer string (memory)
        for numbered in lines:  # one provider's JSON at a time (see .registry_file)
            number, line = numbered  # named in an error below
            item = _ProviderLine.model_validate(_parsed(line, strings, number=number))
            providers.append(item.provider.provider())
            routes += _routes(item, source=source)
    except ValidationError as exc:  # each line is read alone: its "line 1" is this line
        what, loc = format_validation_error(exc)
        what = what.replace("at line 1 column", "at column")
        where = f" ({loc})" if loc and loc != "<document>" else ""
        raise ValueError(f"line {number}{where}: {what}") from None
    except KeyError as exc:
        raise ValueError(f"line {number}: no fingerprints are saved for route {exc}") from None
    except SchemaRouterError as exc:  # a route a catalog would refuse (check_endpoint)
        raise ValueError(f"line {number}: {exc.what} ({exc.where})") from None
    finally:
        if collecting:
            gc.enable()
    registration = Registration(
        source=source,
        providers=tuple(providers),
        routes=tuple(sorted(routes, key=lambda r: r.route_id)),
        field_groups=head.catalog.field_groups,
        intents=head.catalog.intents,
    )
    return registration, head.registry_fingerprint


def _parsed(line: bytes, strings: dict[str, str], *, number: int) -> Any:
    """The JSON of one line as Python objects (pydantic validates and keeps them), each
    string one object for the whole restore: up to 64 characters by pydantic-core's string
    cache, longer ones by ``strings``, and each schema the provider repeats one object
    (:func:`.shared_schemas.shared_json`); a ``ValueError`` "line NUMBER: Invalid JSON:
    ..." where it is not JSON. Parsed and validated in one pass (``model_validate_json``),
    every ``type``, ``format``, name, media type and description of every schema was a
    string object of its own, and every schema a document reuses a copy: the routes of 992
    OpenAPI documents (33,376) held 1.67 GiB after a restore, 0.87 GiB registered (trial
    W3)."""
    try:
        data = pydantic_core.from_json(line, cache_strings="all")
    except ValueError as exc:  # a line is read alone: its "line 1" is this line
        what = str(exc).replace("at line 1 column", "at column")
        raise ValueError(f"line {number}: Invalid JSON: {what}") from None
    return shared_json(data, strings)


def _routes(item: _ProviderLine, *, source: str) -> list[Route]:
    """The routes of one provider line, each with its saved fingerprints and source (a
    route the line has no fingerprints for is a ``KeyError``), each endpoint checked as a
    catalog's is (:func:`~schemarouter.registry.compile.check_endpoint`: its JSON Schemas,
    path template and credential carriers, a :class:`SchemaRouterError`; not the field
    groups and intents it names, which each source checked against its own): a schema of
    ``{"type": 5}`` written into the file raised ``TypeError`` from every plan that ranked
    the route (trial W1)."""
    routes = []
    provider = item.provider.provider()
    for ai, access_spec in enumerate(item.provider.access):
        access = access_spec.access_path()
        for ei, endpoint in enumerate(map(shared, access_spec.endpoints)):  # see .shared_schemas
            route_id = make_route_id(provider.id, access.id, endpoint.id)
            spec = RouteSpec(provider, access, endpoint, f"access[{ai}].endpoints[{ei}]")
            check_endpoint(spec, source=provider.id, field_groups=None, intents=None)
            where = item.sources.get(route_id, source)
            prints = item.fingerprints[route_id]
            routes.append(
                Route.build(provider, access, endpoint, source=where, fingerprints=prints)
            )
    return routes
