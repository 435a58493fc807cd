"""How far a long registration got: a line at INFO on the ``schemarouter.progress`` logger
each :data:`EVERY` tools, operations or routes (:func:`step`).

Registering 100,000 routes took 18 s (a loaded machine: over a minute), listing and compiling
a gateway's 100,000 tools two minutes, and nothing was said until the end. A program sees the
lines where it puts the ``schemarouter`` logger at INFO (as the index's bars show from 1,000
routes); the command line prints them on stderr wherever it shows its bars
(:func:`lines_on_stderr`), and ``--quiet`` / ``--no-progress`` keep it quiet.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["EVERY", "LOGGER", "lines_on_stderr", "step"]

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
    if not enabled:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prefix}: %(message)s"))
    level = LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.INFO)
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.setLevel(level)
