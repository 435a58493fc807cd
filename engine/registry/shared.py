"""An immutable mapping that shares its structure with the mapping it was made from.

The registry makes a new snapshot for every registration. Copying every route into a new
dict made one registration cost O(routes registered so far), and a catalog registered one
provider at a time cost O(N²) (issue #26). :class:`SharedMap` makes ``evolve`` cost what it
changes instead:

::

    root (64 slots) ─► middle (64 slots) ─► leaf dict      a key's slots: hash(key) bits 0-5, 6-11
    evolve(set={k: v}) copies the root, the middle node and the leaf dict on k's path
    (64 + 64 pointers + the leaf's share of the keys: about N / 4096); every other node
    is shared with the parent map, which never changes.

Iteration follows insertion order, as a dict's does (a replaced value keeps its place, a
removed key is gone, a new key comes last). The order is one append-only list shared by a
map and the maps evolved from it while they only add keys; an evolve that removes keys, or
that starts from a map that is no longer the newest of its line, copies it (O(N), rarely).

Reads cost a dict lookup and two tuple indexings; nothing here is specific to routes.
Hashes are the process's own (``hash``), so a map pickles as its items.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any, TypeVar, overload

from schemarouter.safety.forksafe import ForkSafeLock

__all__ = ["SharedMap", "evolve_table"]

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")

_BITS = 6
_FAN = 1 << _BITS
_SLOT = _FAN - 1
#: The shared empty leaf and middle node (never written: every write copies first).
_EMPTY_LEAF: dict[Any, Any] = {}
_EMPTY_MID: tuple[dict[Any, Any], ...] = (_EMPTY_LEAF,) * _FAN
_EMPTY_ROOT: tuple[tuple[dict[Any, Any], ...], ...] = (_EMPTY_MID,) * _FAN
#: Guards the append to a shared order list (two maps evolved from one parent at once).
_ORDER_LOCK = ForkSafeLock()


class SharedMap(Mapping[K, V]):
    """An immutable mapping; :meth:`evolve` returns a changed copy that shares structure."""

    __slots__ = ("_n", "_order", "_root")

    _root: tuple[tuple[dict[K, V], ...], ...]
    _order: list[K]
    _n: int

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        made = _EMPTY.evolve(items)
        self._root, self._order, self._n = made._root, made._order, made._n

    @classmethod
    def _make(cls, root: Any, order: list[K], n: int) -> SharedMap[K, V]:
        out: SharedMap[K, V] = object.__new__(cls)
        out._root, out._order, out._n = root, order, n
        return out

    # -- reading -------------------------------------------------------------------------

    def __getitem__(self, key: K) -> V:
        h = hash(key)
        return self._root[h & _SLOT][(h >> _BITS) & _SLOT][key]

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, /, default: V | D) -> V | D: ...

    def get(self, key: K, /, default: Any = None) -> Any:
        h = hash(key)
        return self._root[h & _SLOT][(h >> _BITS) & _SLOT].get(key, default)

    def __contains__(self, key: object) -> bool:
        try:
            h = hash(key)
        except TypeError:
            return False
        return key in self._root[h & _SLOT][(h >> _BITS) & _SLOT]

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[K]:
        return islice(self._order, self._n)

    def __repr__(self) -> str:
        return f"SharedMap({dict(self.items())!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (SharedMap, (list(self.items()),))

    # -- writing (a new map; this one never changes) -------------------------------------

    def evolve(
        self, put: Mapping[K, V] | Iterable[tuple[K, V]] = (), *, delete: Iterable[K] = ()
    ) -> SharedMap[K, V]:
        """A map with ``delete`` removed (unknown keys are a ``KeyError``), then ``put``
        set; this map is unchanged. Costs O(keys changed x (128 + leaf size))."""
        pairs = put.items() if isinstance(put, Mapping) else put
        root = list(self._root)
        mids: dict[int, list[dict[K, V]]] = {}
        copied: set[tuple[int, int]] = set()

        def leaf(key: K) -> dict[K, V]:
            h = hash(key)
            i, j = h & _SLOT, (h >> _BITS) & _SLOT
            mid = mids.get(i)
            if mid is None:
                mid = mids[i] = list(root[i])
            if (i, j) not in copied:
                copied.add((i, j))
                mid[j] = dict(mid[j])
            return mid[j]

        gone: set[K] = set()
        for key in delete:
            del leaf(key)[key]
            gone.add(key)
        new: list[K] = []
        for key, value in pairs:
            table = leaf(key)
            if key not in table:
                new.append(key)
            table[key] = value
        for i, mid in mids.items():
            root[i] = tuple(mid)
        n = self._n - len(gone) + len(new)
        order = self._order
        if gone:  # a key deleted and put again is in ``new``: it moves to the end
            order = [k for k in islice(order, self._n) if k not in gone] + new
        elif new and self._n == 0:
            order = new
        elif new:
            with _ORDER_LOCK:
                if len(order) == self._n:  # the newest of its line: share and append
                    order.extend(new)
                else:
                    order = [*islice(order, self._n), *new]
        return SharedMap._make(tuple(root), order, n)


_EMPTY: SharedMap[Any, Any] = SharedMap._make(_EMPTY_ROOT, [], 0)


def evolve_table(table: Mapping[K, V], put: Mapping[K, V], delete: Iterable[K]) -> SharedMap[K, V]:
    """``table`` (a :class:`SharedMap`, or any mapping, copied once) with ``delete`` removed
    and ``put`` set; ``table`` itself when neither changes anything."""
    delete = tuple(delete)
    if not put and not delete and isinstance(table, SharedMap):
        return table
    base = table if isinstance(table, SharedMap) else SharedMap(table)
    return base.evolve(put, delete=delete)
