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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from schemarouter.errors import DocumentError
from schemarouter.fingerprint import fingerprint

__all__ = ["DEFAULT_TIMEOUT", "LoadedDocument", "load_document", "parse_text", "to_json_value"]

#: Seconds allowed for fetching a document over HTTP (connect and read).
DEFAULT_TIMEOUT = 30.0

_URL = re.compile(r"^https?://", re.IGNORECASE)


class LoadedDocument(NamedTuple):
    data: dict[str, Any]
    #: How errors and the registration name the document (a path, a URL or ``<dict>``).
    source: str
    #: Where it was fetched from, for resolving relative server URLs (``None`` for files).
    url: str | None
    #: ``sha256:`` of the document's canonical JSON (equal for its JSON and YAML forms).
    digest: str


def to_json_value(node: Any, where: str) -> Any:
    """A deep copy of ``node`` with only JSON types (see the module docstring)."""
    try:
        return _convert(node, where)
    except RecursionError:
        raise DocumentError(
            "document is nested too deeply (or a YAML alias refers to itself)",
            where=where,
            hint="Remove the self-referencing anchor or flatten the document",
        ) from None


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
        return {_key(k, where): _convert(v, f"{where}.{_key(k, where)}") for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_convert(v, f"{where}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, _dt.date):
        return node.isoformat()
    raise DocumentError(
        f"a {type(node).__name__} value is not JSON",
        where=where,
        hint="Use only JSON values (objects, arrays, strings, numbers, booleans, null)",
    )


@functools.cache
def _yaml_loader() -> type:
    """A SafeLoader that reads ``1.0e9`` as a float, as YAML 1.2 does (PyYAML follows 1.1,
    where an exponent needs a sign and a dot, so ``1.0e9`` would silently be a string)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[valid-type,misc]
        pass

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


def parse_text(text: str, *, source: str, json_first: bool) -> Any:
    """Parse JSON (when ``json_first`` or the text starts with ``{``) or else YAML."""
    if json_first or text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise DocumentError(
                f"invalid JSON: {exc.msg}",
                where=f"{source}:{exc.lineno}:{exc.colno}",
                hint="Fix the syntax (a JSON linter shows the exact spot)",
            ) from None
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise DocumentError(
            f"invalid YAML: {problem}", where=where, hint="Fix the YAML syntax"
        ) from None


def _fetch(url: str, client: httpx.Client | None) -> tuple[str, str]:
    own = client is None
    http = client or httpx.Client(timeout=DEFAULT_TIMEOUT, follow_redirects=True)
    try:
        response = http.get(url)
    except httpx.HTTPError as exc:
        raise DocumentError(
            f"cannot fetch the document: {type(exc).__name__}: {exc}",
            where=url,
            hint="Check the URL and the network, or pass the document as a file or a dict",
        ) from None
    finally:
        if own:
            http.close()
    if response.status_code >= 400:
        raise DocumentError(
            f"fetching the document answered HTTP {response.status_code}",
            where=url,
            hint="Check the URL (and any credentials the server needs to serve it)",
        )
    return response.text, response.headers.get("content-type", "")


def load_document(
    document: Any, *, client: httpx.Client | None = None, source: str | None = None
) -> LoadedDocument:
    """Read ``document`` (a mapping, a path, or an http(s) URL) into a JSON mapping."""
    url: str | None = None
    if isinstance(document, Mapping):
        name = source or "<dict>"
        data = to_json_value(document, name)
    elif isinstance(document, str) and _URL.match(document):
        url = document
        name = source or url
        text, content_type = _fetch(url, client)
        is_json = "json" in content_type or url.lower().split("?")[0].endswith(".json")
        data = to_json_value(parse_text(text, source=name, json_first=is_json), name)
    elif isinstance(document, str | os.PathLike):
        path = Path(document)
        name = source or str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"not UTF-8 text: {exc.reason}", where=name, hint="Save the file as UTF-8"
            ) from None
        except OSError as exc:
            raise DocumentError(
                f"cannot read the file: {exc.strerror or exc}",
                where=name,
                hint="Check the path (a file, an http(s) URL, or pass a dict)",
            ) from None
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
