"""The registry's vocabulary: strict pydantic models for every registered fact.

Every model refuses unknown keys and is immutable once built. Adapters (OpenAPI, MCP,
OPTIMADE, Python, catalogs) compile their sources into these contracts; the registry stores
them as :class:`Route` objects (provider + access path + endpoint), each with a fingerprint.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from schemarouter.fingerprint import fingerprint
from schemarouter.placement import (
    CREDENTIAL_LOCATIONS,
    PARAMETER_STYLES,
    TRANSPORT_LOCATIONS,
    ParameterLocation,
    ParameterStyle,
    base_url_problem,
    credential_name_key,
    operation_path_problem,
    shown_url,
)

__all__ = [
    "CREDENTIAL_LOCATIONS",
    "ID_PATTERN",
    "PROJECTION_PARAMETERS",
    "TRANSPORT_LOCATIONS",
    "AccessKind",
    "AccessPath",
    "AuthRequirement",
    "Availability",
    "AvailabilityStatus",
    "Contract",
    "CredentialPlacement",
    "Effect",
    "Endpoint",
    "FieldGroup",
    "Intent",
    "Operation",
    "OutputField",
    "Parameter",
    "ParameterLocation",
    "ParameterStyle",
    "Provider",
    "Registration",
    "Route",
    "SourceType",
    "UnitNormalizationSpec",
    "base_url_problem",
    "credential_name_key",
    "make_route_id",
    "named",
    "route_sources",
    "schema_validator",
    "shown_url",
]

#: Provider, access path and endpoint ids: lowercase words joined by ``_ - .`` (route ids
#: join three of them with ``/``), stable across runs and machines.
ID_PATTERN = r"^[a-z0-9][a-z0-9_.\-]*$"
_ID = Annotated[str, Field(pattern=ID_PATTERN, min_length=1, max_length=128)]
_NAME = Annotated[str, Field(min_length=1, max_length=256)]
#: Parameters through which a server projects its output to named fields.
PROJECTION_PARAMETERS = ("response_fields", "_fields")
#: A semantic id: dot-separated lowercase words (``materials.band_gap``), at most 128 long.
SEMANTIC_ID_PATTERN = r"^[a-z0-9_]+(\.[a-z0-9_]+)*$"
_SEMANTIC_ID = Annotated[str, Field(pattern=SEMANTIC_ID_PATTERN, max_length=128)]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


def named(items: Iterable[N], name: str) -> N:
    """The first of ``items`` called ``name`` (a ``KeyError`` where none is)."""
    for item in items:
        if item.name == name:
            return item
    raise KeyError(name)


class Contract(BaseModel):
    """Base of every contract: strict (unknown keys refused), immutable, fingerprintable."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    def canonical(self) -> dict[str, Any]:
        """The JSON form that fingerprints are computed from (defaults included)."""
        return self.model_dump(mode="json", by_alias=True)

    def content_fingerprint(self) -> str:
        """``sha256:`` of :meth:`canonical`: equal contracts, equal fingerprints."""
        return fingerprint(self.canonical())


C = TypeVar("C", bound=Contract)


def _shared(default: C) -> Callable[[], C]:
    """A field's default that is ``default`` itself, one frozen object for every contract
    that declares none (pydantic would copy a plain default into each): a registry of
    100,000 routes otherwise holds 100,000 equal copies, three objects each, for the cyclic
    garbage collector to walk again at every full collection (issue #26)."""
    return lambda: default


def _without_unset(
    model: BaseModel, handler: SerializerFunctionWrapHandler, keys: tuple[str, ...]
) -> dict[str, Any]:
    """``model``'s dump without ``keys`` at their default (a field added later leaves the
    fingerprint of every contract that does not use it as it was)."""
    data: dict[str, Any] = handler(model)
    for key in keys:
        if key in data and data[key] in (None, (), []):
            del data[key]
    return data


class SourceType(StrEnum):
    """Where a value comes from: the paper's provenance classes."""

    EXPERIMENTAL = "experimental"
    CALCULATED = "calculated"
    LITERATURE = "literature"
    BUSINESS = "business"
    WEB = "web"
    CURATED = "curated"
    MIXED = "mixed"
    UNKNOWN = "unknown"


class Effect(StrEnum):
    """What calling a route does to the world. Ordered: read < write < destructive."""

    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"

    @property
    def rank(self) -> int:
        return _EFFECT_RANK[self]

    def stricter(self, other: Effect) -> Effect:
        """The stricter of two effects (a hint may raise an effect, never lower it)."""
        return self if self.rank >= other.rank else other


_EFFECT_RANK = {Effect.READ: 0, Effect.WRITE: 1, Effect.DESTRUCTIVE: 2}


