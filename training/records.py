"""Training inputs read back from JSON lines (``train-encoder --triplets``,
``train-reranker --pairs``), checked line by line.

An empty file, a line that is no JSON, JSON nested past the document limit, a record that is
not an object, misses a field, has one of the wrong type or one the format does not know:
each is a :class:`~schemarouter.errors.DocumentError` naming the file and the line (and the
field), so the command prints one line instead of a traceback. Files are read through the
same guard as documents: a regular file (never a FIFO or a device) under a size cap.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from schemarouter.errors import DocumentError
from schemarouter.registry.bounds import UnreadableFile, load_json, read_file_bytes

__all__ = [
    "MAX_TRAINING_FILE_BYTES",
    "WRITTEN_BY_HAND",
    "check_record",
    "read_json_file",
    "read_json_lines",
]

#: Largest training file read (a million triplets of about 1 kB each).
MAX_TRAINING_FILE_BYTES = 1024 * 1024 * 1024

#: What a field holds: a Python type, or ``list[str]`` / ``list[float]`` spelled as these.
STR_LIST = "list[str]"
NUMBER_LIST = "list[float]"
Kind = type | str


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        return read_file_bytes(path, max_bytes=MAX_TRAINING_FILE_BYTES)
    except UnreadableFile as exc:
        raise DocumentError(
            f"cannot read the {what}: {exc}", where=str(path)[:300], hint=_hint(what)
        ) from None


#: Files a user writes by hand: what a line of each holds, for the hint of a wrong one.
WRITTEN_BY_HAND = {
    "requests file": 'Write one JSON object per line, {"request": "...", "routes": '
    '["PROVIDER/ACCESS/ENDPOINT", ...]} with an optional "split" (train|heldout) and "id" '
    "(docs/training.md); `schemarouter routes SOURCES` lists the route ids",
}


def _hint(what: str) -> str:
    if what in WRITTEN_BY_HAND:
        return WRITTEN_BY_HAND[what]
    return f"Pass a {what} written by this version of SchemaRouter, or build it anew"


def read_json_lines(path: str | os.PathLike[str], *, what: str) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``path``; a
    :class:`DocumentError` at ``path:line`` for a line that is no JSON or nests too deep,
    and for a file with no line at all."""
    data = _read(path, what)
    try:
        text = data.decode("utf-8-sig")  # a BOM in front (Notepad, Excel) is no text
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"the {what} is not UTF-8 text ({exc.reason})", where=str(path), hint=_hint(what)
        ) from None
    out: list[tuple[int, Any]] = []
    # a line ends at a newline only: str.splitlines() would also cut at U+2028, U+0085 or a
    # form feed, which json.dumps(..., ensure_ascii=False) leaves as they are inside strings
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, load_json(line)))
        except UnreadableFile as exc:
            raise DocumentError(str(exc), where=f"{path}:{number}", hint=_hint(what)) from None
    if not out:
        raise DocumentError(f"the {what} is empty", where=str(path), hint=_hint(what))
    return out


def read_json_file(path: str | os.PathLike[str], *, what: str) -> dict[str, Any]:
    """A JSON object from ``path`` (a manifest); :class:`DocumentError` otherwise."""
    try:
        value = load_json(_read(path, what))
    except UnreadableFile as exc:
        raise DocumentError(str(exc), where=str(path), hint=_hint(what)) from None
    if not isinstance(value, dict):
        raise DocumentError(
            f"the {what} must be a JSON object, not {type(value).__name__}",
            where=str(path),
            hint=_hint(what),
        )
    return value


def _fits(value: Any, kind: Kind) -> bool:
    if kind == STR_LIST:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == NUMBER_LIST:
        return isinstance(value, list) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        )
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind) if isinstance(kind, type) else False


def _name(kind: Kind) -> str:
    return kind if isinstance(kind, str) else kind.__name__


def check_record(
    value: Any,
    *,
    required: Mapping[str, Kind],
    optional: Mapping[str, Kind] | None = None,
    where: str,
    what: str,
) -> dict[str, Any]:
    """``value`` if it is an object with every ``required`` field, no field outside
    ``required`` and ``optional``, and each of the type given; a :class:`DocumentError` at
    ``where`` saying which field is wrong otherwise."""
    optional = optional or {}
    if not isinstance(value, dict):
        raise DocumentError(
            f"each line of the {what} must be a JSON object, not {type(value).__name__}",
            where=where,
            hint=_hint(what),
        )
    unknown = sorted(str(k)[:40] for k in value if k not in required and k not in optional)
    missing = [k for k in required if k not in value]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if unknown:
            parts.append(f"unknown {', '.join(unknown[:5])}")
        raise DocumentError(
            f"a record of the {what} has the wrong keys ({'; '.join(parts)})",
            where=where,
            hint=f"Each record has {', '.join(required)}"
            + (f" and may have {', '.join(optional)}" if optional else ""),
        )
    for key, kind in {**required, **optional}.items():
        if key in value and not _fits(value[key], kind):
            raise DocumentError(
                f"field {key!r} must be {_name(kind)}, not {type(value[key]).__name__}",
                where=f"{where} {key}",
                hint=_hint(what),
            )
    return value
