"""Hard negatives for a query, mined with the router's own hybrid index.

The reranker sees, at query time, the routes fusion ranked highest; it learns most from
negatives drawn the same way. :class:`NegativeMiner` takes a router whose catalog is
registered, runs :meth:`SchemaRouter.retrieve` for the query (the same path, the same
index, the same ``matched_fields``), and mixes four kinds of negatives:

* ``retrieved``: routes fusion ranked high for the query, drawn with a bias to the top;
* ``provider``: another endpoint of a positive's provider (same words, other operation);
* ``field``: a route of another provider with an output field of the same name as one the
  query asks for (or one of the positive's fields);
* ``near_duplicate``: routes whose documents are nearest to the positive's own description
  (the index searched with that description).

Positives are never negatives; every choice is seeded.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from schemarouter.retrieval.rerank import route_text

if TYPE_CHECKING:
    from schemarouter.contracts import Route
    from schemarouter.router import SchemaRouter

__all__ = ["DEFAULT_DEPTH", "DEFAULT_WINDOW", "Mined", "NegativeMiner"]

#: How deep the fused list is read for ``retrieved`` negatives (the reranker's N or more).
DEFAULT_DEPTH = 30
#: The window the router reranks (``SchemaRouter(rerank_depth=)``): fused z-scores are
#: taken over it, as :func:`schemarouter.retrieval.rerank.blend_order` takes them.
DEFAULT_WINDOW = 20


@dataclass
class Mined:
    """One query's candidates: the route texts of its positives and of its negatives."""

    query: str
    #: route id -> text, for every positive (with the fields the index matched, if it did)
    positives: dict[str, str]
    #: (route id, text, kind) for each negative, hardest first
    negatives: list[tuple[str, str, str]]
    #: 1-based fused rank of each positive in the retrieved list (0: not retrieved)
    ranks: dict[str, int] = field(default_factory=dict)
    #: route id -> fused score as a z-score over fusion's top ``window`` (what the router
    #: blends with); routes outside the window (or not retrieved) are absent
    fused_z: dict[str, float] = field(default_factory=dict)


class NegativeMiner:
    """Negatives for queries over the catalog registered in ``router`` (see the docstring)."""

    def __init__(
        self,
        router: SchemaRouter,
        *,
        depth: int = DEFAULT_DEPTH,
        window: int = DEFAULT_WINDOW,
        seed: int = 0,
        route_chars: int | None = None,
    ) -> None:
        self.router = router
        self.depth = depth
        self.window = window
        self.rng = random.Random(seed)
        self.snapshot = router.snapshot()
        self.route_chars = route_chars
        self._by_provider: dict[str, list[str]] = {}
        self._by_field: dict[str, list[str]] = {}
        for route in self.snapshot:
            self._by_provider.setdefault(route.provider.id, []).append(route.route_id)
            for item in route.endpoint.output_fields:
                self._by_field.setdefault(item.name.lower(), []).append(route.route_id)
        self._near: dict[str, list[str]] = {}

    def text(self, route: Route, fields: Sequence[str] = ()) -> str:
        if self.route_chars is None:
            return route_text(route, fields=fields)
        return route_text(route, fields=fields, max_chars=self.route_chars)

    def _near_duplicates(self, route_id: str) -> list[str]:
        if route_id not in self._near:
            route = self.snapshot.routes[route_id]
            probe = route.endpoint.summary or route.endpoint.description or route.endpoint.name
            hits = self.router.index.search(probe[:300], k=6) if probe.strip() else []
            self._near[route_id] = [h.route_id for h in hits if h.route_id != route_id]
        return self._near[route_id]

    def mine(
        self,
        query: str,
        positives: Sequence[str],
        *,
        n: int = 7,
        fields: Sequence[str] = (),
    ) -> Mined:
        """Up to ``n`` negatives for ``query`` whose relevant routes are ``positives``."""
        rng = self.rng
        routes = self.snapshot.routes
        wanted = set(positives)
        result = self.router.retrieve(query, k=self.depth, rerank=False)  # fusion's own mistakes
        matched = {c.route_id: tuple(c.matched_fields) for c in result.candidates}
        order = [c.route_id for c in result.candidates]
        ranks = {r: order.index(r) + 1 if r in matched else 0 for r in positives}
        # the router's window: after the routes the query names (it never reorders those)
        head = [c for c in result.candidates if "named" not in c.scores][: self.window]
        fused = np.array([c.score for c in head], dtype=np.float64)
        spread = float(fused.std()) if fused.size else 0.0
        fused_z = {
            c.route_id: (c.score - float(fused.mean())) / spread if spread > 1e-9 else 0.0
            for c in head
        }
        pos_text = {r: self.text(routes[r], matched.get(r, ())) for r in positives if r in routes}
        pool = [r for r in order if r not in wanted]
        chosen: list[tuple[str, str]] = []
        taken: set[str] = set(wanted)

        def take(route_id: str, kind: str) -> None:
            if route_id not in taken and route_id in routes and len(chosen) < n:
                taken.add(route_id)
                chosen.append((route_id, kind))

        # the hardest: fusion's top, each kept with a probability falling with its rank
        hard = max(1, (n * 4) // 7)
        for rank, route_id in enumerate(pool):
            if sum(1 for _, k in chosen if k == "retrieved") >= hard:
                break
            if rng.random() < 1.0 / (1.0 + 0.15 * rank):
                take(route_id, "retrieved")
        structural: list[tuple[str, str]] = []
        for pid in positives:
            route = routes.get(pid)
            if route is None:
                continue
            siblings = [r for r in self._by_provider.get(route.provider.id, []) if r not in wanted]
            if siblings:
                structural.append((rng.choice(siblings), "provider"))
            names = [f.lower() for f in fields] or [
                f.name.lower() for f in route.endpoint.output_fields
            ]
            rng.shuffle(names)
            for name in names[:3]:
                others = [
                    r
                    for r in self._by_field.get(name, [])
                    if r not in wanted and routes[r].provider.id != route.provider.id
                ]
                if others:
                    structural.append((rng.choice(others), "field"))
                    break
            near = [r for r in self._near_duplicates(pid) if r not in wanted]
            if near:
                structural.append((near[0], "near_duplicate"))
        rng.shuffle(structural)
        for route_id, kind in structural[: max(1, n - len(chosen) - 1)]:
            take(route_id, kind)
        deeper = [r for r in pool if r not in taken]
        while len(chosen) < n and deeper:
            take(deeper.pop(rng.randrange(len(deeper))), "retrieved")
        negatives = [(r, self.text(routes[r], matched.get(r, ())), kind) for r, kind in chosen]
        return Mined(query, pos_text, negatives, ranks, fused_z)