class AccessKind(StrEnum):
    OPENAPI = "openapi"
    HTTP = "http"
    MCP = "mcp"
    OPTIMADE = "optimade"
    PYTHON = "python"


class AvailabilityStatus(StrEnum):
    AVAILABLE = "available"
    DEGRADED = "degraded"
    UNAVAILABLE = "unavailable"
    DEPRECATED = "deprecated"


class UnitNormalizationSpec(Contract):
    """A trusted, declared conversion: ``canonical = value * scale + offset``.

    Checked with pint at registration: both units must parse, share ``dimension``, and the
    declared factor must agree with pint's conversion.
    """

    source_unit: _NAME
    canonical_unit: _NAME
    dimension: _NAME
    scale: float = 1.0
    offset: float = 0.0

    @field_validator("scale")
    @classmethod
    def _scale_nonzero(cls, value: float) -> float:
        if value == 0.0:
            raise ValueError("scale must not be zero")
        return value

    def apply(self, value: float) -> float:
        return value * self.scale + self.offset


class OutputField(Contract):
    """One field a route returns, with its type, meaning, unit and evidence."""

    name: _NAME
    #: Path into the raw output, dot-separated, ``*`` for every element of an array
    #: (``data.*.attributes.band_gap``). Empty means the output itself.
    path: str = ""
    json_schema: dict[str, Any] = Field(default_factory=dict)
    semantic_id: _SEMANTIC_ID | None = None
    aliases: tuple[str, ...] = ()
    description: str = ""
    unit: str | None = None
    dimension: str | None = None
    normalization: UnitNormalizationSpec | None = None
    #: Exact conditions the value holds under (``temperature: 300 K``, ``phase: alpha``).
    qualifiers: dict[str, str] = Field(default_factory=dict)
    identifier: bool = False
    #: Field group (the paper's recall safety net: ``mechanical``, ``electronic``, ...).
    group: str | None = None
    #: ``None`` inherits the provider's source type / license.
    source_type: SourceType | None = None
    license: str | None = None

    @model_validator(mode="after")
    def _unit_consistent(self) -> OutputField:
        spec = self.normalization
        if spec is not None:
            if self.unit is None:
                raise ValueError(
                    f"field {self.name!r} declares a normalization but no unit; set unit to "
                    f"{spec.source_unit!r}"
                )
            if spec.source_unit != self.unit:
                raise ValueError(
                    f"field {self.name!r}: normalization.source_unit {spec.source_unit!r} "
                    f"differs from unit {self.unit!r}"
                )
            if self.dimension is not None and self.dimension != spec.dimension:
                raise ValueError(
                    f"field {self.name!r}: dimension {self.dimension!r} differs from "
                    f"normalization.dimension {spec.dimension!r}"
                )
        return self


class Parameter(Contract):
    """One input of a route: where it goes, its JSON Schema, and whether it is required."""

    name: _NAME
    location: ParameterLocation = ParameterLocation.ARGUMENT
    json_schema: dict[str, Any] = Field(default_factory=dict)
    required: bool = False
    description: str = ""
    aliases: tuple[str, ...] = ()
    #: What kind of value binds here (``chemical.formula``, ``identifier.doi``, ...).
    semantic_id: _SEMANTIC_ID | None = None
    #: How an array or object travels (OpenAPI ``style`` and ``explode``, Swagger 2
    #: ``collectionFormat``). ``None``: the location's default, ``form`` in a query or
    #: cookie, ``simple`` in a path or header; ``explode`` is true for ``form`` only.
    style: ParameterStyle | None = None
    explode: bool | None = None
    #: OpenAPI 3 ``content``: the whole value travels as this media type's text (JSON).
    media_type: _NAME | None = None

    @model_validator(mode="after")
    def _style_fits(self) -> Parameter:
        if self.style is not None and self.style not in PARAMETER_STYLES[self.location]:
            raise ValueError(f"style {self.style.value!r} does not apply in {self.location.value}")
        if self.media_type is not None and (self.style or self.explode is not None):
            raise ValueError("a parameter with a media_type takes no style or explode")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(self, handler, ("style", "explode", "media_type"))


class Operation(Contract):
    """How an endpoint is called: an HTTP method and path, an MCP tool, a Python name."""

    method: str | None = None
    path: str | None = None
    tool: str | None = None
    qualname: str | None = None

    @field_validator("method")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.upper()
        if value not in {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}:
            raise ValueError(f"unknown HTTP method {value!r}")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> Operation:
        if (self.method is None) != (self.path is None):
            raise ValueError("an HTTP operation needs both method and path")
        if self.method is None and self.tool is None and self.qualname is None:
            raise ValueError("an operation needs method + path, tool, or qualname")
        problem = None if self.path is None else operation_path_problem(self.path)
        if problem is not None:
            raise ValueError(problem)
        return self


