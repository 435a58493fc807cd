"""Reading foreign documents: a path, an http(s) URL (through an injectable httpx.Client)
or an in-memory mapping, as JSON or YAML, into plain JSON values.

YAML's extras are made JSON: keys become strings (``200:`` -> ``"200"``), dates and
timestamps become ISO strings; NaN, infinities, binary and sets are refused. Every failure
is a :class:`DocumentError` naming the file (and line) or URL.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import os
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from schemarouter.contracts import shown_url
from schemarouter.errors import DocumentError
from schemarouter.fingerprint import fingerprint
from schemarouter.registry.bounds import (
    MAX_DOCUMENT_DEPTH,
    UnreadableFile,
    dotted,
    json_problem,
    long_integer,
    read_file_bytes,
)
from schemarouter.registry.http_body import (
    ACCEPT_ENCODING,
    FRESH_CONNECTIONS,
    BodyDecodeError,
    BodyTooLarge,
    DeadlinePassed,
    read_sync,
)

__all__ = [
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_TIMEOUT",
    "TOO_LARGE_HINT",
    "LoadedDocument",
    "check_shape",
    "load_document",
    "optional_text",
    "parse_text",
    "read_local_text",
    "to_json_value",
]

#: Seconds allowed for fetching a document over HTTP (redirects, headers and body in all).
DEFAULT_TIMEOUT = 30.0
#: Bytes a fetched document may have (after decompression).
DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
_MAX_REDIRECTS = 10
#: Values (objects, arrays, scalars) a document passed as a mapping may hold.
MAX_DOCUMENT_NODES = 10_000_000

_URL = re.compile(r"^https?://", re.IGNORECASE)


class LoadedDocument(NamedTuple):
    data: dict[str, Any]
    #: How errors and the registration name the document (a path, a URL or ``<dict>``).
    source: str
    #: Where it was fetched from, for resolving relative server URLs (``None`` for files).
    url: str | None
    #: ``sha256:`` of the document's canonical JSON (equal for its JSON and YAML forms).
    digest: str


def optional_text(value: Any, where: str, key: str) -> str:
    """A document's text field ``key`` (its ``value``, at ``where``), stripped: ``""`` when
    absent, a :class:`DocumentError` at ``where.key`` when it is not a string."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DocumentError(
            f"{key!r} must be a string, got {type(value).__name__}",
            where=f"{where}.{key}",
            hint="Write it as text",
        )
    return value.strip()


def to_json_value(node: Any, where: str) -> Any:
    """A deep copy of ``node`` with only JSON types (see the module docstring)."""
    check_shape(node, where=where, max_nodes=MAX_DOCUMENT_NODES)
    try:
        try:
            return _plain_copy(node)
        except _NotPlain:
            return _convert(node, where)  # the general reading, which names what is wrong
    except RecursionError:
        raise DocumentError(
            "document is nested too deeply (or a YAML alias refers to itself)",
            where=where,
            hint="Remove the self-referencing anchor or flatten the document",
        ) from None


class _NotPlain(Exception):
    """A value :func:`_plain_copy` leaves to :func:`_convert`."""


_LEAVES = frozenset({str, int, bool, type(None)})


def _plain_copy(node: Any) -> Any:
    """What :func:`_convert` makes of a value built only of ``dict`` (``str`` keys), ``list``,
    ``tuple``, ``str``, ``int``, ``bool``, ``None`` and finite ``float`` (exact types, as a
    JSON parser makes them), made without the location of every node; :class:`_NotPlain`
    for anything else (a YAML key or date, a subclass ...)."""
    kind = type(node)
    if kind is dict:
        out: dict[str, Any] = {}
        for key, value in node.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = value if type(value) in _LEAVES else _plain_copy(value)
        return out
    if kind is list or kind is tuple:
        return [value if type(value) in _LEAVES else _plain_copy(value) for value in node]
    if kind in _LEAVES:
        return node
    if kind is float and math.isfinite(node):
        return node
    raise _NotPlain


def _key(key: Any, where: str) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, int | float | _dt.date):
        return key.isoformat() if isinstance(key, _dt.date) else str(key)
    raise DocumentError(
        f"mapping key {key!r} is not a string",
        where=where,
        hint="Write mapping keys as plain strings",
    )


