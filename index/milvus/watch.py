"""A replica's watch on the collection it reads: whether another writer moved it.

A replica checks the collection's registry fingerprint when it opens it; a writer that
changes the collection afterwards (``remove_provider`` in another process) left the replica
answering from a collection that no longer holds what its registry has, without a word.
:class:`MetaWatch` re-reads the collection's metadata (one ``describe_collection``, a
collection property) at most once every ``every`` seconds, on a search, and refuses
(:class:`StaleIndexError`) while the fingerprint there is not the one this process wrote or
opened, as a new replica with these catalogs would be refused, naming the routes that
differ (read once for each state the other writer leaves).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from schemarouter.errors import StaleIndexError

__all__ = ["STALE_CHECK_S", "MetaWatch"]

#: How often (seconds) a search re-reads the collection's metadata by default.
STALE_CHECK_S = 5.0


class MetaWatch:
    """Re-reads a collection's metadata every ``every`` seconds (``0``: on every search)."""

    def __init__(self, every: float = STALE_CHECK_S) -> None:
        self.every = every
        self._at = time.monotonic()
        self._moved: dict[str, Any] | None = None
        self._said: tuple[object, str] = (None, "")  # (their fingerprint and state, words)

    def reset(self) -> None:
        """Opened (or written) just now: the next read is ``every`` seconds away."""
        self._at, self._moved = time.monotonic(), None

    def check(
        self,
        read_meta: Callable[[], dict[str, Any] | None],
        mine: dict[str, Any],
        differ: Callable[[dict[str, Any]], str] | None = None,
        *,
        name: str,
        where: str,
    ) -> None:
        """:class:`StaleIndexError` where the collection's registry fingerprint (read when
        due) is not ``mine``'s: another writer changed or dropped it. ``differ``: how this
        router's registry differs from the collection with metadata ``theirs`` (in the words
        of :func:`~schemarouter.registry.diff.fingerprint_difference`)."""
        now = time.monotonic()
        if now - self._at >= self.every:
            self._at = now
            theirs = read_meta() or {}
            same = theirs.get("registry_fingerprint") == mine.get("registry_fingerprint")
            self._moved = None if same else theirs
        if self._moved is None:
            return
        now_holds = (
            f"registry version {self._moved.get('registry_version')} "
            f"({self._moved.get('routes')} routes)"
            if self._moved
            else "nothing (it was dropped)"
        )
        said = ""
        if self._moved and differ is not None:
            state = (self._moved.get("registry_fingerprint"), self._moved.get("state"))
            if self._said[0] != state:  # the routes are read once for each state it leaves
                self._said = (state, differ(self._moved))
            said = f": compared with the collection, this router's registry has {self._said[1]}"
        raise StaleIndexError(
            f"collection {name!r} was changed by another writer after this router opened it: "
            f"it now holds {now_holds}, where this router's registry is version "
            f"{mine.get('registry_version')} ({mine.get('routes')} routes){said}",
            where=where,
            hint="Register the catalogs the writer registered and open it again (a new "
            "router), as every replica of one deployment must; only the writer changes the "
            "collection (`schemarouter index build --backend milvus`)",
        )
