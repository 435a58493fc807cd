"""Export a trained cross-encoder to ONNX, quantize it to int8, check that it still ranks alike.

* :func:`export_onnx`: the legacy TorchScript exporter (``dynamo=False``, opset 17; the
  dynamo exporter needs ``onnxscript``), dynamic batch and sequence axes, one output
  ``logits`` of shape ``(batch, 1)``.
* :func:`quantize`: ``onnxruntime.quantization.quantize_dynamic`` with int8 weights *per
  channel* (measured on this model family: Spearman 0.976 against fp32 per channel, 0.925
  per tensor; ``quant_pre_process`` fails on this graph and is not used).
* :func:`agreement`: scores of the torch model and of an ONNX file on the same held-out
  pairs: Spearman correlation, top-1 agreement per group, largest absolute difference.
* :func:`write_model`: all of it into a model folder (``model.onnx``, ``tokenizer.json``,
  ``card.json``), the torch weights into the work folder.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.index.encoders.onnx import ONNX_OPSET, export_token_model
from schemarouter.index.encoders.onnx import quantize_int8 as quantize
from schemarouter.retrieval.rerank import encode_pairs, load_tokenizer
from schemarouter.training.command import file_sha256, versions, write_card

__all__ = [
    "MIN_AGREEMENT_GROUPS",
    "agreement",
    "agreement_line",
    "export_onnx",
    "onnx_scores",
    "quantize",
    "torch_scores",
    "write_model",
]

logger = logging.getLogger(__name__)


def export_onnx(model: Any, out: str | Path) -> Path:
    """Write ``model`` (a ``*ForSequenceClassification``) as fp32 ONNX at ``out``."""
    import torch

    class Logits(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits

    return export_token_model(Logits(model.eval()), Path(out), output="logits", sample_tokens=16)


Groups = Sequence[tuple[str, Sequence[str]]]


def torch_scores(model: Any, tokenizer: Any, groups: Groups, **encode: Any) -> list[np.ndarray]:
    """The torch model's scores for each ``(query, texts)`` group."""
    import torch

    model = model.eval()
    out = []
    with torch.no_grad():
        for query, texts in groups:
            ids, mask, types = encode_pairs(tokenizer, query, texts, **encode)
            logits = model(
                input_ids=torch.from_numpy(ids),
                attention_mask=torch.from_numpy(mask),
                token_type_ids=torch.from_numpy(types),
            ).logits
            out.append(logits.reshape(-1).numpy().astype(np.float64))
    return out


