"""HTTP requests built from registered facts only (see :mod:`schemarouter.execution.invokers.http`).

The scheme, host and port come from the route's registered ``base_url``, the path from its
registered template; arguments only *fill* the template and the query, header, cookie and
body slots their parameters declare:

- path values are percent-encoded with ``safe=""`` (a ``/``, ``%2F`` or ``../`` stays inside
  its segment) and a value that *is* a dot segment (``.``, ``..``) or empty is refused (httpx
  would normalize it away), as is one that holds one a server may decode (``../x`` sent as
  ``..%2Fx``, ``..;``: :func:`~schemarouter.placement.dot_segment`);
  placeholders after a ``?`` in the template (AFLUX's raw query) keep ``( ) , $ * : ; ! ' @``;
- arrays and objects are written as the parameter's style says (OpenAPI 3 ``style`` and
  ``explode``, Swagger 2 ``collectionFormat``: :mod:`._styles`): in a query ``ids=1&ids=2``
  by default, ``ids=1,2`` without explode (Swagger 2's ``csv``), ``|`` / space / tab
  delimited, ``filter[status]=open`` (``deepObject``), an object ``x=1&y=2``; in a path or
  header ``1,2`` (``label`` and ``matrix`` prefix ``.`` and ``;ids=``); a parameter declared
  with ``content`` as JSON text; query values are then form-encoded (the commas of a joined
  list stay literal between its encoded items, ``ids=a%2Cb,c``, here and in a urlencoded
  form body);
- header and cookie values must be printable ASCII (no CR, LF or NUL, a trailing newline
  neither); ``;`` in a cookie value is sent as ``%3B``; parameters cannot set ``Host``,
  ``Content-Length``, ``Transfer-Encoding`` or ``Connection``;
- the body follows the input schema's ``x-schemarouter-body`` (``whole`` payload, or ``form``
  fields, urlencoded or multipart: a multipart field declared ``format: binary`` or with a
  ``contentMediaType`` is a file part, with a ``filename`` and that media type); without it
  a lone ``body`` parameter is the JSON payload and several body parameters form a JSON
  object;
- credentials are looked up by name here, at call time, and placed per the route's
  :class:`~schemarouter.contracts.AuthRequirement` (header, query, cookie, bearer, basic),
  every scheme of a requirement that needs several at once where that scheme says. A value
  with a control character (a token read from a file keeps its newline), or one that a header
  or cookie cannot carry as it is (non-ASCII, a ``;`` in a cookie), is refused before anything
  is sent, naming the credential, never showing it.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus

import httpx

from schemarouter.contracts import CredentialPlacement, Parameter, ParameterLocation, Route
from schemarouter.errors import ParameterValidationError, PolicyError
from schemarouter.execution.credentials import CredentialProvider, Redactor, guard_logger
from schemarouter.execution.invokers._styles import (
    Joined,
    explodes,
    header_value,
    path_value,
    query_pairs,
)
from schemarouter.execution.invokers._styles import text as _text
from schemarouter.placement import HEADER_TEXT, dot_segment
from schemarouter.registry.http_body import ACCEPT_ENCODING

__all__ = ["build_request", "origin", "within_base_path"]

_FORBIDDEN_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_QUERY_SAFE = "(),$*:;!'@"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: httpx.URL | str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` with the scheme's default port filled in."""
    url = httpx.URL(url)
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def within_base_path(url: httpx.URL, base_url: httpx.URL) -> bool:
    """Whether ``url``'s path lies under ``base_url``'s, segment by segment (``/api`` holds
    ``/api`` and ``/api/x``, not ``/apix``), with no dot segment hidden in percent-encoding
    (``/api/%2e%2e/admin``, ``/api/..%2Fadmin``: servers decode it and climb out;
    :func:`~schemarouter.placement.dot_segment`)."""
    path = url.raw_path.split(b"?", 1)[0]
    prefix = base_url.raw_path.split(b"?", 1)[0].rstrip(b"/")
    if any(dot_segment(s.decode("latin-1")) for s in path.split(b"/")):
        return False
    return path == prefix or path.startswith(prefix + b"/")


def _refuse(what: str, where: str, name: str) -> ParameterValidationError:
    return ParameterValidationError(
        what, where=f"{where} arguments $.{name}", hint="Pass a plain value for this parameter"
    )


