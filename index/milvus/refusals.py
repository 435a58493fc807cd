"""What a :class:`~schemarouter.index.milvus.index.MilvusIndex` says where it refuses: a
``save`` to a folder (the collection is the index, kept by Milvus), a collection whose
update was interrupted, and one built for other routes. Pure functions: each returns the
error to raise, or its words.

A stale refusal says what a saved folder's says (:mod:`schemarouter.index.stale`): which
routes differ, up to 3 of each kind and how many, and which part of a changed route moved
(``provider``, ``access path``, ``endpoint``), read from the part fingerprints the
collection's metadata keeps (:func:`meta_parts`; a collection written without them, or
for a registry of more providers than :data:`MAX_PARTS_BYTES` holds, names the routes
only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError, CorruptIndexError, StaleIndexError
from schemarouter.index.milvus.rows import MilvusTarget
from schemarouter.index.stale import are_parts
from schemarouter.registry.diff import RouteParts, fingerprint_difference, route_parts
from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "MAX_PARTS_BYTES",
    "difference",
    "interrupted",
    "meta_parts",
    "missing",
    "save_refused",
    "stale",
]

#: The most JSON bytes of part fingerprints the collection's metadata keeps (about 300
#: providers): a collection property is read on every stale check and kept in the
#: cluster's metadata store, which is no place for a large value.
MAX_PARTS_BYTES = 64 * 1024

_REBUILD = "`schemarouter index build --backend milvus --rebuild`"


def meta_parts(snapshot: RegistrySnapshot) -> dict[str, Any] | None:
    """The provider and access-path fingerprints of ``snapshot``'s routes
    (:func:`~schemarouter.registry.diff.route_parts`) for the collection's metadata, marked
    with the registry fingerprint they belong to (a writer of an older version keeps the
    key as it found it); ``None`` past :data:`MAX_PARTS_BYTES`."""
    parts = route_parts(snapshot.routes.values())
    if len(json.dumps(parts)) > MAX_PARTS_BYTES:
        return None
    return {"registry_fingerprint": snapshot.fingerprint, **parts}


def _parts(meta: Mapping[str, Any]) -> RouteParts | None:
    """The part fingerprints ``meta`` keeps for the routes it lists, if any."""
    parts = meta.get("parts")
    if not isinstance(parts, dict) or not are_parts(parts):
        return None
    if parts.get("registry_fingerprint") != meta.get("registry_fingerprint"):
        return None  # left by a writer that did not update them
    return {"providers": parts["providers"], "access": parts["access"]}


def difference(
    stored: Mapping[str, str], snapshot: RegistrySnapshot, meta: Mapping[str, Any]
) -> str:
    """How ``snapshot`` differs from the routes a collection holds (``stored``: route id ->
    fingerprint, an interrupted update's second version counted once; ``meta``: its
    metadata, for the part fingerprints), in the words of a saved folder's refusal
    (:func:`~schemarouter.registry.diff.fingerprint_difference`)."""
    before = {route_id.split("\0")[0]: fp for route_id, fp in stored.items()}
    return fingerprint_difference(before, snapshot, parts=_parts(meta))


def stale(
    meta: Mapping[str, Any],
    snapshot: RegistrySnapshot,
    stored: Mapping[str, str],
    where: str,
    *,
    opening: str | None = None,
) -> StaleIndexError:
    """The refusal of a collection that does not hold ``snapshot``: what ``open`` raises
    for collection ``opening`` built for other routes (without ``sync=True``), or, with no
    ``opening``, what ``check_current`` raises."""
    version = meta.get("registry_version")
    compared = "this registry" if opening else "the snapshot"
    has = f"compared with the collection, {compared} has {difference(stored, snapshot, meta)}"
    if opening is None:
        return StaleIndexError(
            f"the collection reflects registry version {version}, not the snapshot at version "
            f"{snapshot.version}: {has}",
            where=where,
            hint="Call index.apply(snapshot) or rebuild the collection",
        )
    return StaleIndexError(
        f"collection {opening!r} was built for registry version {version} ({meta.get('routes')} "
        f"routes), which differs from this registry (version {snapshot.version}, "
        f"{len(snapshot)} routes): {has}",
        where=where,
        hint=f"Rebuild it ({_REBUILD}), or open it with MilvusIndex(..., sync=True) to bring "
        "it to this registry",
    )


def save_refused(target: MilvusTarget, path: str | Path) -> ArgumentError:
    """What ``MilvusIndex.save(path)`` raises: there is no folder to write, the collection
    is already persistent (each ``apply`` writes to it as it runs)."""
    return ArgumentError(
        f"a Milvus index is not saved to a folder ({str(path)!r}): collection "
        f"{target.collection!r} is already persistent (every registration is written to it "
        "as it is made)",
        where=target.redacted(),
        hint="Nothing to save: a later SchemaRouter(index=URI) or `--index URI` opens it. For "
        "an index folder as well, build the in-process index: `schemarouter index build "
        "SOURCES --out DIR`, or router.build_index().save(DIR) on a router without index=",
    )


def interrupted(name: str, where: str) -> CorruptIndexError:
    """What ``open`` raises for a collection left ``applying`` whose stored routes match
    neither its metadata nor the registry (without ``sync=True``)."""
    return CorruptIndexError(
        f"collection {name!r} holds an update that was interrupted "
        "(its routes match neither its metadata nor this registry)",
        where=where,
        hint=f"Open it with MilvusIndex(..., sync=True) to repair it, or rebuild it ({_REBUILD})",
    )


def missing(target: MilvusTarget, names: list[str]) -> CorruptIndexError:
    """What ``open`` raises, for a ``MilvusIndex(create=False)`` (``retrieve --index URI``),
    where the collection does not exist: a read does not build one (``names``: the
    collections there)."""
    there = ", ".join(repr(n) for n in sorted(names)[:10]) or "none"
    uri = f"milvus+lite://{Path(target.uri).resolve()}" if target.is_lite else "URI"
    return CorruptIndexError(
        f"no collection {target.collection!r} here (the collections there: {there})",
        where=target.redacted(),
        hint=f"Build it first (`schemarouter index build SOURCES --backend milvus --uri {uri}"
        f" --collection {target.collection}`), or name one that exists (?collection=NAME)",
    )
