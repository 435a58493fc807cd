"""The ``SchemaRouter`` facade: register, retrieve, plan (and execute) registered routes.

Every ``add_*`` method compiles its source through :func:`schemarouter.compile.build_registration`
and registers the result atomically: a source that fails anywhere registers nothing. The hybrid
index is built on first use and kept current by the registry (incremental updates under the
registry's lock). Retrieval has no side effects; everything that leaves it passes the gate.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import httpx

from schemarouter.abstention import AbstentionModel, abstention_features
from schemarouter.contracts import Effect
from schemarouter.errors import GateError, ModelError
from schemarouter.gate import check_candidates, validate_selection
from schemarouter.planner import Plan, PlanRequest, plan_routes, resolve_fields
from schemarouter.policy import HealthMonitor
from schemarouter.query import Analyzer, QueryAnalysis, RuleAnalyzer, gate_analysis
from schemarouter.registering import RegistrationMixin
from schemarouter.registry import Registry, RegistryChange, RegistrySnapshot
from schemarouter.rerank import (
    DEFAULT_FUSION_WEIGHT,
    DEFAULT_TOKEN_BUDGET,
    Reranker,
    blend_order,
    route_text,
)
from schemarouter.results import CapabilityRetrieval
from schemarouter.retrieval import Ranked, apply_analysis, build_candidates, matched_fields_for
from schemarouter.state import Exclusion, ExecutionState, exclusion_for

if TYPE_CHECKING:
    from schemarouter.credentials import CredentialProvider
    from schemarouter.index import Encoder, IndexSettings
    from schemarouter.index.backend import DeferredIndex, RouteIndex
    from schemarouter.policy import Approver, Budget, ExecutionPolicy
    from schemarouter.results_exec import ExecutionResult

__all__ = ["DEFAULT_RECALL_DEPTH", "DEFAULT_RERANK_DEPTH", "SchemaRouter"]

logger = logging.getLogger(__name__)

#: How many fused routes retrieval looks at before cutting to k (re-retrieval walks these).
DEFAULT_RECALL_DEPTH = 50
#: How many fused routes (after the ones the query names) the cross-encoder re-scores: the
#: point chosen on the accuracy/latency front in docs/reranker.md (about 36 ms on 2 cores).
DEFAULT_RERANK_DEPTH = 20

_DEFAULT: Any = object()


class _Ranking(NamedTuple):
    """Everything one query's ranking produced, before k and state are applied."""

    snapshot: RegistrySnapshot
    analysis: QueryAnalysis
    resolved: list[str]
    ranked: list[Ranked]
    reason: str
    warnings: list[str]
    signals: dict[str, float]
    reranked: bool = False


