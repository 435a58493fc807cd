"""From index hits to gated candidates: names, provenance, abstention, field matching.

Pure functions over one registry snapshot and one list of index hits; the router facade
calls them in order:

1. :func:`apply_analysis` forces routes whose provider or tool the query names to the top,
   and filters by the query's source constraints (provenance) where that leaves something;
2. :func:`matched_fields_for` picks, per route, the fields the request needs: fields whose
   semantic id, name or alias the query resolves to (the alias layer), else the field
   documents that matched in the index;
3. :func:`build_candidates` turns the ranked route ids into :class:`Candidate` objects with
   bound parameters, and the gate checks them before they leave.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Route, SourceType, route_sources
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import QueryAnalysis, bind_parameters
from schemarouter.retrieval.clauses import without_refused
from schemarouter.retrieval.prerequisites import identifier_sources
from schemarouter.retrieval.results import Candidate, candidate_from_route
from schemarouter.safety.forksafe import ForkSafeLock

if TYPE_CHECKING:  # the index loads where first used (``import schemarouter`` stays light)
    from schemarouter.index.tokenize import QueryText

__all__ = [
    "FIELD_HITS_PER_ROUTE",
    "Ranked",
    "apply_analysis",
    "build_candidates",
    "coverage",
    "matched_fields_for",
    "matches_sources",
    "no_match_reason",
    "query_tokens",
]

#: How many index field hits may stand in for matched fields when the alias layer found none.
FIELD_HITS_PER_ROUTE = 3


#: What an empty ranking over a registry with routes says.
NO_MATCH = "no registered route matches the request"


def no_match_reason(snapshot: RegistrySnapshot, query: str | None = None) -> str:
    """Why a ranking came back empty: the request is empty (``query`` given blank), no route
    matches, or no route is registered at all (a router built without a catalog, or whose
    registrations all failed)."""
    if query is not None and not query.strip() and snapshot.routes:
        return "the request is empty: there are no words to match (pass the user's request)"
    if snapshot.routes:
        return NO_MATCH
    return (
        "no route is registered: register some first (add_openapi, add_mcp_tools, "
        "add_callable or add_catalog; SchemaRouter.from_catalog(...) for a catalog folder)"
    )


@dataclass
class Ranked:
    """A route in the working ranking: id, score, score parts, index field hits."""

    route_id: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    field_hits: tuple[str, ...] = ()

    @property
    def forced(self) -> bool:
        """Placed on top because the query named the route or its provider (the mark
        ``scores["named"]`` travels to the candidate, so callers can tell too)."""
        return "named" in self.scores


def matches_sources(route: Route, wanted: Iterable[SourceType]) -> bool:
    """Whether ``route`` may serve a request constrained to ``wanted`` provenance: one of its
    fields (or its provider) has it, or its provenance is unknown (which a constraint
    cannot rule out). Retrieval and planning filter by this one rule."""
    return bool(route_sources(route) & (set(wanted) | {SourceType.UNKNOWN}))


def apply_analysis(
    ranked: list[Ranked], analysis: QueryAnalysis, snapshot: RegistrySnapshot
) -> tuple[list[Ranked], list[str]]:
    """Force named routes and providers to the top; filter by provenance. Returns warnings."""
    warnings: list[str] = []
    present = {r.route_id for r in ranked}
    named_routes = [r for r in analysis.named_routes if r in snapshot.routes]
    named_providers = [p for p in analysis.named_providers if p in snapshot.providers]
    if named_providers:
        for provider in named_providers:
            for route in snapshot.routes_of(provider):
                if route.route_id not in present:
                    ranked.append(Ranked(route.route_id, float("-inf"), {"named": 1.0}))
                    present.add(route.route_id)
    for route_id in named_routes:
        if route_id not in present:
            ranked.append(Ranked(route_id, float("-inf"), {"named": 1.0}))
    named_set = set(named_routes)
    provider_set = set(named_providers)

    def tier(item: Ranked) -> int:
        if item.route_id in named_set:
            return 0
        if snapshot.routes[item.route_id].provider.id in provider_set:
            return 1
        return 2

    for item in ranked:
        if tier(item) < 2:
            item.scores["named"] = 1.0
    # stable sort: inside a tier the retrieval order is kept
    ranked = sorted(ranked, key=tier)
    if analysis.source_constraints:
        wanted = set(analysis.source_constraints)
        kept = [
            r for r in ranked if r.forced or matches_sources(snapshot.routes[r.route_id], wanted)
        ]
        if kept:
            ranked = kept
        else:
            warnings.append(
                "no retrieved route matches the source constraint "
                f"{'/'.join(s.value for s in analysis.source_constraints)}; not filtered"
            )
    return ranked, warnings


def matched_fields_for(
    route: Route, resolved: Sequence[str], field_hits: Sequence[str]
) -> tuple[str, ...]:
    """The route's fields the request needs.

    Where the query resolved to semantic ids (names, ids or aliases of the catalog), exactly
    the route's fields with those ids; otherwise the route's best field-document hits in the
    index (at most :data:`FIELD_HITS_PER_ROUTE`).
    """
    if resolved:
        wanted = set(resolved)
        return tuple(f.name for f in route.endpoint.output_fields if f.semantic_id in wanted)
    known = {f.name for f in route.endpoint.output_fields}
    return tuple(name for name in field_hits[:FIELD_HITS_PER_ROUTE] if name in known)


def build_candidates(
    ranked: Sequence[Ranked],
    snapshot: RegistrySnapshot,
    analysis: QueryAnalysis,
    resolved: Sequence[str],
    *,
    k: int,
) -> list[Candidate]:

    out: list[Candidate] = []
    listed = [item.route_id for item in ranked[:k]]
    offered = frozenset(listed)
    given = frozenset(value.kind for value in analysis.values)
    wanted = without_refused(analysis.values, analysis.text)  # not "do not delete kop-3"'s id
    for item in ranked[:k]:
        route = snapshot.routes[item.route_id]
        matched = matched_fields_for(route, resolved, item.field_hits)
        bound = bind_parameters(route, wanted)
        sources = identifier_sources(
            snapshot, route, offered, order=listed, given=given, supplied=bound
        )
        out.append(
            candidate_from_route(
                route,
                rank=len(out) + 1,
                score=item.score if item.score != float("-inf") else 0.0,
                matched_fields=matched,
                scores=item.scores,
                bound_parameters=bound,
                identifier_sources=sources,
            )
        )
    return out


# -- word coverage (a relevance signal) -----------------------------------------------------

#: Routes whose word sets are kept (by route fingerprint) for :func:`coverage`.
_TOKEN_CACHE_SIZE = 4096
_route_tokens: OrderedDict[str, frozenset[str]] = OrderedDict()
_tokens_lock = ForkSafeLock()


def query_tokens(query: str | QueryText) -> frozenset[str]:
    """The request's content words, as the index tokenizes them (stopwords dropped): the
    :attr:`~schemarouter.index.tokenize.QueryText.words` of its text."""
    from schemarouter.index.tokenize import QueryText

    return QueryText.of(query).words


def _tokens_of(route: Route, index: Any = None) -> frozenset[str]:
    key = route.fingerprint
    with _tokens_lock:
        found = _route_tokens.get(key)
        if found is not None:
            _route_tokens.move_to_end(key)
            return found
    held = getattr(index, "route_words", None)
    tokens = held(route) if callable(held) else None
    if tokens is None:  # no index, or one that cannot say (Milvus): tokenized here
        from schemarouter.index.documents import route_documents
        from schemarouter.index.tokenize import DEFAULT_TOKENIZER, tokenize

        words: set[str] = set()
        for doc in route_documents(route):
            words.update(tokenize(doc.text, DEFAULT_TOKENIZER))
        tokens = frozenset(words)
    with _tokens_lock:
        _route_tokens[key] = tokens
        while len(_route_tokens) > _TOKEN_CACHE_SIZE:
            _route_tokens.popitem(last=False)
    return tokens


def coverage(tokens: frozenset[str], route: Route, *, index: Any = None) -> float:
    """The share of ``tokens`` (a request's content words) that ``route``'s documents
    contain: bounded, and comparable across catalogs (0 for a request without words).

    A route's words are kept by route fingerprint; the first time a route is asked for,
    ``index`` (the router's) gives them where it holds them (``route_words(route)``: the
    tokens it indexed for that very route), else its documents are tokenized here."""
    if not tokens:
        return 0.0
    return len(tokens & _tokens_of(route, index)) / len(tokens)
