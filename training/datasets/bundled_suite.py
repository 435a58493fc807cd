"""The bundled materials catalog and its labelled queries as a routing benchmark.

The catalog (``schemarouter.data/catalogs/materials``) is registered with
:meth:`SchemaRouter.add_catalog`; the queries come from
:func:`~schemarouter.training.datasets.bundled.load_bundled_queries` (the **test** split
by default; ``dev`` is for tuning, ``all`` for both). Gold routes are alternatives (any one
answers, one need) except in ``cross_source`` queries, where each gold route is its own
need; negative queries have no gold. Gold fields come with every gold route.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from schemarouter.training.datasets.bundled import load_bundled_queries, validate_queries
from schemarouter.training.datasets.suite import Benchmark, EvalQuery, all_needed

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = ["bundled_catalog_path", "load_bundled"]


def bundled_catalog_path() -> Path:
    return Path(str(resources.files("schemarouter.data").joinpath("catalogs", "materials")))


def load_bundled(
    router: SchemaRouter,
    *,
    split: str | None = "test",
    catalog: str | Path | None = None,
    queries: str | Path | None = None,
) -> Benchmark:
    """Register the bundled catalog in ``router``; its labelled queries of ``split``."""
    router.add_catalog(catalog or bundled_catalog_path())
    labelled = load_bundled_queries(queries, split=None if split in (None, "all") else split)
    validate_queries(labelled, router.snapshot())
    out = []
    for q in labelled:
        if q.needs_all_routes:
            needs = all_needed(q.gold_routes)
        elif q.gold_routes:
            needs = (frozenset(q.gold_routes),)
        else:
            needs = ()
        out.append(
            EvalQuery(
                id=q.id,
                text=q.query,
                gold=q.gold_routes,
                needs=needs,
                category=q.category,
                split=q.split,
                gold_fields=dict(q.gold_fields),
                alternatives=not q.needs_all_routes,
            )
        )
    return Benchmark(
        name="bundled",
        router=router,
        queries=out,
        route_keys={r: r for r in router.snapshot().routes},
        notes={"split": split or "all", "korean": sum(1 for q in labelled if q.lang == "ko")},
        bm25_text="full",
    )
