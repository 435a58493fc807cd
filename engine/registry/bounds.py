"""Limits on the shape of foreign JSON: how deeply it nests, and which numbers it holds.

Documents (catalogs, OpenAPI, MCP tool lists), registered schemas and raw outputs come
from outside; the libraries that read them further (jsonschema, pydantic, the JSON encoder)
recurse once per level, so a value nested a few hundred levels deep surfaces somewhere
downstream as an untyped ``RecursionError`` or a result that cannot be serialized.
:func:`json_problem` walks a value *without* recursion and names the first place that is
nested past a limit or holds a number JSON cannot carry (``NaN``, ``Infinity``, an integer
of more digits than Python converts to or from text: 4,300 by default); callers turn that
into their own typed error.

The limits are far above what real documents need: the deepest of the 124 public OpenAPI
documents in the shared data nests 18 levels (26 once its references are inlined), the
bundled catalogs 15.

Local files are read the same guarded way whatever they hold (documents, configs, index
manifests, cache segments, training data): :func:`read_file_bytes` opens without blocking,
reads only a regular file (never a FIFO, a device or a folder, whatever a symlink points
at) and at most a given number of bytes; :func:`load_json` parses JSON text into a value
no deeper than a limit. Both raise :class:`UnreadableFile`, which callers turn into their
own typed error.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

__all__ = [
    "MAX_DOCUMENT_DEPTH",
    "MAX_OUTPUT_DEPTH",
    "MAX_SCHEMA_DEPTH",
    "JsonProblem",
    "UnreadableFile",
    "dotted",
    "json_problem",
    "load_json",
    "long_integer",
    "read_file_bytes",
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
    kind: Literal["too_deep", "not_finite", "too_long", "too_large", "not_unicode"]
    location: Location
    message: str


_NOT_UNICODE = "the text holds a lone surrogate (a \\ud800-\\udfff escape), which is not Unicode"


def _int_bits() -> int | None:
    """Bits an integer may have and certainly fit Python's limit on the digits it converts
    to or from text (``sys.get_int_max_str_digits``; ``None``: no limit)."""
    digits = sys.get_int_max_str_digits()
    return None if digits == 0 else int(digits * math.log2(10))


def _too_long(number: int) -> str | None:
    """Why ``number`` cannot be JSON text here (more digits than Python converts), or
    ``None``: the JSON encoder and every parser raise a plain ``ValueError`` for it."""
    bits = _int_bits()
    if bits is None or number.bit_length() <= bits:
        return None
    digits = sys.get_int_max_str_digits()
    if abs(number) < 10**digits:
        return None
    return long_integer(digits)


def long_integer(digits: int) -> str:
    """The message for an integer of more than ``digits`` digits (Python's limit)."""
    return (
        f"an integer of more than {digits} digits, more than Python reads or writes as text "
        "(sys.set_int_max_str_digits)"
    )


def json_problem(
    value: Any,
    *,
    max_depth: int,
    max_nodes: int | None = None,
    finite: bool = True,
    unicode: bool = False,
) -> JsonProblem | None:
    """The first place in ``value`` nested deeper than ``max_depth`` levels of objects and
    arrays, or holding a non-finite float or an integer too long to write as text (unless
    ``finite=False``), or a string or key with a lone surrogate (where ``unicode=True``), or
    where it passes ``max_nodes`` values (a structure that shares parts, such as YAML
    aliases, can be far larger than its text); ``None`` when there is none."""
    bits = _int_bits() if finite else None
    if _clean(value, max_depth, max_nodes, finite, unicode, bits):
        return None
    return _walk(value, max_depth, max_nodes, finite, unicode)


def _walk(
    value: Any, max_depth: int, max_nodes: int | None, finite: bool, unicode: bool
) -> JsonProblem | None:
    """:func:`json_problem` node by node, keeping each node's location."""
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
        if isinstance(node, int):
            long = _too_long(node) if finite and not isinstance(node, bool) else None
            if long is not None:
                return JsonProblem("too_long", _unlink(link), long)
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


def _clean(
    value: Any,
    max_depth: int,
    max_nodes: int | None,
    finite: bool,
    unicode: bool,
    bits: int | None,
) -> bool:
    """``True`` only where :func:`json_problem` finds no problem in ``value``; ``False``
    where it may (it then walks again to name the first one, in its own order). The same
    tests without a location per node: most values are clean, and registration walks every
    document and schema (issue #26). ``bits``: the most an integer may have and certainly
    be short enough (:func:`_int_bits`), ``None``: integers go unchecked."""
    if not isinstance(value, Mapping | list | tuple):
        return False  # a lone scalar: the walk below is one step anyway
    todo: list[tuple[Any, int]] = [(value, 0)]
    nodes = 1
    while todo:
        node, depth = todo.pop()
        if depth >= max_depth:
            return False
        if type(node) is dict or isinstance(node, Mapping):
            if unicode:
                for key in node:
                    if type(key) is str:
                        if not key.isascii() and _SURROGATE.search(key) is not None:
                            return False
                    elif isinstance(key, str) and _lone_surrogate(key):
                        return False
            children: Any = node.values()
        else:
            children = node
        nodes += len(children)
        if max_nodes is not None and nodes > max_nodes:
            return False
        for child in children:
            kind = type(child)
            if kind is str:
                if unicode and not child.isascii() and _SURROGATE.search(child) is not None:
                    return False
            elif kind is dict or kind is list:
                todo.append((child, depth + 1))
            elif kind is int:
                if bits is not None and child.bit_length() > bits:
                    return False
            elif kind is bool or child is None:
                continue
            elif isinstance(child, float):
                if finite and not math.isfinite(child):
                    return False
            elif isinstance(child, str):
                if unicode and _lone_surrogate(child):
                    return False
            elif isinstance(child, Mapping | list | tuple):
                todo.append((child, depth + 1))
    return True


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


# -- local files -------------------------------------------------------------------------------


class UnreadableFile(ValueError):
    """A local file refused (not a regular file, too large, unreadable) or holding JSON that
    is malformed or nested too deep; ``str(error)`` says which, for the caller's own error."""


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_file_bytes(path: str | os.PathLike[str], *, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``max_bytes``.

    Opened non-blocking, so a FIFO answers at once instead of waiting for a writer; checked
    on the open descriptor, so what a symlink points at is what is judged (``/dev/zero``, a
    FIFO); read in slices and stopped past the limit, so a file that grows while it is read
    costs no more than the limit either."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the path
        raise UnreadableFile(f"cannot read the file: {exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        for test, kind in _KINDS:
            if test(mode):
                raise UnreadableFile(f"{kind}, not a regular file")
        if not stat.S_ISREG(mode):
            raise UnreadableFile("not a regular file")
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise UnreadableFile(f"the file has {size} bytes, more than the limit of {max_bytes}")
        chunks: list[bytes] = []
        total = 0
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            except OSError as exc:
                raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > max_bytes:
                raise UnreadableFile(f"the file has more than the limit of {max_bytes} bytes")
            chunks.append(chunk)
    finally:
        os.close(fd)


def load_json(text: str | bytes, *, max_depth: int = MAX_DOCUMENT_DEPTH) -> Any:
    """``json.loads(text)``, refused (:class:`UnreadableFile`) where it is no JSON, nests
    deeper than ``max_depth`` or holds ``NaN`` / ``Infinity``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise UnreadableFile(f"the JSON nests deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, and bytes that are no UTF-8
        raise UnreadableFile(f"not valid JSON: {str(exc)[:200]}") from None
    problem = json_problem(value, max_depth=max_depth)
    if problem is not None:
        where = dotted(problem.location)
        raise UnreadableFile(f"{problem.message} (at {where})")
    return value
