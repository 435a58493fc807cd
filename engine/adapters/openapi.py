"""OpenAPI documents -> routes: Swagger 2.0, OpenAPI 3.0 and 3.1, JSON or YAML.

One operation (``paths./movie/{id}.get``) becomes one endpoint:

- **name**: the ``operationId``, else ``METHOD /path``; **id**: the operationId's words, else
  the method and the path's meaningful words (``get_movie_credits``), short enough for a
  tool name of 64 characters (a shortened id is listed in the registration's warnings),
  made unique inside the document with ``_2``, ``_3`` ... in document order
  (:mod:`schemarouter.adapters._naming`). Vendor ``x-`` keys under ``paths`` are skipped; a
  path item may be a local ``$ref``. Without a ``provider`` the provider id comes from the
  document (its ``info.title``, else its host).
- **operation**: the HTTP method and the path template as the document writes it.
- **parameters**: path-level then operation-level parameters (the operation's win by
  name + location); a name declared in two locations keeps the one in the path, else the
  query, else the header (a warning says so: the contract names a parameter once). Header
  parameters the client sets (``Accept``, ``Content-Type``, ``Authorization``, request
  signing, rate-limit and request-id headers) are no route parameters (one warning per
  document lists them). A
  Swagger 2 ``body`` parameter or an OpenAPI 3 JSON ``requestBody`` is one ``body``
  parameter holding the whole payload; form bodies (``formData``, urlencoded or multipart
  object schemas) are one ``body``-located parameter per form field. The input schema says
  which, with its media type, under ``x-schemarouter-body``
  (``{"media_type": ..., "style": "whole" | "form"}``). A request leaves out the ``readOnly``
  properties of its schemas (neither offered nor required: the server sets them), a response
  does not require the ``writeOnly`` ones (:mod:`schemarouter.adapters._read_write`), so one
  shared component reads right in the POST that creates a thing and in its 201. How an
  array or object parameter is written (OpenAPI 3 ``style`` / ``explode`` / ``content``,
  Swagger 2 ``collectionFormat``, ``csv`` when none is given) is kept on the parameter where
  it differs from OpenAPI 3's default (:mod:`schemarouter.adapters._openapi_style`).
- **output**: the schema of the first 2xx response (else ``default``) as the output schema,
  flattened into output fields (see :mod:`schemarouter.adapters._fields` for the paths and
  the limits). Where other 2xx responses document something else, the output schema
  accepts it too (``null``, an empty body, beside a 200's object where a 204 declares no
  content; an ``anyOf`` of several schemas; one that does not resolve is left out, with a
  warning), while the fields stay the first one's. Schemas
  are inlined and normalized to JSON Schema 2020-12 by :mod:`schemarouter.adapters._schema`
  (recursion cut with a ``$comment`` marker).
- **effect**: GET / HEAD read, DELETE destructive, anything else write; an operation's
  ``x-schemarouter-effect`` may make it stricter (``destructive`` on a PUT), and laxer
  (``read`` on a POST search) only when the caller marks the document ``trusted=True``, as
  MCP hints work; a trusted caller's ``effect_overrides`` (by endpoint name or id, or a
  pattern: ``{"Describe*": "read"}``) override both.
- **auth**: the operation's ``security`` (else the document's) against the declared schemes
  becomes an :class:`AuthRequirement` with credential *names* derived from the provider id
  (``TMDB_API_KEY``, ``X_TOKEN``, ``X_USERNAME`` + ``X_PASSWORD``, ``X_ACCESS_TOKEN``), the
  scheme, and where the credential travels. Parameters that carry it are not route
  parameters. With several alternative requirements the first is used (``{}`` among them
  marks the credentials optional); one requirement that names several schemes needs them
  all, and each scheme's credentials travel where that scheme says (the first scheme's
  placement is the requirement's own, the others are its ``combined``). Operations with
  different requirements get access paths that share the id and differ in ``auth``.

The base URL is the ``base_url`` argument, else the first server (3.x: variables take their
defaults, a relative URL is resolved against the URL the document came from; an
operation's own ``servers``, else its path item's, win over the document's for it) or
``schemes`` / ``host`` / ``basePath`` (2.0). Where none is an absolute http(s) URL the
routes are registered without one (retrievable, not bindable).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from schemarouter.adapters._fields import FieldLimits, declared_meaning, output_fields
from schemarouter.adapters._json import accepting
from schemarouter.adapters._media import FORM_TYPES, pick_media
from schemarouter.adapters._naming import (
    endpoint_budget,
    endpoint_slug,
    fit_endpoint_id,
    provider_slug,
)
from schemarouter.adapters._openapi_effects import (
    EFFECT_EXTENSION,
    effect_overrides_of,
    operation_effect,
)
from schemarouter.adapters._openapi_reader import HTTP_METHODS, OpenAPIReader, OperationRef
from schemarouter.adapters._openapi_security import SecuritySchemes
from schemarouter.adapters._openapi_style import parameter_style
from schemarouter.adapters._overrides import unused_keys
from schemarouter.adapters._schema import as_object_schema
from schemarouter.contracts import (
    AccessKind,
    AccessPath,
    AuthRequirement,
    Availability,
    AvailabilityStatus,
    Effect,
    Endpoint,
    Operation,
    Parameter,
    ParameterLocation,
    Provider,
    Registration,
)
from schemarouter.errors import DocumentError
from schemarouter.registry.compile import (
    M,
    RouteSpec,
    build_contract,
    build_registration,
    named_provider,
    parameters_schema,
)
from schemarouter.registry.defs import attach_defs
from schemarouter.registry.parsing import LoadedDocument, load_document
from schemarouter.registry.progress import step

__all__ = ["BODY_EXTENSION", "EFFECT_EXTENSION", "HTTP_METHODS", "openapi_registration"]

logger = logging.getLogger(__name__)

#: Input-schema annotation naming the request body's media type and style.
BODY_EXTENSION = "x-schemarouter-body"

_LOCATIONS = {
    "path": ParameterLocation.PATH,
    "query": ParameterLocation.QUERY,
    "header": ParameterLocation.HEADER,
    "cookie": ParameterLocation.COOKIE,
    "body": ParameterLocation.BODY,
    "formData": ParameterLocation.BODY,
}
#: Which location keeps a parameter name declared in two (the contract names it once).
_PRIORITY = {"path": 0, "query": 1, "header": 2, "cookie": 3, "formData": 4, "body": 4}
#: Header parameters the client sets, never the caller: content negotiation and framing (the
#: executor sends Accept and Content-Type itself), credentials and request signing (they
#: travel by the access path's auth), and response headers some documents list as inputs
#: (rate limits, request ids).
_TRANSPORT_HEADERS = frozenset(
    {
        "accept",
        "accept-charset",
        "accept-encoding",
        "content-type",
        "content-length",
        "connection",
        "host",
        "transfer-encoding",
        "user-agent",
        "authorization",
        "proxy-authorization",
        "x-amz-algorithm",
        "x-amz-content-sha256",
        "x-amz-credential",
        "x-amz-date",
        "x-amz-security-token",
        "x-amz-signature",
        "x-amz-signedheaders",
        "request-id",
        "x-request-id",
        "x-correlation-id",
    }
)
_TRANSPORT_PATTERN = re.compile(r"^(?:x-)?rate-?limit-|^x-[\w-]*-request-id$", re.IGNORECASE)
#: The hint of a contract the document's values fail.
_REFUSAL_HINT = "Fix the document there"


def _transport_header(name: str) -> bool:
    """Whether header parameter ``name`` is set by the client (see _TRANSPORT_HEADERS)."""
    return name.lower() in _TRANSPORT_HEADERS or bool(_TRANSPORT_PATTERN.match(name))


def _build(reader: OpenAPIReader, model: type[M], at: str, /, **values: Any) -> M:
    """``model(**values)``, a pydantic refusal becoming a located DocumentError."""
    return build_contract(model, where=reader.where(at), hint=_REFUSAL_HINT, **values)


class _EndpointBuilder:
    """Builds one endpoint from an operation of a document."""

    def __init__(self, reader: OpenAPIReader, limits: FieldLimits, notes: list[str]) -> None:
        self.reader = reader
        self.limits = limits
        #: the document's warnings (``"location: what"``), kept on the registration
        self.notes = notes
        #: header parameters left out as transport (name -> operations), said once
        self.transport: dict[str, int] = {}
        #: media type -> operations whose body it is, though sent as JSON; said once
        self.json_bodies: dict[str, list[str]] = {}

    def build(
        self,
        ref: OperationRef,
        *,
        endpoint_id: str,
        name: str,
        auth: AuthRequirement,
        effect: Effect,
    ) -> Endpoint:
        reader = self.reader
        collected, body = self._parameters(ref)
        parameters = self._distinct(collected, auth, ref.location)
        input_schema = parameters_schema(parameters)
        if body is not None:
            input_schema[BODY_EXTENSION] = body
            self._json_in_place_of(ref, body, parameters)
        output = reader.response(ref)
        output_schema = (
            accepting(as_object_schema(output[0]), reader.other_responses(ref))
            if output is not None
            else None
        )
        fields = (
            output_fields(
                output[0],
                limits=self.limits,
                where=reader.where(output[1]),
                hint=_REFUSAL_HINT,
                notes=reader.repairs,
                location=output[1],
            )
            if output is not None
            else ()
        )
        summary = reader.text(ref.operation, "summary", ref.location)
        deprecated = reader.flag(ref.operation, "deprecated", ref.location)
        return _build(
            reader,
            Endpoint,
            ref.location,
            id=endpoint_id,
            name=name,
            operation=Operation(method=ref.method.upper(), path=ref.path),
            summary=summary,
            description=reader.text(ref.operation, "description", ref.location) or summary,
            input_schema=input_schema,
            parameters=tuple(parameters),
            output_schema=output_schema,
            output_fields=fields,
            effect=effect,
            availability=Availability(
                status=AvailabilityStatus.DEPRECATED
                if deprecated
                else AvailabilityStatus.AVAILABLE,
                note="deprecated by the document" if deprecated else "",
            ),
        )

    def _json_in_place_of(
        self, ref: OperationRef, body: Mapping[str, str], parameters: list[Parameter]
    ) -> None:
        """Say where a whole body goes out as JSON though the operation takes another media
        type only (``consumes: [application/xml]``): the invoker sends text as it is, in
        that media type, and anything else as ``application/json``, so a body whose schema
        allows no string always travels as JSON."""
        media = body["media_type"]
        if body["style"] != "whole" or "json" in media or media == FORM_TYPES[0]:
            return
        whole = next((p for p in parameters if p.location is ParameterLocation.BODY), None)
        kinds = whole.json_schema.get("type") if whole is not None else None
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if isinstance(kinds, list) and "string" not in kinds:
            self.json_bodies.setdefault(media, []).append(ref.location)

    def _parameters(
        self, ref: OperationRef
    ) -> tuple[list[tuple[Parameter, str]], dict[str, str] | None]:
        """Every declared parameter with its raw ``in``, and the body annotation."""
        reader = self.reader
        collected: list[tuple[Parameter, str]] = []
        body: dict[str, str] | None = None
        consumes = reader.consumes(ref.operation)
        for param, where in reader.parameters(ref):
            place = param["in"]
            schema = reader.parameter_schema(param, where)
            if place == "formData":
                multipart = "multipart/form-data" in consumes or schema.get("format") == "binary"
                if body is None or body["media_type"] != "multipart/form-data":
                    body = {
                        "media_type": "multipart/form-data" if multipart else FORM_TYPES[0],
                        "style": "form",
                    }
            elif place == "body":
                media = pick_media(dict.fromkeys(consumes), forms=False) or "application/json"
                body = {"media_type": media, "style": "whole"}
            collected.append(
                (
                    _build(
                        reader,
                        Parameter,
                        where,
                        name=param["name"],
                        location=_LOCATIONS[place],
                        json_schema=schema,
                        required=param.get("required") is True,
                        description=reader.text(param, "description", where),
                        **parameter_style(reader, param, schema, where),
                        # the parameter's own wins over its schema's
                        **{**_semantic(reader, schema, where), **_semantic(reader, param, where)},
                    ),
                    place,
                )
            )
        request = reader.request_body(ref)
        if request is None:
            return collected, body
        taken = {p.name for p, _ in collected}
        schema = as_object_schema(request.schema)
        properties = schema.get("properties")
        if (
            request.media_type in FORM_TYPES
            and isinstance(properties, dict)
            and properties
            and not taken & set(properties)
        ):
            needed = schema.get("required") or []
            where = f"{request.location}.content.{request.media_type}.schema.properties"
            shared = schema.get("$defs")  # a form field may refer to the body's definitions
            for field_name, sub in properties.items():
                sub = attach_defs(as_object_schema(sub), shared)
                collected.append(
                    (
                        _build(
                            reader,
                            Parameter,
                            f"{where}.{field_name}",
                            name=field_name,
                            location=ParameterLocation.BODY,
                            json_schema=sub,
                            required=field_name in needed,
                            description=str(sub.get("description", "")),
                            **_semantic(reader, sub, f"{where}.{field_name}"),
                        ),
                        "formData",
                    )
                )
            return collected, {"media_type": request.media_type, "style": "form"}
        if request.description and "description" not in schema:
            schema["description"] = request.description
        parameter = _build(
            reader,
            Parameter,
            request.location,
            name="body" if "body" not in taken else "request_body",
            location=ParameterLocation.BODY,
            json_schema=schema,
            required=request.required,
            description=request.description,
        )
        collected.append((parameter, "body"))
        return collected, {"media_type": request.media_type, "style": "whole"}

    def _distinct(
        self, collected: list[tuple[Parameter, str]], auth: AuthRequirement, location: str
    ) -> list[Parameter]:
        """One parameter per name (path > query > header > cookie > body), none for auth."""
        winners: dict[str, tuple[int, int]] = {}
        for index, (param, place) in enumerate(collected):
            rank = (_PRIORITY[place], index)
            if param.name not in winners or rank < winners[param.name]:
                winners[param.name] = rank
        carriers = auth.carriers
        kept: list[Parameter] = []
        for index, (param, _) in enumerate(collected):
            winner = winners[param.name][1]
            if winner != index:
                self.notes.append(
                    f"{location}: declares {param.name!r} in two locations "
                    f"({collected[winner][1]} and {collected[index][1]}); kept the one in "
                    f"{collected[winner][1]}"
                )
                continue
            if param.name in carriers or auth.aliased_by(param.name, param.location):
                # the credential travels there (or where a server reads it as that name:
                # ``x_api_key`` beside ``X-API-KEY``); it is not a route parameter
                if param.name not in carriers:
                    logger.info(
                        "%s: %s: dropped parameter %r, an alias of a credential's %s",
                        self.reader.source,
                        location,
                        param.name[:80],
                        ", ".join(c[:80] for c in carriers),
                    )
                continue
            if param.location is ParameterLocation.HEADER and _transport_header(param.name):
                self.transport[param.name] = self.transport.get(param.name, 0) + 1
                continue  # the client sets it: never a model's input
            kept.append(param)
        return kept


def _provider(
    provider: str | Provider | None, info: Mapping[str, Any], source: str, base_url: str | None
) -> Provider:
    if isinstance(provider, Provider):
        return provider
    if provider is None:  # named after the document: its title, else its host
        stem = re.split(r"[\\/]", source)[-1].rsplit(".", 1)[0]
        provider = provider_slug(info.get("title"), base_url, stem)
        title = info.get("title")
        if source == "<dict>" and provider == "dict" and isinstance(title, str) and title.strip():
            provider = title  # a title of no ASCII words ("한빛 쇼핑몰"): its hashed id, trial K
    license_info = info.get("license")
    license_info = license_info if isinstance(license_info, Mapping) else {}
    license_name = license_info.get("identifier") or license_info.get("name")
    license_url = license_info.get("url")
    description = info.get("description")
    return named_provider(
        provider,
        where=f"{source}: provider",
        title=info.get("title"),
        license=license_name.strip()
        if isinstance(license_name, str) and license_name.strip()
        else None,
        license_url=license_url.strip()
        if isinstance(license_url, str) and license_url.strip()
        else None,
        description=description.strip() if isinstance(description, str) else "",
    )


def _origin(url: str | None) -> str | None:
    parts = urlsplit(url) if url else None
    return f"{parts.scheme}://{parts.netloc}".lower() if parts else None


def _semantic(reader: OpenAPIReader, declaring: Any, at: str) -> dict[str, Any]:
    """A parameter's ``x-semantic-id`` and ``x-aliases`` (on it or its schema), as an
    output field's."""
    return declared_meaning(declaring, where=reader.where(at), notes=reader.repairs, location=at)