def onnx_scores(
    path: str | Path, tokenizer: Any, groups: Groups, **encode: Any
) -> list[np.ndarray]:
    """An ONNX file's scores for each ``(query, texts)`` group (one batch per group)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    out = []
    for query, texts in groups:
        ids, mask, types = encode_pairs(tokenizer, query, texts, **encode)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        out.append(np.asarray(session.run(None, feeds)[0], dtype=np.float64).reshape(-1))
    return out


#: Fewer groups than this and the agreement is not measured (figures of 0, 1 or 2 groups
#: would read as a check that was never made).
MIN_AGREEMENT_GROUPS = 5


def agreement(reference: list[np.ndarray], other: list[np.ndarray]) -> dict[str, Any]:
    """How alike two scorers rank the same groups: Spearman over all pairs, mean Spearman
    within groups, top-1 agreement per group, largest absolute score difference; with fewer
    than :data:`MIN_AGREEMENT_GROUPS` groups, ``measured`` is false and the figures None."""
    from scipy.stats import spearmanr

    counts = {"pairs": int(sum(len(a) for a in reference)), "groups": len(reference)}
    if len(reference) < MIN_AGREEMENT_GROUPS:
        return {
            **counts,
            "measured": False,
            "why": f"not measured: {len(reference)} group(s), fewer than {MIN_AGREEMENT_GROUPS}",
            **dict.fromkeys(
                ("spearman", "spearman_within_group", "top1_agreement", "max_abs_diff")
            ),
        }
    flat_a = np.concatenate(reference)
    flat_b = np.concatenate(other)
    within = [
        float(spearmanr(a, b).statistic)
        for a, b in zip(reference, other, strict=True)
        if len(a) > 2 and np.ptp(a) > 0 and np.ptp(b) > 0
    ]
    top1 = [int(np.argmax(a) == np.argmax(b)) for a, b in zip(reference, other, strict=True)]
    return {
        **counts,
        "measured": True,
        "spearman": float(spearmanr(flat_a, flat_b).statistic) if flat_a.size > 2 else None,
        "spearman_within_group": float(np.mean(within)) if within else None,
        "top1_agreement": float(np.mean(top1)),
        "max_abs_diff": float(np.max(np.abs(flat_a - flat_b))),
    }


def agreement_line(figures: dict[str, Any]) -> str:
    """``Spearman 0.981, top-1 agreement 0.950 (40 groups)``, or why it was not measured."""
    if not figures.get("measured"):
        return str(figures.get("why") or "not measured")
    spearman = figures["spearman"]
    shown = "n/a" if spearman is None else f"{spearman:.3f}"
    return (
        f"Spearman {shown}, top-1 agreement {figures['top1_agreement']:.3f} "
        f"({figures['groups']} groups, {figures['pairs']} pairs)"
    )


# -- the model folder and its card ------------------------------------------------------------


def _save_torch(model: Any, folder: Path, tokenizer_file: Path) -> None:
    """The trained torch weights: a transformers folder (``CrossEncoder(folder)`` loads it)
    for the ``cls`` head, else the base folder's config plus ``state_dict.pt``."""
    import torch

    from schemarouter.index.encoders.onnx import quiet_transformers

    folder.mkdir(parents=True, exist_ok=True)
    inner = getattr(model, "inner", model)
    with quiet_transformers():
        inner.save_pretrained(str(folder))
    if inner is not model:
        torch.save(model.state_dict(), folder / "state_dict.pt")
    shutil.copyfile(tokenizer_file, folder / "tokenizer.json")


def write_model(
    model: Any,
    tokenizer_file: Path,
    out: Path,
    *,
    work: Path,
    val: Sequence[Any],
    settings: Any,
    card: dict[str, Any],
    fill: Sequence[Any] = (),
) -> dict[str, Any]:
    """Export to ``out`` (model.onnx int8, tokenizer.json, card.json); returns the card.

    The quantization is checked on the validation groups ``val``; where they are fewer than
    :data:`MIN_AGREEMENT_GROUPS`, training groups from ``fill`` make up the number (this
    checks the int8 file against the torch model, not how well either generalizes)."""
    out.mkdir(parents=True, exist_ok=True)
    fp32 = export_onnx(model, work / "model.fp32.onnx")
    int8 = quantize(fp32, out / "model.onnx")
    shutil.copyfile(tokenizer_file, out / "tokenizer.json")
    tokenizer = load_tokenizer(out / "tokenizer.json")
    extra = list(fill)[: max(0, MIN_AGREEMENT_GROUPS - len(val))]
    groups = [(g.query, [g.positive, *g.negatives]) for g in [*val, *extra]]
    encode = {"max_length": settings.max_length, "query_tokens": settings.query_tokens}
    reference = torch_scores(model, tokenizer, groups, **encode)
    card = dict(card)
    card["quantization"] = {
        "method": "onnxruntime.quantization.quantize_dynamic(per_channel=True, weight_type=QInt8)",
        "exporter": f"torch.onnx.export(dynamo=False, opset_version={ONNX_OPSET})",
        "checked_on": f"{len(val)} validation groups (held out of training)"
        + (f" and {len(extra)} training groups" if extra else ""),
        "fp32_vs_torch": agreement(reference, onnx_scores(fp32, tokenizer, groups, **encode)),
        "int8_vs_torch": agreement(reference, onnx_scores(int8, tokenizer, groups, **encode)),
    }
    card["size_bytes"] = int8.stat().st_size
    card["model_sha256"] = file_sha256(int8)
    card["tokenizer_sha256"] = file_sha256(out / "tokenizer.json")
    card["versions"] = versions()
    write_card(out, card)
    _save_torch(model, work / "torch", tokenizer_file)
    return card
