"""What a Milvus engine failure is called, and the checks of a Milvus Lite file made
before connecting.

A Milvus Lite collection is a local file (``milvus+lite:///srv/routes.db``): its problems
are a folder that does not exist, a name that does not end in ``.db`` or damaged data, and
the hint for them is about that file, never "check that the server is up". A read that
fails on it (the collection's data, its schema) is a :class:`CorruptIndexError` saying to
rebuild it; the engine's own advice in its message (``allow_pickle=``, which would load
untrusted data) is left out.

Milvus Lite runs in this process and logs each failed request with its traceback on the
``milvus_lite`` logger; with no logging configured, Python printed those on stderr next to
the error raised here. :func:`quiet_unconfigured_lite_logs` gives that logger a
``NullHandler`` (what a library does for its own loggers): where the application configured
logging its records still reach its handlers.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError, CorruptIndexError, IndexBackendError
from schemarouter.index.milvus.rows import MilvusTarget
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "check_lite_file",
    "check_row_count",
    "engine_error",
    "held_elsewhere",
    "is_engine_error",
    "lite_closed",
    "lite_opened",
    "prepare_lite",
    "quiet_unconfigured_lite_logs",
]

#: Steps of :class:`~schemarouter.index.milvus.index.MilvusIndex` that read what a Milvus
#: Lite file holds: a failure there means the file's data cannot be read.
_READS = (
    "reading the collection",
    "loading the collection",
    "counting the collection's rows",
    "reading the stored routes",
    "searching",
    "dropping the collection",  # a rebuild of a collection whose schema is damaged
)
#: Sentences of an engine message that are advice for the engine's own users.
_ADVICE = ("allow_pickle", "pickle.load")


def _rebuild_hint(target: MilvusTarget) -> str:
    path = Path(target.uri).resolve()
    return (
        f"Rebuild it (`schemarouter index build --backend milvus --uri milvus+lite://{path} "
        f"--rebuild`, or MilvusIndex.rebuild); where even that fails, delete {path} (Milvus "
        "Lite keeps its collections there) and build it again"
    )


def check_lite_file(target: MilvusTarget) -> None:
    """Refuse a Milvus Lite path that cannot be one before the engine is asked: a name
    not ending in ``.db`` (:class:`ArgumentError`), a plain file (not a Milvus Lite folder)
    or a folder that does not exist (:class:`IndexBackendError`)."""
    path = Path(target.uri)
    if path.suffix != ".db":
        raise ArgumentError(
            f"a Milvus Lite file must end in .db, got {path.name[:120]!r}",
            where=target.redacted(),
            hint="Give a .db path (milvus+lite:///srv/routes.db), or an http(s) URI for a "
            "Milvus server",
        )
    if path.exists() and not path.is_dir():
        raise IndexBackendError(
            f"{path} is a file, not a Milvus Lite data folder: this milvus-lite keeps its "
            "data in a folder named *.db (the file is another program's, or another "
            "milvus-lite version's)",
            where=target.redacted(),
            hint="Give a new .db path and build the index there (`schemarouter index build "
            "SOURCES --backend milvus --uri milvus+lite:///NEW/routes.db`), or move the "
            "file away first; a rebuild cannot open it",
        )
    if not path.parent.is_dir():
        raise IndexBackendError(
            f"the folder of the Milvus Lite file does not exist: {path.parent}",
            where=target.redacted(),
            hint="Create the folder first (mkdir -p), or give a .db path in a folder that "
            "exists; Milvus Lite creates the file itself",
        )


def check_row_count(target: MilvusTarget, meta: dict[str, Any], stats: Any) -> None:
    """A Milvus Lite file whose data segments are gone opens with its metadata intact and
    answers every search with nothing: fewer rows (``stats``, the engine's collection
    statistics) than the metadata's documents is a :class:`CorruptIndexError`."""
    expected = meta.get("documents")
    found = stats.get("row_count") if isinstance(stats, dict) else None
    if isinstance(expected, int) and isinstance(found, int) and found < expected:
        raise CorruptIndexError(
            f"collection {target.collection!r} holds {found} rows where its metadata lists "
            f"{expected} documents (the Milvus Lite data files are missing or damaged)",
            where=target.redacted(),
            hint="Rebuild it (`schemarouter index build --backend milvus --rebuild`, or "
            "MilvusIndex.rebuild)",
        )