class SchemaRouter(RegistrationMixin):
    """One front door: register capabilities, then retrieve, plan and execute them."""

    def __init__(
        self,
        *,
        registry: Registry | None = None,
        encoder: Encoder | None = None,
        index_settings: IndexSettings | None = None,
        index: RouteIndex | DeferredIndex | str | Path | None = None,
        embedding_cache: Any = _DEFAULT,
        analyzer: Analyzer | None = None,
        abstention: AbstentionModel | Any | None = _DEFAULT,
        reranker: Reranker | str | Path | Any | None = _DEFAULT,
        rerank_depth: int = DEFAULT_RERANK_DEPTH,
        rerank_weight: float = DEFAULT_FUSION_WEIGHT,
        rerank_tokens: int | None = DEFAULT_TOKEN_BUDGET,
        recall_depth: int = DEFAULT_RECALL_DEPTH,
        projection: Literal["recall", "minimal"] = "recall",
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        #: route id -> (route fingerprint, invoker) for routes that can be executed here.
        self._bindings: dict[str, tuple[str, Any]] = {}
        #: route id -> monotonic time until which the route counts as unhealthy.
        self._unhealthy_until: dict[str, float] = {}
        #: consecutive failures per route; execution marks a route unhealthy at a threshold
        self.health_monitor = HealthMonitor()
        self.analyzer: Analyzer = analyzer if analyzer is not None else RuleAnalyzer()
        #: the calibrated abstention model; the shipped one applies only to registries that
        #: hold the catalog it was calibrated on, one passed here applies everywhere
        self.abstention = AbstentionModel.shipped() if abstention is _DEFAULT else abstention
        self._abstention_everywhere = abstention is not _DEFAULT
        #: the cross-encoder that re-scores the fused top ``rerank_depth`` (None: fusion order);
        #: by default the model shipped in ``schemarouter.models/reranker``; any object with
        #: ``score(query, texts)`` (and optionally ``route_text(route, fields=...)``) will do
        if reranker is _DEFAULT:
            self.reranker: Reranker | Any | None = Reranker.shipped()
        elif isinstance(reranker, str | Path):
            self.reranker = Reranker(reranker)
        else:
            self.reranker = reranker
        if rerank_depth < 2:
            raise ValueError("rerank_depth must be at least 2 (reranking one route is a no-op)")
        self.rerank_depth = rerank_depth
        self.rerank_weight = rerank_weight
        #: word pieces the reranker may read per query (None: no budget); long queries get
        #: fewer pairs, so its latency stays bounded (see ``Reranker.fit``)
        self.rerank_tokens = rerank_tokens
        self.recall_depth = recall_depth
        self.projection = projection
        self._encoder = encoder
        self._index_settings = index_settings
        self._embedding_cache = embedding_cache
        self._index_lock = threading.Lock()
        self._index: RouteIndex | None = None
        #: what to open on first use: a saved index folder, a ``milvus://`` URI or an index
        #: that must be attached to the registry first (see ``schemarouter.index.backend``)
        self._index_spec: DeferredIndex | str | Path | None = None
        if index is None or isinstance(index, str | Path) or hasattr(index, "open"):
            self._index_spec = index  # type: ignore[assignment]
        else:
            self._index = index
        self.registry.subscribe(self._on_registry_change)

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_catalog(cls, *paths: str | Path, **kwargs: Any) -> SchemaRouter:
        """A router with every catalog file under ``paths`` registered."""
        router = cls(**kwargs)
        for path in paths:
            router.add_catalog(path)
        return router

    # -- the index -----------------------------------------------------------------------

    @property
    def index(self) -> RouteIndex:
        """The route index (in-process or Milvus), built, loaded or opened on first use and
        kept current."""
        index = self._index
        if index is not None:
            return index
        with self._index_lock:
            if self._index is None:
                self._index = self._make_index()
            return self._index

    def _cache(self) -> Any:
        if self._embedding_cache is _DEFAULT:
            from schemarouter.index.build import default_embedding_cache

            self._embedding_cache = default_embedding_cache()
        return self._embedding_cache

    def _make_index(self) -> RouteIndex:
        from schemarouter.index.backend import open_index

        index = open_index(
            self._index_spec,
            self.registry.snapshot(),
            encoder=self._encoder,
            settings=self._index_settings,
            cache=self._cache(),
        )
        with self.registry.lock:  # catch up with registrations made while it was built
            index.apply(self.registry.snapshot(), cache=self._cache())
        return index

    def _on_registry_change(self, snapshot: RegistrySnapshot, change: RegistryChange) -> None:
        if self._index is not None:
            self._index.apply(snapshot, change, cache=self._cache())

    # -- retrieval -----------------------------------------------------------------------

    def _rank(self, query: str, depth: int, *, rerank: bool = True) -> _Ranking:
        """The full ranked list for ``query`` (before k), and the abstention reason."""
        index = self.index
        hits = index.search(query, k=depth)
        snapshot = self.registry.snapshot()  # at least as new as the index searched
        analysis = gate_analysis(self.analyzer.analyze(query, snapshot), snapshot)
        resolved, _ = resolve_fields(PlanRequest(query=query), snapshot)
        ranked = [
            Ranked(
                route_id=hit.route_id,
                score=hit.score,
                scores={"fused": hit.score, "lexical": hit.lexical_score, "dense": hit.dense_score},
                field_hits=hit.matched_fields,
            )
            for hit in hits
            if hit.route_id in snapshot.routes  # removed since the search: never emitted
        ]
        ranked, warnings = apply_analysis(ranked, analysis, snapshot)
        reason = ""
        signals: dict[str, float] = {}
        model = self._abstention_for(snapshot)
        if not ranked:
            reason = "no registered route matches the request"
        else:
            top = ranked[0].scores
            signals = abstention_features(
                top_dense=top.get("dense", 0.0),
                top_lexical=top.get("lexical", 0.0),
                known_word_share=index.known_token_share(query),
                resolved_fields=len(resolved),
                query_values=len(analysis.values),
            )
            if model is not None and not ranked[0].forced:
                p = model.probability(signals)
                signals["confidence"] = p
                if p < model.threshold:
                    reason = (
                        f"no registered route can serve the request (confidence {p:.2f} < "
                        f"calibrated threshold {model.threshold:.2f})"
                    )
        if model is None:
            warnings.append(
                "abstention is off: no model calibrated for this registry (fit one with "
                "`python -m schemarouter.training.abstention` and pass it as abstention=)"
            )
        reranked = False
        if self.reranker is None:
            warnings.append(
                "reranking is off: no reranker model (train one with `schemarouter "
                "train-reranker` and pass reranker=FOLDER)"
            )
        elif not rerank:
            warnings.append("reranking is off for this call (rerank=False)")
        elif ranked and not reason:
            ranked, reranked = self._rerank(self.reranker, query, ranked, snapshot, resolved)
        return _Ranking(snapshot, analysis, resolved, ranked, reason, warnings, signals, reranked)

    def _rerank(
        self,
        reranker: Reranker | Any,
        query: str,
        ranked: list[Ranked],
        snapshot: RegistrySnapshot,
        resolved: Sequence[str],
    ) -> tuple[list[Ranked], bool]:
        """The fused top ``rerank_depth`` re-ordered by the cross-encoder blended with fusion.

        The window is cut further to what fits in ``rerank_tokens`` word pieces (long queries
        leave room for fewer pairs). Routes the query names (forced to the top) keep their
        places; the rest of the window is ordered by :func:`blend_order` (``z(rerank) +
        rerank_weight * z(fused)``, or the blend a model was trained on when its card gives a
        ``fusion_coefficient``); the tail keeps fusion's order. ``score`` stays the fused
        score; ``scores["rerank"]`` is the model's logit. The route text lists the fields a
        candidate will show as matched, exactly as every training pair was written.
        """
        writer = getattr(reranker, "route_text", None) or route_text
        forced = 0
        while forced < len(ranked) and ranked[forced].forced:
            forced += 1
        window = ranked[forced : forced + self.rerank_depth]
        if len(window) < 2:
            return ranked, False
        texts = []
        for item in window:
            route = snapshot.routes[item.route_id]
            fields = matched_fields_for(route, resolved, item.field_hits)
            texts.append(writer(route, fields=fields))
        if isinstance(reranker, Reranker):  # scores the prefix that fits the token budget
            scores = reranker.score(query, texts, max_tokens=self.rerank_tokens).tolist()
            window, texts = window[: len(scores)], texts[: len(scores)]
        else:
            scores = [float(value) for value in reranker.score(query, texts)]
        if len(scores) != len(texts):
            raise ModelError(
                f"the reranker returned {len(scores)} scores for {len(texts)} routes",
                where=repr(reranker),
                hint="score(query, texts) must return one score per text",
            )
        order = blend_order(
            scores,
            [item.score for item in window],
            weight=self.rerank_weight,
            coefficient=getattr(reranker, "fusion_coefficient", None),
        )
        for item, value in zip(window, scores, strict=True):
            item.scores["rerank"] = value
        reordered = [window[i] for i in order]
        return ranked[:forced] + reordered + ranked[forced + len(window) :], True

    def _abstention_for(self, snapshot: RegistrySnapshot) -> AbstentionModel | None:
        model = self.abstention
        if model is None or self._abstention_everywhere:
            return model
        return model if model.applies_to(snapshot.providers) else None

    def _result(
        self, query: str, k: int, ranking: _Ranking, kept: Sequence[Ranked], **extra: Any
    ) -> CapabilityRetrieval:
        snapshot = ranking.snapshot
        candidates = (
            []
            if ranking.reason
            else build_candidates(kept, snapshot, ranking.analysis, ranking.resolved, k=k)
        )
        check_candidates(snapshot, candidates)
        return CapabilityRetrieval(
            query=query,
            k=k,
            registry_version=snapshot.version,
            registry_fingerprint=snapshot.fingerprint,
            candidates=tuple(candidates),
            abstained=bool(ranking.reason),
            reason=ranking.reason,
            analysis=ranking.analysis,
            warnings=tuple(ranking.warnings),
            signals=ranking.signals,
            reranked=ranking.reranked,
            **extra,
        )

    def retrieve(self, query: str, *, k: int = 5, rerank: bool = True) -> CapabilityRetrieval:
        """The ``k`` best registered routes for ``query``; no side effects, no permission.

        ``rerank=False`` keeps fusion's order for this call (the reranker costs about 36 ms
        on two cores); the result says whether it was ``reranked``.
        """
        if k < 1:
            raise ValueError("k must be at least 1")
        ranking = self._rank(query, max(k, self.recall_depth), rerank=rerank)
        return self._result(query, k, ranking, ranking.ranked[:k])

    async def aretrieve(
        self, query: str, *, k: int = 5, rerank: bool = True
    ) -> CapabilityRetrieval:
        """:meth:`retrieve` in a worker thread: the event loop never blocks."""
        return await asyncio.to_thread(self.retrieve, query, k=k, rerank=rerank)

    def _state_filter(
        self, query: str, state: ExecutionState, k: int, *, refill: bool
    ) -> CapabilityRetrieval:
        ranking = self._rank(query, max(k, self.recall_depth))
        if ranking.reason:
            return self._result(query, k, ranking, [])
        snapshot, ranked, warnings = ranking.snapshot, ranking.ranked, ranking.warnings
        unhealthy = {r for r in self._unhealthy_until if not self.is_healthy(r)}
        state = state.model_copy(update={"unhealthy_routes": state.unhealthy_routes | unhealthy})
        window = ranked if refill else ranked[:k]
        kept: list[Ranked] = []
        original: dict[str, int] = {}
        exclusions: list[Exclusion] = []
        examined = 0
        for rank, item in enumerate(window, start=1):
            if len(kept) == k:
                break
            examined += 1
            route = snapshot.routes[item.route_id]
            excluded = exclusion_for(
                route,
                state,
                rank=rank,
                is_bound=self.is_bound,
                needed_semantic_ids=ranking.resolved,
            )
            if excluded is not None:
                exclusions.append(excluded)
                continue
            kept.append(item)
            original[item.route_id] = rank
        exhausted = refill and len(kept) < k
        if exhausted:
            warnings.append(
                f"the ranked list ran out after {examined} routes with {len(kept)} eligible"
            )
        return self._result(
            query,
            k,
            ranking,
            kept,
            exclusions=tuple(exclusions),
            original_ranks=original,
            examined=examined,
            exhausted=exhausted,
        )

    def retrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5
    ) -> CapabilityRetrieval:
        """The fixed top ``k`` of :meth:`retrieve`, filtered by ``state`` (with reasons)."""
        return self._state_filter(query, state, k, refill=False)

    def reretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5
    ) -> CapabilityRetrieval:
        """Walk further down the same ranked list to refill ``k`` eligible routes."""
        return self._state_filter(query, state, k, refill=True)

    async def aretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(self.retrieve_state_aware, query, state=state, k=k)

    async def areretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(self.reretrieve_state_aware, query, state=state, k=k)

    def retrieve_executable(
        self, query: str, *, k: int = 5, state: ExecutionState | None = None
    ) -> CapabilityRetrieval:
        """Only routes bound to an invoker at their current fingerprint and healthy now."""
        base = state or ExecutionState()
        base = base.model_copy(update={"require_bound": True})
        return self._state_filter(query, base, k, refill=True)

    async def aretrieve_executable(
        self, query: str, *, k: int = 5, state: ExecutionState | None = None
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(self.retrieve_executable, query, k=k, state=state)

    # -- planning ------------------------------------------------------------------------

    def plan(
        self,
        request: str | PlanRequest,
        *,
        max_calls: int = 1,
        projection: Literal["recall", "minimal"] | None = None,
    ) -> Plan:
        """Field-first plan: the request's semantic fields, then up to ``max_calls`` routes."""
        if isinstance(request, str):
            request = PlanRequest(query=request, projection=projection or self.projection)
        elif projection is not None:
            request = request.model_copy(update={"projection": projection})
        analysis = None
        ranked: list[str] = []
        if request.query:
            ranking = self._rank(request.query, self.recall_depth)
            snapshot, analysis = ranking.snapshot, ranking.analysis
            ranked = [i.route_id for i in ranking.ranked]
            update: dict[str, Any] = {}
            if analysis.source_constraints and not request.source_types:
                update["source_types"] = analysis.source_constraints
            if analysis.named_providers and not request.providers:
                update["providers"] = analysis.named_providers
            request = request.model_copy(update=update)
        else:
            snapshot = self.registry.snapshot()
        plan = plan_routes(
            request,
            snapshot,
            ranked=ranked,
            values=analysis.values if analysis else (),
            max_calls=max_calls,
        )
        report = validate_selection(
            snapshot,
            [
                {
                    "route_id": s.route_id,
                    "fingerprint": s.fingerprint,
                    "fields": list(s.fields),
                    "arguments": s.arguments,
                }
                for s in plan.steps
            ],
        )
        if not report.clean:
            raise GateError(
                f"the plan carries unregistered parts: {report.rejected}",
                where=f"registry version {snapshot.version}",
                hint="This is a bug: report it with the request",
            )
        return plan

    # -- execution -----------------------------------------------------------------------

    def execute(
        self,
        plan: Plan,
        *,
        client: httpx.Client | None = None,
        credentials: CredentialProvider | None = None,
        allow_effects: Iterable[Effect | str] = (Effect.READ,),
        approve: Approver | None = None,
        policy: ExecutionPolicy | None = None,
        budget: Budget | None = None,
        partial: bool = False,
    ) -> ExecutionResult:
        """Run ``plan``: gate, policy, health, trusted invocation, output validation,
        declared normalization and projection (see :mod:`schemarouter.execute`)."""
        from schemarouter.execute import execute

        return execute(
            self,
            plan,
            client=client,
            credentials=credentials,
            allow_effects=allow_effects,
            approve=approve,
            policy=policy,
            budget=budget,
            partial=partial,
        )

    async def aexecute(
        self,
        plan: Plan,
        *,
        client: httpx.AsyncClient | None = None,
        credentials: CredentialProvider | None = None,
        allow_effects: Iterable[Effect | str] = (Effect.READ,),
        approve: Approver | None = None,
        policy: ExecutionPolicy | None = None,
        budget: Budget | None = None,
        partial: bool = False,
    ) -> ExecutionResult:
        """:meth:`execute` with non-blocking I/O."""
        from schemarouter.execute import aexecute

        return await aexecute(
            self,
            plan,
            client=client,
            credentials=credentials,
            allow_effects=allow_effects,
            approve=approve,
            policy=policy,
            budget=budget,
            partial=partial,
        )