def _convert(node: Any, where: str) -> Any:
    if isinstance(node, str | bool | int) or node is None:
        return node
    if isinstance(node, float):
        if not math.isfinite(node):
            raise DocumentError(
                f"{node!r} is not a JSON number", where=where, hint="Write a finite number"
            )
        return node
    if isinstance(node, Mapping):
        out: dict[str, Any] = {}
        for k, v in node.items():
            key = _key(k, where)
            if key in out:  # YAML's 200 and '200' are one JSON key
                raise DocumentError(
                    f"mapping key {key!r} is written twice", where=where, hint="Write it once"
                )
            out[key] = _convert(v, f"{where}.{key}")
        return out
    if isinstance(node, list | tuple):
        return [_convert(v, f"{where}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, _dt.date):
        return node.isoformat()
    raise DocumentError(
        f"a {type(node).__name__} value is not JSON",
        where=where,
        hint="Use only JSON values (objects, arrays, strings, numbers, booleans, null)",
    )


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key
        #: offset of the ``{`` of the object that repeats the key, once located
        self.offset: int | None = None


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a key written twice (``dict`` keeps the last)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _duplicate_offset(text: str) -> int | None:
    """Where the first object with a repeated key starts: the C decoder cannot say, so
    parse again with the pure-Python one, which can (only ever on the error path)."""
    import json.decoder
    import json.scanner

    decoder = json.JSONDecoder(object_pairs_hook=_unique_pairs)

    parse = json.decoder.JSONObject  # type: ignore[attr-defined]

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> Any:
        try:
            return parse(s_and_end, *args)
        except _DuplicateKey as exc:
            if exc.offset is None:
                exc.offset = s_and_end[1] - 1
            raise

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        decoder.decode(text)
    except _DuplicateKey as exc:
        return exc.offset
    except (ValueError, RecursionError):
        pass
    return None


def _line_column(text: str, offset: int) -> str:
    """``line:column`` (both from 1) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{column}"


@functools.cache
def _yaml_loader() -> type:
    """A SafeLoader that reads ``1.0e9`` as a float, as YAML 1.2 does (PyYAML follows 1.1,
    where an exponent needs a sign and a dot, so ``1.0e9`` would silently be a string),
    and refuses a mapping key written twice (PyYAML keeps the last one silently)."""
    import yaml
    from yaml.constructor import ConstructorError

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[valid-type,misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # merged keys may be overridden: that is what << means
                    key = self.construct_object(key_node, deep=True)
                    try:
                        repeated = key in seen
                    except TypeError:  # unhashable: the base constructor says so
                        continue
                    if repeated:
                        raise ConstructorError(
                            "while constructing a mapping",
                            node.start_mark,
                            f"mapping key {key!r} is written twice (the last would silently win)",
                            key_node.start_mark,
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_int(self, node: Any) -> Any:
            try:
                return super().construct_yaml_int(node)
            except ValueError:  # more digits than Python converts
                problem = long_integer(sys.get_int_max_str_digits())
                raise ConstructorError(None, None, problem, node.start_mark) from None

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
            |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
            |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))$""",
            re.X,
        ),
        list("-+0123456789."),
    )
    return Loader


def check_shape(data: Any, *, where: str, max_nodes: int | None = None) -> None:
    """Refuse a parsed document nested past :data:`MAX_DOCUMENT_DEPTH`, holding ``NaN``, an
    infinity or a lone surrogate, or (YAML aliases) expanding to more than ``max_nodes``
    values."""
    problem = json_problem(data, max_depth=MAX_DOCUMENT_DEPTH, max_nodes=max_nodes, unicode=True)
    if problem is None:
        return
    hints = {
        "too_deep": "Flatten the document (real documents nest a few dozen levels at most)",
        "not_finite": "Write a finite number (JSON has no NaN or Infinity)",
        "too_long": _LONG_NUMBER_HINT,
        "too_large": "Remove the YAML aliases that repeat large parts of the document",
        "not_unicode": "Fix the escape (a character outside the BMP is a surrogate pair)",
    }
    raise DocumentError(
        problem.message, where=f"{where}: {dotted(problem.location)}", hint=hints[problem.kind]
    )


