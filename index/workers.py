"""The worker threads a request's Python-side work runs on while its encoding runs.

A request spends most of its time in the encoder's onnxruntime call, which releases the
GIL; its BM25 pass and the router's query analysis need the interpreter. On two or more
cores the caller's thread encodes and a worker thread does that other work meanwhile, so it
costs almost nothing. The encoding stays on the caller's thread and the work is handed over
only once the request is tokenized: a thread that needs the GIL to reach its model call
while the other runs Python waits for it (measured: the model call then started 1.1 ms
late, and the gain was gone on small catalogs). The pool is created on first use and
starts afresh in a forked child (a parent's worker threads do not exist there).
``SCHEMAROUTER_BACKGROUND=0`` in the environment runs everything on the caller's thread, in
turn.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from schemarouter.index.environment import env_switch

__all__ = ["background", "cores", "in_background"]

P = ParamSpec("P")
T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _forget() -> None:
    global _pool, _lock
    _pool = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def background() -> bool:
    """Whether :func:`in_background` uses a worker thread: two cores or more, and not
    switched off by ``SCHEMAROUTER_BACKGROUND=0`` (or ``false``, ``no``, ``off``)."""
    return env_switch("SCHEMAROUTER_BACKGROUND", default=True) and cores() > 1


def in_background(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """``fn(*args, **kwargs)`` on a worker thread where there are two cores or more, else
    right now (:func:`background`); either way a future whose ``result()`` gives its value
    (or raises its error)."""
    global _pool
    if background():
        pool = _pool
        if pool is None:
            with _lock:
                if _pool is None:
                    _pool = ThreadPoolExecutor(thread_name_prefix="schemarouter")
                pool = _pool
        return pool.submit(fn, *args, **kwargs)
    done: Future[T] = Future()
    try:
        done.set_result(fn(*args, **kwargs))
    except BaseException as exc:
        done.set_exception(exc)
    return done
