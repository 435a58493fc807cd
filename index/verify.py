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
from pathlib import Path
from typing import Any

from schemarouter.errors import CorruptIndexError
from schemarouter.index.folder import MANIFEST

__all__ = ["file_sha256", "verify_files"]


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
