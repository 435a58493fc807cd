"""How the router ranks one request: search, query analysis, reranking, multi-intent
coverage, calibrated relevance and abstention (the :class:`Ranker` the router holds).

:meth:`Ranker.rank` is the whole path for one query, before k and execution state
apply: the index's fused list, the query's named routes and provenance (:mod:`.candidates`),
the cross-encoder on the fused window where one is on (:mod:`.rerank`), each part of a
multi-part request lifted into the top k (:mod:`.intents`), and the calibrated relevance of
the best candidates, which decides abstention (:mod:`.abstention`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, NamedTuple

from schemarouter.errors import ModelError
from schemarouter.index.encoders.dense import similarity_factor
from schemarouter.index.tokenize import QueryText
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.abstention import (
    AbstentionModel,
    abstention_features,
    relevance_features,
)
from schemarouter.retrieval.analysis import (
    QueryAnalysis,
    fitted_value_count,
    gate_analysis,
    named_identifiers,
)
from schemarouter.retrieval.candidates import (
    Ranked,
    apply_analysis,
    build_candidates,
    coverage,
    matched_fields_for,
    no_match_reason,
)
from schemarouter.retrieval.fields import resolve_fields
from schemarouter.retrieval.gate import check_candidates
from schemarouter.retrieval.intents import (
    DEFAULT_COVER_WINDOW,
    PartReading,
    cover,
    part_scores,
    read_parts,
    split_intents,
)
from schemarouter.retrieval.learned import RankingModel
from schemarouter.retrieval.ordering import apply_request_order, learned_order, lift_prerequisites
from schemarouter.retrieval.rerank import Reranker, blend_order, route_text
from schemarouter.retrieval.results import CapabilityRetrieval
from schemarouter.retrieval.state import (
    Exclusion,
    ExecutionState,
    blocked_summary,
    exclusion_for,
    unregistered_routes,
)
from schemarouter.safety.forksafe import ForkSafeLock

if TYPE_CHECKING:
    from schemarouter.registry.registry import Registry
    from schemarouter.retrieval.analysis import Analyzer

__all__ = ["RELEVANCE_WINDOW", "Ranker", "RankerSetting", "say_once"]

logger = logging.getLogger(__name__)

#: How many of the best routes get a calibrated relevance (the best decides abstention).
RELEVANCE_WINDOW = 5


class _Ranking(NamedTuple):
    """Everything one query's ranking produced, before k and state are applied."""

    snapshot: RegistrySnapshot
    analysis: QueryAnalysis
    resolved: list[str]
    ranked: list[Ranked]
    #: why the request looks off the catalog ("" where it does not): the calibrated
    #: verdict, which flags the result and, where the caller asks to abstain, hides it
    reason: str
    warnings: list[str]
    signals: dict[str, float]
    reranked: bool = False


_SAID: set[str] = set()
_SAID_LOCK = ForkSafeLock()


def say_once(key: str, message: str, *args: object, level: int = logging.INFO) -> None:
    """Log ``message`` (at INFO unless ``level`` says) the first time ``key`` is seen in
    this process: a model being off is a fact of the process, not of each result (the result
    says what it did: ``reranked``, ``confidence``)."""
    with _SAID_LOCK:
        if key in _SAID:
            return
        _SAID.add(key)
    logger.log(level, message, *args)


def distinct(value: float, threshold: float) -> tuple[str, str]:
    """``value`` and ``threshold`` printed with the fewest decimals (two at least) that tell
    them apart, so a verdict never reads "0.04 < 0.04"."""
    for digits in range(2, 10):
        a, b = f"{value:.{digits}f}", f"{threshold:.{digits}f}"
        if a != b:
            return a, b
    return repr(value), repr(threshold)


def _off_catalog(what: str, value: float, threshold: float) -> str:
    a, b = distinct(value, threshold)
    return f"no registered route may serve the request ({what} {a} < calibrated threshold {b})"


