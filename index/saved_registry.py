"""The registry a saved index was built from, kept in the index folder (``registry.json``).

A save writes it into the generation beside the index data, listed with its sha256 and
size in ``manifest.json`` like every other file (JSON, never pickle; committed with the
rest by the manifest's ``os.replace``)::

    {"schemarouter_registry": 1,
     "registry_fingerprint": "sha256:...",
     "sources": {route id: where it was registered from},
     "catalog": {"schemarouter_catalog": 1, "providers": [...], ...}}

``catalog`` is the registry as a catalog document (:mod:`schemarouter.registry.export`):
registered again it gives the same route ids and fingerprints, so the index loads against
it exactly as against the sources it was built from. :func:`saved_registration` reads it
for ``SchemaRouter.from_index``; an index saved before this file existed has none
(:class:`~schemarouter.errors.IndexStoreError`, saying to rebuild it or give the sources).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from schemarouter.contracts import Registration
from schemarouter.errors import CorruptIndexError, IndexStoreError, SchemaRouterError
from schemarouter.fingerprint import fingerprint
from schemarouter.registry.bounds import UnreadableFile, load_json
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["REGISTRY_FILE", "registry_document", "saved_registration"]

logger = logging.getLogger(__name__)

REGISTRY_FILE = "registry.json"
REGISTRY_FORMAT = 1
#: What a damaged or missing registry file is told to do.
_REBUILD = (
    "Rebuild the index from its sources: `schemarouter index build SOURCES --out {path}` "
    "(or router.index.save(FOLDER) after registering them)"
)


def registry_document(snapshot: RegistrySnapshot) -> dict[str, Any] | None:
    """What ``registry.json`` holds for ``snapshot``; ``None`` (logged) where a catalog
    cannot express it (see :mod:`schemarouter.registry.export`): the index is saved without
    it and loads as an older one does, with the sources given."""
    from schemarouter.registry.export import catalog_document, route_sources

    try:
        catalog = catalog_document(snapshot)
    except SchemaRouterError as exc:
        logger.warning("the index is saved without its registry: %s", exc)
        return None
    return {
        "schemarouter_registry": REGISTRY_FORMAT,
        "registry_fingerprint": snapshot.fingerprint,
        "sources": route_sources(snapshot),
        "catalog": catalog,
    }


def _damaged(what: str, path: Path, file: Path) -> CorruptIndexError:
    return CorruptIndexError(
        f"the saved registry {REGISTRY_FILE} {what}",
        where=str(file),
        hint=_REBUILD.format(path=path),
    )


def saved_registration(path: str | Path) -> Registration:
    """The registration of the registry saved in the index folder ``path``, checked (its
    size and sha256 against the manifest, its routes as a catalog's, its fingerprint
    against the manifest's): :class:`CorruptIndexError` naming the file where any check
    fails, :class:`IndexStoreError` where the index holds no registry."""
    from schemarouter.index.store import read_manifest
    from schemarouter.registry.export import saved_registration as registration_of

    path = Path(path)
    manifest = read_manifest(path)
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
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise _damaged(f"cannot be read: {exc.strerror or exc}", path, file) from None
    if len(data) != info.get("bytes") or hashlib.sha256(data).hexdigest() != info.get("sha256"):
        raise _damaged("does not match its size and sha256 in the manifest (altered)", path, file)
    try:
        saved = load_json(data)
    except UnreadableFile as exc:
        raise _damaged(f"is unreadable: {exc}", path, file) from None
    if not isinstance(saved, dict) or saved.get("schemarouter_registry") != REGISTRY_FORMAT:
        raise _damaged("is not a saved registry of this format", path, file)
    sources = saved.get("sources")
    sources = {str(k): str(v) for k, v in sources.items()} if isinstance(sources, dict) else {}
    try:
        registration = registration_of(saved.get("catalog"), source=str(path), sources=sources)
    except SchemaRouterError as exc:
        raise _damaged(f"does not register: {exc}", path, file) from None
    found = fingerprint(sorted((r.route_id, r.fingerprint) for r in registration.routes))
    if found != manifest.get("registry_fingerprint"):
        raise _damaged(
            "does not give the registry the index was built from (another fingerprint)",
            path,
            file,
        )
    return registration
