"""Locks that a forked child gets back free.

A lock that some thread holds when the process forks is copied held into the child, where
that thread does not exist: the child's first ``with lock:`` waits forever (a worker forked
by ``multiprocessing`` while other threads retrieve hung on the index's lock).
:class:`ForkSafeLock` comes back free in the child. A plain one is created afresh there.
One made with ``settle=True`` guards data that its holder changes in several steps (the
index's tables): the forking thread takes it just before the fork, so the fork waits for
the holder to finish and the child's copy of the data is whole; it is released on both
sides after the fork. A holder of a settled lock must not wait for another thread, nor
hand work to a pool, while it holds it: the forking thread may hold what that needs. Should
a fork still wait :data:`SETTLE_SECONDS` for one, it goes on without it (a warning is
logged) and the child gets that lock afresh, as a plain one.

Native code has locks of its own: an onnxruntime session that another thread was running
at the fork comes into the child with its allocator's lock held, and the child's first run
waits forever (``.ci/run`` saw it once; 9 of 4,500 forks in a stress run). An owner of such
an object registers with :func:`forget_in_child`: the child calls its ``forget`` and the
owner loads the object afresh on first use. What it forgot is kept, never freed: its
destructor could wait for the same lock.

Python 3.11's ``functools.cached_property`` takes one lock per property, for every instance
of its class: a child forked while another thread computed one waited forever on its first
(1 child in 4,500 of the stress run above). :class:`cached` is the same without the lock, as
3.12's is: two threads that ask at once may each compute the value, once.
"""

from __future__ import annotations

import concurrent.futures.thread
import logging
import os
import threading
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar, overload

__all__ = ["SETTLE_SECONDS", "ForkSafeLock", "cached", "forget_in_child"]

Owner = TypeVar("Owner")
T = TypeVar("T")

logger = logging.getLogger(__name__)

#: how long a fork waits for each settled lock that another thread holds
SETTLE_SECONDS = 10.0


class _Lock(Protocol):
    def acquire(self, blocking: bool = ..., timeout: float = ...) -> bool: ...

    def release(self) -> None: ...


class ForkSafeLock:
    """A lock (``reentrant``: an ``RLock``) that a forked child gets free; ``settle``: the
    fork waits until no other thread holds it (a settled lock is reentrant, so a thread
    that holds it can still fork)."""

    __slots__ = ("__weakref__", "_lock", "_reentrant")

    def __init__(self, *, reentrant: bool = False, settle: bool = False) -> None:
        self._reentrant = reentrant or settle
        self._lock: _Lock = _new(self._reentrant)
        with _guard:
            (_settled if settle else _renewed).add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._lock.release()

    def _renew(self) -> None:
        self._lock = _new(self._reentrant)


class cached(Generic[T]):
    """``functools.cached_property`` without its lock (see the module's notes): the value is
    computed on first access and kept in the instance's ``__dict__``."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached[T]:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value
        return value


def _new(reentrant: bool) -> _Lock:
    return threading.RLock() if reentrant else threading.Lock()


#: the live locks the child creates afresh, and those the fork waits for
_renewed: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()
_settled: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()
#: guards adding to the sets against the copy the fork takes of them
_guard = threading.Lock()
#: the settled locks the forking thread holds across the fork
_taken: list[ForkSafeLock] = []
#: the owners of native objects a child loads afresh (:func:`forget_in_child`), and what
#: children forgot (kept: freeing it could wait for a lock copied held)
_forgetting: list[tuple[weakref.ref[Any], Callable[[Any], object]]] = []
_forgotten: list[object] = []


def forget_in_child(owner: Owner, forget: Callable[[Owner], object]) -> Owner:
    """``owner``, whose ``forget(owner)`` a forked child calls while ``owner`` lives: it
    drops the native objects it caches (and returns them, for the child to keep) so that
    the child loads its own. Returns ``owner``."""
    with _guard:
        _forgetting[:] = [(ref, f) for ref, f in _forgetting if ref() is not None]
        _forgetting.append((weakref.ref(owner), forget))
    return owner


def _before_fork() -> None:
    with _guard:
        settled = list(_settled)
    for lock in settled:
        if lock._lock.acquire(timeout=SETTLE_SECONDS):
            _taken.append(lock)
        else:  # a holder that broke the rule in the module's notes
            logger.warning(
                "a fork waited %g s for a lock another thread holds; the child gets it afresh",
                SETTLE_SECONDS,
            )


def _after_fork_in_parent() -> None:
    while _taken:
        _taken.pop()._lock.release()


def _after_fork_in_child() -> None:
    global _guard
    _guard = threading.Lock()
    taken = set(map(id, _taken))
    for lock in _taken:
        lock._lock.release()
    _taken.clear()
    for lock in [*_renewed, *_settled]:
        if id(lock) not in taken:
            lock._renew()
    for ref, forget in _forgetting:
        owner = ref()
        if owner is not None:
            _forgotten.append(forget(owner))


# Hooks run before a fork in the reverse order of their registration: the thread pools'
# module (whose hook takes the shutdown lock every submit takes) is imported above, so its
# hook runs after ours and a fork waiting for a settled lock leaves that lock free.
_POOLS = concurrent.futures.thread
if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )
