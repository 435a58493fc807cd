"""The references :class:`~schemarouter.adapters._schema.SchemaResolver` is inlining.

A stack, innermost last, that says in constant time whether (and first where) a reference
is on it: each pure ``{"$ref": ...}`` alias of a chain goes on it, so a chain of 40,000
aliases searched with ``in`` once per reference below it made registration quadratic
(trial I #5).
"""

from __future__ import annotations

__all__ = ["RefStack"]


class RefStack:
    def __init__(self) -> None:
        self.refs: list[str] = []
        #: ref -> its first index in ``refs`` where still true (checked on reading, so
        #: :meth:`pop_to` leaves it as it is)
        self._first: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.refs)

    def index(self, ref: str) -> int | None:
        """The first index of ``ref`` on the stack, or ``None`` where it is not there."""
        at = self._first.get(ref)
        return at if at is not None and at < len(self.refs) and self.refs[at] == ref else None

    def push(self, chain: list[str]) -> int:
        """Put ``chain`` on the stack; the depth it starts at (for :meth:`pop_to`)."""
        depth = len(self.refs)
        for at, ref in enumerate(chain, depth):
            if self.index(ref) is None:
                self._first[ref] = at
        self.refs.extend(chain)
        return depth

    def pop_to(self, depth: int) -> None:
        """Take off everything above ``depth``."""
        del self.refs[depth:]
