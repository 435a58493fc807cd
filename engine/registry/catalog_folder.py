"""Which files under a catalog folder are the catalog's (:func:`folder_files`): not a draft or
hidden file, not an embedding cache's segment, not the JSON files of an index saved into a
folder of the catalog (:data:`SAVED_INDEX_FORMAT`)."""

from __future__ import annotations

import re
from pathlib import Path

from schemarouter.errors import DocumentError
from schemarouter.registry.bounds import UnreadableFile, load_json, read_file_bytes

__all__ = ["SAVED_INDEX_FORMAT", "folder_files"]

#: The ``format`` of a saved index's ``manifest.json`` (:mod:`schemarouter.index.store` writes
#: it): a folder of the catalog holding one is an index saved there, not catalog files.
SAVED_INDEX_FORMAT = "schemarouter-hybrid-index"
#: A segment of an embedding cache (:mod:`schemarouter.index.cache`), not a catalog file.
_CACHE_SEGMENT = re.compile(r"seg-[0-9a-f]{32}\.json")


def _is_saved_index(folder: Path) -> bool:
    """Whether ``folder`` holds an index `schemarouter index build --out` saved (its
    ``manifest.json`` names the index format): its files are the index's, not catalog files."""
    try:
        head = read_file_bytes(folder / "manifest.json", max_bytes=1 << 24)
        return bool(load_json(head).get("format") == SAVED_INDEX_FORMAT)
    except (UnreadableFile, OSError, ValueError, AttributeError):
        return False


def folder_files(
    path: Path, suffixes: tuple[str, ...], *, what: str = "catalog files"
) -> list[Path]:
    """The catalog files under the folder ``path``: each file with one of ``suffixes``, but
    for drafts and hidden ones, an embedding cache's segments and a saved index's JSON
    (``what`` they are, for the message where there are none)."""
    indexes = [m.parent for m in path.rglob("manifest.json") if _is_saved_index(m.parent)]
    found = [
        p
        for p in path.rglob("*")
        if p.suffix in suffixes
        and p.is_file()
        # a name (file or folder below the catalog) starting with "_" or "." is not the
        # catalog's: drafts, .github workflows, an index saved beside it in .index; nor is
        # an embedding cache's segment
        and not any(part.startswith(("_", ".")) for part in p.relative_to(path).parts)
        and not _CACHE_SEGMENT.fullmatch(p.name)
    ]
    # nor the JSON files of an index saved into a folder of the catalog (`--out
    # catalogs/index`); it writes no YAML, so a YAML file there is the catalog's still (a
    # stray manifest.json dropped every file of its folder, without a word: trial T5)
    saved = {p for p in found if p.suffix == ".json" and any(p.is_relative_to(i) for i in indexes)}
    files = sorted(p for p in found if p not in saved)
    if not files:
        why = (
            f": its {len(saved)} JSON files are a saved index's ({indexes[0]} holds its "
            f"manifest.json, format {SAVED_INDEX_FORMAT!r})"
            if saved
            else ""
        )
        raise DocumentError(
            f"no {what} ({', '.join('*' + s for s in suffixes)}) in folder" + why,
            where=str(path),
            hint="Point at a catalog file or a folder that holds some"
            + ("; move a manifest.json that is no index's out of it" if saved else ""),
        )
    return files
