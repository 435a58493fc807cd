"""The models shipped in ``schemarouter.models``: where each one is, and one of each per process.

The reranker, the learned ranking stage, the encoder and the encoder's cross-lingual bridge
each load once per process (an onnxruntime session, a few MB of arrays) and every router
shares that one (:func:`load_once`); a model passed to a router explicitly is its own.
:func:`shipped_folder` says whether a model is there at all (a checkout may lack one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["load_once", "shipped_folder"]

T = TypeVar("T")

#: key -> the loaded model (``None`` where none is shipped), for the life of the process
_LOADED: dict[str, Any] = {}
_LOCK = threading.RLock()


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
