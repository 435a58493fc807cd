"""What every benchmark loader returns: labelled queries over a catalog registered in a router.

A loader takes a :class:`~schemarouter.SchemaRouter`, registers the benchmark's catalog
through the router's public API (``add_mcp_tools``, ``add_openapi``, ``add_catalog``) and
returns a :class:`Benchmark`: the queries with their gold routes, and an explicit map from
each route id to the benchmark's own key for it (``(tool, api)``, ``(METHOD, path)``, a
corpus id). Nothing is registered through a private path.

**Gold.** Every query carries ``gold`` (every relevant route, for nDCG and MRR) and
``needs``: the requirements an answer has, each a set of *alternative* routes any one of
which satisfies it. A StableToolBench query needing two APIs has two needs of one route
each; a bundled-catalog query that any of five databases can answer has one need of five
routes; a negative query has none. Recall@k is the share of needs met in the top k.

The shared data folder comes from an argument, else ``$SCHEMAROUTER_SHARED_DATA``, else
``../shared/data`` beside the repository root.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from schemarouter.training.datasets.shared_data import DEV_SPLIT_SEED, hash_split, shared_data_dir

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot
    from schemarouter.router import SchemaRouter

__all__ = [
    "DEV_SPLIT_SEED",
    "Benchmark",
    "EvalQuery",
    "all_needed",
    "check_gold",
    "hash_split",
    "route_map",
    "shared_data_dir",
    "unique_slug",
]


def unique_slug(name: str, taken: set[str], *, max_length: int = 80) -> str:
    """``slugify(name)`` made unique against ``taken`` (``_2``, ``_3`` ...); adds it."""
    from schemarouter.registry.compile import slugify

    base = slugify(name, max_length=max_length)
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}_{n}", n + 1
    taken.add(ident)
    return str(ident)


@dataclass(frozen=True)
class EvalQuery:
    """One labelled query, with its gold in route ids of the router it was loaded into."""

    id: str
    text: str
    #: Every relevant route (binary relevance for nDCG and MRR).
    gold: tuple[str, ...]
    #: Requirements: each is met by any one of its routes (see the module docstring).
    needs: tuple[frozenset[str], ...]
    category: str = ""
    split: str = "test"
    #: Route id -> the output fields on that route that carry the answer (where known).
    gold_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    #: True where the gold routes are alternatives (any one answers); False where every
    #: gold route is needed.
    alternatives: bool = False

    @property
    def negative(self) -> bool:
        """No registered route serves the query: the router should abstain."""
        return not self.gold


def all_needed(routes: Iterable[str]) -> tuple[frozenset[str], ...]:
    """Needs where every route is required (one need per route, in order, no repeats)."""
    return tuple(frozenset({r}) for r in dict.fromkeys(routes))


@dataclass
class Benchmark:
    """A catalog registered in ``router`` and labelled queries over it."""

    name: str
    router: SchemaRouter
    queries: list[EvalQuery]
    #: Route id -> the benchmark's own key for it (explicit and deterministic).
    route_keys: dict[str, Any]
    #: What was loaded and how: files, sizes, sampling, dropped labels.
    notes: dict[str, Any] = field(default_factory=dict)
    #: rank_bm25 settings of the BM25 baseline (the reference figures' settings).
    bm25: Mapping[str, float] = field(default_factory=dict)
    #: How the BM25 baseline's endpoint text is written ("name_description" or "full").
    bm25_text: str = "full"

    @classmethod
    def checked(
        cls,
        name: str,
        router: SchemaRouter,
        queries: list[EvalQuery],
        route_keys: dict[str, Any],
        notes: dict[str, Any],
        **baseline: Any,
    ) -> Benchmark:
        """The benchmark, once :func:`check_gold` finds every gold route registered;
        ``baseline``: the BM25 baseline's fields (``bm25``, ``bm25_text``)."""
        check_gold(queries, router)
        return cls(name, router, queries, route_keys, notes, **baseline)

    @property
    def snapshot(self) -> RegistrySnapshot:
        return self.router.snapshot()

    def split(self, name: str | None) -> list[EvalQuery]:
        """Queries of one split (``None`` or ``"all"``: every query)."""
        if name in (None, "all"):
            return list(self.queries)
        return [q for q in self.queries if q.split == name]

    def describe(self) -> dict[str, Any]:
        snapshot = self.snapshot
        return {
            "name": self.name,
            "routes": len(snapshot.routes),
            "providers": len(snapshot.providers),
            "queries": len(self.queries),
            "negatives": sum(1 for q in self.queries if q.negative),
            "splits": {s: sum(1 for q in self.queries if q.split == s) for s in ("dev", "test")},
            **self.notes,
        }


def route_map(router: SchemaRouter, provider: str) -> dict[str, str]:
    """Tool or endpoint name -> route id for the routes of ``provider``."""
    return {r.endpoint.name: r.route_id for r in router.snapshot().routes_of(provider)}


def check_gold(queries: Sequence[EvalQuery], router: SchemaRouter) -> None:
    """Every gold route must be registered (a loader bug otherwise)."""
    routes = router.snapshot().routes
    missing = sorted({g for q in queries for g in q.gold if g not in routes})
    if missing:
        raise ValueError(f"gold routes not registered: {missing[:5]} ({len(missing)} in all)")
