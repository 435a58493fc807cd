"""``schemarouter train-ranking``: the learned ranking stage, gradient-boosted trees over the
fused window's cheap features, shipped as plain arrays (``models/ranking/``).

::

    schemarouter train-ranking --out models/ranking [--data ../shared/data]
        [--exclude-triplets WORK/triplets.jsonl ...] [--per-source 250] [--composed 800]
        [--synthetic 2000]

1. **Rows.** tooltrain's *training* requests that no encoder trained on (``--exclude-triplets``:
   each a ``train-encoder`` triplets file; the requests in it are left out, so the dense
   scores the stage learns to read are as trustworthy as on a user's catalog), up to
   ``--per-source`` from each source, and ``--composed`` requests of 2-3 such requests
   (:mod:`.datasets.composed`). Their tools and ``--distractors`` seeded others from each
   source are registered in one router through ``add_mcp_tools``; each request is ranked as
   the router ranks before the stage (fusion, the action rule, the request's named routes
   first) and each candidate of the fused window is one row
   (:func:`schemarouter.retrieval.ordering.window_signals`), labelled by the request's tools.
   Beside them, ``--synthetic`` requests written from the public OpenAPI documents and MCP
   listings that no evaluation set registers, ranked in a router of those catalogs alone
   (:mod:`.datasets.spare_catalogs`): windows among a REST provider's many siblings, which
   tooltrain's catalogs rarely have.
2. **Fit.** scikit-learn's ``HistGradientBoostingClassifier`` (pointwise, log loss).
3. **Development figures**, written into the card: Recall@5 of fusion and of the stage on
   tooltrain's validation, composed and mixed requests, the bundled dev split and the
   write-intent set's dev half (``--dev``), each ranked the same way. No evaluation suite is
   read here.
4. **Export**: ``trees.npz`` (:class:`schemarouter.retrieval.learned.TreeEnsemble` arrays:
   scored by numpy, no scikit-learn or pickle at query time, checked equal to scikit-learn's
   own scores on the training rows) and ``card.json``. ``router_default`` stays off unless
   ``--on``: the stage ships on only where it beats fusion on every development set and
   every out-of-domain suite (``schemarouter eval --ranking FOLDER``).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.retrieval.learned import DEFAULT_RANKING_WINDOW, TreeEnsemble
from schemarouter.retrieval.window import FEATURES
from schemarouter.training.command import (
    Range,
    add_output_arguments,
    add_progress_argument,
    add_settings_arguments,
    checked,
    file_sha256,
    run_command,
    settings_from_args,
    work_folder,
    write_card,
)
from schemarouter.training.ranking_card import ranking_card
from schemarouter.training.ranking_rows import (
    WindowRows,
    cached_rows,
    fusion_router,
    recall_at,
    window_rows,
)
from schemarouter.training.requests import add_requests_arguments
from schemarouter.training.requests_rows import request_rows

__all__ = [
    "RankingSettings",
    "WindowRows",
    "export_trees",
    "fit_ranking",
    "ranking_main",
    "window_rows",
]

logger = logging.getLogger(__name__)

#: Requests written from catalogs like a user's (``--synthetic``, see
#: :mod:`.datasets.spare_catalogs`).
DEFAULT_SYNTHETIC = 2000
#: Names the training rows' layout in their cache key: rows saved before what was drawn
#: travelled with them are built again.
TRAIN_ROWS_FORMAT = "rows+drawn"
#: The development suites (``--dev``): ``tooltrain-<split>``, ``bundled-dev``, ``write-intent``.
DEV_SUITES = (
    "tooltrain-val",
    "tooltrain-composed",
    "tooltrain-mixed",
    "bundled-dev",
    "write-intent",
)


#: Each tree setting's valid values (scikit-learn's ``HistGradientBoostingClassifier`` and the
#: window: at least the 5 the card's figures read, Recall@5), checked when the flags are
#: parsed and again by :class:`RankingSettings`.
SETTING_RANGES: dict[str, Range] = {
    "window": (">= 5 (the figures are Recall@5 of the window)", lambda v: v >= 5),
    "max_iter": (">= 1", lambda v: v >= 1),
    "learning_rate": ("> 0", lambda v: 0 < v < math.inf),
    "max_leaf_nodes": (">= 2", lambda v: v >= 2),
    "min_samples_leaf": (">= 1", lambda v: v >= 1),
    "l2_regularization": (">= 0", lambda v: 0 <= v < math.inf),
    "seed": ("in [0, 2**32)", lambda v: 0 <= v < 2**32),
}
#: The request counts' flags: 0 or more (0: none).
COUNT: Range = (">= 0", lambda v: v >= 0)


@dataclass(frozen=True)
class RankingSettings:
    window: int = DEFAULT_RANKING_WINDOW
    max_iter: int = 200
    learning_rate: float = 0.05
    max_leaf_nodes: int = 15
    min_samples_leaf: int = 40
    l2_regularization: float = 1.0
    seed: int = 0
    #: features the score may only rise with: a route fusion scores higher, all else equal,
    #: never ranks lower (the stage adds to the encoder and BM25; it does not overrule them)
    increasing: tuple[str, ...] = ("fused_rel",)
    #: the stage's share of the window's order, fusion's the rest (1: the stage's order
    #: alone; :func:`schemarouter.retrieval.learned.blended_keys`)
    blend: float = 1.0
    #: log-odds per unit of the action rule's change of a fused score, added by the router (the
    #: rows carry no such change: choose it with ``bench.ranking_blend --action-weights``)
    action_weight: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.blend <= 1:
            raise ValueError(
                f"blend must be in (0, 1] (1: the stage's order alone), not {self.blend}"
            )
        if not 0 <= self.action_weight < 1e6:
            raise ValueError(f"action_weight must be a number >= 0, not {self.action_weight}")
        for name, (says, ok) in SETTING_RANGES.items():
            if not ok(getattr(self, name)):
                raise ValueError(f"{name} must be {says}, not {getattr(self, name)}")


def fit_ranking(rows: WindowRows, settings: RankingSettings) -> tuple[Any, TreeEnsemble]:
    """The fitted scikit-learn model and its trees as arrays (checked equal)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(
        max_iter=settings.max_iter,
        learning_rate=settings.learning_rate,
        max_leaf_nodes=settings.max_leaf_nodes,
        min_samples_leaf=settings.min_samples_leaf,
        l2_regularization=settings.l2_regularization,
        monotonic_cst=[1 if name in settings.increasing else 0 for name in FEATURES],
        early_stopping=False,
        random_state=settings.seed,
    )
    model.fit(rows.X, rows.y)
    trees = export_trees(model)
    gap = float(np.abs(model.decision_function(rows.X) - trees.raw(rows.X)).max())
    if gap > 1e-6:
        raise RuntimeError(f"the exported trees disagree with scikit-learn by {gap}")
    return model, trees


