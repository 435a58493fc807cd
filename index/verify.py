"""Whether a saved index folder's files are the ones its manifest lists.

Each file the manifest names (in its one generation folder) must be there, a regular file (a
symlink to one is followed), with the manifest's size and sha256: a truncated, altered or
missing file, or a generation folder copied in from another build, is a
:class:`CorruptIndexError` naming the file. Loading checks this first
(:func:`~schemarouter.index.store.load_index`), so a damaged folder is never described as a
registry difference; ``schemarouter index info DIR`` checks it too, so an operator sees the
folder the replicas would refuse (user trial Y3).
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.errors import CorruptIndexError
from schemarouter.index.folder import MANIFEST

__all__ = ["file_sha256", "read_array", "verify_files"]


def file_sha256(path: Path) -> str:
    """The sha256 of the file at ``path``, as hex, read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_files(path: Path, manifest: dict[str, Any]) -> frozenset[str]:
    """Check every file ``manifest`` (the folder ``path``'s) lists: size and sha256. Returns
    their names inside the generation folder, the only files loading may read."""
    files = manifest.get("files")
    generation = manifest.get("generation")
    if not isinstance(files, dict) or not files or not isinstance(generation, str):
        raise CorruptIndexError("manifest.json lists no files", where=str(path / MANIFEST))
    listed: set[str] = set()
    for name, info in files.items():
        parts = Path(name).parts if isinstance(name, str) else ()
        if len(parts) != 2 or parts[0] != generation or parts[1] in ("", ".", ".."):
            raise CorruptIndexError(
                f"manifest.json lists {str(name)[:120]!r}, which is not a file of generation "
                f"{generation[:40]!r}",
                where=str(path / MANIFEST),
            )
        if not isinstance(info, dict):
            raise CorruptIndexError(
                f"manifest.json has no size and hash for {name}", where=str(path / MANIFEST)
            )
        listed.add(parts[1])
        file = path / name
        if not file.is_file():  # a symlink to a regular file is followed, as folders are
            what = "is not a regular file" if file.exists() else "is missing"
            raise CorruptIndexError(f"index file {name} {what}", where=str(path))
        try:
            size = file.stat().st_size
            if size != info.get("bytes"):
                raise CorruptIndexError(
                    f"index file {name} has {size} bytes, the manifest says "
                    f"{info.get('bytes')} (truncated or altered)",
                    where=str(file),
                )
            digest = file_sha256(file)
        except OSError as exc:  # deleted meanwhile (a save replaced it), no permission
            raise CorruptIndexError(
                f"index file {name} cannot be read: {exc.strerror or exc}",
                where=str(file),
            ) from None
        if digest != info.get("sha256"):
            raise CorruptIndexError(
                f"index file {name} does not match its sha256 in the manifest (altered)",
                where=str(file),
            )
    return frozenset(listed)


_HEADERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}


def read_array(path: Path, ndim: int, integers: bool) -> np.ndarray:
    """The ``.npy`` array at ``path``, whose header must declare ``ndim`` dimensions of
    integers (``integers``) or of float32, and exactly as many bytes as the file holds after
    it; ``ValueError`` naming the file and what it declares else, before anything is
    allocated (the ninth review: a header declaring 4 TiB raised ``MemoryError`` from a load,
    and an array of another rank "tuple index out of range"). The hash of the file was
    checked (:func:`verify_files`), not its shape: a writer can sign any array."""
    name = f"{path.parent.name}/{path.name}"
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        if version not in _HEADERS:
            raise ValueError(f"{name} is an .npy file of version {version}, not 1.0 or 2.0")
        shape, _, dtype = _HEADERS[version](handle)
        held = os.fstat(handle.fileno()).st_size - handle.tell()
        declared = math.prod(shape) * dtype.itemsize
        if len(shape) != ndim:
            plural = "dimension" if ndim == 1 else "dimensions"
            raise ValueError(f"{name} has shape {shape} where it should have {ndim} {plural}")
        if integers and dtype.kind not in "iu":
            raise ValueError(f"{name} holds {dtype} where it should hold integers")
        if not integers and dtype != np.float32:
            raise ValueError(f"{name} holds {dtype} where it should hold float32")
        if declared != held:
            raise ValueError(
                f"{name} declares shape {shape} of {dtype} ({declared:,} bytes) and holds {held:,}"
            )
        handle.seek(0)
        return np.load(handle, allow_pickle=False)
