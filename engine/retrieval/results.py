"""What retrieval hands to users: candidates, the retrieval result, state and exclusions.

Pydantic at the edge: these objects leave the library, so they are validated, immutable and
serialize to JSON. Every candidate is built from a registered :class:`Route` by
:func:`candidate_from_route`, never from free text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from schemarouter.contracts import (
    AccessKind,
    AvailabilityStatus,
    Effect,
    OutputField,
    Parameter,
    Route,
    SourceType,
    named,
)
from schemarouter.errors import GateError
from schemarouter.retrieval.analysis import QueryAnalysis
from schemarouter.retrieval.state import Exclusion

if TYPE_CHECKING:
    from schemarouter.integrations.definitions import ToolFormat, ToolSet

__all__ = [
    "Candidate",
    "CandidateField",
    "CapabilityRetrieval",
    "IdentifierSource",
    "candidate_from_route",
    "compact_field",
]


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class IdentifierSource(_Result):
    """Where a candidate's required identifier comes from: output field ``field`` (at
    ``path``) of another candidate of the same list, ``route_id``, called first."""

    route_id: str
    field: str
    path: str


class CandidateField(_Result):
    """An output field as a candidate shows it: type, unit contract, evidence."""

    name: str
    path: str
    semantic_id: str | None
    json_schema: dict[str, Any]
    description: str
    aliases: tuple[str, ...]
    unit: str | None
    canonical_unit: str | None
    dimension: str | None
    qualifiers: dict[str, str]
    identifier: bool
    group: str | None
    #: Provenance: where the value comes from (``calculated``, ``experimental`` ...).
    source_type: SourceType
    license: str | None

    @classmethod
    def of(cls, route: Route, item: OutputField) -> CandidateField:
        spec = item.normalization
        return cls(
            name=item.name,
            path=item.path,
            semantic_id=item.semantic_id,
            json_schema=json_copy(item.json_schema),
            description=item.description,
            aliases=item.aliases,
            unit=item.unit,
            canonical_unit=spec.canonical_unit if spec else item.unit,
            dimension=spec.dimension if spec else item.dimension,
            qualifiers=dict(item.qualifiers),
            identifier=item.identifier,
            group=item.group,
            source_type=route.field_source_type(item),
            license=route.field_license(item),
        )


class Candidate(_Result):
    """One ranked, registered route with its full contract."""

    rank: int
    score: float
    route_id: str
    provider: str
    provider_name: str
    endpoint: str
    method: str | None = None
    path: str | None = None
    tool: str | None = None
    qualname: str | None = None
    access_id: str
    access_kind: AccessKind
    base_url: str | None
    server: str | None
    credentials: tuple[str, ...]
    summary: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    parameters: tuple[Parameter, ...]
    output_fields: tuple[CandidateField, ...]
    #: The fields the request needs (names), in the route's own order.
    matched_fields: tuple[str, ...]
    effect: Effect
    availability: AvailabilityStatus
    policy_tags: tuple[str, ...]
    source_type: SourceType
    license: str | None
    fingerprint: str
    endpoint_fingerprint: str
    provider_fingerprint: str
    access_fingerprint: str
    #: How the score was made: lexical / dense / fused / rerank components.
    scores: dict[str, float] = Field(default_factory=dict)
    #: Calibrated P(this route serves the request), where an abstention model applied
    #: (comparable across catalogs and queries; see :mod:`schemarouter.retrieval.abstention`).
    relevance: float | None = None
    #: Parameter values found in the query, bound by schema (name -> value).
    bound_parameters: dict[str, Any] = Field(default_factory=dict)
    #: Required identifiers the request does not carry that another candidate of the same
    #: list returns (parameter -> that route and field; see
    #: :mod:`schemarouter.retrieval.prerequisites`).
    identifier_sources: dict[str, IdentifierSource] = Field(default_factory=dict)

    def contract(self, *, compact: bool = False) -> dict[str, Any]:
        """The same contract without rank or score, for an LLM prompt. ``compact=True`` keeps
        what a model reads to pick and call the route, with every unit, provenance and
        licence, and leaves out what only the router uses (fingerprints, access, credential
        names, output paths and schemas, empty and default values): a quarter to a half of
        the full contract's tokens (more of it where fields have long descriptions). It is
        JSON data, as the full one is."""
        if compact:
            return self._compact()
        data = self.model_dump(
            mode="json",
            exclude={"rank", "score", "scores"},
            exclude_none=True,
        )
        if not data.get("identifier_sources"):  # most routes need none: no empty key
            data.pop("identifier_sources", None)
        return data

    def _compact(self) -> dict[str, Any]:
        out: dict[str, Any] = {"route_id": self.route_id, "provider": self.provider_name}
        out["summary"] = self.summary
        if self.description and self.description != self.summary:
            out["description"] = self.description
        out["effect"] = self.effect.value
        if self.method is not None:
            out["call"] = f"{self.method} {self.path}"
        elif (name := self.tool or self.qualname) is not None:
            out["call"] = name
        out["parameters"] = [_compact_parameter(p) for p in self.parameters]
        # what the values carry (the fields' own where they all agree), each field its own
        source_type, license = self.values_standing()
        out["output_fields"] = [compact_field(f, source_type, license) for f in self.output_fields]
        out["source_type"] = source_type.value
        out["license"] = license
        optional = {
            "matched_fields": self.matched_fields,
            "bound_parameters": self.bound_parameters,
            "identifier_sources": {
                name: source.model_dump(mode="json")
                for name, source in self.identifier_sources.items()
            },
            "policy_tags": self.policy_tags,
        }
        out.update({k: list(v) if isinstance(v, tuple) else v for k, v in optional.items() if v})
        if self.availability is not AvailabilityStatus.AVAILABLE:
            out["availability"] = self.availability.value
        if self.relevance is not None:
            out["relevance"] = self.relevance
        return out

    def field(self, name: str) -> CandidateField:
        return named(self.output_fields, name)

    def values_standing(self) -> tuple[SourceType, str | None]:
        """The source type and license the route's values carry: the one all its output
        fields declare or inherit, where they agree (a route whose every field is
        ``CC-BY-NC-4.0`` under a ``CC-BY-4.0`` provider is a non-commercial route), else the
        provider's (``source_type`` / ``license``), each field then saying its own."""
        kinds = {f.source_type for f in self.output_fields}
        licenses = {f.license for f in self.output_fields}
        kind = kinds.pop() if len(kinds) == 1 else self.source_type
        license = licenses.pop() if len(licenses) == 1 else self.license
        return kind, license


