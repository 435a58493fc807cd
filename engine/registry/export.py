"""A registry written out as a catalog document, and registered again from one.

:func:`catalog_document` turns a snapshot into one :class:`~.catalog.CatalogDocument` (its
providers, their access paths and endpoints, the field groups and intents), written with
every key, so that registering it again (``add_catalog``) gives the same route ids, the same
route fingerprints and the same registry fingerprint: the catalog reads no default where the
registry held a value. A saved index keeps one (``registry.json.gz``, restored by
:func:`schemarouter.index.saved_registry.saved_registration`), so a serving process starts
from the index folder alone.

What a catalog cannot hold, and so what no export holds:

* a Python function or a live MCP session: their routes' contracts are written, and a
  router that registers them again can retrieve and plan them, not call them until the
  function or server is bound again (``add_callable(..., replace=True)``,
  ``add_mcp_server(..., replace=True)``);
* two providers of one id with other metadata (a provider registered again with
  ``replace=True`` under new metadata, whose other access paths kept the old): refused,
  naming the routes (:class:`~schemarouter.errors.RegistrationError`);
* a provider without routes: left out (it routes nothing).

Routes of one provider and access id whose access paths differ (callables of several
modules registered in several calls share the access id ``python``) are written as access
paths of the same id, one per version: a catalog may list them so.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from schemarouter.contracts import AccessPath, Provider, Route
from schemarouter.errors import RegistrationError
from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "catalog_document",
    "catalog_parts",
    "route_sources",
    "write_catalog",
]


def _dump(contract: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = contract.model_dump(mode="json", by_alias=True)
    return dumped


def catalog_document(
    snapshot: RegistrySnapshot, *, name: str | None = None, description: str = ""
) -> dict[str, Any]:
    """The catalog document (JSON-ready) of every route, provider, field group and intent
    of ``snapshot``; :class:`RegistrationError` where a provider id has two versions."""
    head, providers = catalog_parts(snapshot, name=name, description=description)
    return {**head, "providers": list(providers)}


def catalog_parts(
    snapshot: RegistrySnapshot, *, name: str | None = None, description: str = ""
) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """:func:`catalog_document` without its providers, and its providers one at a time
    (each dumped when it is reached: a saved index writes a provider a line, and never holds
    the whole document). The providers are checked now: :class:`RegistrationError` where a
    provider id has two versions."""
    providers: dict[str, Provider] = {}
    first: dict[str, str] = {}
    # provider id -> access versions (in order met), each with its endpoints
    access: dict[str, list[tuple[AccessPath, list[Route]]]] = {}
    for route in snapshot:  # sorted by route id
        pid = route.provider.id
        held = providers.setdefault(pid, route.provider)
        if held != route.provider:
            raise RegistrationError(
                f"provider {pid!r} is registered with two versions of its metadata (routes "
                f"{first[pid]} and {route.route_id}): a catalog declares a provider once",
                where=f"registry version {snapshot.version}",
                hint=f"Register every source of {pid!r} again with replace=True (the same "
                "provider metadata), then export",
            )
        first.setdefault(pid, route.route_id)
        versions = access.setdefault(pid, [])
        for path, routes in versions:
            if path == route.access:
                routes.append(route)
                break
        else:
            versions.append((route.access, [route]))
    head: dict[str, Any] = {"schemarouter_catalog": 1}
    if name is not None:
        head["name"] = name
    if description:
        head["description"] = description
    head["field_groups"] = [_dump(g) for g in snapshot.field_groups.values()]
    head["intents"] = [_dump(i) for i in snapshot.intents.values()]

    def dumped() -> Iterator[dict[str, Any]]:
        for pid in sorted(providers):
            yield {
                **_dump(providers[pid]),
                "access": [
                    {**_dump(path), "endpoints": [_dump(r.endpoint) for r in routes]}
                    for path, routes in access[pid]
                ],
            }

    return head, dumped()


def write_catalog(document: Mapping[str, Any], path: str | Path) -> Path:
    """Write ``document`` as JSON to ``path`` (a temporary file renamed over it: a reader
    never sees half a catalog); returns the path. The temporary file has a name of its own,
    created new (``x``): a link planted at a fixed ``.NAME.tmp`` in a folder others write
    had the catalog written into the file it pointed to (trial W1)."""
    path = Path(path)
    staged = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(staged, "x", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        os.replace(staged, path)
    except OSError as exc:
        staged.unlink(missing_ok=True)
        raise RegistrationError(
            f"cannot write the catalog: {exc.strerror or exc}",
            where=str(path),
            hint="Choose a file in a folder you can write to",
        ) from None
    return path


def route_sources(snapshot: RegistrySnapshot) -> dict[str, str]:
    """route id -> where it was registered from (``Route.source``), for the routes that say."""
    return {r.route_id: r.source for r in snapshot.routes.values() if r.source}