class Availability(Contract):
    status: AvailabilityStatus = AvailabilityStatus.AVAILABLE
    note: str = ""


class Endpoint(Contract):
    """An operation of an access path, with its full input and output contracts."""

    #: Readable, stable id inside its access path (used in the route id).
    id: _ID
    #: The endpoint's own name: MCP tool name, OpenAPI operationId or ``METHOD /path``,
    #: Python function name.
    name: _NAME
    operation: Operation
    summary: str = ""
    description: str = ""
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"},
        description="JSON Schema of the arguments; a catalog that leaves it out gets the "
        "one its parameters make.",
    )
    parameters: tuple[Parameter, ...] = ()
    output_schema: dict[str, Any] | None = None
    output_fields: tuple[OutputField, ...] = ()
    effect: Effect = Field(
        default=Effect.READ,
        description="What a call does; a catalog that leaves it out gets its HTTP method's "
        "(GET and HEAD read, DELETE destructive, the rest write); an MCP tool's is write.",
    )
    policy_tags: tuple[str, ...] = ()
    availability: Availability = Field(default_factory=_shared(Availability()))
    #: Intents this endpoint serves (``property_lookup``, ``literature_search``, ...).
    intents: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _unique_names(self) -> Endpoint:
        for kind, names in (
            ("parameter", [p.name for p in self.parameters]),
            ("output field", [f.name for f in self.output_fields]),
        ):
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    raise ValueError(f"endpoint {self.id!r} declares {kind} {name!r} twice")
                seen.add(name)
        return self

    def field(self, name: str) -> OutputField:
        return named(self.output_fields, name)

    def parameter(self, name: str) -> Parameter:
        return named(self.parameters, name)


class CredentialPlacement(Contract):
    """Credential names and how they travel: one security scheme. Never a credential value."""

    credentials: tuple[_NAME, ...] = ()
    scheme: str | None = None  # "api_key", "bearer", "basic", "oauth2", ...
    location: ParameterLocation | None = None
    parameter: str | None = None  # e.g. the header or query name carrying an api key


class AuthRequirement(CredentialPlacement):
    """Names of credentials a call needs, and how they travel. Never a credential value.
    ``combined``: the further schemes of a requirement that needs several at once (OpenAPI
    ``{appId: [], appKey: []}``), each placed as it says; ``credentials`` lists all."""

    optional: bool = False
    combined: tuple[CredentialPlacement, ...] = ()

    @model_validator(mode="after")
    def _combined_listed(self) -> AuthRequirement:
        for item in self.combined:
            if not item.credentials or set(item.credentials) - set(self.credentials):
                raise ValueError("each combined scheme names credentials listed in credentials")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(self, handler, ("combined",))

    def placements(self) -> tuple[CredentialPlacement, ...]:
        """Every scheme's credentials with their placement, the first scheme's first."""
        others = {name for item in self.combined for name in item.credentials}
        first = CredentialPlacement(
            credentials=tuple(c for c in self.credentials if c not in others),
            scheme=self.scheme,
            location=self.location,
            parameter=self.parameter,
        )
        return (first, *self.combined)

    @property
    def carriers(self) -> tuple[str, ...]:
        """The header, query or cookie names every scheme's credential travels under."""
        return tuple(p for p in (self.parameter, *(c.parameter for c in self.combined)) if p)

    def aliased_by(self, name: str, location: ParameterLocation) -> bool:
        """Whether a parameter ``name`` at ``location`` would reach the server as a
        credential's own header, query or cookie name (:func:`credential_name_key`): sent
        beside the real credential, a server may read the plan's value in its place."""
        if location not in CREDENTIAL_LOCATIONS:
            return False
        key = credential_name_key(name)
        return any(key == credential_name_key(c) for c in self.carriers)


class AccessPath(Contract):
    """How a provider is reached: protocol, address, auth, and the document it came from."""

    id: _ID
    kind: AccessKind
    base_url: str | None = None
    #: MCP server (command line or URL) or Python module.
    server: str | None = None
    auth: AuthRequirement = Field(default_factory=_shared(AuthRequirement()))
    document: str | None = None
    document_hash: str | None = None
    #: True only where a trusted profile or the caller vouches for the source's own claims
    #: (e.g. MCP ``readOnlyHint``).
    trusted: bool = False

    def canonical(self) -> dict[str, Any]:
        """The contract without ``document`` / ``document_hash``: where a route was read
        from is provenance, not contract, so an edit elsewhere in the same document does not
        change (and unbind) routes it did not touch."""
        data = super().canonical()
        data.pop("document", None)
        data.pop("document_hash", None)
        return data

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = base_url_problem(value)
        if problem:
            raise ValueError(problem)
        return value.rstrip("/")