def _header_text(parameter: Parameter, value: Any, place: ParameterLocation, where: str) -> str:
    text = header_value(parameter, value, place)
    if not HEADER_TEXT.fullmatch(text):
        raise _refuse(
            f"{place.value} parameter {parameter.name!r} carries control or non-ASCII characters",
            where,
            parameter.name,
        )
    return text


def _fill_path(route: Route, values: Mapping[str, Any], where: str) -> str:
    path, sep, query = str(route.endpoint.operation.path).partition("?")

    def encode(part: str, safe: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in values:
                raise _refuse(f"path parameter {name!r} is missing", where, name)
            parameter = route.endpoint.parameter(name)
            text = path_value(parameter, values[name], lambda t: quote(t, safe=safe))
            if not safe and (not text or dot_segment(text)):
                raise _refuse(
                    f"path parameter {name!r} may not be empty or a dot segment", where, name
                )
            return text

        return _PLACEHOLDER.sub(one, part)

    return encode(path, "") + (sep + encode(query, _QUERY_SAFE) if sep else "")


def _body(route: Route, values: Mapping[str, Any]) -> dict[str, Any]:
    """httpx keyword arguments for the request body."""
    if not values:
        return {}
    note = route.endpoint.input_schema.get("x-schemarouter-body")
    note = note if isinstance(note, Mapping) else {}
    media = str(note.get("media_type") or "application/json")
    style = note.get("style")
    declared = [p.name for p in route.endpoint.parameters if p.location is ParameterLocation.BODY]
    if style is None and declared in (["body"], ["request_body"]):
        style = "whole"  # a catalog's lone ``body`` parameter is the payload itself
    if style == "whole" and len(values) == 1:
        payload = next(iter(values.values()))
        if isinstance(payload, str) and "json" not in media:
            return {"content": payload.encode(), "headers": {"Content-Type": media}}
        if media == "application/x-www-form-urlencoded" and isinstance(payload, Mapping):
            values, style = payload, "form"
        else:
            return _json_body(payload, media if "json" in media else "application/json")
    if style == "form":
        place = ParameterLocation.BODY
        fields = {p.name: p for p in route.endpoint.parameters if p.location is place}

        def joined(name: str, value: Any) -> bool:  # a list its style writes as one value
            field = fields.get(name)
            return (
                bool(value)
                and isinstance(value, list)
                and field is not None
                and not explodes(field, place)
            )

        if media == "multipart/form-data":  # a list is one part: joined, else JSON text
            return {
                "files": {
                    k: _file_part(fields.get(k), k, v)
                    if isinstance(v, str) and _is_file(fields.get(k))
                    else (
                        None,
                        query_pairs(fields[k], v, place)[0][1] if joined(k, v) else _text(v),
                    )
                    for k, v in values.items()
                }
            }
        pairs: list[tuple[str, str]] = []
        for k, v in values.items():
            if joined(k, v):
                pairs.extend(query_pairs(fields[k], v, place))
            else:  # repeated, as a form list goes by default
                pairs.extend((k, _text(x)) for x in (v if isinstance(v, list) else [v]))
        # a joined list keeps its commas literal between its encoded items, as in a query
        content = "&".join(
            f"{quote_plus(k, safe='')}="
            + (v.encoded() if isinstance(v, Joined) else quote_plus(v, safe=""))
            for k, v in pairs
        )
        return {
            "content": content.encode(),
            "headers": {"Content-Type": "application/x-www-form-urlencoded"},
        }
    return _json_body(dict(values), "application/json")


def _is_file(field: Parameter | None) -> bool:
    """A multipart field that holds a file's content: ``format: binary`` (OpenAPI 3.0, and
    Swagger 2's ``type: file``) or a ``contentMediaType`` (OpenAPI 3.1)."""
    schema = field.json_schema if field is not None else {}
    return schema.get("format") == "binary" or isinstance(schema.get("contentMediaType"), str)


def _file_part(field: Parameter | None, name: str, value: str) -> tuple[str, bytes, str]:
    """A file field's part: a ``filename`` (the field's name) and a content type, so that a
    server reads it as an uploaded file, not as a text field (the content is the value's
    UTF-8, as a text part's is)."""
    schema = field.json_schema if field is not None else {}
    media = schema.get("contentMediaType")
    return name, value.encode(), media if isinstance(media, str) else "application/octet-stream"


def _literal_commas(url: httpx.URL, params: list[tuple[str, str]]) -> httpx.URL:
    """``url`` with each :class:`Joined` query value written with literal commas between
    its items (httpx encodes the whole value, ``ids=a%2Cb%2Cc``, which a server cannot tell
    from three items)."""
    joined = {
        f"{quote_plus(k, safe='')}={quote_plus(v, safe='')}": f"{quote_plus(k, safe='')}="
        + v.encoded()
        for k, v in params
        if isinstance(v, Joined)
    }
    if not joined:
        return url
    query = url.query.decode("ascii").split("&")
    return url.copy_with(query="&".join(joined.get(s, s) for s in query).encode("ascii"))


def _json_body(payload: Any, media: str) -> dict[str, Any]:
    content = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return {"content": content, "headers": {"Content-Type": media}}


def _set_header(headers: dict[str, str], name: str, value: str) -> None:
    """Set ``name`` to ``value``, replacing a parameter's header of the same name in any
    case (header names are case-insensitive: both would be sent)."""
    for other in [k for k in headers if k.lower() == name.lower()]:
        del headers[other]
    headers[name] = value


def _credential(credentials: CredentialProvider, name: str, where: str) -> str | None:
    """``credentials.get(name)``, its failure or a value that is not text a PolicyError
    naming the credential (never its value, nor the provider's message)."""
    try:
        value = credentials.get(name)
    except Exception as exc:
        raise PolicyError(
            f"the credential provider failed for {name}: {type(exc).__name__}",
            where=where,
            hint="Nothing was sent; check the provider (a vault, a keyring) and call again",
        ) from None
    if value is not None and not isinstance(value, str):
        raise PolicyError(
            f"the credential provider gave {type(value).__name__} for {name}, not text",
            where=where,
            hint="Return the credential as a str (decode bytes first)",
        )
    return value


@dataclass
class _Parts:
    """The query pairs, headers and cookies of the request being built, with the route it
    calls, the redactor its secrets go to and where its errors point."""

    route: Route
    redactor: Redactor
    where: str
    params: list[tuple[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


def _place_credentials(parts: _Parts, credentials: CredentialProvider) -> None:
    route, where = parts.route, parts.where
    auth = route.access.auth
    if not auth.credentials:
        return
    values = {name: _credential(credentials, name, where) for name in auth.credentials}
    missing = sorted(name for name, value in values.items() if not value)
    if missing:
        if auth.optional:
            return
        raise PolicyError(
            f"{route.route_id} needs credentials {', '.join(missing)}, which are not available",
            where=where,
            hint="Set them in the environment or pass a CredentialProvider that has them",
        )
    # a value sent beside a credential under a name the server folds into the credential's
    # own (``x_api_key`` / ``X-API-KEY``, ``api_key[]`` / ``api_key``) is never sent:
    # registration refuses such parameters, this covers routes made by hand
    for mapping, place in (
        (parts.headers, ParameterLocation.HEADER),
        (parts.cookies, ParameterLocation.COOKIE),
    ):
        for key in [k for k in mapping if auth.aliased_by(k, place)]:
            del mapping[key]
    parts.params = [
        (k, v) for k, v in parts.params if not auth.aliased_by(k, ParameterLocation.QUERY)
    ]
    guard_logger("httpx")  # httpx logs request URLs (a query-string key among them)
    guard_logger("httpcore")  # and httpcore, at DEBUG, the response's headers
    for value in values.values():
        if value:
            parts.redactor.add(value)
    for placement in auth.placements():
        named = [(name, str(values[name])) for name in placement.credentials]
        if named:
            _place(parts, placement, named)


def _unfit(route: Route, name: str, what: str, where: str) -> PolicyError:
    return PolicyError(
        f"the credential {name} for {route.route_id} {what}",
        where=where,
        hint="Nothing was sent; fix the value where it is stored",
    )


def _place(parts: _Parts, placement: CredentialPlacement, named: list[tuple[str, str]]) -> None:
    """Put one scheme's credentials (``(name, value)``) where the scheme says, each value
    checked first: no control character anywhere; printable ASCII in a header or cookie
    (Basic's base64 carries any text), and no ``;`` in a cookie (it would add a cookie)."""
    route, where = parts.route, parts.where
    scheme = (placement.scheme or "").lower()
    place = placement.location or ParameterLocation.HEADER
    if scheme in ("basic", "bearer", "oauth2", "openid_connect"):
        place = ParameterLocation.HEADER
    for name, value in named:
        if _CONTROL.search(value):
            raise _unfit(
                route,
                name,
                "has a control character (CR, LF, NUL ...: a value read from a file keeps its "
                "trailing newline)",
                where,
            )
        if scheme != "basic" and place is not ParameterLocation.QUERY:
            if not HEADER_TEXT.fullmatch(value):
                raise _unfit(route, name, "is not a valid header value (non-ASCII)", where)
            if place is ParameterLocation.COOKIE and ";" in value:
                raise _unfit(route, name, "has a ';', which would end the cookie", where)
    secrets = [value for _, value in named]
    if scheme == "basic":
        token = base64.b64encode(":".join(secrets[:2]).encode()).decode()
        parts.redactor.add(token)
        _set_header(parts.headers, "Authorization", f"Basic {token}")
    elif scheme in ("bearer", "oauth2", "openid_connect"):
        _set_header(parts.headers, placement.parameter or "Authorization", f"Bearer {secrets[0]}")
    elif scheme == "mutual_tls":
        raise PolicyError(
            f"{route.route_id} needs mutual TLS, which the executor does not configure",
            where=where,
            hint="Pass an httpx client configured with the client certificate",
        )
    else:
        name = placement.parameter or "Authorization"
        if place is ParameterLocation.QUERY:
            parts.params = [(k, v) for k, v in parts.params if k != name] + [(name, secrets[0])]
        elif place is ParameterLocation.COOKIE:
            parts.cookies[name] = secrets[0]
        else:
            _set_header(parts.headers, name, secrets[0])


def build_request(
    route: Route,
    arguments: Mapping[str, Any],
    *,
    credentials: CredentialProvider,
    redactor: Redactor,
    timeout: float,
    where: str,
) -> httpx.Request:
    """The request for one call of ``route`` with validated ``arguments``."""
    operation = route.endpoint.operation
    base = route.access.base_url
    if not base or operation.method is None or operation.path is None:
        raise PolicyError(
            f"{route.route_id} has no registered base URL or HTTP operation",
            where=where,
            hint="Register the access path with an absolute base_url",
        )
    by_location: dict[ParameterLocation, dict[str, Any]] = {}
    for parameter in route.endpoint.parameters:
        if parameter.name in arguments and arguments[parameter.name] is not None:
            place = parameter.location
            if place is ParameterLocation.ARGUMENT:
                place = ParameterLocation.QUERY
            by_location.setdefault(place, {})[parameter.name] = arguments[parameter.name]
    declared = {parameter.name: parameter for parameter in route.endpoint.parameters}
    path = _fill_path(route, by_location.get(ParameterLocation.PATH, {}), where)
    parts = _Parts(route, redactor, where)
    for name, value in by_location.get(ParameterLocation.QUERY, {}).items():
        parts.params.extend(query_pairs(declared[name], value))
    for name, value in by_location.get(ParameterLocation.HEADER, {}).items():
        if name.lower() in _FORBIDDEN_HEADERS:
            raise PolicyError(f"a parameter may not set the {name} header", where=where)
        parts.headers[name] = _header_text(declared[name], value, ParameterLocation.HEADER, where)
    for name, value in by_location.get(ParameterLocation.COOKIE, {}).items():
        text = _header_text(declared[name], value, ParameterLocation.COOKIE, where)
        parts.cookies[name] = text.replace(";", "%3B")
    body = _body(route, by_location.get(ParameterLocation.BODY, {}))
    _place_credentials(parts, credentials)
    parts.headers.update(body.pop("headers", {}))
    parts.headers.setdefault("Accept", "application/json")
    _set_header(parts.headers, "Accept-Encoding", ACCEPT_ENCODING)  # decoders we can bound
    try:
        url = httpx.URL(base + path)
        if parts.params:
            url = _literal_commas(url.copy_merge_params(tuple(parts.params)), parts.params)
    except httpx.InvalidURL as exc:
        raise ParameterValidationError(
            f"the arguments make an invalid URL: {str(exc)[:120]}",
            where=f"{where} arguments",
            hint="Shorten the values (URLs are capped at 64 KiB)",
        ) from None
    base_url = httpx.URL(base)
    if origin(url) != origin(base_url) or not within_base_path(url, base_url):
        raise PolicyError(
            f"the request for {route.route_id} would leave its registered base URL",
            where=where,
            hint="This is a bug: report it with the route",
        )
    return httpx.Request(
        operation.method,
        url,
        headers=parts.headers,
        cookies=parts.cookies or None,
        extensions={"timeout": httpx.Timeout(timeout).as_dict()},
        **body,
    )