def _compact_parameter(parameter: Parameter) -> dict[str, Any]:
    """A parameter as a prompt needs it: name, JSON Schema (titles out), required, meaning."""
    out: dict[str, Any] = {"name": parameter.name}
    if parameter.required:
        out["required"] = True
    if parameter.description:
        out["description"] = parameter.description
    schema = _untitled(parameter.json_schema)
    if parameter.description and schema.get("description") == parameter.description:
        schema.pop("description")
    out["schema"] = schema
    if parameter.semantic_id is not None:
        out["semantic_id"] = parameter.semantic_id
    return out


def compact_field(
    item: CandidateField, source_type: SourceType, license: str | None
) -> dict[str, Any]:
    """An output field as a prompt needs it: name, type, unit, meaning, and its provenance and
    licence where they are not the route's (not its path: execution reads fields by name).
    The compact contract and the gateway's ``describe_tool`` both say a field so."""
    out: dict[str, Any] = {"name": item.name}
    if (kind := item.json_schema.get("type")) is not None:
        out["type"] = kind
    extras = {
        "unit": item.unit,
        "canonical_unit": item.canonical_unit if item.canonical_unit != item.unit else None,
        "semantic_id": item.semantic_id,
        "description": item.description,
        "qualifiers": item.qualifiers,
        "identifier": item.identifier,
    }
    out.update({key: value for key, value in extras.items() if value})
    if item.source_type is not source_type:
        out["source_type"] = item.source_type.value
    if item.license != license:
        out["license"] = item.license
    return out


def json_copy(node: Any) -> Any:
    """``node``'s dicts and lists copied, all the way down: a candidate's schemas are its
    caller's to change. A route's are not, and a registry restored from an index folder
    holds one dict for each schema its provider repeats (:mod:`schemarouter.index.shared_schemas`):
    an agent that made one candidate's ``ticket_id`` strict changed every route's equal
    schema, unseen by the fingerprint (trial X1)."""
    if type(node) is dict:
        return {key: json_copy(value) for key, value in node.items()}
    if type(node) is list:
        return [json_copy(value) for value in node]
    return node


def _untitled(schema: Any) -> Any:
    """``schema`` without ``title`` keywords (a model needs the property names, not titles);
    a property named ``title`` and values (``enum``, ``default``, ...) stay as they are."""
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _untitled(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "default", "example", "examples"):
            out[key] = value
        else:
            out[key] = _untitled(value)
    return out


def candidate_from_route(
    route: Route,
    *,
    rank: int,
    score: float,
    matched_fields: Sequence[str] = (),
    scores: dict[str, float] | None = None,
    bound_parameters: dict[str, Any] | None = None,
    identifier_sources: dict[str, IdentifierSource] | None = None,
) -> Candidate:
    endpoint, access, op = route.endpoint, route.access, route.endpoint.operation
    known = {f.name for f in endpoint.output_fields}
    unknown = set(matched_fields) - known
    if unknown:
        raise GateError(
            f"fields {sorted(unknown)} are not registered on {route.route_id}",
            where=route.route_id,
            hint="Only registered output fields can be matched",
        )
    return Candidate(
        rank=rank,
        score=score,
        route_id=route.route_id,
        provider=route.provider.id,
        provider_name=route.provider.display_name,
        endpoint=endpoint.name,
        method=op.method,
        path=op.path,
        tool=op.tool,
        qualname=op.qualname,
        access_id=access.id,
        access_kind=access.kind,
        base_url=access.base_url,
        server=access.server,
        credentials=access.auth.credentials,
        summary=endpoint.summary,
        description=endpoint.description,
        input_schema=json_copy(endpoint.input_schema),
        output_schema=json_copy(endpoint.output_schema) if endpoint.output_schema else None,
        parameters=tuple(
            p.model_copy(update={"json_schema": json_copy(p.json_schema)})
            for p in endpoint.parameters
        ),
        output_fields=tuple(CandidateField.of(route, f) for f in endpoint.output_fields),
        matched_fields=tuple(f.name for f in endpoint.output_fields if f.name in matched_fields),
        effect=endpoint.effect,
        availability=endpoint.availability.status,
        policy_tags=endpoint.policy_tags,
        source_type=route.provider.source_type,
        license=route.provider.license,
        fingerprint=route.fingerprint,
        endpoint_fingerprint=route.endpoint_fingerprint,
        provider_fingerprint=route.provider_fingerprint,
        access_fingerprint=route.access_fingerprint,
        scores=dict(scores or {}),
        relevance=(scores or {}).get("relevance"),
        bound_parameters=dict(bound_parameters or {}),
        identifier_sources=dict(identifier_sources or {}),
    )


