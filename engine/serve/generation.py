"""The index a serving gateway answers from: opening it, saying which it is, reloading it.

``schemarouter serve`` opens its index off the request path (:func:`open_index`); until it is
open ``/readyz`` answers 503, and an index that did not open (stale, damaged, missing) keeps
it at 503, where before readiness passed and every search failed (user trial W4). What the
probe says of it: its state, the generation the folder's manifest named when it loaded, the
registry fingerprint and when it was loaded (UTC), so replicas that serve different nights
are told apart::

    {"state": "open", "generation": "gen-2894b14938ea",
     "registry_fingerprint": "sha256:eeb3...", "loaded_at": "2026-12-05T00:10:03Z"}

A running server keeps the generation it loaded (a rebuild of the folder changes nothing it
reads); a restart loads the new one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from schemarouter.errors import SchemaRouterError

__all__ = ["IndexState", "open_index"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexState:
    """What ``/readyz`` says of the index: ``lazy`` (opened on the first search: a gateway
    not started by ``serve``), ``loading``, ``open`` or ``failed`` (with the error's code);
    ``generation`` is the saved folder's (``None`` for an index built in memory)."""

    state: str = "lazy"
    generation: str | None = None
    registry_fingerprint: str | None = None
    loaded_at: str | None = None
    error: str | None = None

    @property
    def ready(self) -> bool:
        return self.state in ("lazy", "open")

    def probe(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


def _folder(index: Any) -> Path | None:
    """The saved index folder ``index`` names (``None``: a Milvus URI, an index object, none)."""
    from schemarouter.index.backend import is_milvus_uri

    if isinstance(index, str | Path) and str(index) and not is_milvus_uri(str(index)):
        return Path(index)
    folder = getattr(index, "path", None)  # an IndexFolder
    return Path(folder) if isinstance(folder, str | Path) else None


def _generation(folder: Path | None) -> str | None:
    from schemarouter.index.store import read_manifest

    if folder is None:
        return None
    try:
        generation = read_manifest(folder).get("generation")
    except Exception:  # a folder being replaced, or gone: the load says why
        return None
    return generation if isinstance(generation, str) else None


def _opened(router: Any, folder: Path | None, *, progress: bool) -> IndexState:
    """Open ``router``'s index; its state, the generation named before and after the load
    (a save that replaced the folder meanwhile leaves it unknown rather than guessed)."""
    before = _generation(folder)
    router.build_index(progress=progress)
    after = _generation(folder)
    return IndexState(
        state="open",
        generation=before if before == after else None,
        registry_fingerprint=router.snapshot().fingerprint,
        loaded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def open_index(gateway: Any, *, progress: bool = False) -> IndexState:
    """Open ``gateway``'s index now (``serve`` runs this beside its first requests):
    ``loading`` until it is, then ``open``, or ``failed`` with the error's code (raised)."""
    gateway.index_state = IndexState(state="loading")
    try:
        state = _opened(gateway.router, _folder(gateway.config.index), progress=progress)
    except SchemaRouterError as exc:
        gateway.index_state = IndexState(state="failed", error=exc.code)
        raise
    gateway.index_state = state
    return state