def is_engine_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from the engine (pymilvus, grpc, Milvus Lite, the OS)."""
    root = type(exc).__module__.split(".")[0]
    return root in ("pymilvus", "grpc", "milvus_lite") or isinstance(exc, OSError | TimeoutError)


def _engine_message(exc: BaseException) -> str:
    """The engine's message: its ``message`` where it has one (pymilvus wraps it in
    ``<MilvusException: (code=1, message=...)>``), without advice meant for its users."""
    message = getattr(exc, "message", None)
    text = message if isinstance(message, str) and message else str(exc)
    sentences = [s for s in text.split(". ") if not any(a in s for a in _ADVICE)]
    return ". ".join(sentences).strip() or type(exc).__name__


def held_elsewhere(target: MilvusTarget) -> bool:
    """Whether another process holds the lock Milvus Lite takes on the file of ``target``
    while its engine runs there (``LOCK`` in the ``.db`` folder; probed without waiting and
    let go at once)."""
    try:
        import fcntl

        fd = os.open(Path(target.uri) / "LOCK", os.O_RDWR)
    except (ImportError, OSError):  # no lock file, or no flock here (Windows)
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _in_use(target: MilvusTarget) -> IndexBackendError:
    return IndexBackendError(
        f"the Milvus Lite file {target.uri} is open in another process (Milvus Lite lets "
        "one process at a time open a file); nothing is wrong with the file",
        where=target.redacted(),
        hint="Close the router that has it open there (router.close(), or the end of "
        "`with SchemaRouter(...)`) or stop that process (`schemarouter serve`, an `index "
        "build`), then open it again. For several processes on one collection use a Milvus "
        "server (milvus://HOST:PORT/NAME), or an index folder, which any number of processes "
        "load (`schemarouter index build SOURCES --out DIR`)",
    )


def engine_error(target: MilvusTarget, what: str, exc: BaseException) -> Exception:
    """The error for an engine failure while doing ``what`` (without the token or a
    password the URI carries)."""
    if target.is_lite and what == "connecting" and held_elsewhere(target):
        return _in_use(target)  # not damage: no rebuild, no delete
    message = target.redact(_engine_message(exc))[:500]
    if target.is_lite and what in _READS:
        return CorruptIndexError(
            f"the Milvus Lite data of collection {target.collection!r} at {target.uri} "
            f"could not be read while {what} (damaged): {type(exc).__name__}: {message}",
            where=target.redacted(),
            hint=_rebuild_hint(target),
        )
    if target.is_lite:
        return IndexBackendError(
            f"Milvus failed while {what}: {type(exc).__name__}: {message}",
            where=target.redacted(),
            hint=f"Milvus Lite runs in this process on the local file {target.uri}: check "
            "that its folder can be written and the disk is not full; where the file is "
            f"damaged: {_rebuild_hint(target)}",
        )
    return IndexBackendError(
        f"Milvus failed while {what}: {type(exc).__name__}: {message}",
        where=target.redacted(),
        hint="Check that the Milvus server is up and reachable (URI, token, network); "
        "nothing was changed in the router",
    )


def quiet_unconfigured_lite_logs() -> None:
    """A ``NullHandler`` on the ``milvus_lite`` logger (once): its failed-request
    tracebacks no longer reach stderr through Python's last-resort handler where nothing
    configured logging; configured handlers still get them."""
    logger = logging.getLogger("milvus_lite")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


def prepare_lite(target: MilvusTarget) -> None:
    """Before connecting to a Milvus Lite file: :func:`check_lite_file`, then
    :func:`quiet_unconfigured_lite_logs`."""
    check_lite_file(target)
    quiet_unconfigured_lite_logs()


#: Milvus Lite files this process opened through a :class:`MilvusIndex` client (absolute
#: path -> clients open on it). Milvus Lite serves a file from a server in this process that
#: holds the file's lock until the process ends: ``MilvusClient.close()`` leaves it running.
_OPEN: dict[str, int] = {}
_OPEN_LOCK = ForkSafeLock()


def lite_opened(target: MilvusTarget) -> None:
    """A client of this process connected to the Milvus Lite file of ``target``."""
    path = os.path.abspath(target.uri)
    with _OPEN_LOCK:
        _OPEN[path] = _OPEN.get(path, 0) + 1


def lite_closed(target: MilvusTarget) -> None:
    """A client of ``target`` closed: where it was the last, stop Milvus Lite's server for
    the file, which lets the file's lock go (another process, a ``schemarouter index build``,
    can open it; a later query here starts the server again)."""
    path = os.path.abspath(target.uri)
    with _OPEN_LOCK:
        left = _OPEN.get(path, 0) - 1
        if left > 0:
            _OPEN[path] = left
            return
        _OPEN.pop(path, None)
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # an engine without a server manager: nothing to stop
        return
    server_manager_instance.release_server(path)
