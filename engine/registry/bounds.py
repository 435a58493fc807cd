"""Limits on the shape of foreign JSON: how deeply it nests, and which numbers it holds.

Documents (catalogs, OpenAPI, MCP tool lists), registered schemas and raw outputs come
from outside; the libraries that read them further (jsonschema, pydantic, the JSON encoder)
recurse once per level, so a value nested a few hundred levels deep surfaces somewhere
downstream as an untyped ``RecursionError`` or a result that cannot be serialized.
:func:`json_problem` walks a value *without* recursion and names the first place that is
nested past a limit or holds a number JSON cannot carry (``NaN``, ``Infinity``); callers
turn that into their own typed error.

The limits are far above what real documents need: the deepest of the 124 public OpenAPI
documents in the shared data nests 18 levels (26 once its references are inlined), the
bundled catalogs 15.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

__all__ = [
    "MAX_DOCUMENT_DEPTH",
    "MAX_OUTPUT_DEPTH",
    "MAX_SCHEMA_DEPTH",
    "JsonProblem",
    "dotted",
    "json_problem",
]

#: Levels of objects and arrays a foreign document may nest.
MAX_DOCUMENT_DEPTH = 100
#: Levels a registered JSON Schema may nest (after its references are inlined).
MAX_SCHEMA_DEPTH = 100
#: Levels a raw output (an HTTP body, a tool's or a callable's result) may nest; pydantic
#: refuses to serialize past about 250, and a result wraps the raw values a few levels more.
MAX_OUTPUT_DEPTH = 100

Location = tuple[str | int, ...]


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (from a ``"\\ud800"`` JSON escape): no UTF-8
    text can, so hashing, tokenizing or writing it fails downstream."""
    return not text.isascii() and _SURROGATE.search(text) is not None


class JsonProblem(NamedTuple):
    kind: Literal["too_deep", "not_finite", "too_large", "not_unicode"]
    location: Location
    message: str


_NOT_UNICODE = "the text holds a lone surrogate (a \\ud800-\\udfff escape), which is not Unicode"


def json_problem(
    value: Any,
    *,
    max_depth: int,
    max_nodes: int | None = None,
    finite: bool = True,
    unicode: bool = False,
) -> JsonProblem | None:
    """The first place in ``value`` nested deeper than ``max_depth`` levels of objects and
    arrays, or holding a non-finite float (unless ``finite=False``), or a string or key with
    a lone surrogate (where ``unicode=True``), or where it passes ``max_nodes`` values (a
    structure that shares parts, such as YAML aliases, can be far larger than its text);
    ``None`` when there is none."""
    # (node, depth, link) where link = (parent link, key) rebuilds the location on demand
    todo: list[tuple[Any, int, Any]] = [(value, 0, None)]
    seen = 0
    while todo:
        node, depth, link = todo.pop()
        seen += 1
        if max_nodes is not None and seen > max_nodes:
            return JsonProblem(
                "too_large", _unlink(link), f"the document expands to more than {max_nodes} values"
            )
        if isinstance(node, float):
            if finite and not math.isfinite(node):
                return JsonProblem("not_finite", _unlink(link), f"{node!r} is not a JSON number")
            continue
        if isinstance(node, str):
            if unicode and _lone_surrogate(node):
                return JsonProblem("not_unicode", _unlink(link), _NOT_UNICODE)
            continue
        if isinstance(node, Mapping):
            if unicode:
                for key in node:
                    if isinstance(key, str) and _lone_surrogate(key):
                        return JsonProblem("not_unicode", _unlink((link, key)), _NOT_UNICODE)
            items: Iterable[tuple[Any, Any]] = node.items()
        elif isinstance(node, list | tuple):
            items = enumerate(node)
        else:
            continue
        if depth >= max_depth:
            return JsonProblem("too_deep", _unlink(link), f"nested deeper than {max_depth} levels")
        todo.extend((child, depth + 1, (link, key)) for key, child in items)
    return None


def _unlink(link: Any) -> Location:
    parts: list[str | int] = []
    while link is not None:
        link, key = link
        parts.append(key if isinstance(key, int) else _printable(str(key)))
    return tuple(reversed(parts))


def _printable(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (so a message naming the
    place can itself be printed)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def dotted(location: Location, *, max_parts: int = 16) -> str:
    """``("providers", 0, "access")`` -> ``providers[0].access`` (the documents' style);
    a location longer than ``max_parts`` keeps its first ones."""
    text = ""
    for part in location[:max_parts]:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    if len(location) > max_parts:
        text += f"... ({len(location) - max_parts} levels more)"
    return text or "<document>"
