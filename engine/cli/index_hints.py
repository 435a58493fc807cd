"""What ``schemarouter retrieve`` and ``index build`` say of an index in the command line's
terms: the library's hints name keywords and Python calls (``sync=True``, ``encoder=``,
``HybridIndex.save``) that a command-line user cannot make (user trials O and T2)."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from schemarouter.errors import CorruptIndexError, SchemaRouterError, StaleIndexError

if TYPE_CHECKING:
    from schemarouter.serve.config import GatewayConfig

__all__ = ["config_index", "index_hint", "sync_note"]


def index_hint(exc: StaleIndexError | CorruptIndexError, index: str | None) -> SchemaRouterError:
    """``exc`` (raised opening ``--index INDEX``) with a hint that names the flags and the
    ``schemarouter index build`` command to run; ``exc`` as it is where ``index`` is none or
    a damaged Milvus collection (its own hint is the writer's)."""
    from schemarouter.index.backend import is_milvus_uri

    if isinstance(exc, CorruptIndexError):  # missing or damaged
        if not index or is_milvus_uri(index):
            return exc
        return exc.hinting(
            f"Build it from these sources: `schemarouter index build SOURCES --out {index}`"
            " (the sources this command was given)"
        )
    if is_milvus_uri(index):
        return exc.hinting(
            "Its writer brings the collection to these sources: `schemarouter index build "
            f"SOURCES --backend milvus --uri {index}` (docs/scale.md)"
        )
    if exc.other_version:  # --sync reads the same files: no way out
        return exc.hinting(
            f"Rebuild it here (`schemarouter index build SOURCES --out {index}`), or "
            f"load it with the SchemaRouter that wrote it ({exc.other_version})"
        )
    if getattr(exc, "encoder_identity", None):  # --sync keeps the encoder: no way out
        return exc.hinting(
            "Load it with the encoder it was built with: --encoder with that folder (a "
            "`schemarouter train-encoder` folder), or no --encoder where it is the shipped "
            "one (in Python SchemaRouter(index=DIR, encoder=FOLDER)); or rebuild it for this "
            f"encoder (`schemarouter index build SOURCES --out {index}`, with the same "
            "--encoder)"
        )
    return exc.hinting(
        f"Rebuild it (`schemarouter index build SOURCES --out {index}`), or pass "
        "--sync to bring it to these sources in memory (its files are not changed)"
    )


def config_index(config: GatewayConfig) -> str:
    """The config's own index folder (resolved against the config file) as a clause for
    ``index build``'s "needs --out DIR" (trial T2: the config named it, the error did not)."""
    from schemarouter.index.backend import is_milvus_uri

    folder = config.index if config.index and not is_milvus_uri(config.index) else None
    if folder is None:
        return ""
    return f" (the config's index: {folder}; --out {folder} builds the one serve loads)"


@contextlib.contextmanager
def sync_note(index: str) -> Iterator[None]:
    """Around ``retrieve --index DIR --sync``: what the sync brought over, on stderr (the
    library logs it at INFO, which the command line never showed: each run embedded or looked
    up the difference again with no word that the saved index stays behind; trial T2)."""
    said: list[str] = []

    class _Note(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    log = logging.getLogger("schemarouter.index.hybrid")
    handler, level = _Note(logging.INFO), log.level
    log.addHandler(handler)
    if log.getEffectiveLevel() > logging.INFO:
        log.setLevel(logging.INFO)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    for line in said:
        if "brought to this one" in line:
            print(
                f"note: {line}; in memory only, the saved files are unchanged: "
                f"`schemarouter index build SOURCES --out {index}` saves it",
                file=sys.stderr,
            )
