"""The route index of :class:`~schemarouter.SchemaRouter`: built, loaded or opened on first
use (or by :meth:`~IndexMixin.build_index`), kept current with every registry change, and
closed with the router where the router opened it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.errors import StaleIndexError
from schemarouter.registering import RegistrationMixin
from schemarouter.registry.registry import RegistryChange, RegistrySnapshot
from schemarouter.safety.forksafe import ForkSafeLock

if TYPE_CHECKING:
    from schemarouter.index import Encoder, IndexSettings
    from schemarouter.index.backend import DeferredIndex, RouteIndex

__all__ = ["PROGRESS_MIN_ROUTES", "IndexMixin"]

logger = logging.getLogger("schemarouter.router")

#: From this many routes, a first index build shows progress bars when the ``schemarouter``
#: logger is at INFO (``SchemaRouter(progress=...)`` overrides).
PROGRESS_MIN_ROUTES = 1_000

#: one restore of a saved registry at a time (see ``IndexMixin._restore_on_first_use``)
_RESTORING = ForkSafeLock()

#: "not given": a router argument left to its default
_DEFAULT: Any = object()


class IndexMixin(RegistrationMixin):
    """The index half of the facade (its state is set by ``SchemaRouter.__init__``)."""

    _index_lock: threading.Lock
    _index: RouteIndex | None
    #: an index built and not yet published (see :meth:`_ready_index`)
    _built: RouteIndex | None
    _index_spec: DeferredIndex | str | Path | None
    _index_settings: IndexSettings | None
    _embedding_cache: Any
    _encoder: Encoder | None
    #: the index folder the registry was restored from and the generation read then
    _restored: tuple[Path, Any] | None
    progress: bool | None

    # -- the index -----------------------------------------------------------------------

    @property
    def index(self) -> RouteIndex:
        """The route index (in-process or Milvus), built, loaded or opened on first use and
        kept current."""
        index = self._index
        if index is not None:
            return index
        return self._ready_index(progress=self._show_progress(None))

    def close(self) -> None:
        """Close the MCP sessions this router opened (see
        :meth:`~schemarouter.registering.RegistrationMixin.close`) and the index connection
        it opened itself: the Milvus client of a ``milvus://`` URI given as ``index=`` (a
        later query connects again). An index object passed in is its owner's to close."""
        super().close()
        with self._index_lock:
            index, opened_here = self._index, isinstance(self._index_spec, str | Path)
        if opened_here and index is not None:
            close = getattr(index, "close", None)  # an in-process index holds no connection
            if callable(close):
                close()

    def _show_progress(self, asked: bool | None) -> bool:
        """Whether building the index now shows progress bars (see :attr:`progress`)."""
        if asked is not None:
            return asked
        if self.progress is not None:
            return self.progress
        return len(self.registry.snapshot()) >= PROGRESS_MIN_ROUTES and logging.getLogger(
            "schemarouter"
        ).isEnabledFor(logging.INFO)

    def _cache(self) -> Any:
        if self._embedding_cache is _DEFAULT:
            from schemarouter.index.build import default_embedding_cache

            self._embedding_cache = default_embedding_cache()
        return self._embedding_cache

    # -- the saved registry (schemarouter.index.saved_registry) ---------------------------

    def restore_registry(self, path: str | Path, *, leave_out: Collection[str] = ()) -> Any:
        """Register the registry saved in the index folder ``path`` (see
        :meth:`from_index`), but the routes of the providers ``leave_out`` names (a
        gateway's upstream servers, registered when they connect); returns the change. The
        file is checked against the manifest (size, sha256, registry fingerprint)."""
        from schemarouter.execution.invokers.http import register_http_routes
        from schemarouter.index.heap import trim_heap
        from schemarouter.index.saved_registry import saved_registration
        from schemarouter.index.store import read_manifest

        # the generation read, to tell a rebuild that replaces the folder before the index
        # loads from a stale index (:meth:`restored_replaced`)
        manifest = read_manifest(Path(path))
        self._restored = (Path(path), manifest.get("generation"))
        registration = saved_registration(path, manifest=manifest)
        if leave_out:
            kept = tuple(r for r in registration.routes if r.provider.id not in leave_out)
            registration = registration.model_copy(update={"routes": kept})
        change = register_http_routes(self, registration)
        trim_heap()  # what the parse freed, back to the system (memory: see index.heap)
        return change

    def restored_replaced(self) -> bool:
        """Whether the index folder this router's registry was restored from holds another
        generation now (a rebuild replaced it since)."""
        from schemarouter.index.store import read_manifest

        restored = self._restored
        if restored is None:
            return False
        try:
            return bool(read_manifest(restored[0]).get("generation") != restored[1])
        except Exception:  # a folder being replaced or gone: its own error says so on load
            return False

    def export_catalog(self, path: str | Path, *, name: str | None = None) -> Path:
        """Write what is registered as one catalog file (JSON) at ``path``: registered
        again (``add_catalog``) it gives the same route ids and fingerprints (see
        :mod:`schemarouter.registry.export`: functions and live sessions are not saved,
        only their routes' contracts). Returns the path."""
        from schemarouter.registry.export import catalog_document, write_catalog

        return write_catalog(catalog_document(self.registry.snapshot(), name=name), path)

    def _restore_on_first_use(self) -> None:
        """``SchemaRouter(index=FOLDER)`` with nothing ever registered: the registry saved
        in the folder is registered before the index opens (once, whichever thread asks)."""
        spec = self._index_spec
        path = getattr(spec, "path", spec)  # an IndexFolder, or the folder itself
        if self.registry.version or not isinstance(path, str | Path):
            return
        from schemarouter.index.backend import is_milvus_uri, looks_like_uri

        if is_milvus_uri(str(path)) or looks_like_uri(str(path)):
            return
        with _RESTORING:
            if not self.registry.version:
                self.restore_registry(path)

    def _ready_index(self, *, progress: bool) -> RouteIndex:
        """The index, built (or loaded, or opened) first where there is none yet.

        The locks are taken in one order, the writers' lock before the index's, never the
        index's and then the writers': a build holds only the index's lock (one build at a
        time) and leaves what it built in ``_built``; catching it up with the registrations
        made meanwhile and publishing it happen under the writers' lock. Before, a build
        held the index's lock while it waited for the writers' lock, and a thread that held
        the writers' lock (a ``batch()``) and asked for the index waited for the index's
        lock: both hung (trial C). Now that thread waits for the build, then publishes it."""
        if self._index is None:
            self._restore_on_first_use()  # before the locks: it registers
        with self._index_lock:
            if self._index is not None:
                return self._index
            if self._built is None:
                self._built = self._make_index(progress=progress)
        with self.registry.lock, self._index_lock:
            if self._index is None:
                built, self._built = self._built, None
                if built is None:  # a build that failed in the thread that ran it
                    built = self._make_index(progress=progress)
                # catch up with registrations made while it was built
                built.apply(self.registry.snapshot(), cache=self._cache())
                self._index = built
            return self._index

    def _make_index(self, *, progress: bool = False) -> RouteIndex:
        """Build, load or open the index for the registry as it is now (its caller catches it
        up with registrations made meanwhile: :meth:`_ready_index`)."""
        from schemarouter.index.build import open_index

        try:
            index = open_index(
                self._index_spec,
                self.registry.snapshot(),
                encoder=self._encoder,
                settings=self._index_settings,
                cache=self._cache(),
                progress=progress,
            )
        except StaleIndexError as exc:
            if not self.restored_replaced():
                raise
            raise StaleIndexError(
                "the index folder was rebuilt while this process started: its registry was "
                "read from the index before, and the index now is another",
                where=exc.where,
                hint="Start again: it starts from the new index (SchemaRouter.from_index "
                "starts again by itself)",
            ) from exc
        kept = getattr(index, "settings", None)
        asked = self._index_settings
        if asked is not None and kept is not None and kept != asked:
            # a saved or attached index keeps the settings it was built with
            differ = [
                f.name for f in fields(kept) if getattr(kept, f.name) != getattr(asked, f.name)
            ]
            logger.warning(
                "the index keeps the settings it was built with; index_settings= differs in "
                "%s and is not used (rebuild the index with them to use them)",
                ", ".join(differ),
            )
        return index

    def _on_registry_change(self, snapshot: RegistrySnapshot, change: RegistryChange) -> None:
        if self._index is not None:
            try:
                self._index.apply(snapshot, change, cache=self._cache())
            except BaseException:
                self._index = None  # half-applied: rebuilt from the registry on next use
                raise
