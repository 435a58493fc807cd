"""How far a long registration got: a line at INFO on the ``schemarouter.progress`` logger
each :data:`EVERY` tools, operations or routes (:func:`step`).

Registering 100,000 routes took 18 s (a loaded machine: over a minute), listing and compiling
a gateway's 100,000 tools two minutes, and nothing was said until the end. A program sees the
lines where it puts the ``schemarouter`` logger at INFO (as the index's bars show from 1,000
routes); the command line prints them on stderr wherever it shows its bars
(:func:`lines_on_stderr`), and ``--quiet`` / ``--no-progress`` keep it quiet; so does a
router made with ``progress=True`` while it registers (:func:`shown`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

__all__ = ["EVERY", "LOGGER", "lines_on_stderr", "shown", "step"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

LOGGER = logging.getLogger("schemarouter.progress")
#: A line each this many things done.
EVERY = 5_000


def step(done: int, before: int, message: str, *args: Any) -> None:
    """Log ``message % args`` at INFO where ``done`` passed a multiple of :data:`EVERY`
    since ``before``."""
    if done // EVERY > before // EVERY:
        LOGGER.info(message, *args)


@contextlib.contextmanager
def lines_on_stderr(enabled: bool, prefix: str = "registering") -> Iterator[None]:
    """While the block runs, each line of :data:`LOGGER` on stderr after ``PREFIX: ``, where
    ``enabled`` (the command line's ``--progress``); nothing otherwise."""
    if not enabled or any(isinstance(h, _Lines) for h in LOGGER.handlers):
        yield  # or printed already (a router's add_catalog, under the command line's)
        return
    handler = _Lines(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prefix}: %(message)s"))
    level = LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.setLevel(level)


class _Lines(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler :func:`lines_on_stderr` adds (one at a time)."""


def shown(method: Callable[Concatenate[Any, _P], _R]) -> Callable[Concatenate[Any, _P], _R]:
    """A router's registration ``method``, its lines on stderr where the router was made
    with ``progress=True`` (as its index bars are); ``None`` or ``False``: only logged."""

    @functools.wraps(method)
    def registering(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with lines_on_stderr(getattr(self, "progress", None) is True):
            return method(self, *args, **kwargs)

    return registering