class Provider(Contract):
    """Who serves the data, under which license, and what kind of evidence it is."""

    id: _ID
    display_name: _NAME
    aliases: tuple[str, ...] = ()
    homepage: str | None = None
    license: str | None = None
    license_url: str | None = None
    attribution: str | None = None
    source_type: SourceType = SourceType.UNKNOWN
    description: str = ""


def make_route_id(provider_id: str, access_id: str, endpoint_id: str) -> str:
    """The readable route id: ``provider/access/endpoint``."""
    return f"{provider_id}/{access_id}/{endpoint_id}"


class Route(Contract):
    """A registered, routable unit: provider + access path + endpoint, with fingerprints."""

    route_id: str
    provider: Provider
    access: AccessPath
    endpoint: Endpoint
    provider_fingerprint: str
    access_fingerprint: str
    endpoint_fingerprint: str
    #: Hash of the route id and the three fingerprints above.
    fingerprint: str
    #: Where it was registered from (a file path, URL or ``<dict>``).
    source: str = ""

    @classmethod
    def build(
        cls,
        provider: Provider,
        access: AccessPath,
        endpoint: Endpoint,
        *,
        source: str = "",
        fingerprints: tuple[str, str, str] | None = None,
    ) -> Route:
        """The route of ``provider``, ``access`` and ``endpoint``. ``fingerprints`` are their
        :meth:`~Contract.content_fingerprint` values where the caller has them already
        (:func:`~schemarouter.registry.compile.build_registration` computes a provider's and
        an access path's once for all their routes); they must be exactly those values."""
        if fingerprints is None:
            fingerprints = (
                provider.content_fingerprint(),
                access.content_fingerprint(),
                endpoint.content_fingerprint(),
            )
        pf, af, ef = fingerprints
        route_id = make_route_id(provider.id, access.id, endpoint.id)
        return cls(
            route_id=route_id,
            provider=provider,
            access=access,
            endpoint=endpoint,
            provider_fingerprint=pf,
            access_fingerprint=af,
            endpoint_fingerprint=ef,
            fingerprint=fingerprint([route_id, pf, af, ef]),
            source=source,
        )

    def field_source_type(self, item: OutputField) -> SourceType:
        return item.source_type or self.provider.source_type

    def field_license(self, item: OutputField) -> str | None:
        return item.license or self.provider.license

    def output_licenses(self) -> tuple[str | None, ...]:
        """The licences the route's output is under, once each: each field's own, else its
        provider's (the provider's alone where it has no fields); ``None``: not declared."""
        fields = self.endpoint.output_fields
        if not fields:
            return (self.provider.license,)
        return tuple(dict.fromkeys(self.field_license(item) for item in fields))

    def licenses_outside(self, allowed: Iterable[str]) -> list[str]:
        """The licences of :meth:`output_licenses` not in ``allowed`` (case, spaces, _ aside)."""
        held, key = {_licence_key(a) for a in allowed}, _licence_key
        return [n or "no declared license" for n in self.output_licenses() if key(n) not in held]


class FieldGroup(Contract):
    """A named group of fields (the paper's recall safety net), e.g. ``mechanical``."""

    id: _ID
    description: str = ""


class Intent(Contract):
    """A request intent and the field groups it requires (the paper's intent registry)."""

    id: _ID
    description: str = ""
    field_groups: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


class Registration(Contract):
    """What one document compiles to: registered atomically, all or nothing."""

    source: str
    providers: tuple[Provider, ...] = ()
    routes: tuple[Route, ...] = ()
    field_groups: tuple[FieldGroup, ...] = ()
    intents: tuple[Intent, ...] = ()
    #: What the adapter noticed and repaired or chose, each ``"location: what"``, once per
    #: document (a repaired string boolean, a parameter declared in two places ...).
    warnings: tuple[str, ...] = ()


def route_sources(route: Route) -> set[SourceType]:
    """Every provenance ``route`` may serve: its fields' source types and its provider's."""
    return {route.field_source_type(f) for f in route.endpoint.output_fields} | {
        route.provider.source_type
    }


def _licence_key(name: str | None) -> str | None:
    """A licence name compared by policy: case, spaces and ``_`` aside."""
    return None if name is None else "-".join(name.replace("_", " ").split()).casefold()


@functools.lru_cache(maxsize=4096)
def _validator_for(schema_json: str) -> Any:
    from schemarouter.safety.patterns import validator

    return validator(json.loads(schema_json))


def schema_validator(schema: Mapping[str, Any]) -> Any:
    """A cached Draft 2020-12 validator for ``schema`` (the gate, the planner's argument
    binding and output validation share it); its patterns run in linear time
    (:mod:`schemarouter.safety.patterns`)."""
    return _validator_for(json.dumps(schema, sort_keys=True, default=str))
