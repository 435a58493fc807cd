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
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import httpx

from schemarouter.abstention import AbstentionModel, abstention_features
from schemarouter.adapters.python import callable_registration
from schemarouter.catalog import load_catalog
from schemarouter.contracts import Effect, Provider, Registration, SourceType
from schemarouter.errors import GateError
from schemarouter.gate import check_candidates, validate_selection
from schemarouter.invokers.http import HttpTarget, bind_http_routes
from schemarouter.planner import Plan, PlanRequest, plan_routes, resolve_fields
from schemarouter.policy import HealthMonitor
from schemarouter.query import Analyzer, QueryAnalysis, RuleAnalyzer, gate_analysis
from schemarouter.registry import Registry, RegistryChange, RegistrySnapshot
from schemarouter.results import CapabilityRetrieval
from schemarouter.retrieval import Ranked, apply_analysis, build_candidates
from schemarouter.state import Exclusion, ExecutionState, exclusion_for

if TYPE_CHECKING:
    from schemarouter.credentials import CredentialProvider
    from schemarouter.index import Encoder, HybridIndex, IndexSettings
    from schemarouter.policy import Approver, Budget, ExecutionPolicy
    from schemarouter.results_exec import ExecutionResult

__all__ = ["DEFAULT_RECALL_DEPTH", "SchemaRouter"]

logger = logging.getLogger(__name__)

#: How many fused routes retrieval looks at before cutting to k (re-retrieval walks these).
DEFAULT_RECALL_DEPTH = 50

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


