"""The models shipped in ``schemarouter.models``: where each one is, and one of each per process.

The reranker, the learned ranking stage, the encoder and the encoder's cross-lingual bridge
each load once per process (an onnxruntime session, a few MB of arrays) and every router
shares that one (:func:`load_once`, :func:`shipped_model`); a model passed to a router
explicitly is its own. :func:`shipped_folder` says whether a model is there at all (a
checkout may lack one).

A model folder holds its files and a ``card.json``; what the model classes read of it alike
is here: the files a folder must hold (:func:`check_folder`), the card (:func:`read_card`,
:func:`model_card` for both, which also refuses a folder whose card names another kind of
model, :data:`CARD_KINDS`), the onnxruntime session on its graph (:func:`onnx_session`),
the name and digest a model is known by (:func:`card_identity`) and whether the router turns
it on by default (:func:`off_by_default`, :func:`router_model`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from schemarouter.errors import ArgumentError, ModelError, require
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "CARD_FORMAT",
    "CARD_KINDS",
    "card_identity",
    "check_folder",
    "check_format",
    "check_kind",
    "load_once",
    "model_card",
    "model_setting",
    "off_by_default",
    "onnx_session",
    "read_card",
    "router_model",
    "shipped_folder",
    "shipped_model",
]

T = TypeVar("T")

#: The ``name`` each ``train-*`` command writes on its folder's card -> what the folder holds,
#: what takes it, and the command that writes it. A card with another name (or none) is not
#: judged by its name; each model checks its graph or arrays when it loads them.
CARD_KINDS: dict[str, tuple[str, str, str]] = {
    "schemarouter-encoder": (
        "an encoder",
        "SchemaRouter(encoder=FOLDER) or OnnxEncoder(FOLDER)",
        "schemarouter train-encoder",
    ),
    "schemarouter-reranker": (
        "a reranker",
        "SchemaRouter(reranker=FOLDER) or Reranker(FOLDER)",
        "schemarouter train-reranker",
    ),
    "schemarouter-ranking": (
        "a ranking model",
        "SchemaRouter(ranking=FOLDER) or RankingModel(FOLDER)",
        "schemarouter train-ranking",
    ),
}

#: key -> the loaded model (``None`` where none is shipped), for the life of the process
_LOADED: dict[str, Any] = {}
_LOCK = ForkSafeLock(reentrant=True)


def shipped_folder(name: str, files: Iterable[str]) -> Path | None:
    """``schemarouter.models/<name>`` (``""``: the package folder itself) where it holds every
    one of ``files``, else ``None``."""
    folder = resources.files("schemarouter.models").joinpath(name)
    if not all(folder.joinpath(file).is_file() for file in files):
        return None
    return Path(str(folder))


def load_once(key: str, load: Callable[[], T]) -> T:
    """``load()`` the first time ``key`` is asked for in this process; the same value after
    (thread-safe: two threads asking at once load it once)."""
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = load()
        value: T = _LOADED[key]
        return value


def shipped_model(key: str, files: Iterable[str], load: Callable[[Path], T]) -> T | None:
    """``load`` of the shipped folder ``schemarouter.models/<key>``, once per process
    (:func:`load_once`), or ``None`` where the folder lacks one of ``files``."""

    def first() -> T | None:
        folder = shipped_folder(key, files)
        return None if folder is None else load(folder)

    return load_once(key, first)


def check_folder(folder: Any, files: Iterable[str], *, what: str, hint: str) -> None:
    """Raise :class:`~schemarouter.errors.ModelError` naming the ``files`` ``folder`` lacks
    (``what``: the model, as in "the reranker folder lacks ...")."""
    missing = [name for name in files if not folder.joinpath(name).is_file()]
    if missing:
        raise ModelError(
            f"the {what} folder lacks {', '.join(missing)}", where=str(folder), hint=hint
        )


def read_card(folder: Any) -> dict[str, Any]:
    """The folder's ``card.json`` (``OSError`` and ``ValueError`` are the caller's to word)."""
    card: dict[str, Any] = json.loads(folder.joinpath("card.json").read_text("utf-8"))
    return card


def check_kind(card: Any, folder: Any, kind: str) -> None:
    """Raise :class:`~schemarouter.errors.ModelError` where ``card`` (the card of ``folder``)
    names another kind of model than ``kind`` (a :data:`CARD_KINDS` name): what the folder
    holds, what takes it, and which command writes the folder that was asked for."""
    name = card.get("name") if isinstance(card, dict) else None
    if not isinstance(name, str) or name == kind or name not in CARD_KINDS:
        return
    holds, takes, _ = CARD_KINDS[name]
    wanted, _, command = CARD_KINDS[kind]
    raise ModelError(
        f"the folder holds {holds} (its card's name is {name}), not {wanted}",
        where=str(folder),
        hint=f"Pass it as {takes}; {wanted} folder is what `{command}` writes",
    )


#: The newest model card ``format`` this version reads (every ``train-*`` command writes 1);
#: a card of a newer one was written by a later SchemaRouter, whose files may mean other things.
CARD_FORMAT = 1


def check_format(card: dict[str, Any], folder: Any, *, what: str, retrain: str) -> None:
    """Raise :class:`~schemarouter.errors.ModelError` where ``card`` (of ``folder``) has a
    newer ``format`` than :data:`CARD_FORMAT`: which version wrote it, and what to do."""
    found = card.get("format")
    if isinstance(found, bool) or not isinstance(found, int) or found <= CARD_FORMAT:
        return
    versions = card.get("versions")
    wrote = versions.get("schemarouter") if isinstance(versions, dict) else None
    raise ModelError(
        f"the {what} card is format {found}, written by SchemaRouter "
        f"{str(wrote)[:40] if wrote else 'of a later version'}; this SchemaRouter reads "
        f"format {CARD_FORMAT} at most",
        where=str(folder.joinpath("card.json")),
        hint=f"Load it with the SchemaRouter that wrote it, or {retrain[:1].lower()}{retrain[1:]}"
        " with this one",
    )


def model_card(
    folder: Any,
    files: Iterable[str],
    *,
    what: str,
    train: str,
    retrain: str,
    kind: str | None = None,
) -> dict[str, Any]:
    """The card of the model folder ``folder`` after checking it is no other ``kind`` of model
    (:func:`check_kind`, where its card names one) and holds ``files`` (:func:`check_folder`,
    ``train`` its hint); an unreadable card is a :class:`~schemarouter.errors.ModelError`
    whose hint is ``retrain``."""
    card: dict[str, Any] | None = None
    unreadable: Exception | None = None
    try:
        card = read_card(folder)
    except (OSError, ValueError) as exc:
        unreadable = exc
    if kind is not None:
        check_kind(card, folder, kind)
    check_folder(folder, files, what=what, hint=train)
    if card is None:
        raise ModelError(
            f"the {what} card is unreadable: {unreadable}",
            where=str(folder.joinpath("card.json")),
            hint=retrain,
        ) from None
    check_format(card, folder, what=what, retrain=retrain)
    return card


def onnx_session(
    model: Path,
    threads: int,
    *,
    what: str,
    purpose: str,
    command: str,
    in_memory: bool = False,
    sha256: str = "",
) -> Any:
    """An onnxruntime CPU session on the graph ``model`` (``threads`` intra-op threads, one
    inter-op, its warnings off). A graph onnxruntime cannot load is a
    :class:`~schemarouter.errors.ModelError` naming the ``what`` and the file, whose hint is
    to re-export it with ``command``; onnxruntime missing says it is needed for ``purpose``.
    ``in_memory``: the file is read first, so the session keeps no handle on it.

    ``sha256``: the digest the model's card gives. The file is then read, checked against it
    and loaded from the very bytes checked, at every opening: a file replaced since the card
    was read (a package upgraded in place under a running process, whose forked children
    open their sessions afresh) is refused, never loaded as the card's model."""
    ort = require("onnxruntime", purpose=purpose)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    data = model_bytes(model, what=what, command=command) if in_memory or sha256 else None
    if data is not None and sha256:
        check_digest(data, sha256, model, what=what, command=command)
    try:
        return ort.InferenceSession(
            str(model) if data is None else data, options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(
            f"onnxruntime cannot load the {what}: {exc}",
            where=str(model),
            hint=f"Re-export the model with `{command}`",
        ) from None


def check_digest(data: bytes, sha256: str, model: Path, *, what: str, command: str) -> None:
    """:class:`~schemarouter.errors.ModelError` where ``data`` (the file ``model``'s bytes)
    is not the file whose digest its card gives, ``sha256``."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ModelError(
            f"the {what} model's sha256 is {actual[:16]}..., its card says {sha256[:16]}...",
            where=str(model),
            hint="The file is corrupt or was replaced after its card was read (a package "
            "upgraded under a running process: restart the process); reinstall the "
            f"package or re-export the model with `{command}`",
        )


def model_bytes(model: Path, *, what: str, command: str) -> bytes:
    try:
        return model.read_bytes()
    except OSError as exc:
        raise ModelError(
            f"the {what}'s model file cannot be read: {exc.strerror or exc}",
            where=str(model),
            hint=f"Reinstall the package or re-export the model with `{command}`",
        ) from None


def card_identity(card: dict[str, Any], name: str, *, digits: int = 12) -> str:
    """``name:digest`` of a model from its card (its ``name``, else ``name``; the first
    ``digits`` of its ``model_sha256``, where it has one)."""
    digest = str(card.get("model_sha256", ""))[:digits]
    named = str(card.get("name", name))
    return f"{named}:{digest}" if digest else named


def off_by_default(card: dict[str, Any], *, on: bool) -> str:
    """Why ``SchemaRouter()`` leaves the model off (``""``: it is on), from the card's
    ``router_default`` (``on``: what a card that does not say means)."""
    default = card.get("router_default") or {}
    if default.get("on", on):
        return ""
    return str(default.get("why") or "the model's card turns it off by default")


def model_setting(value: Any, kind: Any, name: str, needs: str) -> Any:
    """``value`` as a model of ``kind`` for ``SchemaRouter(name=...)`` and the router's
    setting of that name: a model folder (str or path), ``"shipped"`` (the model shipped
    with the package, whatever its card's default), ``"none"`` or ``None`` (off), or an
    object with a ``needs`` method; anything else an
    :class:`~schemarouter.errors.ArgumentError` now, not an ``AttributeError`` at the first
    request."""
    if value is None:
        return None
    keyword = value.strip().lower() if isinstance(value, str) else None
    if keyword in ("shipped", "none"):
        return kind.shipped() if keyword == "shipped" else None
    if isinstance(value, str | Path):
        return kind(value)
    if isinstance(value, bool | int | float) or not callable(getattr(value, needs, None)):
        raise ArgumentError(
            f"{name} must be a {kind.__name__}, a model folder, 'shipped', 'none' or None, "
            f"not {type(value).__name__}",
            where=f"SchemaRouter({name}=...)",
            hint=f"Pass {name}={kind.__name__}.shipped() or the folder train-* wrote",
        )
    return value


def router_model(
    value: Any, kind: Any, convert: Callable[[Any], Any], *, given: bool
) -> tuple[Any, str]:
    """The model of ``kind`` a ``SchemaRouter`` starts with and why it is off by default
    (``""``: it is not): an argument ``given`` is ``convert(value)`` (its
    :func:`model_setting`); otherwise the shipped model (``kind.shipped()``), or ``None``
    with the reason its card gives for leaving it off (:func:`off_by_default`)."""
    if given:
        return convert(value), ""
    model = kind.shipped()
    why_off = getattr(model, "off_by_default", "")
    return (None, why_off) if why_off else (model, "")