def parse_text(text: str, *, source: str, json_first: bool) -> Any:
    """Parse JSON (when ``json_first`` or the text starts with ``{``) or else YAML.

    A key written twice in one object, nesting past :data:`MAX_DOCUMENT_DEPTH`, ``NaN`` or
    ``Infinity``, and YAML aliases that expand the document past its own length are each
    a :class:`DocumentError` with their location.
    """
    if json_first or text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text, object_pairs_hook=_unique_pairs)
        except json.JSONDecodeError as exc:
            raise DocumentError(
                f"invalid JSON: {exc.msg}",
                where=f"{source}:{exc.lineno}:{exc.colno}",
                hint="Fix the syntax (a JSON linter shows the exact spot)",
            ) from None
        except _DuplicateKey as exc:
            offset = _duplicate_offset(text)
            raise DocumentError(
                f"key {exc.key!r} is written twice in one object (the last would silently win)",
                where=f"{source}:{_line_column(text, offset)}" if offset is not None else source,
                hint="Write each key once",
            ) from None
        except RecursionError:
            raise _too_deep(source) from None
        except ValueError as exc:  # an integer of more digits than Python converts
            if "integer string conversion" not in str(exc):
                raise  # pragma: no cover - the decoder raises no other ValueError
            offset = _long_number_offset(text)
            raise DocumentError(
                long_integer(sys.get_int_max_str_digits()),
                where=f"{source}:{_line_column(text, offset)}" if offset is not None else source,
                hint=_LONG_NUMBER_HINT,
            ) from None
        check_shape(data, where=source)
        return data
    import yaml

    try:
        data = yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        if problem == long_integer(sys.get_int_max_str_digits()):
            raise DocumentError(problem, where=where, hint=_LONG_NUMBER_HINT) from None
        raise DocumentError(
            f"invalid YAML: {problem}", where=where, hint="Fix the YAML syntax"
        ) from None
    except RecursionError:
        raise _too_deep(source) from None
    # without aliases a YAML text holds fewer values than characters
    check_shape(data, where=source, max_nodes=len(text) + 16)
    return data


_LONG_NUMBER_HINT = "Write the number with fewer digits, or as a string"
#: a JSON string (skipped whole) or a run of digits outside one
_STRING_OR_DIGITS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|\d+')


def _long_number_offset(text: str) -> int | None:
    """Where the first integer of ``text`` too long for Python to read starts (the decoder
    does not say; only ever on the error path)."""
    limit = sys.get_int_max_str_digits()
    for match in _STRING_OR_DIGITS.finditer(text):
        if match.group(0)[0] != '"' and 0 < limit < match.end() - match.start():
            return match.start()
    return None


def _too_deep(source: str) -> DocumentError:
    return DocumentError(
        f"the document nests deeper than {MAX_DOCUMENT_DEPTH} levels",
        where=source,
        hint="Flatten the document (real documents nest a few dozen levels at most)",
    )


def _fetch(
    url: str, client: httpx.Client | None, *, max_bytes: int, timeout: float
) -> tuple[str, str]:
    """The text at ``url``: at most ``max_bytes`` (every content-encoding layer counted),
    in ``timeout`` seconds for the whole fetch (redirects, headers and body together)."""
    own = client is None
    http = client or httpx.Client(timeout=timeout, limits=FRESH_CONNECTIONS)
    deadline = time.monotonic() + timeout
    hint = "Check the URL and the network, or pass the document as a file or a dict"
    where = shown_url(url)  # a credential in the URL is no error's to show
    try:
        request = http.build_request("GET", url, headers={"Accept-Encoding": ACCEPT_ENCODING})
        for _ in range(_MAX_REDIRECTS + 1):
            response = read_sync(
                http, request, limit=max_bytes, deadline=deadline, skip_redirect_body=True
            )
            if response.next_request is None:
                break
            request = response.next_request
        else:
            raise DocumentError(f"more than {_MAX_REDIRECTS} redirects", where=where, hint=hint)
    except DeadlinePassed:
        raise DocumentError(
            f"fetching the document took longer than {timeout:g} s", where=where, hint=hint
        ) from None
    except BodyTooLarge:
        raise DocumentError(
            f"the document is larger than {max_bytes} bytes",
            where=where,
            hint="Download it and pass the file, or raise the limit",
        ) from None
    except BodyDecodeError as exc:
        raise DocumentError(f"cannot decode the document: {exc}", where=where, hint=hint) from None
    except (httpx.HTTPError, httpx.InvalidURL, UnicodeError) as exc:  # idna: a bad redirect
        raise DocumentError(
            f"cannot fetch the document: {type(exc).__name__}: "
            f"{str(exc).replace(url, where)[:200]}",
            where=where,
            hint=hint,
        ) from None
    finally:
        if own:
            http.close()
    if response.status_code >= 400:
        raise DocumentError(
            f"fetching the document answered HTTP {response.status_code}",
            where=where,
            hint="Check the URL (and any credentials the server needs to serve it)",
        )
    content_type = response.headers.get("content-type", "")
    declared = re.search(r"charset=[\"']?([\w.:-]+)", content_type, re.IGNORECASE)
    try:
        text = response.content.decode(declared.group(1) if declared else "utf-8", "replace")
    except LookupError:  # an unknown charset name
        text = response.content.decode("utf-8", "replace")
    return text, content_type


