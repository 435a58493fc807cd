"""How ``registry.json.gz`` is written and read: JSON lines, gzip-compressed with no
timestamp (the same registry, the same bytes).

The first line is the registry without its providers (format, registry fingerprint, the
catalog's field groups and intents); each further line is one provider of the catalog with
the sources and part fingerprints of its routes::

    {"schemarouter_registry": 1, "registry_fingerprint": ..., "catalog": {...}}
    {"provider": {"id": ..., "access": [...]}, "sources": {...}, "fingerprints": {...}}

One provider per line lets a reader hold one provider's JSON at a time: read whole, the
registry of 33,376 OpenAPI routes (449 MB of JSON) took a process from 1.4 GiB to 3.5 GiB
at its peak (trial Z2). ``zcat registry.json.gz | jq`` shows it.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from typing import Any

from schemarouter.contracts import make_route_id

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_REGISTRY_BYTES",
    "REGISTRY_FILE",
    "registry_bytes",
    "registry_lines",
]

REGISTRY_FILE = "registry.json.gz"
#: A registry's JSON past this is refused when read (33,376 OpenAPI routes: 449 MB).
MAX_REGISTRY_BYTES = 8 * 1024**3
#: One line (one provider's JSON) past this is refused when read: it is held whole to be
#: parsed.
MAX_LINE_BYTES = 1024**3
_CHUNK = 1 << 20
_LINE_ENDS = re.compile(rb"\n+")


def _line(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def registry_bytes(document: dict[str, Any]) -> bytes:
    """``document`` (:func:`.saved_registry.registry_document`; its catalog's providers a
    list or an iterator) as JSON lines (see the module's docstring), gzip-compressed
    (level 6, no timestamp), a provider at a time."""
    catalog = dict(document["catalog"])
    providers = catalog.pop("providers", [])
    sources, prints = document.get("sources", {}), document["fingerprints"]
    head = {k: v for k, v in document.items() if k not in ("sources", "fingerprints")}
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunks = [packer.compress(_line({**head, "catalog": catalog}))]
    for provider in providers:
        ids = [
            make_route_id(provider["id"], access["id"], endpoint["id"])
            for access in provider["access"]
            for endpoint in access["endpoints"]
        ]
        line = {
            "provider": provider,
            "sources": {r: sources[r] for r in ids if r in sources},
            "fingerprints": {r: prints[r] for r in ids if r in prints},
        }
        chunks.append(packer.compress(_line(line)))
    chunks.append(packer.flush())
    return b"".join(chunks)


def registry_lines(
    data: bytes, *, limit: int = MAX_REGISTRY_BYTES, line_limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes]]:
    """Each JSON line of ``data`` (:func:`registry_bytes`' output) with its line number (from
    1; blank lines are skipped), inflated a megabyte at a time; a ``ValueError`` for what is
    not gzip, is cut short, inflates past ``limit`` or holds a line past ``line_limit``.

    Never more than a megabyte is inflated ahead of what was read: a gzip bomb (1 MB of
    newlines inflating to 1 GiB) took 17.5 GiB and 65 s to refuse when a read megabyte of
    input was inflated whole and split at once (trial W1)."""
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    parts: list[bytes] = []  # the line read so far, joined once it ends
    held = total = 0
    number = 1
    at = 0
    while not inflate.eof:
        source = inflate.unconsumed_tail
        if not source:
            source, at = data[at : at + _CHUNK], at + _CHUNK
        try:
            text = inflate.decompress(source, _CHUNK)
        except zlib.error as exc:
            raise ValueError(f"it is not gzip data ({exc})") from None
        if not text and not source:
            break  # the data ran out before the stream's end
        total += len(text)
        if total > limit:
            raise ValueError(f"its JSON is larger than {limit} bytes")
        start = 0
        for ends in _LINE_ENDS.finditer(text):  # a run of blank lines is one match
            piece = text[start : ends.start()]
            line = b"".join((*parts, piece)) if parts else piece
            parts, held = [], 0
            if line:
                yield number, line
            number += ends.end() - ends.start()
            start = ends.end()
        rest = text[start:]
        if rest:
            held += len(rest)
            if held > line_limit:
                raise ValueError(f"line {number} is longer than {line_limit} bytes")
            parts.append(rest)
    if not inflate.eof or b"".join(parts).strip():
        raise ValueError("the compressed data ends early")
