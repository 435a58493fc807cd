"""``schemarouter train-reranker``: train the cross-encoder, export it to int8 ONNX, write its card.

::

    schemarouter train-reranker --out models/reranker [--data ../shared/data]
    python -m schemarouter.training.train --out /tmp/rr --train metatool bundled:dev \\
        --synthetic openapi mcp bundled --held-out g1 tmdb

Steps: training pairs (:mod:`.pairs`: labelled sets, synthetic queries, hard negatives; or
``--pairs FILE`` built before), a cross-encoder initialized from the packaged MiniLM
(``all-MiniLM-L6-v2``: the first ``--layers`` transformer layers, a fresh one-logit head;
the model class sentence-transformers' ``CrossEncoder(num_labels=1)`` wraps), trained on
CPU with a listwise loss (softmax cross-entropy of the positive against its hard negatives,
plus a small pointwise term) at a constant learning rate, then exported (:mod:`.export`).

Resumable: a checkpoint is written to the work folder after every epoch (and every
``--checkpoint-steps`` steps, and when ``--max-minutes`` runs out); running the same command
again continues from the latest one, where its training groups and settings are the same
(other ones, a request relabelled, start over). Deterministic from ``--seed`` (data order, negatives
drawn, head initialization).

Written to ``--out``: ``model.onnx`` (int8, per-channel dynamic quantization),
``tokenizer.json`` and ``card.json`` (base model, data sources with counts and hashes,
settings, validation and quantization agreement, size, library versions). The work folder
(``--work``; default under the cache folder) keeps pairs, checkpoints, the fp32 ONNX file
and the torch weights (loadable with ``CrossEncoder(folder)``).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.errors import DocumentError
from schemarouter.retrieval.rerank import (
    DEFAULT_MAX_LENGTH,
    DEFAULT_QUERY_TOKENS,
    ROUTE_TEXT_CHARS,
    ROUTE_TEXT_VERSION,
)
from schemarouter.training.command import (
    BASE_MODEL,
    BASE_SOURCE,
    RunOptions,
    add_base_argument,
    add_budget_arguments,
    add_output_arguments,
    add_run_arguments,
    add_settings_arguments,
    base_dir,
    file_sha256,
    progress_bar,
    run_command,
    start_run,
    torch_threads,
)
from schemarouter.training.export import agreement_line, write_model
from schemarouter.training.pairs import (
    PairConfig,
    PairGroup,
    build_pairs,
    check_groups,
    load_pairs,
    save_pairs,
)
from schemarouter.training.requests import add_requests_arguments
from schemarouter.training.reranker_batches import (
    draw_candidates,
    groups_digest,
    listwise_loss,
    make_batch,
    split_groups,
)
from schemarouter.training.reranker_model import load_base, validate

__all__ = ["TrainSettings", "load_base", "train_main", "train_model"]

CARD_FORMAT = 1
#: Fewer validation groups than this are warned about: their figures say little.
MIN_VALIDATION_GROUPS = 20


@dataclass
class TrainSettings:
    """Everything that shapes the model (recorded in the card)."""

    layers: int = 2
    epochs: int = 2
    lr: float = 5e-5
    #: the fresh head learns at ``lr * head_lr_scale``
    head_lr_scale: float = 20.0
    #: groups per step (each the positive and ``negatives`` negatives)
    batch_groups: int = 6
    negatives: int = 4
    max_length: int = DEFAULT_MAX_LENGTH
    query_tokens: int = DEFAULT_QUERY_TOKENS
    route_chars: int = ROUTE_TEXT_CHARS
    pointwise_weight: float = 0.25
    #: > 0: train on the blend the router ranks by, ``logit + a * z(fused)``, with ``a`` a
    #: learned coefficient starting here (the model learns what fusion gets wrong);
    #: 0: the logit alone
    fusion_weight: float = 0.0
    weight_decay: float = 0.01
    freeze_embeddings: bool = True
    head: str = "segment"
    validation_share: float = 0.04
    seed: int = 0


# -- training ----------------------------------------------------------------------------------


@dataclass
class TrainReport:
    steps: int = 0
    epochs_done: int = 0
    wall_s: float = 0.0
    stopped_early: bool = False
    loss_by_epoch: list[float] = field(default_factory=list)
    validation: list[dict[str, Any]] = field(default_factory=list)
    resumed_from: str | None = None
    #: the learned ``a`` of ``logit + a * z(fused)`` (``fusion_weight`` > 0), else None
    fusion_coefficient: float | None = None


def _coefficient(report: TrainReport) -> float:
    return report.fusion_coefficient or 0.0


def _said(metrics: dict[str, Any]) -> str:
    """``validation mrr 0.690, acc@1 0.429 (7 groups)``, as the run prints it."""
    said = ", ".join(f"{k} {v:.3f}" for k, v in metrics.items() if k != "groups")
    return "validation " + (
        f"{said} ({metrics['groups']} groups)" if said else "not measured (0 groups)"
    )


def _latest_checkpoint(folder: Path) -> Path | None:
    found = sorted(folder.glob("checkpoint-*.pt"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def train_model(
    model: Any,
    tokenizer: Any,
    train: Sequence[PairGroup],
    val: Sequence[PairGroup],
    settings: TrainSettings,
    *,
    run: RunOptions,
) -> TrainReport:
    """Train ``model`` in place on ``train`` (listwise groups); checkpoints in ``run.work``."""
    import torch

    run.work.mkdir(parents=True, exist_ok=True)
    bert = model.inner.bert if hasattr(model, "inner") else model.bert
    if settings.freeze_embeddings:
        bert.embeddings.word_embeddings.weight.requires_grad_(False)

    def is_head(name: str) -> bool:
        return "classifier" in name or name == "scale"

    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    head = [p for n, p in named if is_head(n)]
    body = [p for n, p in named if not is_head(n)]
    blend = settings.fusion_weight > 0
    # the blend's coefficient is not part of the exported graph: the card carries it
    fusion = torch.nn.Parameter(torch.tensor(float(settings.fusion_weight)))
    if blend:
        head.append(fusion)
    optimizer = torch.optim.AdamW(
        [
            {"params": body, "lr": settings.lr},
            {"params": head, "lr": settings.lr * settings.head_lr_scale},
        ],
        weight_decay=settings.weight_decay,
    )
    per_epoch = math.ceil(len(train) / settings.batch_groups)
    report = TrainReport()
    start_epoch, start_step = 0, 0
    latest = _latest_checkpoint(run.work) if run.resume else None
    data = groups_digest(train)
    if latest is not None:
        state = torch.load(latest, weights_only=False)
        if state.get("settings") != asdict(settings) or state.get("data") != data:
            run.log(f"not resuming from {latest}: other settings or data")
        else:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            with torch.no_grad():
                fusion.fill_(state.get("fusion", settings.fusion_weight))
            start_epoch, start_step = state["epoch"], state["step"]
            report = TrainReport(**state["report"])
            report.resumed_from = str(latest)
            run.log(f"resuming from {latest} (epoch {start_epoch + 1}, step {start_step})")

    def save(epoch: int, step: int) -> None:
        path = run.work / f"checkpoint-{epoch:02d}-{step:06d}.pt"
        staged = path.with_suffix(".tmp")
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "fusion": float(fusion.detach()),
                "epoch": epoch,
                "step": step,
                "settings": asdict(settings),
                "groups": len(train),
                "data": data,
                "report": asdict(report),
            },
            staged,
        )
        os.replace(staged, path)
        for old in run.work.glob("checkpoint-*.pt"):
            if old != path:
                old.unlink()

    began = time.perf_counter()
    wall_before = report.wall_s
    for epoch in range(start_epoch, settings.epochs):
        order = list(range(len(train)))
        random.Random(settings.seed * 1000 + epoch).shuffle(order)
        rng = random.Random(settings.seed * 7919 + epoch)
        first = start_step if epoch == start_epoch else 0
        bar = progress_bar(
            run.progress,
            total=per_epoch,
            desc=f"epoch {epoch + 1}/{settings.epochs}",
            unit="step",
            initial=first,
            dynamic_ncols=True,
        )
        model.train()
        losses: list[float] = []
        for step in range(per_epoch):
            batch = [
                train[i] for i in order[step * settings.batch_groups :][: settings.batch_groups]
            ]
            if step < first:
                for g in batch:  # keep the negative draws in step with an unbroken run
                    draw_candidates(g, settings.negatives, rng)
                continue
            ids, mask, types, valid, fused = make_batch(
                tokenizer,
                batch,
                rng,
                negatives=settings.negatives,
                max_length=settings.max_length,
                query_tokens=settings.query_tokens,
            )
            logits = model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits
            offset = fusion * fused if blend else None
            loss = listwise_loss(logits, valid, settings.pointwise_weight, offset)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            report.steps += 1
            losses.append(float(loss.detach()))
            if blend:
                report.fusion_coefficient = float(fusion.detach())
            if bar is not None:
                bar.update(1)
                shown = {"loss": f"{np.mean(losses[-50:]):.3f}"}
                if blend:
                    shown["a"] = f"{float(fusion.detach()):.2f}"
                bar.set_postfix(shown)
            elapsed = time.perf_counter() - began
            out_of_time = run.max_minutes is not None and elapsed > run.max_minutes * 60
            if out_of_time or (run.checkpoint_steps and (step + 1) % run.checkpoint_steps == 0):
                report.wall_s = wall_before + elapsed
                save(epoch, step + 1)
            if out_of_time:
                report.stopped_early = True
                run.log(
                    f"time budget of {run.max_minutes} min spent at epoch {epoch + 1}, "
                    f"step {step + 1}"
                )
                break
        if bar is not None:
            bar.close()
        if report.stopped_early:
            report.loss_by_epoch.append(float(np.mean(losses)) if losses else float("nan"))
            partial = {"epoch": epoch + 1, "partial": True}
            metrics = validate(model, tokenizer, val, settings, _coefficient(report))
            report.validation.append({**partial, **metrics})
            break
        report.epochs_done = epoch + 1
        report.loss_by_epoch.append(float(np.mean(losses)) if losses else float("nan"))
        metrics = validate(model, tokenizer, val, settings, _coefficient(report))
        report.validation.append({"epoch": epoch + 1, **metrics})
        report.wall_s = wall_before + time.perf_counter() - began
        run.log(f"epoch {epoch + 1}: loss {report.loss_by_epoch[-1]:.4f}, {_said(metrics)}")
        save(epoch + 1, 0)
    model.eval()
    return report


# -- the command -------------------------------------------------------------------------------


def add_train_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    d = TrainSettings()
    c = PairConfig()
    add_output_arguments(
        parser,
        out_help="model folder (model.onnx, card.json ...)",
        work_help="pairs, checkpoints, fp32 model, torch weights",
    )
    parser.add_argument("--pairs", default=None, help="a pairs file built before (JSON lines)")
    parser.add_argument("--train", nargs="*", default=list(c.train), help="labelled sets")
    parser.add_argument("--synthetic", nargs="*", default=list(c.synthetic), help="catalogs")
    parser.add_argument("--held-out", nargs="*", default=list(c.held_out), help="held-out sets")
    parser.add_argument("--cap", nargs="*", default=[], help="SOURCE=N queries per source")
    parser.add_argument(
        "--per-route",
        type=int,
        default=c.per_route,
        help="synthetic queries written per route (default: %(default)s)",
    )
    parser.add_argument(
        "--mine-negatives",
        type=int,
        default=c.negatives,
        help="hard negatives mined per group, of which --negatives are drawn each step "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--encoder",
        default="default",
        help="the index that mines negatives: default (the shipped encoder), minilm (the "
        "packaged MiniLM), hashing, or an encoder folder",
    )
    add_base_argument(parser)
    add_settings_arguments(
        parser,
        d,
        "layers epochs lr batch_groups negatives max_length query_tokens route_chars",
        helps=SETTING_HELP,
    )
    parser.add_argument(
        "--head",
        default=d.head,
        choices=["cls", "segment"],
        help="segment: scale * cos(query, route states) + linear([CLS]); cls: a plain "
        "CrossEncoder classifier (default: %(default)s)",
    )
    add_settings_arguments(parser, d, "head_lr_scale", helps=SETTING_HELP)
    parser.add_argument(
        "--fusion-weight",
        type=float,
        default=d.fusion_weight,
        help="> 0: train on logit + a * z(fused), a learned from this start (0: logit alone)",
    )
    parser.add_argument("--max-groups", type=int, default=0, help="train on at most N groups")
    add_settings_arguments(parser, d, "validation_share", helps=SETTING_HELP)
    add_budget_arguments(parser, checkpoint_steps=200)
    add_run_arguments(parser, seed=d.seed)
    add_requests_arguments(parser)
    return parser


#: ``--help`` of the settings (the defaults are the shipped model's recipe, models/reranker/).
SETTING_HELP = {
    "layers": "transformer layers kept from the base model",
    "epochs": "passes over the training groups",
    "lr": "constant learning rate of the encoder layers",
    "head_lr_scale": "the fresh head learns at lr times this",
    "batch_groups": "groups per step (each a positive and --negatives negatives)",
    "negatives": "negatives drawn per group each step",
    "max_length": "word pieces per (query, route) pair",
    "query_tokens": "word pieces of the query, at most",
    "route_chars": "characters of route text, at most",
    "validation_share": "share of the groups held out of training for the card's validation",
}


def _encoder(name: str) -> Any:
    from schemarouter.training.evaluate_ood import named_encoder

    return named_encoder(name)


def _built_pairs(
    args: argparse.Namespace, work: Path, out: Callable[[str], Any]
) -> tuple[list[PairGroup], dict[str, Any], Path]:
    """The groups of the labelled sets and synthetic queries (``--train``, ``--synthetic``),
    kept in the work folder and reused while the config is the same."""
    caps = {k: int(v) for k, _, v in (c.partition("=") for c in args.cap)}
    config = PairConfig(
        train=tuple(args.train),
        synthetic=tuple(args.synthetic),
        held_out=tuple(args.held_out),
        caps=caps,
        negatives=args.mine_negatives,
        per_route=args.per_route,
        seed=args.seed,
    )
    pairs_file = work / "pairs.jsonl"
    groups: list[PairGroup] = []
    manifest: dict[str, Any] = {}
    if pairs_file.exists() and args.resume:
        try:
            groups, manifest = load_pairs(pairs_file)
        except DocumentError as exc:  # a run stopped while writing it: build anew
            out(f"{exc}; building the pairs anew")
            groups, manifest = [], {}
        if manifest.get("config") != asdict(config):
            groups = []
    if not groups:
        groups, manifest = build_pairs(
            config, data=args.data, encoder=_encoder(args.encoder), progress=args.progress, log=out
        )
        save_pairs(pairs_file, groups, manifest)
    return groups, manifest, pairs_file


def _request_pairs(
    args: argparse.Namespace, work: Path, out: Callable[[str], Any]
) -> tuple[list[PairGroup], dict[str, Any], Path]:
    """``--requests``: groups of the user's training requests, negatives mined in their
    catalog; the held-out ones are written beside the model and never trained on."""
    from schemarouter.training.requests import read_requests, requests_router, write_heldout
    from schemarouter.training.requests_rows import request_groups

    router = requests_router(
        args, encoder=_encoder(args.encoder), multi_intent=False, prerequisites=False
    )
    try:
        _, train, held, about = read_requests(args, router, out)
        groups = request_groups(
            router, train, negatives=args.mine_negatives, seed=args.seed, progress=args.progress
        )
    finally:
        router.close()
    write_heldout(args.out, held)
    manifest = {
        "requests": about,
        "groups": len(groups),
        "pairs": sum(1 + len(g.negatives) for g in groups),
    }
    pairs_file = work / "pairs.jsonl"
    save_pairs(pairs_file, groups, manifest)
    return groups, manifest, pairs_file


def run_train_command(args: argparse.Namespace, out: Callable[[str], Any] = print) -> int:
    from schemarouter.training.requests import has_catalog

    settings, work, began = start_run(args, TrainSettings, given="pairs", kind="reranker-train")
    registered = None
    if args.requests:
        groups, manifest, pairs_file = _request_pairs(args, work, out)
    elif args.pairs:
        groups, manifest = load_pairs(args.pairs)
        pairs_file = Path(args.pairs)
        if has_catalog(args):  # positive ids checked against the catalog given
            from schemarouter.training.requests import requests_router

            router = requests_router(args)
            registered = set(router.snapshot().routes)
            router.close()
    else:
        groups, manifest, pairs_file = _built_pairs(args, work, out)
    groups, checked_groups = check_groups(groups, registered)
    for line in checked_groups.warnings():
        out(f"warning: {pairs_file}: {line}")
    if not groups:
        raise DocumentError(
            "no group to train on (each needs a positive and at least one negative)",
            where=str(pairs_file),
            hint="Give more requests, or a catalog with more than one route",
        )
    manifest = {**manifest, "checked": asdict(checked_groups)}
    pairs_s = time.perf_counter() - began
    lacking = sum(1 for g in groups if len(g.fused) != 1 + len(g.negatives))
    if settings.fusion_weight > 0 and lacking:
        raise SystemExit(
            f"--fusion-weight needs fused scores with every pair; {lacking} of {len(groups)} "
            f"groups in {pairs_file} have none (built before they were recorded): rebuild the "
            "pairs (drop --pairs, or delete the work folder's pairs.jsonl)"
        )
    train, val = split_groups(groups, settings.validation_share)
    if args.max_groups and len(train) > args.max_groups:
        train = random.Random(args.seed).sample(train, args.max_groups)
    out(f"{len(train)} training groups, {len(val)} validation groups ({pairs_s:.0f} s for pairs)")
    if len(val) < MIN_VALIDATION_GROUPS:
        out(
            f"warning: {len(val)} validation group(s): the card's validation figures rest on "
            f"fewer than {MIN_VALIDATION_GROUPS} (--validation-share, more requests)"
        )
    model, tokenizer = load_base(args.base, settings.layers, settings.seed, head=settings.head)
    before = validate(model, tokenizer, val, settings, settings.fusion_weight)
    if val:  # the epochs' figures are read against it
        out(f"before training: {_said(before)}")
    report = train_model(
        model,
        tokenizer,
        train,
        val,
        settings,
        run=RunOptions.from_args(args, work, out),
    )
    card: dict[str, Any] = {
        "name": "schemarouter-reranker",
        "format": CARD_FORMAT,
        "base_model": {
            "name": BASE_MODEL,
            "source": BASE_SOURCE,
            "layers_kept": settings.layers,
            "layers_in_base": 6,
            "architecture": (
                "BertForSequenceClassification, num_labels=1 (a CrossEncoder)"
                if settings.head == "cls"
                else "BERT cross-encoder, head: scale * cos(mean query states, mean route "
                "states) + linear(pooled [CLS]) (training.train._segment_model)"
            ),
        },
        "route_text": {
            "function": "schemarouter.retrieval.rerank.route_text",
            "version": ROUTE_TEXT_VERSION,
            "max_chars": settings.route_chars,
        },
        "settings": asdict(settings),
        "data": {
            "pairs_file_sha256": file_sha256(pairs_file),
            "training_groups": len(train),
            "validation_groups": len(val),
            **manifest,
        },
        "training": {
            **asdict(report),
            "pairs_s": pairs_s,
            "validation_before_training": before,
            "threads": torch_threads(),
            "command": args.command,
        },
        "metrics": {},
    }
    if report.fusion_coefficient is not None:  # the router ranks by the blend it learned
        card["blend"] = {
            "rank_by": "logit + a * z(fused) over the reranked window",
            "fusion_coefficient": report.fusion_coefficient,
        }
    card = write_model(
        model,
        base_dir(args.base) / "tokenizer.json",
        Path(args.out),
        work=work,
        val=val,
        settings=settings,
        card=card,
        fill=train,
    )
    out(
        f"wrote {Path(args.out) / 'model.onnx'} ({card['size_bytes'] / 1e6:.1f} MB); int8 vs torch "
        f"{agreement_line(card['quantization']['int8_vs_torch'])}; "
        f"{time.perf_counter() - began:.0f} s in all"
    )
    return 0


def train_main(argv: Sequence[str] | None = None) -> int:
    """``schemarouter train-reranker`` (see the module docstring)."""
    description = __doc__.splitlines()[0]
    return run_command("train-reranker", description, add_train_arguments, run_train_command, argv)


if __name__ == "__main__":
    sys.exit(train_main())
