"""Array and object arguments written as their parameter says (OpenAPI 3 ``style`` and
``explode``, Swagger 2 ``collectionFormat``; RFC 6570 where the two read alike).

A parameter's :attr:`~schemarouter.contracts.Parameter.style` of ``None`` is its location's
OpenAPI 3 default: ``form`` with explode in a query (``ids=1&ids=2``, an object
``x=1&y=2``), ``simple`` in a path or header (``1,2``, an object ``x,1,y,2``). Without
explode a query list is one value joined by ``,`` (``form``), ``" "`` (``spaceDelimited``),
``|`` (``pipeDelimited``) or a tab (``tabDelimited``); ``deepObject`` writes
``filter[status]=open``; in a path ``label`` prefixes ``.`` and ``matrix`` ``;name=``. A
parameter with a ``media_type`` (OpenAPI 3 ``content``) travels as one JSON text. Scalars
are written as before: ``true`` / ``false``, numbers as Python writes them, text as is.

A query value joined by ``,`` is a :class:`Joined`: its items are percent-encoded one by one
and the commas between them stay literal (``ids=a%2Cb,c`` for ``["a,b", "c"]``), as RFC 6570
and OpenAPI write it; encoding the delimiter too would make that list read as three items.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote_plus

from schemarouter.contracts import Parameter, ParameterLocation, ParameterStyle
from schemarouter.placement import default_explode, default_style

__all__ = ["Joined", "explodes", "header_value", "path_value", "query_pairs", "text"]

_JOIN = {
    ParameterStyle.FORM: ",",
    ParameterStyle.SIMPLE: ",",
    ParameterStyle.SPACE_DELIMITED: " ",
    ParameterStyle.PIPE_DELIMITED: "|",
    ParameterStyle.TAB_DELIMITED: "\t",
}


class Joined(str):
    """A query value whose ``items`` are joined by a literal ``,`` (the ``str`` is the
    joined text, for everything that reads the value); :meth:`encoded` is how it travels."""

    items: tuple[str, ...]

    def __new__(cls, items: list[str]) -> Joined:
        joined = super().__new__(cls, ",".join(items))
        joined.items = tuple(items)
        return joined

    def encoded(self) -> str:
        """Each item percent-encoded as a query value, the commas between them kept."""
        return ",".join(quote_plus(item, safe="") for item in self.items)


def _joined(style: ParameterStyle, items: list[str]) -> str:
    return Joined(items) if _JOIN[style] == "," else _JOIN[style].join(items)


def text(value: Any) -> str:
    """One scalar as text; anything else as compact JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _style(parameter: Parameter, location: ParameterLocation) -> tuple[ParameterStyle, bool]:
    style = parameter.style or default_style(location)
    explode = default_explode(style) if parameter.explode is None else parameter.explode
    return style, explode


def explodes(parameter: Parameter, location: ParameterLocation) -> bool:
    """Whether a list of ``parameter`` goes out as one value per item (a name repeated)."""
    style, explode = _style(parameter, location)
    return parameter.media_type is None and (explode or style is ParameterStyle.DEEP_OBJECT)


def _flat(value: Mapping[Any, Any], write: Callable[[Any], str]) -> list[str]:
    """An object's keys and values in turn (``x,1,y,2`` once joined)."""
    return [part for key, item in value.items() for part in (write(str(key)), write(item))]


def query_pairs(
    parameter: Parameter, value: Any, location: ParameterLocation = ParameterLocation.QUERY
) -> list[tuple[str, str]]:
    """The ``(name, text)`` pairs ``value`` adds to a query or form (not yet encoded)."""
    name = parameter.name
    if parameter.media_type is not None:
        return [(name, text(value))]
    style, explode = _style(parameter, location)
    if isinstance(value, list):
        if not value:
            return []  # an empty list adds nothing, as before
        if explode or style is ParameterStyle.DEEP_OBJECT:
            return [(name, text(item)) for item in value]
        return [(name, _joined(style, [text(item) for item in value]))]
    if isinstance(value, Mapping):
        if style is ParameterStyle.DEEP_OBJECT:
            return _deep(name, value)
        if explode:
            return [(str(key), text(item)) for key, item in value.items()]
        return [(name, _joined(style, _flat(value, text)))]
    return [(name, text(value))]


def _deep(prefix: str, value: Mapping[Any, Any]) -> list[tuple[str, str]]:
    """``filter[status]=open``; a nested object nests (``filter[a][b]``), a list repeats."""
    pairs: list[tuple[str, str]] = []
    for key, item in value.items():
        name = f"{prefix}[{key}]"
        if isinstance(item, Mapping):
            pairs.extend(_deep(name, item))
        elif isinstance(item, list):
            pairs.extend((name, text(x)) for x in item)
        else:
            pairs.append((name, text(item)))
    return pairs


def header_value(parameter: Parameter, value: Any, location: ParameterLocation) -> str:
    """A header's (``simple``) or cookie's (``form``) value: a list joined by ``,`` (or its
    delimiter), an object as ``x,1,y,2`` (``x=1,y=2`` exploded). A cookie carries one value,
    so a cookie object with explode (OpenAPI's default) stays JSON text, as before."""
    if parameter.media_type is not None:
        return text(value)
    style, explode = _style(parameter, location)
    join = _JOIN.get(style, ",")
    if isinstance(value, list):
        return join.join(text(item) for item in value)
    if isinstance(value, Mapping):
        if location is ParameterLocation.COOKIE and explode:
            return text(value)
        if explode:
            return join.join(f"{text(str(k))}={text(v)}" for k, v in value.items())
        return join.join(_flat(value, text))
    return text(value)


def path_value(parameter: Parameter, value: Any, quote: Callable[[str], str]) -> str:
    """A path placeholder's text, each piece percent-encoded by ``quote`` and the separators
    (``,`` ``.`` ``;`` ``=``) left as they are; a delimiter that is no path character is
    encoded too (``%20``, ``%7C``, ``%09``)."""
    if parameter.media_type is not None:
        return quote(text(value))
    style, explode = _style(parameter, ParameterLocation.PATH)
    name = quote(parameter.name)

    def write(item: Any) -> str:
        return quote(text(item))

    if isinstance(value, list):
        parts, pairs = [write(item) for item in value], None
    elif isinstance(value, Mapping):
        parts = _flat(value, write)
        pairs = [f"{write(str(k))}={write(v)}" for k, v in value.items()]
    else:
        parts, pairs = [write(value)], None
    scalar = not isinstance(value, list | Mapping)
    if style is ParameterStyle.LABEL:
        if explode and not scalar:
            return "." + ".".join(pairs if pairs is not None else parts)
        return "." + ",".join(parts)
    if style is ParameterStyle.MATRIX:
        if explode and pairs is not None:
            return "".join(f";{pair}" for pair in pairs)
        if explode and not scalar:
            return "".join(f";{name}={part}" for part in parts)
        return f";{name}" + ("=" + ",".join(parts) if any(parts) else "")
    if explode and pairs is not None:
        return ",".join(pairs)
    join = _JOIN.get(style, ",")
    return (join if join == "," else quote(join)).join(parts)
