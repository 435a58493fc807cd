"""The evaluation harness's shared parts: the suites, the router it measures, the loader of
each suite and the abstention verdict of one request.

Below :mod:`.evaluate` (the command), :mod:`.eval_latency` and :mod:`.evaluate_ood`, which all
read them; nothing here imports those.
"""

from __future__ import annotations

import argparse
from typing import Any

from schemarouter.training.datasets.suite import Benchmark, shared_data_dir

__all__ = [
    "SUITES",
    "load_suite",
    "make_router",
    "plan_as_shipped",
    "verdict_as_shipped",
    "verdict_row",
]

SUITES = (
    "stabletoolbench",
    "metatool-single",
    "metatool-multi",
    "restbench",
    "bundled",
    "tooltrain",
    "write-intent",
    "beir",
    "requests",
)


def make_router(
    encoder: Any = None,
    *,
    cache: Any = None,
    reranker: Any = None,
    multi_intent: bool = False,
    prerequisites: bool = True,
    settings: Any = None,
) -> Any:
    """A router for evaluation: the given encoder (the default one if ``None``), no
    abstention model (recall figures), embedding cache as given (``None``: the default),
    the given reranker (``None``: fusion order only)."""
    from schemarouter.router import SchemaRouter

    kwargs: dict[str, Any] = {
        "encoder": encoder,
        "abstention": None,
        "reranker": reranker,
        "multi_intent": multi_intent,
        "prerequisites": prerequisites,
        "index_settings": settings,
    }
    if cache is not None:
        kwargs["embedding_cache"] = None if cache == "none" else cache
    return SchemaRouter(**kwargs)


def verdict_as_shipped(router: Any, model: Any, text: str) -> tuple[float, float]:
    """``(hidden, flagged)`` for ``text`` as the router ships: 1.0 where its default
    ``retrieve`` withholds the candidates, 1.0 where it flags the request off the catalog.
    ``model`` is switched on for one call, and the reranker used only where its card leaves it
    on by default (the harness's router carries it for the ``hybrid+rerank`` rows even when
    it is off by default)."""
    reranker = router.reranker
    rerank = reranker is not None and not getattr(reranker, "off_by_default", "")
    router.abstention = model
    try:
        found = router.retrieve(text, k=5, rerank=rerank)
        return float(found.abstained), float(found.off_catalog)
    finally:
        router.abstention = None


def plan_as_shipped(router: Any, request: Any, *, max_calls: int, model: Any = None) -> Any:
    """``router.plan(request)`` as the router ships: ``plan`` reranks with any reranker the
    router holds, and the harness's router carries the shipped one for the ``hybrid+rerank``
    rows even where its card leaves it off by default, so it is set aside for this call
    unless the card leaves it on; and the abstention ``model`` (the shipped one; ``None``:
    none) is switched on for the call, so a request it flags gets no plan, as from
    ``SchemaRouter()``."""
    reranker, abstention = router.reranker, router.abstention
    if getattr(reranker, "off_by_default", None):  # None: no reranker, nothing to set aside
        router.reranker = None
    router.abstention = model
    try:
        return router.plan(request, max_calls=max_calls)
    finally:
        router.reranker, router.abstention = reranker, abstention


def verdict_row(router: Any, model: Any, text: str, *, negative: bool) -> dict[str, float]:
    """The abstention figures of one request: a positive's ``hidden`` and ``false_flag``, a
    negative's ``flagged``."""
    hidden, flagged = verdict_as_shipped(router, model, text)
    if negative:
        return {"flagged": flagged}
    return {"hidden": hidden, "false_flag": flagged}


def load_suite(name: str, router: Any, args: argparse.Namespace) -> Benchmark:
    """Run the loader of suite ``name`` against ``router``."""
    from schemarouter.training.datasets import (
        beir,
        bundled_suite,
        metatool,
        restbench,
        stabletoolbench,
    )

    data = shared_data_dir(args.data)
    if name == "stabletoolbench":
        return stabletoolbench.load_stabletoolbench(router, data)
    if name == "metatool-single":
        return metatool.load_metatool_single(router, data, sample=args.metatool_sample)
    if name == "metatool-multi":
        return metatool.load_metatool_multi(router, data)
    if name == "restbench":
        return restbench.load_restbench(router, data)
    if name == "bundled":
        return bundled_suite.load_bundled(router, split=args.split)
    if name == "tooltrain":
        from schemarouter.training.datasets.tooltrain import load_tooltrain_suite

        return load_tooltrain_suite(router, data, split=getattr(args, "tooltrain_split", "val"))
    if name == "write-intent":
        from schemarouter.training.datasets.write_intent import load_write_intent, write_intent_path

        which = getattr(args, "write_intent_set", "dev")
        return load_write_intent(router, data, queries=write_intent_path(which))
    if name == "beir":
        if not args.beir:
            raise ValueError("the beir suite needs --beir FOLDER")
        return beir.load_beir(router, args.beir, split=args.beir_split)
    if name == "requests":
        from schemarouter.training.datasets.requests_suite import load_requests_suite

        return load_requests_suite(router, args)
    raise ValueError(f"unknown suite {name!r} (one of {', '.join(SUITES)}, all)")