class CapabilityRetrieval(_Result):
    """The result of ``retrieve``: the query, the registry it ran on, and the candidates."""

    query: str
    k: int
    registry_version: int
    registry_fingerprint: str
    candidates: tuple[Candidate, ...]
    #: the registry snapshot it ran on (not serialized): :meth:`tools` names tools as it does
    _snapshot: Any = PrivateAttr(default=None)
    #: True where the candidates were withheld: the request looks off the catalog and the
    #: caller asked to abstain (``retrieve(..., abstain=True)``); never by default.
    abstained: bool = False
    #: The calibrated verdict: no registered route may serve the request. The candidates are
    #: still the best there are (unless ``abstained``); act on the flag, e.g. ask the user.
    off_catalog: bool = False
    #: The highest calibrated relevance among the best-ranked routes (the top five; each
    #: candidate's ``relevance``): not necessarily the first candidate's, which may be lower.
    #: A query-level abstention model's probability that some route serves the request where
    #: that model decides; ``None`` where no abstention model applies.
    confidence: float | None = None
    #: Why the request is flagged off the catalog (or why nothing matched at all).
    reason: str = ""
    reranked: bool = False
    analysis: QueryAnalysis | None = None
    #: State-aware retrieval: what was filtered out, with reasons.
    exclusions: tuple[Exclusion, ...] = ()
    #: Where some of the ``k`` best matches were filtered out, a sentence per reason saying
    #: how many, which, why and what to do ("1 matching route is not allowed: twilio/rest/
    #: create_message (effect write is not allowed, only read); allow the effect ...");
    #: ``""`` where none were. The candidates are the best that can run.
    blocked: str = ""
    #: State-aware re-retrieval: each kept route's rank in the original ranked list.
    original_ranks: dict[str, int] = Field(default_factory=dict)
    #: How many ranked routes were examined, and whether the ranked list ran out.
    examined: int = 0
    exhausted: bool = False
    warnings: tuple[str, ...] = ()
    #: What the abstention decision saw (top route's scores, known words, resolved fields,
    #: and the calibrated confidence when a model is loaded).
    signals: dict[str, float] = Field(default_factory=dict)

    def __iter__(self) -> Iterator[Candidate]:  # type: ignore[override]
        return iter(self.candidates)

    def __len__(self) -> int:
        return len(self.candidates)

    def __getitem__(self, route_id: str) -> Candidate:
        for candidate in self.candidates:
            if candidate.route_id == route_id:
                return candidate
        raise KeyError(route_id)

    @property
    def route_ids(self) -> tuple[str, ...]:
        return tuple(c.route_id for c in self.candidates)

    def top_k(self, k: int) -> tuple[Candidate, ...]:
        return self.candidates[:k]

    def contracts(self, *, compact: bool = False) -> list[dict[str, Any]]:
        """Contract-only view (no rank, no score), in rank order, for an LLM prompt;
        ``compact=True``: :meth:`Candidate.contract`'s compact form."""
        return [c.contract(compact=compact) for c in self.candidates]

    def tools(self, format: ToolFormat = "anthropic", *, defer_loading: bool = False) -> ToolSet:
        """The candidates as tool definitions for an LLM API (``anthropic``, ``openai``,
        ``openai-chat`` or ``mcp``), in rank order: names valid for every API, concise
        descriptions, pruned input schemas, no fingerprints. The returned list maps each
        name back to its route (``tools.route_id(name)``); see
        :mod:`schemarouter.integrations`."""
        # The one import that runs back up (retrieval -> integrations), lazily and on
        # purpose: ``result.tools()`` is the public convenience; the renderings live with
        # the other integrations, which read results (docs/architecture.md#the-one-exception).
        from schemarouter.integrations.definitions import tool_definitions

        tools = tool_definitions(
            self.candidates, format, defer_loading=defer_loading, snapshot=self._snapshot
        )
        tools.blocked, tools.reason, tools.retrieval = self.blocked, self.reason, self
        return tools