class SchemaRouter:
    """One front door: register capabilities, then retrieve, plan and execute them."""

    def __init__(
        self,
        *,
        registry: Registry | None = None,
        encoder: Encoder | None = None,
        index_settings: IndexSettings | None = None,
        index: HybridIndex | str | Path | None = None,
        embedding_cache: Any = _DEFAULT,
        analyzer: Analyzer | None = None,
        abstention: AbstentionModel | Any | None = _DEFAULT,
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
        self.abstention = AbstentionModel.shipped() if abstention is _DEFAULT else abstention
        self.recall_depth = recall_depth
        self.projection = projection
        self._encoder = encoder
        self._index_settings = index_settings
        self._embedding_cache = embedding_cache
        self._index_lock = threading.Lock()
        self._index: HybridIndex | None = None
        self._index_path = (
            None if index is None or not isinstance(index, str | Path) else Path(index)
        )
        if index is not None and not isinstance(index, str | Path):
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

    # -- registration ------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        return self.registry.snapshot()

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        """Register a compiled :class:`Registration` (all or nothing)."""
        change = self.registry.register(registration, replace=replace)
        self._drop_stale_bindings()
        logger.info(
            "registered %s: %d routes added, %d replaced, %d removed (registry v%d)",
            registration.source,
            len(change.added),
            len(change.replaced),
            len(change.removed),
            change.version,
        )
        return change

    def add_catalog(self, path: str | Path, *, replace: bool = False) -> RegistryChange:
        """Register a catalog file or folder (see :mod:`schemarouter.catalog`).

        A catalog is the caller's own declaration, so its HTTP routes with an absolute
        ``base_url`` are bound for execution at once (calls still need their credentials).
        """
        change = self.register(load_catalog(path), replace=replace)
        bind_http_routes(self)
        return change

    def add_callable(
        self,
        fn: Callable[..., Any] | Sequence[Callable[..., Any]],
        *,
        provider: str | Provider,
        effect: Effect | str | None = None,
        license: str | None = None,
        source_type: SourceType | str = SourceType.UNKNOWN,
        replace: bool = False,
    ) -> RegistryChange:
        """Register typed Python callables and bind them for execution."""
        functions = list(fn) if isinstance(fn, Sequence) else [fn]
        registration = callable_registration(
            functions, provider=provider, effect=effect, license=license, source_type=source_type
        )
        change = self.register(registration, replace=replace)
        by_qualname = {f"{f.__module__}.{f.__qualname__}": f for f in functions}
        for route in registration.routes:
            qualname = route.endpoint.operation.qualname
            if qualname in by_qualname:
                self._bindings[route.route_id] = (route.fingerprint, by_qualname[qualname])
        return change

    def add_openapi(
        self,
        document: str | Path | Mapping[str, Any],
        *,
        provider: str | Provider,
        base_url: str | None = None,
        access_id: str = "rest",
        client: httpx.Client | None = None,
        effect_overrides: Mapping[str, Effect | str] | None = None,
        replace: bool = False,
    ) -> RegistryChange:
        """Register an OpenAPI 2.0 / 3.0 / 3.1 document (path, URL or dict).

        Routes are bound for execution at registration when the access path has an absolute
        base URL (``base_url``, or the document's own server); otherwise they stay unbound
        until :meth:`bind`.
        """
        from schemarouter.adapters.openapi import openapi_registration

        registration = openapi_registration(
            document,
            provider=provider,
            base_url=base_url,
            access_id=access_id,
            client=client,
            effect_overrides=effect_overrides,
        )
        change = self.register(registration, replace=replace)
        for route in registration.routes:
            if route.access.base_url:
                self._bindings[route.route_id] = (
                    route.fingerprint,
                    HttpTarget(route.access.base_url),
                )
        return change

    def add_mcp_tools(
        self,
        tools: Any,
        *,
        provider: str | Provider,
        server: str | None = None,
        trusted: bool = False,
        access_id: str = "mcp",
        replace: bool = False,
    ) -> RegistryChange:
        """Register the tools of an MCP ``tools/list`` result. They stay unbound until a
        live session binds them (:meth:`aadd_mcp_server`) or :meth:`bind` is called."""
        from schemarouter.adapters.mcp import mcp_tools_registration

        return self.register(
            mcp_tools_registration(
                tools, provider=provider, server=server, trusted=trusted, access_id=access_id
            ),
            replace=replace,
        )

    async def aadd_mcp_server(
        self,
        server: Sequence[str] | str,
        *,
        provider: str | Provider,
        trusted: bool = False,
        env: Mapping[str, str] | None = None,
        access_id: str = "mcp",
        replace: bool = False,
    ) -> RegistryChange:
        """Connect to an MCP server (stdio command or streamable-HTTP URL; needs the ``mcp``
        extra), list its tools and register them."""
        from schemarouter.adapters.mcp import mcp_server_registration

        registration = await mcp_server_registration(
            server, provider=provider, trusted=trusted, env=env, access_id=access_id
        )
        return self.register(registration, replace=replace)

    def add_mcp_server(
        self,
        server: Sequence[str] | str,
        *,
        provider: str | Provider,
        trusted: bool = False,
        env: Mapping[str, str] | None = None,
        access_id: str = "mcp",
        replace: bool = False,
    ) -> RegistryChange:
        """Synchronous :meth:`aadd_mcp_server` (runs its own event loop in a worker thread,
        so it also works inside a running loop)."""
        coroutine = self.aadd_mcp_server(
            server,
            provider=provider,
            trusted=trusted,
            env=env,
            access_id=access_id,
            replace=replace,
        )
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coroutine).result()

    def remove_provider(self, provider: str) -> RegistryChange:
        change = self.registry.remove(provider=provider)
        self._drop_stale_bindings()
        return change

    # -- bindings ----------------------------------------------------------------------

    def bind(self, route_id: str, invoker: Any) -> None:
        """Bind an invoker to a route's *current* fingerprint."""
        route = self.snapshot().route(route_id)
        self._bindings[route_id] = (route.fingerprint, invoker)

    def unbind(self, route_id: str) -> None:
        """Forget the invoker of ``route_id`` (it stays registered, but cannot execute)."""
        self._bindings.pop(route_id, None)

    def binding(self, route_id: str) -> Any | None:
        """The invoker bound to ``route_id`` at its current fingerprint, else ``None``."""
        return self._bindings[route_id][1] if self.is_bound(route_id) else None

    def bindings(self) -> dict[str, tuple[str, Any]]:
        """route id -> (fingerprint, invoker) for every binding (stale ones included)."""
        return dict(self._bindings)

    def is_bound(self, route_id: str) -> bool:
        binding = self._bindings.get(route_id)
        routes = self.snapshot().routes
        return (
            binding is not None
            and route_id in routes
            and routes[route_id].fingerprint == binding[0]
        )

    # -- health ------------------------------------------------------------------------

    def mark_unhealthy(self, route_id: str, *, cooldown: float = 60.0) -> None:
        """Treat ``route_id`` as unhealthy for ``cooldown`` seconds."""
        self._unhealthy_until[route_id] = time.monotonic() + cooldown

    def mark_healthy(self, route_id: str) -> None:
        self._unhealthy_until.pop(route_id, None)

    def is_healthy(self, route_id: str) -> bool:
        until = self._unhealthy_until.get(route_id)
        return until is None or time.monotonic() >= until

    # -- the index -----------------------------------------------------------------------

    @property
    def index(self) -> HybridIndex:
        """The hybrid index, built (or loaded) on first use and kept current."""
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

    def _make_index(self) -> HybridIndex:
        from schemarouter.index import HybridIndex

        snapshot = self.registry.snapshot()
        if self._index_path is not None:
            index = HybridIndex.load(self._index_path, snapshot, encoder=self._encoder)
        else:
            index = HybridIndex.build(
                snapshot,
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

    def _rank(self, query: str, depth: int) -> _Ranking:
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
            if self.abstention is not None and not ranked[0].forced:
                p = self.abstention.probability(signals)
                signals["confidence"] = p
                if p < self.abstention.threshold:
                    reason = (
                        f"no registered route can serve the request (confidence {p:.2f} < "
                        f"calibrated threshold {self.abstention.threshold:.2f})"
                    )
        if self.abstention is None:
            warnings.append("abstention is off: no calibrated model")
        warnings.append("reranking is off: no reranker model")
        return _Ranking(snapshot, analysis, resolved, ranked, reason, warnings, signals)

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
            **extra,
        )

    def retrieve(self, query: str, *, k: int = 5) -> CapabilityRetrieval:
        """The ``k`` best registered routes for ``query``; no side effects, no permission."""
        if k < 1:
            raise ValueError("k must be at least 1")
        ranking = self._rank(query, max(k, self.recall_depth))
        return self._result(query, k, ranking, ranking.ranked[:k])

    async def aretrieve(self, query: str, *, k: int = 5) -> CapabilityRetrieval:
        """:meth:`retrieve` in a worker thread: the event loop never blocks."""
        return await asyncio.to_thread(self.retrieve, query, k=k)

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

    def _drop_stale_bindings(self) -> None:
        routes = self.snapshot().routes
        for route_id, (fp, _) in list(self._bindings.items()):
            if route_id not in routes or routes[route_id].fingerprint != fp:
                logger.info("unbinding %s: its fingerprint changed or it was removed", route_id)
                del self._bindings[route_id]