def _note_other_host(notes: list[str], at: str, base: str | None, document: str | None) -> None:
    """Say where an operation's (or path item's) own server is another host than the
    document's: its calls, and the credentials its routes need, go there (trial X3: an
    operation of a document served at one host sent the document's API key to another,
    and nothing said so)."""
    if base is not None and _origin(base) != _origin(document):
        notes.append(
            f"{at}[0].url: these operations are sent to {_origin(base)}, not to the "
            f"document's server ({_origin(document) or 'none'}), with the credentials they "
            "need; pass base_url= to send every operation to one server"
        )


def openapi_registration(
    document: Any,
    *,
    provider: str | Provider | None = None,
    base_url: str | None = None,
    access_id: str = "rest",
    source: str | None = None,
    client: httpx.Client | None = None,
    effect_overrides: Mapping[str, Effect | str] | None = None,
    trusted: bool = False,
    limits: FieldLimits | None = None,
    strict: bool = False,
    server_variables: Mapping[str, str] | None = None,
) -> Registration:
    """Compile an OpenAPI document (a path, an http(s) URL, a dict, or a document
    :func:`~schemarouter.registry.parsing.load_document` read) into a Registration.

    ``provider`` is an id (its display name and license then come from ``info``), a
    trusted :class:`Provider`, or ``None``: an id from the document's title (else its host).
    ``base_url`` overrides the document's servers; ``server_variables`` (``{"region":
    "eu"}``) fills their URL variables in place of the defaults (a name no server URL has, or
    a value outside the variable's enum, is an error). ``client`` fetches URL documents (tests
    pass one with a mock transport). ``effect_overrides`` (endpoint name, id or a glob of
    them -> effect) comes from a trusted caller and wins over the document; a name that names
    no endpoint is an error, a glob matching none a warning. ``trusted=True`` lets the
    document's ``x-schemarouter-effect`` make an operation laxer (a POST that only reads); untrusted
    documents may only make it stricter. ``limits`` bounds the output fields per
    endpoint. Common mistakes of real documents (string booleans and numbers,
    ``additionalProperties`` as a string, untyped objects, path parameters not marked required,
    a parameter declared twice) are repaired, each recorded in the registration's
    ``warnings`` with its location (:mod:`schemarouter.adapters._repairs`); ``strict=True``
    refuses them instead. Raises a :class:`~schemarouter.errors.RegistrationError` naming the
    document, the location inside it and the reason; a document that fails anywhere
    registers nothing.
    """
    loaded = (
        document
        if isinstance(document, LoadedDocument)
        else load_document(document, client=client, source=source)
    )
    notes: list[str] = []
    reader = OpenAPIReader(
        loaded.data,
        source=loaded.source,
        url=loaded.url,
        repairs=None if strict else notes,
        server_variables=server_variables,
    )
    reader.check_server_variables()
    resolved_base = base_url if base_url is not None else reader.base_url(notes)
    provider_model = _provider(provider, reader.info(), loaded.source, resolved_base)
    security = SecuritySchemes(reader, provider_id=provider_model.id)
    overrides = effect_overrides_of(effect_overrides, loaded.source)
    budget = endpoint_budget(provider_model.id, access_id)
    builder = _EndpointBuilder(reader, limits or FieldLimits(), notes)
    accesses: dict[tuple[AuthRequirement, str | None], AccessPath] = {}
    bases: dict[int, str | None] = {}  # a path item's or operation's servers, read once
    specs: list[RouteSpec] = []
    ids: set[str] = set()
    used: set[str] = set()
    operation_ids: dict[str, str] = {}  # operationId -> the location of its first operation
    for ref in reader.operations():
        operation_id = ref.operation.get("operationId")
        if operation_id is not None and not isinstance(operation_id, str):
            raise DocumentError(
                f"operationId must be a string, got {type(operation_id).__name__}",
                where=reader.where(f"{ref.location}.operationId"),
                hint="Write the operationId as text",
            )
        name = (operation_id or "").strip()[:256] or f"{ref.method.upper()} {ref.path}"[:256]
        full = endpoint_slug((operation_id or "").strip()[:256], ref.method, ref.path)
        endpoint_id = base_id = fit_endpoint_id(full, budget)
        if base_id != full:
            notes.append(
                f"{ref.location}: endpoint id {full!r} shortened to {base_id!r} (a tool name "
                "has at most 64 characters)"
            )
        n = 2
        while endpoint_id in ids:
            endpoint_id, n = f"{base_id}_{n}", n + 1
        ids.add(endpoint_id)
        if operation_id and operation_id in operation_ids:
            reader.violation(
                f"{ref.location}.operationId",
                f"operationId {operation_id!r} is also {operation_ids[operation_id]}'s (an "
                "operationId must be unique)",
                f"registered as {endpoint_id!r}",
                hint="Give each operation an operationId of its own",
            )
        operation_ids.setdefault(operation_id or "", ref.location)
        effect, keys = operation_effect(
            ref, name, endpoint_id, overrides, loaded.source, trusted=trusted, notes=notes
        )
        used.update(keys)
        auth = security.requirement(ref.operation, ref.location)
        route_base = resolved_base
        own = reader.operation_servers(ref) if base_url is None else None
        if own is not None:  # the operation's or its path item's servers win (OpenAPI 3)
            owner, at = own
            if id(owner) not in bases:
                bases[id(owner)] = reader.base_url(notes, owner=owner, at=at)
                _note_other_host(notes, at, bases[id(owner)], resolved_base)
            route_base = bases[id(owner)]
        if (auth, route_base) not in accesses:
            accesses[auth, route_base] = _build(
                reader,
                AccessPath,
                "access (base_url, auth)",
                id=access_id,
                kind=AccessKind.OPENAPI,
                base_url=route_base,
                auth=auth,
                document=loaded.source,
                document_hash=loaded.digest,
                trusted=trusted,
            )
        endpoint = builder.build(ref, endpoint_id=endpoint_id, name=name, auth=auth, effect=effect)
        specs.append(RouteSpec(provider_model, accesses[auth, route_base], endpoint, ref.location))
        step(len(specs), len(specs) - 1, "%s: %d operations compiled", loaded.source, len(specs))
    unknown = unused_keys(overrides, used, notes)  # a pattern matching nothing: a note
    if unknown:
        raise DocumentError(
            f"effect_overrides name endpoints the document does not have: {', '.join(unknown)}",
            where=f"{loaded.source}: effect_overrides",
            hint="Key overrides by operationId, 'METHOD /path', endpoint id or a pattern",
        )
    logger.info("%s: %d operations compiled", loaded.source, len(specs))
    if not specs:
        why = "only webhooks, which are no routes" if reader.doc.get("webhooks") else "none"
        notes.append(f"paths: the document has no operations ({why}); nothing is registered")
    if builder.transport:
        counts = ", ".join(
            f"{n} ({c} operation{'s' * (c > 1)})" for n, c in builder.transport.items()
        )
        notes.append(f"paths: header parameters the client sets left out of the routes: {counts}")
    for media, where in builder.json_bodies.items():
        some = f"{len(where)} operations take" if len(where) > 1 else "1 operation takes"
        notes.append(
            f"paths: {some} a body as {media} only ({where[0]}"
            f"{', ...' if len(where) > 1 else ''}); SchemaRouter sends such a body as JSON "
            "(application/json), which the server may refuse"
        )
    if notes:  # once per document, however many operations it concerns
        logger.warning(
            "%s: %d warning%s (see the registration's warnings), the first: %s",
            loaded.source,
            len(notes),
            "" if len(notes) == 1 else "s",
            notes[0],
        )
    return build_registration(
        specs, source=loaded.source, providers=[provider_model], warnings=notes
    )