def export_trees(model: Any) -> TreeEnsemble:
    """A fitted binary ``HistGradientBoostingClassifier`` (numeric features) as arrays."""
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("feature", "threshold", "left", "right", "value", "leaf", "missing_left")
    }
    roots: list[int] = []
    offset = 0
    for trees in model._predictors:  # one list of trees per iteration
        if len(trees) != 1:
            raise ValueError("only a binary classifier exports (one tree per iteration)")
        nodes = trees[0].nodes
        if np.any(nodes["is_categorical"]):
            raise ValueError("categorical splits do not export")
        roots.append(offset)
        parts["feature"].append(nodes["feature_idx"].astype(np.int64))
        parts["threshold"].append(nodes["num_threshold"].astype(np.float64))
        parts["left"].append(nodes["left"].astype(np.int64) + offset)
        parts["right"].append(nodes["right"].astype(np.int64) + offset)
        parts["value"].append(nodes["value"].astype(np.float64))
        parts["leaf"].append(nodes["is_leaf"].astype(bool))
        parts["missing_left"].append(nodes["missing_go_to_left"].astype(bool))
        offset += len(nodes)
    arrays = {k: np.concatenate(v) for k, v in parts.items()}
    arrays["roots"] = np.array(roots, dtype=np.int64)
    baseline = float(np.asarray(model._baseline_prediction).reshape(-1)[0])
    return TreeEnsemble(arrays, baseline=baseline, n_features=int(model.n_features_in_))


# -- the training requests ----------------------------------------------------------------------


def seen_requests(files: Sequence[str | Path]) -> tuple[set[str], dict[str, str]]:
    """The requests of ``train-encoder`` triplets files, and each file's sha256."""
    from schemarouter.training.encoder_pairs import load_triplets

    seen: set[str] = set()
    hashes: dict[str, str] = {}
    for path in files:
        triplets, _ = load_triplets(path)
        seen.update(t.query for t in triplets)
        hashes[Path(path).name] = file_sha256(Path(path))
    return seen, hashes