#: The hint for a local document past the cap (a catalog's says to make it a folder).
TOO_LARGE_HINT = "Split the document, or load it yourself and pass the data"


def read_local_text(
    path: str | os.PathLike[str],
    *,
    where: str,
    max_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    hint: str = "Check the path and try again",
    too_large: str = TOO_LARGE_HINT,
) -> str:
    """The UTF-8 text of a local document, under the same cap as a fetched one: a FIFO, a
    device (``/dev/zero``), a folder or a file past ``max_bytes`` is a :class:`DocumentError`
    before anything is read (a FIFO would block forever, ``/dev/zero`` never ends); a file
    past the cap gets ``too_large`` as its hint."""
    try:
        data = read_file_bytes(path, max_bytes=max_bytes)
    except UnreadableFile as exc:
        raise DocumentError(
            str(exc), where=where[:300], hint=too_large if "limit" in str(exc) else hint
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"not UTF-8 text: {exc.reason}", where=where[:300], hint="Save the file as UTF-8"
        ) from None


def _looks_like_text(document: str) -> bool:
    """Whether a string given as a path is a document's own text (read from a config
    service): a line break, or the start of YAML or JSON; never an existing file."""
    start = document.lstrip()
    if not ("\n" in document or start.startswith(("openapi:", "swagger:", "{"))):
        return False
    try:
        return not Path(document).is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte: no file
        return True


def load_document(
    document: Any,
    *,
    client: httpx.Client | None = None,
    source: str | None = None,
    max_bytes: int | None = None,
    timeout: float | None = None,
) -> LoadedDocument:
    """Read ``document`` (a mapping, a path, or an http(s) URL) into a JSON mapping.

    A URL is fetched within ``max_bytes`` (default :data:`DEFAULT_MAX_DOCUMENT_BYTES`) and
    ``timeout`` seconds in all (default :data:`DEFAULT_TIMEOUT`)."""
    url: str | None = None
    if isinstance(document, Mapping):
        name = source or "<dict>"
        data = to_json_value(document, name)
    elif isinstance(document, str) and _URL.match(document):
        url = document
        name = source or shown_url(url)  # its routes' source, saved and shown (trial W1)
        text, content_type = _fetch(
            url,
            client,
            max_bytes=DEFAULT_MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes,
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        )
        is_json = "json" in content_type or url.lower().split("?")[0].endswith(".json")
        data = to_json_value(parse_text(text, source=name, json_first=is_json), name)
    elif isinstance(document, str) and _looks_like_text(document):
        raise DocumentError(
            "this looks like document text, not a path or a URL",
            where=source or f"<text: {document.lstrip()[:40]!r}...>",
            hint="Pass the document parsed, as a dict: add_openapi(yaml.safe_load(text)) (or "
            "json.loads(text))",
        )
    elif isinstance(document, str | os.PathLike):
        path = Path(document)
        name = source or str(path)
        text = read_local_text(
            path,
            where=name,
            max_bytes=DEFAULT_MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes,
            hint="Check the path (a file, an http(s) URL, or pass a dict)",
        )
        data = to_json_value(parse_text(text, source=name, json_first=path.suffix == ".json"), name)
    else:
        raise DocumentError(
            f"cannot read a document from a {type(document).__name__}",
            where=source or "<document>",
            hint="Pass a file path, an http(s) URL or a dict",
        )
    if not isinstance(data, dict):
        raise DocumentError(
            f"the document must be a mapping at the top level, got {type(data).__name__}",
            where=name,
            hint="Pass the whole document, not one of its parts",
        )
    return LoadedDocument(data, name, url, fingerprint(data))
