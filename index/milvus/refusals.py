"""What a :class:`~schemarouter.index.milvus.index.MilvusIndex` says where it refuses: a
``save`` to a folder (the collection is the index, kept by Milvus), and a collection whose
update was interrupted. Pure functions: each returns the error to raise."""

from __future__ import annotations

from pathlib import Path

from schemarouter.errors import ArgumentError, CorruptIndexError
from schemarouter.index.milvus.rows import MilvusTarget

__all__ = ["interrupted", "save_refused"]

_REBUILD = "`schemarouter index build --backend milvus --rebuild`"


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