def training_queries(
    router: Any,
    data: str | Path | None,
    *,
    seen: set[str],
    per_source: int,
    composed: int,
    distractors: int,
    seed: int,
) -> tuple[list[Any], dict[str, Any]]:
    """Register the training requests' tools (and distractors) in ``router``; the requests
    as ``EvalQuery`` objects and what was drawn."""
    from schemarouter.training.datasets.composed import compose_requests
    from schemarouter.training.datasets.suite import EvalQuery, all_needed
    from schemarouter.training.datasets.tooltrain import (
        NEGATIVE_SOURCES,
        load_tooltrain,
        register_tools,
    )

    corpus = load_tooltrain(data, seed=0)
    rng = random.Random(seed)
    pool: dict[str, list[Any]] = {}
    singles: list[Any] = []
    counts: dict[str, dict[str, int]] = {}
    for source, records in sorted(corpus.by_source("train").items()):
        if source in NEGATIVE_SOURCES:
            continue
        unseen = [r for r in records if r.positives and r.query not in seen]
        rng.shuffle(unseen)
        singles += unseen[:per_source]
        pool[source] = unseen[per_source:]
        counts[source] = {"train": len(records), "unseen": len(unseen)}
    made = compose_requests(pool, n=composed, seed=seed, split="train")
    parts = [p for _, used in made for p in used]
    route_of, _ = register_tools(router, corpus, singles + parts, distractors=distractors, rng=rng)
    queries = []
    for i, r in enumerate(singles):
        gold = tuple(dict.fromkeys(route_of[p] for p in r.positives))
        queries.append(EvalQuery(f"{r.source}:{i}", r.query, gold, all_needed(gold), r.source))
    for i, (r, _) in enumerate(made):
        gold = tuple(dict.fromkeys(route_of[p] for p in r.positives))
        queries.append(EvalQuery(f"composed:{i}", r.query, gold, all_needed(gold), "composed"))
    drawn = {
        "per_source": counts,
        "single_requests": len(singles),
        "composed_requests": len(made),
        "routes": len(router.snapshot().routes),
        "corpus": corpus.manifest(),
    }
    return queries, drawn


def dev_rows(name: str, data: str | Path | None, *, window: int, progress: bool) -> WindowRows:
    """The rows of one development suite (:data:`DEV_SUITES`)."""
    router = fusion_router(progress=progress)
    if name.startswith("tooltrain-"):
        from schemarouter.training.datasets.tooltrain import load_tooltrain_suite

        bench = load_tooltrain_suite(router, data, split=name.split("-", 1)[1])
        queries = [q for q in bench.queries if q.gold]
    elif name == "bundled-dev":
        from schemarouter.training.datasets.bundled_suite import load_bundled

        bench = load_bundled(router, split="dev")
        queries = [q for q in bench.queries if q.gold]
    elif name == "write-intent":
        from schemarouter.training.datasets.shared_data import shared_data_dir
        from schemarouter.training.datasets.write_intent import load_write_intent

        bench = load_write_intent(router, shared_data_dir(data))
        queries = [q for q in bench.queries if q.split == "dev"]  # the test half is reported
    else:
        raise ValueError(f"unknown development suite {name!r} (one of {', '.join(DEV_SUITES)})")
    return window_rows(router, queries, window=window, suite=name, progress=progress)


# -- the command --------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    d = RankingSettings()
    add_output_arguments(
        parser,
        out_help="model folder (trees.npz, card.json)",
        work_help="where the rows are kept between runs",
    )
    parser.add_argument(
        "--exclude-triplets",
        nargs="*",
        default=[],
        help="train-encoder triplets files: their requests are left out of the rows",
    )
    count = checked(int, *COUNT)
    parser.add_argument("--per-source", type=count, default=250)
    parser.add_argument("--composed", type=count, default=800)
    parser.add_argument("--distractors", type=count, default=1500, help="seeded tools per source")
    parser.add_argument(
        "--synthetic",
        type=count,
        default=DEFAULT_SYNTHETIC,
        metavar="N",
        help="N requests written from the public OpenAPI documents and MCP listings no "
        "evaluation set registers, beside tooltrain's (0: none)",
    )
    parser.add_argument(
        "--dev",
        nargs="*",
        choices=DEV_SUITES,
        default=list(DEV_SUITES),
        metavar="SUITE",
        help=f"development suites measured into the card, of {', '.join(DEV_SUITES)} "
        "(default: all; none: no figures)",
    )
    add_settings_arguments(
        parser,
        d,
        "window max_iter learning_rate max_leaf_nodes min_samples_leaf seed",
        SETTING_RANGES,
    )
    parser.add_argument(
        "--blend",
        type=checked(float, "in (0, 1]", lambda v: 0 < v <= 1),
        default=d.blend,
        help="the stage's share of the window's order, in (0, 1] (1: its order alone; "
        "choose it on development sets with `python -m schemarouter.training.bench.ranking_blend`)",
    )
    parser.add_argument(
        "--action-weight",
        type=checked(float, ">= 0", lambda v: 0 <= v < 1e6),
        default=d.action_weight,
        help="log-odds per unit of the action rule's change of a fused score, added to the "
        "stage's (0: none; choose it with `... bench.ranking_blend --action-weights`)",
    )
    default = parser.add_mutually_exclusive_group()
    default.add_argument(
        "--on",
        default=None,
        metavar="WHY",
        help="ship it on by default, saying why (after `schemarouter eval --ranking` on every "
        "suite); without it the card turns it off",
    )
    default.add_argument(
        "--off",
        default=None,
        metavar="WHY",
        help="leave it off by default, saying why (e.g. the suites it does not beat fusion on)",
    )
    add_progress_argument(parser)
    add_requests_arguments(parser)
    return parser


