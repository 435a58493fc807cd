"""The ``SchemaRouter`` facade: register, retrieve, plan (and execute) registered routes.

Every ``add_*`` method compiles its source (:func:`~.registry.compile.build_registration`)
and registers the result atomically: a source that fails anywhere registers nothing. The
hybrid index is built on first use and kept current by the registry (incremental updates
under its lock). Retrieval has no side effects; everything that leaves it passes the gate.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Unpack

import httpx

from schemarouter.checks import (
    check_flag,
    check_instance,
    check_positive_int,
    check_text,
    normalize_text,
)
from schemarouter.errors import ArgumentError, GateError, StaleIndexError
from schemarouter.execution.bindings import BindingTable, CooldownTable
from schemarouter.execution.drivers import acall_route, arun_plan, call_route, run_plan
from schemarouter.execution.gate import ExecutionOptions, Settings
from schemarouter.execution.policy import HealthMonitor
from schemarouter.indexing import _DEFAULT, PROGRESS_MIN_ROUTES, IndexMixin
from schemarouter.integrations.names import own_arguments
from schemarouter.planning.arguments import refused_values, unused_values
from schemarouter.planning.asked_changes import parts_by_change, things_blanked, undone_notes
from schemarouter.planning.body import partial_body
from schemarouter.planning.conditions import conditional_parts, withhold_conditional
from schemarouter.planning.contrasted_ids import contrasted_ids
from schemarouter.planning.flagged_changes import refusal
from schemarouter.planning.planner import Plan, PlanRequest, plan_routes
from schemarouter.planning.several import each_of_several, left_out_notes
from schemarouter.registry.registry import Registry
from schemarouter.retrieval.abstention import AbstentionModel
from schemarouter.retrieval.analysis import (
    Analyzer,
    RuleAnalyzer,
    providers_of_every_part,
    registry_kinds,
)
from schemarouter.retrieval.gate import validate_selection
from schemarouter.retrieval.intents import DEFAULT_MIN_SIMILARITY, PartReading
from schemarouter.retrieval.learned import RankingModel, ranking_model_of
from schemarouter.retrieval.prerequisites import producers
from schemarouter.retrieval.ranking import Ranker, RankerSetting
from schemarouter.retrieval.rerank import (
    DEFAULT_FUSION_WEIGHT,
    DEFAULT_TOKEN_BUDGET,
    Reranker,
    reranker_of,
)
from schemarouter.retrieval.results import CapabilityRetrieval
from schemarouter.retrieval.state import ExecutionState
from schemarouter.safety.arguments import FILTER_SEMANTIC_ID
from schemarouter.shipped import router_model

if TYPE_CHECKING:
    from schemarouter.execution.results import CallResult, ExecutionResult
    from schemarouter.index import Encoder, IndexSettings
    from schemarouter.index.backend import DeferredIndex, RouteIndex

__all__ = ["DEFAULT_RECALL_DEPTH", "DEFAULT_RERANK_DEPTH", "PROGRESS_MIN_ROUTES", "SchemaRouter"]

logger = logging.getLogger(__name__)

#: How many fused routes retrieval looks at before cutting to k (re-retrieval walks these).
DEFAULT_RECALL_DEPTH = 50
#: How many fused routes (after the ones the query names) the cross-encoder re-scores: the
#: point chosen on the accuracy/latency front in docs/reranker.md (about 36 ms on 2 cores).
DEFAULT_RERANK_DEPTH = 20


class SchemaRouter(IndexMixin):
    """One front door: register capabilities, then retrieve, plan and execute them."""

    # The ranking settings, held by ``self.ranker`` and read and set here as ever:
    #: the query analyzer (named providers and routes, provenance, identifier values)
    analyzer = RankerSetting()
    #: the calibrated abstention model; the shipped one (calibrated on tooltrain's
    #: validation catalogs and the bundled dev split) applies to any registry searched
    #: with the encoder it was calibrated for; one passed here applies everywhere
    abstention = RankerSetting()
    #: the cross-encoder that re-scores the fused top ``rerank_depth`` (None: fusion order);
    #: by default the model shipped in ``schemarouter.models/reranker``; any object with
    #: ``score(query, texts)`` (and optionally ``route_text(route, fields=...)``) will do;
    #: as on the command line, ``"shipped"`` is the shipped model even where its card
    #: leaves it off, ``"none"`` is no reranker, any other text or a Path a model folder
    reranker = RankerSetting(reranker_of)
    rerank_depth = RankerSetting()
    rerank_weight = RankerSetting()
    #: word pieces the reranker may read per query (None: no budget); long queries get
    #: fewer pairs, so its latency stays bounded (see ``Reranker.fit``)
    rerank_tokens = RankerSetting()
    #: a multi-part request gets each part's best candidate into the top k
    #: (:mod:`schemarouter.retrieval.intents`); off by default, for the figures in
    #: docs/generalization.md#multi-intent-coverage
    multi_intent = RankerSetting()
    #: after a top-k route that needs an identifier (``/person/{person_id}/credits``),
    #: the route that produces it (``/search/person``) is lifted in
    #: (:mod:`schemarouter.retrieval.prerequisites`); on by default, for the figures in
    #: docs/generalization.md#identifiers-a-route-needs
    prerequisites = RankerSetting()
    #: a part's best route is lifted only from this encoder cosine up (chosen for the
    #: shipped encoder; see :data:`schemarouter.retrieval.intents.DEFAULT_MIN_SIMILARITY`)
    intent_min_similarity = RankerSetting()
    #: a request's action (create / send / delete against get / list / show) scores the
    #: routes doing the opposite down within the fused window
    #: (:mod:`schemarouter.retrieval.actions`); rule-based, on by default
    actions = RankerSetting()
    #: the learned ranking stage over the fused window (:mod:`.retrieval.learned`); by
    #: default the shipped model where its card turns it on, else none (fusion order);
    #: a folder path or a RankingModel turns one on, ``None`` turns it off
    ranking_model = RankerSetting(ranking_model_of)

    def __init__(
        self,
        *,
        registry: Registry | None = None,
        encoder: Encoder | str | Path | None = None,
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
        multi_intent: bool = False,
        prerequisites: bool = True,
        abstain: bool = False,
        actions: bool = True,
        ranking: RankingModel | str | Path | Any | None = _DEFAULT,
        progress: bool | None = None,
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        #: route id -> (route fingerprint, invoker) for routes that can be executed here;
        #: a batch's changes are staged with it
        self._bindings = BindingTable(self.registry)
        #: route id -> until when the route counts as unhealthy, and why
        self._cooldowns = CooldownTable()
        #: consecutive failures per route; execution marks a route unhealthy at a threshold
        self.health_monitor = HealthMonitor()
        abstention_model = AbstentionModel.shipped() if abstention is _DEFAULT else abstention
        #: withhold the candidates of a request the calibrated verdict flags off the catalog
        #: (every retrieval method's default; off: the best routes are always returned, with
        #: ``off_catalog``, ``confidence`` and ``reason`` on the result). Plans refuse such a
        #: request unless it names semantic fields (then planned by them, with a warning).
        self.abstain = check_flag(abstain, method="SchemaRouter", name="abstain")
        actions = check_flag(actions, method="SchemaRouter", name="actions")
        # the shipped models where none is given, and why each is off by default where
        # its card says so (the ranker says that once per process)
        ranking_model, ranking_off_reason = router_model(
            ranking, RankingModel, ranking_model_of, given=ranking is not _DEFAULT
        )
        reranker, rerank_off_reason = router_model(
            reranker, Reranker, reranker_of, given=reranker is not _DEFAULT
        )
        if check_positive_int(rerank_depth, method="SchemaRouter", name="rerank_depth") < 2:
            raise ArgumentError(
                "rerank_depth must be at least 2 (reranking one route is a no-op)",
                where="SchemaRouter(rerank_depth=...)",
            )
        self.recall_depth = recall_depth
        self.projection = projection
        #: the ranking stages and their models (settings read and set through the router)
        self.ranker = Ranker(
            self.registry,
            index=lambda: self.index,
            analyzer=analyzer if analyzer is not None else RuleAnalyzer(),
            abstention=abstention_model,
            abstention_everywhere=abstention is not _DEFAULT,
            reranker=reranker,
            rerank_off_reason=rerank_off_reason,
            rerank_depth=rerank_depth,
            rerank_weight=rerank_weight,
            rerank_tokens=rerank_tokens,
            multi_intent=multi_intent,
            prerequisites=prerequisites,
            intent_min_similarity=DEFAULT_MIN_SIMILARITY,
            actions=actions,
            ranking_model=ranking_model,
            ranking_off_reason=ranking_off_reason,
        )
        #: progress bars (tqdm, on stderr) while the index is first built: ``None`` shows
        #: them for catalogs of :data:`PROGRESS_MIN_ROUTES` routes or more when the
        #: ``schemarouter`` logger is enabled for INFO; ``True`` / ``False`` always / never
        self.progress = progress
        #: the encoder the index embeds with (None: the default one); a folder that
        #: ``schemarouter train-encoder`` wrote is loaded as an ``OnnxEncoder`` and checked now
        self._encoder = self._encoder_of(encoder)
        self._index_settings = index_settings
        if isinstance(embedding_cache, str | Path):  # a folder, as build_index(cache=) takes
            from schemarouter.index.cache import EmbeddingCache

            embedding_cache = EmbeddingCache(embedding_cache)
        self._embedding_cache = embedding_cache
        self._index_lock = threading.Lock()
        self._index = None
        self._built = None
        self._restored = None
        #: what to open on first use: a saved index folder, a ``milvus://`` URI or an index
        #: that must be attached to the registry first (see ``schemarouter.index.backend``)
        self._index_spec = None
        if index is None or isinstance(index, str | Path) or hasattr(index, "open"):
            self._index_spec = index  # type: ignore[assignment]
        else:
            self._index = index
        self.registry.subscribe(self._on_registry_change)

    # -- construction ------------------------------------------------------------------

    @staticmethod
    def _encoder_of(encoder: Any) -> Encoder | None:
        if encoder is None:
            return None
        from schemarouter.index.encoders.defaults import encoder_of

        return encoder_of(encoder)

    @classmethod
    def from_catalog(cls, *paths: str | Path, **kwargs: Any) -> SchemaRouter:
        """A router with every catalog file under ``paths`` registered."""
        router = cls(**kwargs)
        for path in paths:
            router.add_catalog(path)
        return router

    @classmethod
    def from_index(cls, path: str | Path, **kwargs: Any) -> SchemaRouter:
        """A router started from the index folder ``path`` alone: the registry saved in it
        is registered (no source document is read; HTTP routes are bound to their saved base
        URLs as at registration, Python callables and MCP tools stay unbound until bound
        again), then the index is loaded and checked against it. ``kwargs`` go to the
        router (``encoder=``, ``reranker=`` ...). An index saved without its registry (by
        an older version) is an :class:`~schemarouter.errors.IndexStoreError`: give the
        sources with ``SchemaRouter(index=path)`` and ``add_*``, or rebuild it.

        A rebuild that replaces the folder between reading its registry and loading its
        index (the index then has another registry) starts over from the new one, as a load
        does (trial Z2); a stale index that nothing replaced is refused as ever."""
        from schemarouter.index.store import LOAD_ATTEMPTS

        attempt = 1
        while True:
            router = cls(index=path, **kwargs)
            try:
                router.restore_registry(path)
                router.build_index()
                return router
            except StaleIndexError:
                router.close()
                if attempt == LOAD_ATTEMPTS or not router.restored_replaced():
                    raise
                logger.info("the index at %s was replaced while it started (try %d)", path, attempt)
                attempt += 1
            except BaseException:
                router.close()
                raise

    # -- the index (the rest: schemarouter.indexing) -----------------------------------

    def build_index(self, *, progress: bool | None = None) -> RouteIndex:
        """Build (or load, or open) the index now rather than on the first query, with
        progress bars on stderr if asked (``None``: as :attr:`progress` says): worth it for
        a large catalog, whose first build embeds every document. An index already built is
        returned as it is. With ``prerequisites`` on, the table of identifier producers is
        read here too (about a second at 100,000 routes; after that only changed routes are
        read again)."""
        index = self._ready_index(progress=self._show_progress(progress))
        if self.prerequisites:
            producers(self.registry.snapshot())
        return index

    # -- retrieval -----------------------------------------------------------------------

    def _rank(self, query: str, depth: int, *, rerank: bool = True, k: int = 5) -> Any:
        """:meth:`Ranker.rank` (the training harness reads the full ranking through it)."""
        return self.ranker.rank(query, depth, rerank=rerank, k=k)

    def retrieve(
        self, query: str, *, k: int = 5, rerank: bool = True, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        """The ``k`` best registered routes for ``query``; no side effects, no permission.

        Whenever a route is registered, the ``k`` best are returned; a request the calibrated
        verdict finds off the catalog is flagged (``off_catalog``, ``confidence``,
        ``reason``), not hidden. ``abstain=True`` (or ``SchemaRouter(abstain=True)``) returns
        no candidates for such a request instead. ``rerank=False`` keeps fusion's order for
        this call; the result says whether it was ``reranked``.
        """
        query = check_text(query, method="retrieve")
        k = check_positive_int(k, method="retrieve", name="k")
        check_flag(rerank, method="retrieve", name="rerank")
        abstain = self._abstain(abstain, method="retrieve")
        ranking = self.ranker.rank(query, max(k, self.recall_depth), rerank=rerank, k=k)
        return self.ranker.result(query, k, ranking, ranking.ranked[:k], abstain=abstain)

    async def aretrieve(
        self, query: str, *, k: int = 5, rerank: bool = True, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        """:meth:`retrieve` in a worker thread: the event loop never blocks."""
        return await asyncio.to_thread(self.retrieve, query, k=k, rerank=rerank, abstain=abstain)

    def _abstain(self, abstain: bool | None, *, method: str) -> bool:
        if abstain is None:
            return self.abstain
        return check_flag(abstain, method=method, name="abstain")

    def _state_filter(
        self, query: str, state: ExecutionState, k: int, *, refill: bool, abstain: bool | None
    ) -> CapabilityRetrieval:
        method = "retrieve_executable" if state.require_bound else "retrieve_state_aware"
        query = check_text(query, method=method)
        k = check_positive_int(k, method=method, name="k")
        hide = self._abstain(abstain, method=method)
        # the cooldowns and their reasons at one instant: one that ends while the list is
        # ranked still says why the route is out, never that the host marked it
        cooling = self._cooldowns.cooling()
        told = state
        state = state.model_copy(
            update={"unhealthy_routes": state.unhealthy_routes | frozenset(cooling)}
        )

        def detail(reason: str, route_id: str) -> str | None:
            if reason == "unhealthy" and route_id in cooling:
                return cooling[route_id]
            return self._left_out(reason, route_id)

        depth = max(k, self.recall_depth)
        return self.ranker.filtered(
            query,
            state,
            k,
            depth=depth,
            refill=refill,
            hide=hide,
            is_bound=self.is_bound,
            detail=detail,
            told=told,
        )

    def retrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        """The fixed top ``k`` of :meth:`retrieve`, filtered by ``state`` (with reasons)."""
        check_instance(state, ExecutionState, method="retrieve_state_aware", name="state")
        return self._state_filter(query, state, k, refill=False, abstain=abstain)

    def reretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        """Walk further down the same ranked list to refill ``k`` eligible routes."""
        check_instance(state, ExecutionState, method="reretrieve_state_aware", name="state")
        return self._state_filter(query, state, k, refill=True, abstain=abstain)

    async def aretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(
            self.retrieve_state_aware, query, state=state, k=k, abstain=abstain
        )

    async def areretrieve_state_aware(
        self, query: str, *, state: ExecutionState, k: int = 5, abstain: bool | None = None
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(
            self.reretrieve_state_aware, query, state=state, k=k, abstain=abstain
        )

    def retrieve_executable(
        self,
        query: str,
        *,
        k: int = 5,
        state: ExecutionState | None = None,
        abstain: bool | None = None,
    ) -> CapabilityRetrieval:
        """Only routes bound at their current fingerprint, healthy now, and that ``state``
        allows (by default reads only: ``ExecutionState(allowed_effects=...)`` for writes)."""
        check_instance(
            state, ExecutionState, method="retrieve_executable", name="state", optional=True
        )
        base = state or ExecutionState()
        base = base.model_copy(update={"require_bound": True})
        return self._state_filter(query, base, k, refill=True, abstain=abstain)

    async def aretrieve_executable(
        self,
        query: str,
        *,
        k: int = 5,
        state: ExecutionState | None = None,
        abstain: bool | None = None,
    ) -> CapabilityRetrieval:
        return await asyncio.to_thread(
            self.retrieve_executable, query, k=k, state=state, abstain=abstain
        )

    # -- planning ------------------------------------------------------------------------

    def plan(
        self,
        request: str | PlanRequest,
        *,
        max_calls: int = 1,
        projection: Literal["recall", "minimal"] | None = None,
    ) -> Plan:
        """Field-first plan: the request's semantic fields, then up to ``max_calls`` routes."""
        check_instance(request, (str, PlanRequest), method="plan", name="request")
        max_calls = check_positive_int(max_calls, method="plan", name="max_calls")
        if projection not in (None, "recall", "minimal"):
            raise ArgumentError(
                f"projection must be 'recall', 'minimal' or None, got {projection!r}",
                where="plan(projection=...)",
            )
        if isinstance(request, str):
            request = check_text(request, method="plan", name="request")
            request = PlanRequest(query=request, projection=projection or self.projection)
        elif projection is not None:
            request = request.model_copy(update={"projection": projection})
        if request.query and normalize_text(request.query) != request.query:
            request = request.model_copy(update={"query": normalize_text(request.query)})
        analysis = None
        ranked: list[str] = []
        hits: dict[str, tuple[str, ...]] = {}
        abstained = flagged = ""
        parts: list[tuple[str, str]] = []
        misses: list[tuple[str, str, str]] = []
        reading = PartReading([], {})
        if request.query:
            ranking = self.ranker.rank(request.query, self.recall_depth)
            snapshot, analysis = ranking.snapshot, ranking.analysis
            ranked = [i.route_id for i in ranking.ranked]
            hits = {i.route_id: i.field_hits for i in ranking.ranked}
            flagged = ranking.reason  # not refused: a change asked on the ids it names
            abstained = refusal(flagged, request.query, snapshot, ranked, analysis.values)
            if max_calls > 1 and request.parts and ranked and not abstained:
                reading = self.ranker.part_reading(request.query, ranked)
                parts = [(text, route_id) for text, route_id, why in reading.report if not why]
                parts = parts_by_change(parts, reading.scores, snapshot)  # "닫고 ... 다시 열어줘"
                misses = [item for item in reading.report if item[2]]
                parts, misses = conditional_parts(request.query, parts, misses, snapshot)
            update: dict[str, Any] = {}
            if analysis.source_constraints and not request.source_types:
                update["source_types"] = analysis.source_constraints
            # a part that names no provider is not kept to another part's
            named = analysis.named_providers and not request.providers
            if named and (kept := providers_of_every_part(request.query, snapshot)):
                update["providers"] = kept
            request = request.model_copy(update=update)
        else:
            snapshot = self.registry.snapshot()
        plan = plan_routes(
            request,
            snapshot,
            ranked=ranked,
            values=contrasted_ids(analysis.values, request.query, snapshot) if analysis else (),
            max_calls=max_calls,
            field_hits=hits,
            abstained=abstained,
            parts=parts,
            part_misses=misses,
            served_by=reading.served_by,
        )
        withheld: list[str] = []  # a change on a condition the user states (conditions.py)
        if plan.steps and analysis is not None:
            plan = each_of_several(plan, snapshot, analysis.values, request.query)
            plan, withheld = withhold_conditional(
                plan,
                snapshot,
                analysis.values,
                lambda text: [
                    (r.route_id, r.field_hits)
                    for r in self.ranker.rank(text, self.recall_depth).ranked
                ],
            )
            given = [s.arguments for s in plan.steps]
            takes = bool(registry_kinds(snapshot) & {"chemical.formula", FILTER_SEMANTIC_ID})
            unused = unused_values(given, analysis.values, request.query, formulas=takes)
            unused += left_out_notes(given, analysis.values, request.query)
            asked = things_blanked(request.query, analysis.values)  # "Ship order O-1"
            unused += undone_notes([*plan.route_ids, *withheld], snapshot, asked)
            for step in plan.steps:
                route = snapshot.routes[step.route_id]
                unused += refused_values(route, step.arguments, analysis.values)
            if unused:
                plan = plan.model_copy(update={"warnings": (*plan.warnings, *unused)})
        if plan.steps and flagged:  # planned by the fields, or the change and ids, it names
            note = f"the request is flagged off the catalog ({flagged}); planned by the "
            note += "semantic fields it names: check the routes serve what it means"
            plan = plan.model_copy(update={"warnings": (*plan.warnings, note)})
        # a body the request filled in part is checked without its missing properties
        checked = [partial_body(snapshot.routes[s.route_id], s.arguments) for s in plan.steps]
        report = validate_selection(
            snapshot,
            [
                {
                    "route_id": s.route_id,
                    "fingerprint": s.fingerprint,
                    "fields": list(s.fields),
                    "arguments": arguments,
                }
                for s, (arguments, _) in zip(plan.steps, checked, strict=True)
            ],
        )
        broken = [why for _, why in checked if why]
        if not report.clean or broken:
            raise GateError(
                f"the plan carries unregistered parts: {[*report.rejected, *broken]}",
                where=f"registry version {snapshot.version}",
                hint="This is a bug: report it with the request",
            )
        return plan

    async def aplan(
        self,
        request: str | PlanRequest,
        *,
        max_calls: int = 1,
        projection: Literal["recall", "minimal"] | None = None,
    ) -> Plan:
        """:meth:`plan` in a worker thread: the event loop never blocks (its ranking is
        :meth:`retrieve`'s work, as :meth:`aretrieve` runs it)."""
        return await asyncio.to_thread(
            self.plan, request, max_calls=max_calls, projection=projection
        )

    # -- execution -----------------------------------------------------------------------

    def execute(
        self,
        plan: Plan,
        *,
        client: httpx.Client | None = None,
        **options: Unpack[ExecutionOptions],
    ) -> ExecutionResult:
        """Run ``plan``: gate, policy, health, trusted invocation, output validation,
        declared normalization and projection (see :mod:`schemarouter.execution.drivers`).
        ``options`` (:class:`~schemarouter.execution.gate.ExecutionOptions`: credentials,
        allowed effects, approval, policy, budget, partial) are checked into one
        :class:`~schemarouter.execution.gate.Settings`."""
        check_instance(plan, Plan, method="execute", name="plan")
        settings = Settings.of("execute", **options)
        return run_plan(self, plan, settings, client=client)

    async def aexecute(
        self,
        plan: Plan,
        *,
        client: httpx.AsyncClient | None = None,
        **options: Unpack[ExecutionOptions],
    ) -> ExecutionResult:
        """:meth:`execute` with non-blocking I/O."""
        check_instance(plan, Plan, method="aexecute", name="plan")
        settings = Settings.of("aexecute", **options)
        return await arun_plan(self, plan, settings, client=client)

    def call(
        self,
        route_id: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        fields: Sequence[str] | None = None,
        client: httpx.Client | None = None,
        **options: Unpack[ExecutionOptions],
    ) -> CallResult:
        """Run exactly ``route_id`` with ``arguments`` (what an agent picked): parameter
        validation, gate, policy, health and output validation as for a plan. The result
        carries the validated raw output (projected to ``fields`` where given) and typed
        fields where the route declares them (:mod:`schemarouter.execution.drivers`), ``options``
        as for :meth:`execute`; an argument may come under its tool definition's key."""
        settings = Settings.of("call", **options)
        arguments = own_arguments(self.snapshot(), route_id, arguments, method="call")
        return call_route(self, route_id, arguments, settings, fields=fields, client=client)

    async def acall(
        self,
        route_id: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        fields: Sequence[str] | None = None,
        client: httpx.AsyncClient | None = None,
        **options: Unpack[ExecutionOptions],
    ) -> CallResult:
        """:meth:`call` with non-blocking I/O."""
        settings = Settings.of("acall", **options)
        arguments = own_arguments(self.snapshot(), route_id, arguments, method="acall")
        return await acall_route(self, route_id, arguments, settings, fields=fields, client=client)
