"""``schemarouter index info DIR``: what a saved index folder holds, from its manifest, and the
sources its build left out.

``index build --skip-invalid`` leaves out a source that cannot be registered (a malformed
document in a nightly folder) and goes on; each one it left out is written into the folder's
manifest (:func:`left_out`: the source, its error's code and message), so that an operator
sees the night that lost a document here and in ``serve``'s ``/readyz`` (a count), not only in
that night's build log (user trial X4)::

    index ./idx: generation gen-2894b14938ea, built by schemarouter 0.1.0
      211 routes, registry sha256:eeb3..., encoder ...
      left out (--skip-invalid): 1
        night3/apimatic.io__1.0.json: [SR101] invalid JSON ... (at ...:29:1)
      files: 14 checked against the manifest

It checks each file the manifest lists (size and sha256, as loading does), so a folder the
replicas would refuse (a truncated file, a generation copied in from another build) is named
here too, with what to do, and the command exits 1 (user trial Y3: it said all was well).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schemarouter.errors import SchemaRouterError

__all__ = ["add_index_info_parser", "json_printable", "left_out"]


def left_out(failed: Sequence[tuple[str, SchemaRouterError]]) -> list[dict[str, str]]:
    """Each source left out with its error, as the manifest records it: ``source`` (a URL
    without its userinfo and query, a command line without its secret flags' values:
    :func:`~schemarouter.placement.shown_command`; trial V3: a ``?api_key=`` was written and
    printed), ``code`` and ``error`` (the message on one line, with where and what to do)."""
    return [
        {"source": _shown(source), "code": error.code, "error": " ".join(str(error).split())}
        for source, error in failed
    ]


def _shown(source: Any) -> str:
    from schemarouter.placement import shown_command

    return shown_command(str(source))


def _damage(folder: Path, manifest: dict[str, Any]) -> SchemaRouterError | None:
    """Why the files of ``folder`` are not those ``manifest`` lists (with the command that
    rebuilds it), else ``None``."""
    from schemarouter.errors import CorruptIndexError
    from schemarouter.index.verify import verify_files

    try:
        verify_files(folder, manifest)
    except CorruptIndexError as exc:
        return exc.hinting(
            f"Rebuild it: `schemarouter index build SOURCES --out {folder}` (serving processes "
            "keep the generation they loaded; a reload or a start refuses this one)"
        )
    return None


def _printable(value: Any) -> str:
    """``value`` as text with its control characters escaped (``\x1b`` shown, not sent): a
    document's file name or error is printed to the operator's terminal, where an escape
    sequence would clear the screen or rewrite the lines above (trial Y1)."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(value)
    )


def json_printable(text: str) -> str:
    """JSON ``text`` with every character a terminal may act on (C1 controls such as U+009B,
    bidi overrides) written as its ``\\u`` escape: the same JSON, Korean names kept as they are
    (``ensure_ascii`` would escape them too); ``json.dumps`` escapes only C0 controls."""
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)


def _cmd_index_info(args: argparse.Namespace) -> int:
    from schemarouter.errors import CorruptIndexError
    from schemarouter.index.folder import MANIFEST
    from schemarouter.index.store import read_manifest

    folder = Path(args.folder)
    try:
        manifest = read_manifest(folder)  # a damaged one: exit 1, what and where
    except CorruptIndexError as exc:  # its hint named HybridIndex.save and no folder
        if "HybridIndex.save" not in str(exc.hint):
            raise
        raise exc.hinting(f"Build one: `schemarouter index build SOURCES --out {folder}`") from None
    skipped = manifest.get("left_out") or []
    counts = manifest.get("counts") or {}
    if not isinstance(counts, dict) or not (
        isinstance(skipped, list) and all(isinstance(entry, dict) for entry in skipped)
    ):  # a manifest no build writes: said so, where a traceback was printed (trial Y1)
        raise CorruptIndexError(
            "manifest.json's counts or left_out are not what index build writes (an object; "
            "a list of objects)",
            where=str(Path(args.folder) / MANIFEST),
            hint="Rebuild the index with `schemarouter index build`",
        )
    damage = _damage(folder, manifest)
    if args.json:
        keys = ("generation", "schemarouter_version", "registry_fingerprint", "encoder", "dim")
        info: dict[str, Any] = {key: manifest.get(key) for key in keys}
        shown = [{**entry, "source": _shown(entry.get("source"))} for entry in skipped]
        info.update(counts=counts, left_out=shown)  # one an older build wrote: shown so too
        if damage is not None:
            info["damaged"] = {"code": damage.code, "error": str(damage)}
        print(json_printable(json.dumps(info, indent=1, ensure_ascii=False)))
        return 0 if damage is None else 1
    get = {key: _printable(manifest.get(key)) for key in manifest if key != "left_out"}
    print(
        f"index {_printable(args.folder)}: generation {get.get('generation')}, built by "
        f"schemarouter {get.get('schemarouter_version')}"
    )
    routes = _printable(counts.get("routes", "?"))
    print(
        f"  {routes} routes, registry {get.get('registry_fingerprint')}, "
        f"encoder {get.get('encoder')}"
    )
    print(f"  left out (--skip-invalid): {len(skipped)}")
    for entry in skipped:
        print(f"    {_printable(_shown(entry.get('source')))}: {_printable(entry.get('error'))}")
    if damage is not None:
        print(f"error: {_printable(damage)}", file=sys.stderr)
        return 1
    print(f"  files: {len(manifest.get('files') or {})} checked against the manifest")
    return 0


def add_index_info_parser(index_commands: Any) -> None:
    info = index_commands.add_parser(
        "info",
        help="what a saved index folder holds, and the sources its build left out",
        description="A saved index folder's generation, version, routes, registry fingerprint "
        "and encoder, from its manifest, and each source `index build --skip-invalid` left "
        "out (with its error); each file is checked against the manifest (size and sha256). "
        "Exit 1 where the folder holds no readable index or a file is damaged.",
    )
    info.add_argument("folder", metavar="DIR", help="the index folder (index build --out)")
    info.add_argument("--json", action="store_true", help="print it as JSON")
    info.set_defaults(handler=_cmd_index_info)
