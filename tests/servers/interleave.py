"""Routers that put another writer at the one point a registration may be overtaken: after
it registered, before it bound what it registered. Deterministic (no timing luck): the other
writer runs there, in this thread (:class:`Interleaved`) or in its own thread held by events
(:class:`TwoWriters`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.contracts import Registration
from schemarouter.index import HashingEncoder
from schemarouter.registry.registry import RegistryChange


def _options(options: dict[str, Any]) -> dict[str, Any]:
    """A router as the registration tests make it: the hashing encoder, no cache, no
    abstention, no reranker (``options`` replace any of them)."""
    defaults = {"embedding_cache": None, "abstention": None, "reranker": None}
    return {"encoder": HashingEncoder(), **defaults, **options}


class Interleaved(SchemaRouter):
    """Runs ``between`` right after its next registration, before the ``add_*`` that made
    it binds: what another writer may do at that point."""

    between: Callable[[], Any] | None = None

    def __init__(self, **options: Any) -> None:
        super().__init__(**_options(options))

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        change = super().register(registration, replace=replace)
        between, self.between = self.between, None
        if between is not None:
            between()
        return change


class TwoWriters(SchemaRouter):
    """Two writers in the order A registers, B registers, A binds, B binds.

    :meth:`race` runs ``first`` in this thread and ``second`` in another: ``second`` starts
    once ``first`` has registered, and ``first`` goes on (to bind) once ``second`` has
    registered; ``second`` binds once ``first`` returned. Returns both results."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**_options(options))
        self._second: threading.Thread | None = None
        self._start: Callable[[], None] | None = None
        self._registered = threading.Event()  # B registered
        self._first_done = threading.Event()  # A bound and returned

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        change = super().register(registration, replace=replace)
        start, self._start = self._start, None
        if start is not None:  # A registered: let B register, then bind
            start()
            assert self._registered.wait(30), "the second writer never registered"
        elif threading.current_thread() is self._second:  # B registered: wait for A
            self._registered.set()
            assert self._first_done.wait(30), "the first writer never returned"
        return change

    def race(self, first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
        results: dict[str, Any] = {}

        def run_second() -> None:
            try:
                results["second"] = second()
            except BaseException as exc:  # re-raised in the test's thread
                results["error"] = exc
                self._registered.set()

        self._second = threading.Thread(target=run_second, name="second writer")
        self._start = self._second.start
        try:
            results["first"] = first()
        finally:
            self._first_done.set()
            if self._second.ident is not None:  # it started
                self._second.join(30)
        if "error" in results:
            raise results["error"]
        return results["first"], results["second"]