def synthetic_rows(
    data: str | Path | None, n: int, *, window: int, progress: bool
) -> tuple[WindowRows, dict[str, Any]]:
    """The windows of ``n`` requests written from the spare catalogs
    (:mod:`.datasets.spare_catalogs`), ranked in a router of those catalogs alone, and what
    was drawn (for the card). Built afresh on every run (about a minute): what is spare
    depends on the packaged evaluation sets and the shared data, so no cache could tell
    stale rows from good ones."""
    from schemarouter.training.datasets.spare_catalogs import (
        SYNTH_SEED,
        SYNTH_WEIGHTS,
        register_spare_catalogs,
        spare_requests,
    )
    from schemarouter.training.datasets.suite import shared_data_dir

    router = fusion_router(progress=progress)
    what = register_spare_catalogs(router, shared_data_dir(data))
    queries = spare_requests(router, n)
    what.update(asked=n, requests=len(queries), seed=SYNTH_SEED, weights=SYNTH_WEIGHTS)
    rows = window_rows(router, queries, window=window, suite="synthetic", progress=progress)
    return rows, what


def check_data(data: str | Path | None, *, synthetic: int, dev: Sequence[str]) -> Path:
    """The shared data folder, refused (:class:`~schemarouter.errors.ArgumentError`, before
    any rows are built) where it lacks what the run reads: ``tooltrain/`` always, the OpenAPI
    documents and MCP listings for ``--synthetic`` and ``--dev write-intent``."""
    from schemarouter.errors import ArgumentError
    from schemarouter.training.datasets.suite import shared_data_dir

    folder = shared_data_dir(data)
    named = (
        "--data"
        if data
        else "SCHEMAROUTER_SHARED_DATA"
        if os.environ.get("SCHEMAROUTER_SHARED_DATA")
        else "the default shared data folder"
    )
    hint = (
        "Pass --data (the shared data folder, with tooltrain/, openapi-permissive/ and "
        "mcp/livemcp_tools.json) or set SCHEMAROUTER_SHARED_DATA"
    )
    if not folder.is_dir():
        raise ArgumentError(f"no shared data folder at {folder}", where=named, hint=hint)
    users = [
        (flag, instead)
        for flag, instead, on in (
            ("--synthetic", "--synthetic 0", synthetic > 0),
            ("--dev write-intent", "--dev without write-intent", "write-intent" in dev),
        )
        if on
    ]
    needs = {"tooltrain": "the training requests"}
    if users:
        who = "for " + " and ".join(flag for flag, _ in users)
        needs.update({"openapi-permissive": who, "mcp/livemcp_tools.json": who})
    missing = [part for part in needs if not (folder / part).exists()]
    if not missing:
        return folder
    if "tooltrain" not in missing:
        hint += ", or run without them: " + " and ".join(instead for _, instead in users)
    raise ArgumentError(
        f"the shared data folder {folder} lacks "
        + ", ".join(f"{part} ({needs[part]})" for part in missing),
        where=named,
        hint=hint,
    )


