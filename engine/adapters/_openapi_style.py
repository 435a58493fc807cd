"""How an OpenAPI parameter writes an array or object: ``style`` / ``explode`` (3.x),
``collectionFormat`` (2.0), ``content`` (3.x), read into :class:`Parameter` fields.

Only what differs from OpenAPI 3's default for the location is recorded (``form`` with
``explode`` in a query or cookie, ``simple`` in a path or header), so a parameter whose
document says nothing more keeps the contract, and the fingerprint, it had before these
fields existed. Swagger 2's default ``collectionFormat`` is ``csv``, not repeated names: an
array in a query or form without one is recorded as ``explode: false``.

- 2.0: ``csv`` -> ``form`` / ``simple`` without explode, ``ssv`` -> ``spaceDelimited``,
  ``tsv`` -> ``tabDelimited``, ``pipes`` -> ``pipeDelimited``, ``multi`` (query and form
  only) -> ``form`` with explode; read for ``type: array`` parameters only.
- 3.x: ``style`` as the location allows (path: simple, label, matrix; query: form,
  spaceDelimited, pipeDelimited, deepObject; header: simple; cookie: form) and ``explode``;
  for a parameter typed as a scalar only ``label`` / ``matrix`` change anything and only they
  are kept. A parameter described by ``content`` travels as that media type's text.

An unknown style or one its location does not take is refused when strict; the lenient
reading keeps the location's default and says so in the warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.adapters._media import pick_media
from schemarouter.adapters._openapi_reader import OpenAPIReader
from schemarouter.contracts import ParameterStyle
from schemarouter.errors import DocumentError
from schemarouter.placement import ParameterLocation, default_explode, default_style

__all__ = ["parameter_style"]

_LOCATIONS = {
    "path": ParameterLocation.PATH,
    "query": ParameterLocation.QUERY,
    "header": ParameterLocation.HEADER,
    "cookie": ParameterLocation.COOKIE,
    "formData": ParameterLocation.BODY,
}
#: Swagger 2 ``collectionFormat`` -> (style, explode); ``form`` / ``simple`` by location.
_COLLECTION = {
    "csv": (None, False),
    "ssv": (ParameterStyle.SPACE_DELIMITED, False),
    "tsv": (ParameterStyle.TAB_DELIMITED, False),
    "pipes": (ParameterStyle.PIPE_DELIMITED, False),
    "multi": (ParameterStyle.FORM, True),
}
#: The styles OpenAPI 3 allows in each location.
_OAS3_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}
_SCALARS = frozenset({"string", "number", "integer", "boolean", "null"})


def _scalar(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return bool(kinds) and all(isinstance(k, str) and k in _SCALARS for k in kinds)


def _declined(reader: OpenAPIReader, what: str, where: str, hint: str) -> None:
    """Refuse ``what`` (strict), else record that the location's default is kept."""
    if reader.repairs is None:
        raise DocumentError(what, where=reader.where(where), hint=hint)
    reader.repairs.append(f"{where}: {what}; the location's default is used")


def _recorded(
    location: ParameterLocation, style: ParameterStyle | None, explode: bool | None
) -> dict[str, Any]:
    """The fields that differ from the location's default (none: an empty dict)."""
    style = style or default_style(location)
    explode = default_explode(style) if explode is None else explode
    found: dict[str, Any] = {}
    if style is not default_style(location):
        found["style"] = style
    if explode != default_explode(style):
        found["explode"] = explode
    return found


def parameter_style(
    reader: OpenAPIReader, param: Mapping[str, Any], schema: Mapping[str, Any], where: str
) -> dict[str, Any]:
    """``style`` / ``explode`` / ``media_type`` keywords for the :class:`Parameter` of
    ``param`` (its JSON Schema ``schema``), only those that differ from the default."""
    place = str(param.get("in"))
    location = _LOCATIONS.get(place)
    if location is None:
        return {}  # a Swagger 2 body: the payload, not a serialized value
    explode: bool | None
    style: ParameterStyle | None
    if reader.dialect == "oas2":
        kind = schema.get("type")
        if kind != "array" and not (isinstance(kind, list) and "array" in kind):
            return {}
        raw = param.get("collectionFormat", "csv")
        formats: tuple[str, ...] = ("csv", "ssv", "tsv", "pipes", "multi")
        if location in (ParameterLocation.PATH, ParameterLocation.HEADER):
            formats = formats[:-1]  # multi: query and formData only
        if raw not in formats:
            _declined(
                reader,
                f"collectionFormat {raw!r} does not apply to a {place} parameter",
                f"{where}.collectionFormat",
                f"Use one of: {', '.join(formats)}",
            )
            raw = "csv"
        style, explode = _COLLECTION[raw]
        return _recorded(location, style, explode)
    if "schema" not in param and isinstance(param.get("content"), Mapping) and param["content"]:
        return {"media_type": pick_media(param["content"], forms=False) or "application/json"}
    style = None
    if "style" in param:
        raw = param["style"]
        allowed = _OAS3_STYLES[place]
        if isinstance(raw, str) and raw in allowed:
            style = ParameterStyle(raw)
        else:
            _declined(
                reader,
                f"style {raw!r} does not apply to a {place} parameter",
                f"{where}.style",
                f"Use one of: {', '.join(allowed)}",
            )
    explode = reader.flag(param, "explode", where) if "explode" in param else None
    if _scalar(schema):  # a scalar is written alike but for the path's prefixes
        if style not in (ParameterStyle.LABEL, ParameterStyle.MATRIX):
            return {}
        explode = None
    return _recorded(location, style, explode)