def _abstention_reason(model: AbstentionModel, signals: dict[str, float], *, reranked: bool) -> str:
    """A query-level model's verdict: why the request looks off the catalog, or ``""``."""
    p = model.probability(signals, reranked=reranked)
    signals["confidence"] = p
    threshold = model.threshold_for(reranked=reranked)
    return "" if p >= threshold else _off_catalog("confidence", p, threshold)


class RankerSetting:
    """A setting of the router that its :class:`Ranker` holds: ``router.reranker`` reads and
    sets ``router.ranker.reranker``, as it did when ranking was part of the router;
    ``convert`` reads what is set (a model folder as the model)."""

    def __init__(self, convert: Callable[[Any], Any] | None = None) -> None:
        self.convert = convert

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, router: Any, owner: type | None = None) -> Any:
        return self if router is None else getattr(router.ranker, self.name)

    def __set__(self, router: Any, value: Any) -> None:
        setattr(router.ranker, self.name, value if self.convert is None else self.convert(value))


class Ranker:
    """The ranking half of the router (``router.ranker``): its models and settings over a
    registry and an index, read and set through the router (``router.reranker``, ``router.
    multi_intent``: ``SchemaRouter.__init__`` says what each does). ``index`` is called for
    the router's index on each request (built on first use, it may be replaced)."""

    def __init__(
        self,
        registry: Registry,
        *,
        index: Callable[[], Any],
        analyzer: Analyzer,
        abstention: AbstentionModel | Any | None,
        abstention_everywhere: bool,
        reranker: Reranker | Any | None,
        rerank_off_reason: str,
        rerank_depth: int,
        rerank_weight: float,
        rerank_tokens: int | None,
        multi_intent: bool,
        prerequisites: bool,
        intent_min_similarity: float,
        actions: bool,
        ranking_model: RankingModel | Any | None,
        ranking_off_reason: str,
    ) -> None:
        self.registry = registry
        self._index_of = index
        self.analyzer = analyzer
        self.abstention = abstention
        self._abstention_everywhere = abstention_everywhere
        self.reranker = reranker
        self._rerank_off_reason = rerank_off_reason
        self.rerank_depth = rerank_depth
        self.rerank_weight = rerank_weight
        self.rerank_tokens = rerank_tokens
        self.multi_intent = multi_intent
        self.prerequisites = prerequisites
        self.intent_min_similarity = intent_min_similarity
        self.actions = actions
        self.ranking_model = ranking_model
        self._ranking_off_reason = ranking_off_reason

    @property
    def index(self) -> Any:
        return self._index_of()

    def rank(self, query: str, depth: int, *, rerank: bool = True, k: int = 5) -> _Ranking:
        """The full ranked list for ``query`` (before k), and the off-catalog verdict.

        The verdict never stops the ranking: every stage runs, so a flagged request still
        gets its best routes (only ``abstain=True`` or a plan withholds them)."""
        index = self.index
        # the request tokenized once: the search, the known-word share and coverage read it
        text = QueryText.of(query)
        # the query analysis runs on a worker thread while the index encodes the request
        # (``beside``: the encoder's model call releases the GIL); it reads the snapshot of
        # before the search, so where the registry changed meanwhile the newer one is
        # analysed again, as it was when the analysis came after the search
        snapshot = self.registry.snapshot()
        pending: Future[tuple[QueryAnalysis, list[str]]] = Future()

        def analyse() -> None:
            if pending.set_running_or_notify_cancel():
                try:
                    pending.set_result(self._analysis(query, snapshot))
                except BaseException as exc:
                    pending.set_exception(exc)

        if getattr(index, "searches_beside", False):
            hits = index.search(text, k=depth, beside=analyse)
        else:
            hits = index.search(text, k=depth)
        if pending.cancel():  # never started (an index without ``beside``): analyse here
            analysis, resolved = self._analysis(query, snapshot)
        else:
            analysis, resolved = pending.result()
        latest = self.registry.snapshot()
        if latest is not snapshot:
            snapshot = latest
            analysis, resolved = self._analysis(query, snapshot)
        # a bridged request's cosines come out shrunk by the bridge's agreement with the
        # encoder (its card): every reader of ``scores["dense"]`` gets the encoder's scale
        factor = similarity_factor(getattr(index, "encoder", None), query)
        ranked = [
            Ranked(
                route_id=hit.route_id,
                score=hit.score,
                scores={
                    "fused": hit.score,
                    "lexical": hit.lexical_score,
                    "dense": min(1.0, hit.dense_score * factor),
                },
                field_hits=hit.matched_fields,
            )
            for hit in hits
            if hit.route_id in snapshot.routes  # removed since the search: never emitted
        ]
        if self.actions:  # a write request's write routes above their reads; one or many
            ranked = apply_request_order(query, ranked, snapshot)
        ranked, warnings = apply_analysis(ranked, analysis, snapshot)
        reason = ""
        signals: dict[str, float] = {}
        model, why_not = self._abstention_for(snapshot, index)
        if not ranked:
            reason = no_match_reason(snapshot, query)
        else:
            top = ranked[0].scores
            signals = abstention_features(
                top_dense=top.get("dense", 0.0),
                top_lexical=top.get("lexical", 0.0),
                known_word_share=index.known_token_share(text),
                resolved_fields=len(resolved),
                # the kinds the shipped model was fit with (not identifiers after a thing)
                query_values=fitted_value_count(analysis),
            )
            if model is not None and not model.uses_candidates() and not ranked[0].forced:
                # a query-level model reads the request's signals before reranking
                reason = _abstention_reason(model, signals, reranked=False)
        if model is None:
            say_once(
                f"abstention:{why_not}",
                "no calibrated verdict on requests (relevance and off_catalog): %s",
                why_not,
                # a model was there and does not apply (an index of another encoder, say):
                # the results silently lose their verdict, which an operator should see
                level=logging.INFO if self.abstention is None else logging.WARNING,
            )
        if self.ranking_model is None and self._ranking_off_reason:
            say_once(
                f"ranking:{self._ranking_off_reason}",
                "the learned ranking stage is off: %s (to use it anyway: "
                "SchemaRouter(ranking=RankingModel.shipped()))",
                self._ranking_off_reason,
            )
        if ranked and self.ranking_model is not None:
            named = set(analysis.named_routes)

            def tier(item: Ranked) -> int:
                return 0 if item.route_id in named else 1 if item.forced else 2

            ranked = learned_order(
                self.ranking_model, text, ranked, snapshot, index=index, tier=tier, factor=factor
            )
        reranked = False
        if self.reranker is None:
            say_once(f"rerank:{self._rerank_off_reason}", "%s", self._rerank_off)
        elif ranked and rerank:
            ranked, reranked = self._rerank(self.reranker, query, ranked, snapshot, resolved)
        if ranked and self.multi_intent:
            ranked = self._cover(query, ranked, k)
        if ranked and self.prerequisites and hasattr(index, "rescore_parts"):

            def rescore(ids: list[str]) -> tuple[Any, Any]:
                fused, cosine = index.rescore_parts(query, ids)
                return fused, cosine * factor

            given = frozenset(value.kind for value in analysis.values)
            carried = frozenset(named_identifiers(analysis.values))
            ranked = lift_prerequisites(ranked, snapshot, k, rescore, given=given, carried=carried)
        if ranked and not reason and model is not None and model.uses_candidates():
            reason = self._relevance(
                model, text, ranked, snapshot, signals, index=index, reranked=reranked
            )
        return _Ranking(snapshot, analysis, resolved, ranked, reason, warnings, signals, reranked)

    def _analysis(self, query: str, snapshot: RegistrySnapshot) -> tuple[QueryAnalysis, list[str]]:
        """The request's analysis (gated to ``snapshot``) and the fields it resolves to."""
        analysis = gate_analysis(self.analyzer.analyze(query, snapshot), snapshot)
        resolved, _ = resolve_fields(query, snapshot)
        return analysis, resolved

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
        forced = _forced_count(ranked)
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

    def _part_signal(
        self, query: str, ids: list[str]
    ) -> tuple[list[str], list[Any], list[Any]] | None:
        """The parts of a multi-part request (:mod:`schemarouter.retrieval.intents`), with
        each part's fused scores and cosines over ``ids``; ``None`` for a one-part request, or
        an index that cannot re-score."""
        parts = split_intents(query)
        if len(parts) < 2 or not hasattr(self.index, "rescore_parts"):
            return None
        return (parts, *part_scores(self.index, parts, ids))

    def _cover(self, query: str, ranked: list[Ranked], k: int) -> list[Ranked]:
        """Each part of a multi-part request gets its best candidate into the top ``k``
        (:mod:`schemarouter.retrieval.intents`); a one-part request is left as it is."""
        forced = _forced_count(ranked)
        window = ranked[: forced + DEFAULT_COVER_WINDOW]
        ids = [item.route_id for item in window]
        signal = self._part_signal(query, ids)
        if signal is None:
            return ranked
        _, scores, similarity = signal
        order = cover(
            ids,
            scores,
            k=k,
            protected=forced + 1,
            similarity=similarity,
            min_similarity=self.intent_min_similarity,
        )
        by_id = {item.route_id: item for item in window}
        moved = [by_id[r] for r in order]
        for rank, item in enumerate(moved[:k]):
            if ids.index(item.route_id) >= k and rank < k:
                item.scores["intent"] = 1.0  # lifted into the top k for a part of the request
        return moved + ranked[len(window) :]

    def part_routes(self, query: str, ranked: Sequence[str]) -> list[tuple[str, str]]:
        """``(part, route id)``: the best of the ranked routes for each part of a multi-part
        request (the parts, window and cosine floor of :meth:`_cover`); none for a one-part
        request."""
        return [
            (part, route_id) for part, route_id, why in self.part_report(query, ranked) if not why
        ]

    def part_report(self, query: str, ranked: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(part, its best route, why it gives none)`` for each part of a multi-part
        request (:func:`~schemarouter.retrieval.intents.part_report`): ``why`` is ``""`` for
        the routes :meth:`part_routes` gives, ``"weak"`` for a best under the cosine floor,
        ``"shared"`` for a best an earlier part has; none for a one-part request."""
        return self.part_reading(query, ranked).report

    def part_reading(self, query: str, ranked: Sequence[str]) -> PartReading:
        """:meth:`part_report`, with each part's score of the routes in the window (which
        part a route that is no part's best serves: a plan's)."""
        window = list(ranked[:DEFAULT_COVER_WINDOW])
        signal = self._part_signal(query, window)
        if signal is None:
            return PartReading([], {})
        min_similarity = self.intent_min_similarity
        return read_parts(window, *signal, min_similarity=min_similarity)

    def _abstention_for(
        self, snapshot: RegistrySnapshot, index: Any
    ) -> tuple[AbstentionModel | None, str]:
        """The abstention model that applies here, or ``None`` and why not."""
        model = self.abstention
        if model is None:
            return None, (
                "no abstention model (fit one with `python -m schemarouter.training."
                "abstention` and pass it as abstention=)"
            )
        if self._abstention_everywhere:
            return model, ""
        encoder = getattr(getattr(index, "encoder", None), "identity", None)
        why_not = model.applies_to(snapshot.providers, encoder=encoder)
        return (None, why_not) if why_not else (model, "")

    def _relevance(
        self,
        model: AbstentionModel,
        query: QueryText,
        ranked: list[Ranked],
        snapshot: RegistrySnapshot,
        signals: dict[str, float],
        *,
        index: Any,
        reranked: bool,
    ) -> str:
        """Give the top :data:`RELEVANCE_WINDOW` their calibrated relevance
        (``scores["relevance"]``); the off-catalog verdict when the best is under threshold."""
        identity = getattr(self.reranker, "identity", None)
        use_rerank = reranked and model.reranked_applies(identity)
        calibration = model.calibration(reranked=use_rerank)
        tokens = query.words
        best = 0.0
        for item in ranked[:RELEVANCE_WINDOW]:
            route = snapshot.routes[item.route_id]
            features = relevance_features(
                signals,
                dense=item.scores.get("dense", 0.0),
                coverage=coverage(tokens, route, index=index),
                rerank=item.scores.get("rerank") if use_rerank else None,
            )
            p = calibration.probability(features)
            item.scores["relevance"] = p
            best = max(best, p)
        signals["confidence"] = best
        if ranked[0].forced or best >= calibration.threshold:
            return ""
        return _off_catalog("best relevance", best, calibration.threshold)

    @property
    def _rerank_off(self) -> str:
        if self._rerank_off_reason:
            return (
                f"reranking is off: {self._rerank_off_reason} (to use it anyway: "
                "SchemaRouter(reranker=Reranker.shipped()), or `--reranker shipped`)"
            )
        return (
            "reranking is off: no reranker model (train one with `schemarouter "
            "train-reranker` and pass reranker=FOLDER)"
        )

    def filtered(
        self,
        query: str,
        state: ExecutionState,
        k: int,
        *,
        depth: int,
        refill: bool,
        hide: bool,
        is_bound: Callable[[str], bool],
        detail: Callable[[str, str], str | None] | None = None,
        told: ExecutionState | None = None,
    ) -> CapabilityRetrieval:
        """The ranking of ``query`` filtered by ``state``: the fixed top ``k`` (with ``refill``,
        further down until ``k`` are eligible), each exclusion with its reason (``detail`` as
        :func:`~schemarouter.retrieval.state.exclusion_for` takes it); the warnings name the
        route ids of ``told`` (the state as the host gave it, else ``state``) not registered."""
        ranking = self.rank(query, depth, k=k)
        if ranking.reason and hide:
            return self.result(query, k, ranking, [], abstain=True)
        snapshot, ranked, warnings = ranking.snapshot, ranking.ranked, ranking.warnings
        warnings.extend(unregistered_routes(told or state, snapshot))
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
                is_bound=is_bound,
                needed_semantic_ids=ranking.resolved,
                detail=detail,
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
        return self.result(
            query,
            k,
            ranking,
            kept,
            abstain=hide,
            exclusions=tuple(exclusions),
            blocked=blocked_summary(exclusions, within=k),
            original_ranks=original,
            examined=examined,
            exhausted=exhausted,
        )

    def result(
        self,
        query: str,
        k: int,
        ranking: _Ranking,
        kept: Sequence[Ranked],
        *,
        abstain: bool = False,
        **extra: Any,
    ) -> CapabilityRetrieval:
        """The result handed to the caller: ``kept`` as candidates, or none where the request
        looks off the catalog and the caller asked to ``abstain``."""
        snapshot = ranking.snapshot
        hide = abstain and bool(ranking.reason)
        candidates = (
            []
            if hide
            else build_candidates(kept, snapshot, ranking.analysis, ranking.resolved, k=k)
        )
        check_candidates(snapshot, candidates)
        result = CapabilityRetrieval(
            query=query,
            k=k,
            registry_version=snapshot.version,
            registry_fingerprint=snapshot.fingerprint,
            candidates=tuple(candidates),
            abstained=hide,
            off_catalog=bool(ranking.reason),
            confidence=ranking.signals.get("confidence"),
            reason=ranking.reason,
            analysis=ranking.analysis,
            warnings=tuple(ranking.warnings),
            signals=ranking.signals,
            reranked=ranking.reranked,
            **extra,
        )
        result._snapshot = snapshot  # tools() names tools as the registry does
        return result


def _forced_count(ranked: Sequence[Ranked]) -> int:
    """How many routes lead the list because the query named them (never re-ordered)."""
    forced = 0
    while forced < len(ranked) and ranked[forced].forced:
        forced += 1
    return forced