def run_ranking_command(args: argparse.Namespace, out: Callable[[str], Any] = print) -> int:
    began = time.perf_counter()
    tooltrain = bool(args.per_source or args.composed)
    if tooltrain or args.synthetic or args.dev or not args.requests:
        check_data(args.data, synthetic=args.synthetic, dev=args.dev)
    settings = settings_from_args(RankingSettings, args)
    work = work_folder(args.out, args.work, "ranking-train")
    seen, excluded = seen_requests(args.exclude_triplets)
    from schemarouter.router import SchemaRouter

    probe: Any = SchemaRouter(abstention=None, reranker=None, ranking=None).index
    encoder = str(probe.encoder.identity)
    from schemarouter.training.datasets.suite import shared_data_dir

    # rows of another shared-data folder are other rows: the folder is part of every key
    data = str(shared_data_dir(args.data).resolve())
    key = json.dumps(
        [
            TRAIN_ROWS_FORMAT,
            encoder,
            data,
            sorted(excluded.items()),
            args.per_source,
            args.composed,
            args.distractors,
            settings.window,
            settings.seed,
        ]
    )

    def build_train() -> WindowRows:
        router = fusion_router(progress=args.progress)
        queries, what = training_queries(
            router,
            args.data,
            seen=seen,
            per_source=args.per_source,
            composed=args.composed,
            distractors=args.distractors,
            seed=settings.seed,
        )
        out(f"{len(queries)} training requests over {what['routes']} routes")
        rows = window_rows(
            router, queries, window=settings.window, suite="train", progress=args.progress
        )
        rows.about = what
        return rows

    parts: list[WindowRows] = []
    if tooltrain or not args.requests:
        parts.append(cached_rows(work / "train.npz", key, build_train))
    # what was drawn is saved with the rows it describes (under their key), never beside them
    drawn: dict[str, Any] = dict(parts[0].about) if parts else {}
    held: list[Any] = []
    if args.requests:
        own, measured, held, drawn["requests"] = request_rows(args, settings.window, out)
        out(f"{len(own.needs)} windows of your requests over {drawn['requests']['routes']} routes")
        parts.append(own)
    train = WindowRows.concat(parts) if len(parts) > 1 else parts[0]
    if args.synthetic:
        synthetic, drawn["synthetic"] = synthetic_rows(
            args.data, args.synthetic, window=settings.window, progress=args.progress
        )
        out(
            f"{len(synthetic.needs)} synthetic windows over {drawn['synthetic']['routes']} "
            "routes of spare catalogs"
        )
        train = WindowRows.concat([train, synthetic])
    out(
        f"{len(train.needs)} training windows, {train.X.shape[0]} rows, "
        f"{int(train.y.sum())} positive"
    )
    _, trees = fit_ranking(train, settings)
    dev: dict[str, Any] = {}
    for name in args.dev:

        def build_dev(name: str = name) -> WindowRows:
            return dev_rows(name, args.data, window=settings.window, progress=args.progress)

        rows = cached_rows(
            work / f"dev-{name}.npz", json.dumps([encoder, data, name, settings.window]), build_dev
        )
        fused = recall_at(rows, None)
        staged = recall_at(rows, trees.raw(rows.X), blend=settings.blend)
        dev[name] = {
            "requests": len(rows.needs),
            "fusion_r@5": round(fused, 4),
            "ranking_r@5": round(staged, 4),
            "gain": round(staged - fused, 4),
        }
        out(f"dev {name}: R@5 fusion {fused:.4f} -> ranking {staged:.4f} ({staged - fused:+.4f})")
    if args.requests and held:  # measured on, never fitted on
        fused = recall_at(measured, None)
        staged = recall_at(measured, trees.raw(measured.X), blend=settings.blend)
        dev["requests-heldout"] = {
            "requests": len(measured.needs),
            "fusion_r@5": round(fused, 4),
            "ranking_r@5": round(staged, 4),
            "gain": round(staged - fused, 4),
        }
        out(f"your held-out requests: R@5 fusion {fused:.4f} -> ranking {staged:.4f}")
    target = Path(args.out)
    target.mkdir(parents=True, exist_ok=True)
    if args.requests:
        from schemarouter.training.requests import write_heldout

        write_heldout(target, held)
    np.savez(target / "trees.npz", **trees.arrays())  # type: ignore[arg-type]
    card = ranking_card(
        settings,
        encoder=encoder,
        drawn=drawn,
        train=train,
        excluded=excluded,
        dev=dev,
        on=args.on,
        off=args.off,
        seconds=time.perf_counter() - began,
        command=args.command,
    )
    card["model_sha256"] = file_sha256(target / "trees.npz")
    write_card(target, card, indent=2)
    out(f"wrote {target} ({card['router_default']['why']})")
    return 0


def ranking_main(argv: Sequence[str] | None = None) -> int:
    """``schemarouter train-ranking`` (see the module docstring)."""

    def run(args: argparse.Namespace, out: Callable[[str], Any]) -> int:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        return run_ranking_command(args, out)

    return run_command("train-ranking", __doc__ or "", add_arguments, run, argv, out=print)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(ranking_main())
