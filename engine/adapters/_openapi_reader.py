"""Navigating one OpenAPI document (Swagger 2.0, OpenAPI 3.0, 3.1) with located errors.

:class:`OpenAPIReader` answers the questions :mod:`schemarouter.adapters.openapi` asks of
a document (which version, which operations, which parameters, body and response schemas,
which base URL), each failure a :class:`DocumentError` (or a reference error from the
resolver) whose location reads like ``paths./movie/{id}.get.parameters[0].in``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

from schemarouter.adapters._media import pick_media
from schemarouter.adapters._read_write import request_schema, response_schema
from schemarouter.adapters._repairs import read_flag
from schemarouter.adapters._schema import (
    Dialect,
    SchemaResolver,
    as_object_schema,
)
from schemarouter.contracts import base_url_problem
from schemarouter.errors import DocumentError, RegistrationError
from schemarouter.placement import operation_path_problem
from schemarouter.registry.kinds import check_kind
from schemarouter.registry.parsing import optional_text

__all__ = [
    "HTTP_METHODS",
    "OpenAPIReader",
    "OperationRef",
    "RequestBody",
]

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SWAGGER_SCHEMA_KEYS = frozenset(
    {
        "type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum",
        "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
        "minItems", "uniqueItems", "enum", "multipleOf", "x-nullable",
    }
)  # fmt: skip
#: What a response that declares no body declares (``schema: null`` is a schema, refused).
_NO_BODY = object()
_VARIABLE = re.compile(r"\{([^{}]*)\}")
_ABSOLUTE_HTTP = re.compile(r"^https?://[^/\s?#{}]+[^\s{}]*$", re.IGNORECASE)


class OperationRef(NamedTuple):
    path: str
    method: str
    operation: Mapping[str, Any]
    item: Mapping[str, Any]  # the path item (for path-level parameters)
    location: str  # "paths./movie/{id}.get"


class RequestBody(NamedTuple):
    schema: Any
    media_type: str
    location: str
    required: bool
    description: str


class OpenAPIReader:
    """Typed, located access to one loaded document."""

    def __init__(
        self,
        doc: dict[str, Any],
        *,
        source: str,
        url: str | None,
        repairs: list[str] | None = None,
        server_variables: Mapping[str, str] | None = None,
    ) -> None:
        self.doc = doc
        self.source = source
        self.url = url
        #: the caller's values for server URL variables (``{region}``), in place of defaults
        self.server_variables = dict(server_variables or {})
        #: the lenient reading's repairs, ``"location: what"`` (``None``: strict, refuse)
        self.repairs = repairs
        self.dialect = self._dialect()
        self.resolver = SchemaResolver(
            doc, source=source, dialect=self.dialect, repairs=repairs, shared=True
        )

    # -- located access ----------------------------------------------------------------

    def where(self, location: str) -> str:
        return f"{self.source}: {location}"

    def mapping(self, node: Any, location: str) -> Mapping[str, Any]:
        if not isinstance(node, Mapping):
            raise self._not_a("an object", node, location)
        return node

    def listing(self, node: Any, location: str) -> list[Any]:
        if not isinstance(node, list):
            raise self._not_a("a list", node, location)
        return node

    def _not_a(self, expected: str, node: Any, location: str) -> DocumentError:
        return DocumentError(
            f"expected {expected}, got {type(node).__name__}",
            where=self.where(location),
            hint="See the OpenAPI specification for this object's shape",
        )

    def violation(self, location: str, what: str, reading: str, *, hint: str) -> None:
        """A part of the document the specification forbids that is still read: refused
        when strict; else recorded once, ``"location: what; reading"``."""
        if self.repairs is None:
            raise DocumentError(what, where=self.where(location), hint=hint)
        note = f"{location}: {what}; {reading}"
        if note not in self.repairs:
            self.repairs.append(note)

    def text(self, node: Mapping[str, Any], key: str, location: str) -> str:
        return optional_text(node.get(key), self.where(location), key)

    def flag(self, node: Mapping[str, Any], key: str, location: str) -> bool:
        """``node[key]`` as a boolean (a string ``"true"`` too, recorded, when lenient; a
        string is refused when strict, never read as ``false``)."""
        value = node.get(key)
        if self.repairs is None and value is not None and not isinstance(value, bool):
            raise DocumentError(
                f"{key!r} is {type(value).__name__} {value!r}, not a boolean",
                where=self.where(f"{location}.{key}"),
                hint=f"Write {key}: true or false (strict=False reads {value!r} as meant)",
            )
        return read_flag(node, key, location, self.repairs)

    def deref(self, node: Any, location: str) -> tuple[Any, str]:
        """Follow a ``$ref`` object (parameter, response, body, path item, scheme)."""
        if isinstance(node, Mapping) and "$ref" in node:
            chain, target = self.resolver.target(node["$ref"], location=location)
            return target, self.resolver.location(chain[-1])
        return node, location

    def schema(self, node: Any, location: str) -> Any:
        return self.resolver.schema(node, location=location)

    def request_schema(self, node: Any, location: str) -> Any:
        """A schema a request sends: its ``readOnly`` properties left out (see
        :mod:`~schemarouter.adapters._read_write`)."""
        return request_schema(self.schema(node, location))

    def response_schema(self, node: Any, location: str) -> Any:
        """A schema a response carries: its ``writeOnly`` properties not required (OpenAPI
        3 only; Swagger 2 has no ``writeOnly``)."""
        schema = self.schema(node, location)
        return schema if self.dialect == "oas2" else response_schema(schema)

    # -- the document ------------------------------------------------------------------

    def _dialect(self) -> Dialect:
        swagger, openapi = self.doc.get("swagger"), self.doc.get("openapi")
        if swagger is not None:
            if str(swagger) != "2.0":
                raise DocumentError(
                    f"unsupported Swagger version {swagger!r}",
                    where=self.where("swagger"),
                    hint="Convert it to Swagger 2.0 or OpenAPI 3 first",
                )
            return "oas2"
        if openapi is None:
            check_kind(self.doc, "openapi", where=self.where("<document>"))
            raise DocumentError(
                "not an OpenAPI document: no 'openapi' or 'swagger' version",
                where=self.where("<document>"),
                hint="Pass a Swagger 2.0 or OpenAPI 3.x document",
            )
        if isinstance(openapi, str) and re.match(r"^3\.0(\.\d+)?(-.*)?$", openapi):
            return "oas30"
        if isinstance(openapi, str) and re.match(r"^3\.1(\.\d+)?(-.*)?$", openapi):
            return "oas31"
        raise DocumentError(
            f"unsupported OpenAPI version {openapi!r}",
            where=self.where("openapi"),
            hint="Supported: Swagger 2.0, OpenAPI 3.0.x and 3.1.x (write the version as a string)",
        )

    def base_url(
        self,
        notes: list[str] | None = None,
        *,
        owner: Mapping[str, Any] | None = None,
        at: str = "servers",
    ) -> str | None:
        """The document's own base URL, or ``None`` where it has no absolute http(s) one. A
        server URL with a query, fragment or credentials cannot take an operation's path
        after it, nor one with a variable that has no default: refused in strict reading,
        left unbound (and said so) in lenient. A relative one that nothing resolves is left
        unbound, and said so in ``notes``. ``owner`` is the object whose ``servers`` are
        read (a path item or an operation, at ``at``), else the document's."""
        owner = self.doc if owner is None else owner
        candidate = self._swagger_base() if self.dialect == "oas2" else self._server_base(owner, at)
        unbound = "the routes stay unbound (pass base_url= to bind them)"
        if candidate and self.dialect != "oas2" and _VARIABLE.search(candidate):
            self.violation(
                f"{at}[0].url",
                self._variables_without_default(owner),
                unbound,
                hint=f"Declare each variable of the URL under {at}[0].variables with a "
                "default, or pass base_url=",
            )
            return None
        if not candidate or not _ABSOLUTE_HTTP.match(candidate):
            if candidate and self.dialect != "oas2" and notes is not None:
                why = (
                    "is no http(s) URL"
                    if "://" in candidate
                    else "is no absolute http(s) URL (a relative one resolves only against the "
                    "URL a document is read from)"
                )
                notes.append(f"{at}[0].url: {candidate!r} {why}; {unbound}")
            return None
        problem = base_url_problem(candidate)
        if problem is None:
            return candidate.rstrip("/")
        location = "host" if self.dialect == "oas2" else f"{at}[0].url"
        if self.repairs is None:
            raise DocumentError(
                problem,
                where=self.where(location),
                hint="Give the server's URL up to its path, or pass base_url=",
            )
        self.repairs.append(
            f"{location}: {problem}; the routes stay unbound (pass base_url= to bind them)"
        )
        return None

    def _swagger_base(self) -> str | None:
        origin = urlsplit(self.url) if self.url else None
        host = self.doc.get("host")
        if not isinstance(host, str) or not host.strip():
            if origin is None:
                return None
            host = origin.netloc
        schemes = self.doc.get("schemes")
        schemes = [s for s in schemes if isinstance(s, str)] if isinstance(schemes, list) else []
        if "https" in schemes:
            scheme = "https"
        elif schemes:
            scheme = schemes[0]
        else:
            scheme = origin.scheme if origin is not None else "https"
        base_path = self.doc.get("basePath")
        base_path = base_path if isinstance(base_path, str) else ""
        if base_path and not base_path.startswith("/"):
            self.violation(
                "basePath",
                f"basePath {base_path!r} does not start with '/'",
                f"read as '/{base_path}'",
                hint="Write the basePath from the host's root, such as '/api/v2'",
            )
            base_path = f"/{base_path}"
        return f"{scheme}://{host.strip()}{base_path}"

    def operation_servers(self, ref: OperationRef) -> tuple[Mapping[str, Any], str] | None:
        """The operation's own ``servers`` (OpenAPI 3), else its path item's, with where they
        are; ``None`` where neither declares any (the document's apply)."""
        if self.dialect == "oas2":
            return None
        for owner, at in (
            (ref.operation, f"{ref.location}.servers"),
            (ref.item, f"paths.{ref.path}.servers"),
        ):
            servers = owner.get("servers")
            if isinstance(servers, list) and servers:
                return owner, at
        return None

    def check_server_variables(self) -> None:
        """A ``server_variables`` name no server URL of the document has (the document's,
        a path item's, an operation's) is refused, naming those it has: a typo would bind
        the routes to the default server without a word."""
        if not self.server_variables:
            return
        owners = [self.doc, *self.mapping(self.doc.get("paths", {}), "paths").values()]
        owners += [op for item in owners[1:] if isinstance(item, Mapping) for op in item.values()]
        urls = [
            str(server.get("url", ""))
            for owner in owners
            if isinstance(owner, Mapping) and isinstance(owner.get("servers"), list)
            for server in owner["servers"]
            if isinstance(server, Mapping)
        ]
        declared = {name for url in urls for name in _VARIABLE.findall(url)}
        unknown = sorted(set(self.server_variables) - declared)
        if unknown:
            raise DocumentError(
                f"server_variables names {unknown}, which no server URL of the document has",
                where=self.where("servers"),
                hint=f"Its servers' URL variables: {sorted(declared) or 'none'}",
            )

    def _server_base(self, owner: Mapping[str, Any], at: str = "servers") -> str | None:
        servers = owner.get("servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], Mapping):
            return self.url and urljoin(self.url, "/")
        server = servers[0]
        raw = server.get("url")
        if not isinstance(raw, str):
            return None
        variables = server.get("variables")
        variables = variables if isinstance(variables, Mapping) else {}

        def default(match: re.Match[str]) -> str:
            spec = variables.get(match.group(1))
            enum = spec.get("enum") if isinstance(spec, Mapping) else None
            given = self.server_variables.get(match.group(1))
            if given is not None:  # the caller's value, held to the variable's enum
                if isinstance(enum, list) and enum and given not in map(str, enum):
                    raise DocumentError(
                        f"server variable {match.group(1)!r}={given!r} is not among its enum "
                        f"{[str(e) for e in enum]}",
                        where=self.where(f"{at}[0].variables.{match.group(1)}"),
                        hint="Pass one of the enum's values, or base_url= for another server",
                    )
                return given
            value = spec.get("default") if isinstance(spec, Mapping) else None
            if not isinstance(value, str | int | float):
                return match.group(0)
            if isinstance(enum, list) and enum and str(value) not in map(str, enum):
                self.violation(
                    f"{at}[0].variables.{match.group(1)}.default",
                    f"the default {value!r} is not among its enum {enum}",
                    "used as given",
                    hint="Make the default one of the enum's values, or pass base_url=",
                )
            return str(value)

        candidate = _VARIABLE.sub(default, raw.strip())
        if self.url and not re.match(r"^[a-z][a-z0-9+.\-]*:", candidate, re.IGNORECASE):
            candidate = urljoin(self.url, candidate)
        return candidate

    def _variables_without_default(self, owner: Mapping[str, Any]) -> str:
        """What the first server URL's variables lack, for an error or a warning."""
        server = owner["servers"][0]
        raw = server["url"]
        variables = server.get("variables")
        variables = variables if isinstance(variables, Mapping) else {}
        lacking = []
        for name in dict.fromkeys(_VARIABLE.findall(raw)):
            spec = variables.get(name)
            if not isinstance(spec, Mapping):
                lacking.append(f"{{{name}}} is not declared under its variables")
            elif not isinstance(spec.get("default"), str | int | float):
                lacking.append(f"{{{name}}} has no default")
        return f"the server URL {raw!r} cannot be used: {', '.join(lacking)}"

    def info(self) -> Mapping[str, Any]:
        return self.mapping(self.doc.get("info", {}), "info")

    def operations(self) -> list[OperationRef]:
        """Every operation, in document order."""
        if "paths" not in self.doc and self.dialect != "oas31":
            raise DocumentError(
                "the document has no 'paths'",
                where=self.where("<document>"),
                hint="Declare the operations under paths (an empty object if there are none)",
            )
        found: list[OperationRef] = []
        for path, raw_item in self.mapping(self.doc.get("paths", {}), "paths").items():
            if path.startswith("x-"):
                continue
            if not path.startswith("/"):
                raise DocumentError(
                    f"path {path!r} does not start with '/'",
                    where=self.where(f"paths.{path}"),
                    hint="Write paths relative to the base URL, starting with '/'",
                )
            climbs = operation_path_problem(path)
            if climbs is not None:
                raise DocumentError(
                    climbs,
                    where=self.where(f"paths.{path[:200]}"),
                    hint="Write the path as the server's own, below the base URL; for another "
                    "base, register the operation with its own servers entry",
                )
            item, item_location = self.deref(raw_item, f"paths.{path}")
            item = self.mapping(item, item_location)
            for method, operation in item.items():
                if method in HTTP_METHODS:
                    location = f"paths.{path}.{method}"
                    found.append(
                        OperationRef(
                            path, method, self.mapping(operation, location), item, location
                        )
                    )
        return found

    def parameters(self, ref: OperationRef) -> list[tuple[Mapping[str, Any], str]]:
        """Path-level then operation-level parameter objects, the operation's winning."""
        merged: dict[tuple[str, str], tuple[Mapping[str, Any], str]] = {}
        allowed = (
            ("path", "query", "header", "formData", "body")
            if self.dialect == "oas2"
            else ("path", "query", "header", "cookie")
        )
        path_location = f"paths.{ref.path}"
        for owner, where in ((ref.item, path_location), (ref.operation, ref.location)):
            raw = owner.get("parameters")
            listed: set[tuple[str, str]] = set()
            for i, node in enumerate(self.listing(raw or [], f"{where}.parameters")):
                param, param_where = self.deref(node, f"{where}.parameters[{i}]")
                param = self.mapping(param, param_where)
                name, place = param.get("name"), param.get("in")
                if not isinstance(name, str) or not name.strip():
                    raise DocumentError(
                        "parameter has no 'name'",
                        where=self.where(param_where),
                        hint="Every parameter needs a non-empty name",
                    )
                if not isinstance(place, str) or place not in allowed:
                    raise DocumentError(
                        f"parameter {name!r} has 'in' {place!r}",
                        where=self.where(f"{param_where}.in"),
                        hint=f"Use one of: {', '.join(allowed)}",
                    )
                if self.repairs is not None:
                    param = self._repaired_parameter(param, param_where, listed)
                else:
                    self._strict_parameter(param, param_where, listed)
                merged[(name, place)] = (param, param_where)
        return list(merged.values())

    def _strict_parameter(
        self, param: Mapping[str, Any], where: str, listed: set[tuple[str, str]]
    ) -> None:
        """The strict reading of one parameter object: a ``required`` that is no boolean, or
        a second declaration of the same name and location in one list, is refused."""
        name, place = param["name"], param["in"]
        self.flag(param, "required", where)
        if (name, place) in listed:
            raise DocumentError(
                f"parameter {name!r} in {place} is declared twice in this list",
                where=self.where(where),
                hint="Keep one declaration (strict=False keeps the later one, and says so in "
                "the warnings)",
            )
        listed.add((name, place))

    def _repaired_parameter(
        self, param: Mapping[str, Any], where: str, listed: set[tuple[str, str]]
    ) -> Mapping[str, Any]:
        """The lenient reading of one parameter object (see :mod:`._repairs`)."""
        notes = self.repairs if self.repairs is not None else []
        name, place = param["name"], param["in"]
        if (name, place) in listed:
            notes.append(
                f"{where}: parameter {name!r} in {place} is declared twice in this list; "
                "the later one is kept"
            )
        listed.add((name, place))
        required = self.flag(param, "required", where)
        if place == "path" and not required:
            notes.append(
                f"{where}.required: path parameter {name!r} is not marked required; read as "
                "required (a URL cannot omit a segment)"
            )
            required = True
        if required != (param.get("required") is True):
            param = {**param, "required": required}
        return param

    def parameter_schema(self, param: Mapping[str, Any], where: str) -> dict[str, Any]:
        """A parameter's JSON Schema (with its description), whichever way it is written."""
        if self.dialect == "oas2" and param.get("in") == "body":
            if "schema" not in param:
                raise DocumentError(
                    f"body parameter {param.get('name')!r} has no 'schema'",
                    where=self.where(where),
                    hint="Give the body parameter a schema",
                )
            raw, raw_where = param["schema"], f"{where}.schema"
        elif self.dialect == "oas2":
            raw = {k: v for k, v in param.items() if k in _SWAGGER_SCHEMA_KEYS}
            raw_where = where
        elif "schema" in param:
            raw, raw_where = param["schema"], f"{where}.schema"
        elif isinstance(param.get("content"), Mapping) and param["content"]:
            media = pick_media(param["content"], forms=False) or ""
            entry = self.mapping(param["content"].get(media), f"{where}.content.{media}")
            raw, raw_where = entry.get("schema", {}), f"{where}.content.{media}.schema"
        else:
            self.violation(
                where,
                f"parameter {param.get('name')!r} has neither a schema nor a content",
                "any value is accepted",
                hint="Give the parameter a schema (strict=False accepts any value, and says so)",
            )
            raw, raw_where = {}, where
        schema: dict[str, Any] = as_object_schema(self.request_schema(raw, raw_where))
        description = self.text(param, "description", where)
        if description and "description" not in schema:
            schema["description"] = description
        return schema

    def consumes(self, operation: Mapping[str, Any]) -> list[str]:
        raw = operation.get("consumes", self.doc.get("consumes"))
        return [c for c in raw if isinstance(c, str)] if isinstance(raw, list) else []

    def request_body(self, ref: OperationRef) -> RequestBody | None:
        """The 3.x ``requestBody`` (its preferred media type), if the operation has one."""
        if self.dialect == "oas2" or "requestBody" not in ref.operation:
            return None
        body, where = self.deref(ref.operation["requestBody"], f"{ref.location}.requestBody")
        body = self.mapping(body, where)
        content = self.mapping(body.get("content", {}), f"{where}.content")
        media = pick_media(content, forms=True)
        if media is None:
            return None
        entry = self.mapping(content[media], f"{where}.content.{media}")
        schema = self.request_schema(entry.get("schema", {}), f"{where}.content.{media}.schema")
        return RequestBody(
            schema,
            media,
            where,
            self.flag(body, "required", where),
            self.text(body, "description", where),
        )

    def _responses(self, ref: OperationRef) -> tuple[Mapping[str, Any], list[str]]:
        """The operation's responses and its success codes, in order (else ``default``)."""
        responses = self.mapping(ref.operation.get("responses", {}), f"{ref.location}.responses")
        codes = sorted(c for c in responses if re.match(r"^2(\d\d|XX)$", c, re.IGNORECASE))
        return responses, codes or (["default"] if "default" in responses else [])

    def _body(
        self, ref: OperationRef, responses: Mapping[str, Any], code: str
    ) -> tuple[Any, str, str]:
        """(the raw schema the response ``code`` declares, its location, the response's):
        :data:`_NO_BODY` where it declares no body, ``True`` where a body with no schema."""
        response, where = self.deref(responses[code], f"{ref.location}.responses.{code}")
        response = self.mapping(response, where)
        if self.dialect == "oas2":
            return response.get("schema", _NO_BODY), f"{where}.schema", where
        content = response.get("content")
        if not content:
            return _NO_BODY, where, where
        content = self.mapping(content, f"{where}.content")
        media = pick_media(content, forms=False)
        if media is None:
            return _NO_BODY, where, where
        entry = self.mapping(content[media], f"{where}.content.{media}")
        return entry.get("schema", True), f"{where}.content.{media}.schema", where

    def response(self, ref: OperationRef) -> tuple[Any, str] | None:
        """(schema, location) of the first 2xx response (else ``default``), where it has a
        schema: the output schema and its fields."""
        responses, codes = self._responses(ref)
        if not codes:
            return None
        raw, at, where = self._body(ref, responses, codes[0])
        if raw is _NO_BODY or raw is True:
            return None
        return self.response_schema(raw, at), where

    def other_responses(self, ref: OperationRef) -> list[Any]:
        """What the operation's other 2xx responses declare, each as
        :func:`~schemarouter.adapters._json.accepting` takes it: ``None`` (no body), ``True``
        (a body with no schema) or a schema. One that declares what the first does is left
        out; one whose schema does not resolve is too, as a warning (refused when strict)."""
        responses, codes = self._responses(ref)
        if len(codes) < 2:
            return []
        first = self._body(ref, responses, codes[0])[0]
        found: list[Any] = []
        for code in codes[1:]:
            spent = self.resolver.budget.total
            try:
                raw, at, _ = self._body(ref, responses, code)
                if raw is _NO_BODY or raw is True:
                    found.append(None if raw is _NO_BODY else True)
                elif raw != first:  # the same schema (the same $ref, usually) adds nothing
                    found.append(self.response_schema(raw, at))
            except RegistrationError as exc:
                if self.repairs is None:
                    raise
                self.resolver.budget.total = spent
                self.repairs.append(
                    f"{ref.location}.responses.{code}: left out of the output schema: {exc.what}"
                )
        return found
