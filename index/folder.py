"""The folder a saved index lives in: whether it can take an index, who writes it, and what
in it is a save's leftover.

A save holds an exclusive lock on ``<index>/.lock`` (``fcntl.flock``) from before it writes
its generation until older generations are deleted, so two saves into one folder take turns
(a second one waits up to ``wait`` seconds, then fails with :class:`IndexStoreError`; the
lock goes with the process that held it, so a killed save never leaves it held). Holding
it, a save knows that every ``.tmp-gen-*``, staged manifest and ``gen-*`` the manifest does
not name was left by a save that died, and deletes them. Loading takes no lock: a read-only
copy loads, and a reader that races a save retries (see :func:`.store.load_index`).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from schemarouter.errors import IndexStoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: saves do not take turns there
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "LOCK",
    "LOCK_WAIT_S",
    "MANIFEST",
    "check_index_folder",
    "named_generation",
    "prune",
    "write_failure",
    "writing",
]

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
LOCK = ".lock"
#: How long a save waits for another save into the same folder (a 100,000-route index is
#: written in well under a minute).
LOCK_WAIT_S = 600.0
_GENERATION = re.compile(r"gen-[0-9a-f]{12}")
_STAGED_MANIFEST = re.compile(r"\.manifest\.json\.gen-[0-9a-f]{12}\.tmp")
_TMP_GENERATION = re.compile(r"\.tmp-gen-[0-9a-f]{12}")


def _is_ours(name: str) -> bool:
    """Whether ``name`` is something a save writes into the folder besides the manifest."""
    return name == LOCK or any(
        p.fullmatch(name) for p in (_GENERATION, _STAGED_MANIFEST, _TMP_GENERATION)
    )


def _writable(path: Path) -> bool:
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK | os.X_OK, effective_ids=effective)


def _read_only(path: Path) -> bool:
    """Whether ``path``'s file system is mounted read-only: no owner or mode makes it
    writable, so "permission denied ... build as its owner" sent the operator the wrong way
    (trial T2, ``mount -o ro``)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): say permission
        return False


_READ_ONLY_HINT = (
    "Build into a folder on a writable file system and copy or mount it there read-only "
    "afterwards; loading a read-only index works"
)


def write_failure(exc: OSError) -> str:
    """What went wrong writing: numpy's short write on a full disk says only "151296
    requested and 69600 written", with no errno (trial T2)."""
    said = str(exc.strerror or exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT) or (
        exc.errno is None and re.search(r"\d+ requested and \d+ written", said)
    ):
        return f"no space left on the device or over the disk quota ({said})"
    return said


def check_index_folder(path: Path) -> None:
    """Refuse, before any work, a ``path`` an index cannot be saved into: a file, a folder
    holding something else, a path under a file, or a folder this process cannot write (or
    create, or reach). A save's own leftovers (a killed build's ``.tmp-gen-*``) do not count
    as something else: the next save deletes them."""
    path = Path(path)
    try:
        _check(path)
    except OSError as exc:  # a folder on the way that this process may not enter
        raise IndexStoreError(
            f"cannot reach the index folder: {exc.strerror or exc}",
            where=str(path),
            hint="Choose a folder path you can write to",
        ) from None


def _check(path: Path) -> None:
    """:func:`check_index_folder` of a path whose places may raise ``OSError``."""
    if path.exists() and not path.is_dir():
        raise IndexStoreError(
            "cannot save an index over a file", where=str(path), hint="Choose a folder path"
        )
    if path.is_dir():
        if not (path / MANIFEST).exists():
            others = sorted(c.name for c in path.iterdir() if not _is_ours(c.name))
            if others:
                shown = ", ".join(others[:5])
                if len(others) > 5:
                    shown += f" and {len(others) - 5} more"
                raise IndexStoreError(
                    f"the folder is not empty and holds no index (it holds {shown})",
                    where=str(path),
                    hint="Save into an empty folder or an existing index folder",
                )
        if not _writable(path):
            if _read_only(path):
                raise IndexStoreError(
                    "cannot write the index folder: its file system is mounted read-only",
                    where=str(path),
                    hint=_READ_ONLY_HINT,
                )
            raise IndexStoreError(
                "cannot write the index folder: permission denied",
                where=str(path),
                hint="Choose a folder you can write to, or build as its owner",
            )
        return
    above = next((p for p in path.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise IndexStoreError(
            f"{above} is a file, so no folder can be made under it",
            where=str(path),
            hint="Choose a folder path",
        )
    if above is not None and not _writable(above):
        why = "its file system is mounted read-only" if _read_only(above) else "permission denied"
        raise IndexStoreError(
            f"cannot create the index folder: {above} is not writable ({why})",
            where=str(path),
            hint=_READ_ONLY_HINT if _read_only(above) else "Choose a folder path you can write to",
        )


@contextmanager
def writing(path: Path, *, wait: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold the folder's save lock (waiting up to ``wait`` seconds for another save)."""
    try:
        fd = os.open(path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise IndexStoreError(
            f"cannot write the index folder: {exc.strerror or exc}",
            where=str(path),
            hint="Choose a folder you can write to",
        ) from None
    try:
        _lock(fd, path, wait)
        yield
    finally:
        os.close(fd)  # releases the lock


def _lock(fd: int, path: Path, wait: float) -> None:
    if fcntl is None:  # pragma: no cover
        return
    deadline = time.monotonic() + wait
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError as exc:  # pragma: no cover - a file system without locks
            logger.warning("cannot lock %s (%s): saving without the lock", path / LOCK, exc)
            return
        if time.monotonic() >= deadline:
            raise IndexStoreError(
                f"another save is writing this index folder (waited {wait:g} s for it)",
                where=str(path),
                hint="Let the other `schemarouter index build` finish, then build again",
            )
        if not told:
            logger.info("waiting for another save into %s to finish", path)
            told = True
        time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))


def named_generation(path: Path) -> str | None:
    """The generation the folder's manifest names, read plainly (``None`` if none)."""
    try:
        generation = json.loads((path / MANIFEST).read_bytes()).get("generation")
    except (OSError, ValueError, AttributeError):
        return None
    return generation if isinstance(generation, str) else None


def prune(path: Path, *, keep: str | None = None) -> None:
    """Delete the generations, temporary generations and staged manifests in ``path`` other
    than ``keep`` and the one its manifest names. Call it holding :func:`writing`: then
    every one of them was left by a save that is no longer running."""
    spare = {keep, named_generation(path)}
    for child in path.iterdir():
        if child.name in spare or child.name == LOCK or not _is_ours(child.name):
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
