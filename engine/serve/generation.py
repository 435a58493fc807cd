"""The index a serving gateway answers from: opening it, saying which it is, reloading it.

``schemarouter serve`` opens its index off the request path (:func:`open_index`); until it is
open ``/readyz`` answers 503, and an index that did not open (stale, damaged, missing) keeps
it at 503, where before readiness passed and every search failed (user trial W4). What the
probe says of it: its state, the generation the folder's manifest named when it loaded, the
registry fingerprint and when it was loaded (UTC), so replicas that serve different nights
are told apart::

    {"state": "open", "generation": "gen-2894b14938ea",
     "registry_fingerprint": "sha256:eeb3...", "loaded_at": "2026-12-05T00:10:03Z",
     "left_out": 0}

``left_out`` counts the sources ``index build --skip-invalid`` left out of that generation
(``schemarouter index info DIR`` names them): an operator's alert on ``left_out > 0`` sees
the night that lost a document (user trial X4).

A running server keeps the generation it loaded (a rebuild of the folder changes nothing it
reads). ``SIGHUP`` reloads (:func:`reload`): the config's sources are registered again and
the folder's index opened beside the old one, and only once both are ready does the gateway
switch to them; meanwhile, and whenever the new one cannot be served (damaged, built from
other sources, a source that no longer registers), the old one answers, and the log says
why. A request is answered by one generation from its start (:meth:`Gateway.pinned`). A
gateway with upstream MCP servers is not reloaded (their sessions belong to the router): it
says so, and a restart loads the new index. Before, only a restart did (user trial W4).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from schemarouter.errors import CorruptIndexError, SchemaRouterError, StaleIndexError

__all__ = ["IndexState", "open_index", "reload", "serve_hint", "served_folder", "why_failed"]

logger = logging.getLogger(__name__)

#: How many times a reload starts again where a rebuild replaced the folder while it loaded.
_RELOAD_ATTEMPTS = 3


@dataclass(frozen=True)
class IndexState:
    """What ``/readyz`` says of the index: ``lazy`` (opened on the first search: a gateway
    not started by ``serve``), ``loading``, ``open`` or ``failed`` (with the error's code);
    ``generation`` is the saved folder's (``None`` for an index built in memory)."""

    state: str = "lazy"
    generation: str | None = None
    registry_fingerprint: str | None = None
    loaded_at: str | None = None
    #: how many sources its build left out (``index build --skip-invalid``; counts only,
    #: ``schemarouter index info DIR`` names them)
    left_out: int | None = None
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


def served_folder(gateway: Any) -> Path | None:
    """The saved folder ``gateway`` answers from: its router option ``index`` where given,
    else its config's, as :func:`~schemarouter.serve.sources.build_router` reads it."""
    from schemarouter.serve.sources import served_index

    return _folder(served_index(gateway.config, gateway.router_options))


def _generation(folder: Path | None) -> tuple[str | None, int | None]:
    """The generation ``folder``'s manifest names, and how many sources its build left out."""
    from schemarouter.index.store import read_manifest

    if folder is None:
        return None, None
    try:
        manifest = read_manifest(folder)
    except Exception:  # a folder being replaced, or gone: the load says why
        return None, None
    generation, left_out = manifest.get("generation"), manifest.get("left_out") or []
    if not isinstance(generation, str):
        return None, None
    return generation, len(left_out) if isinstance(left_out, list) else None


#: What a generation is asked once before it answers (user trial Y3).
WARM_QUERY = "warm up the tool search"


def _warm(gateway: Any, router: Any) -> None:
    """Search ``router`` once as ``gateway`` would, before it answers: a first search
    builds what later ones share (the registry's lookup tables, the tool names), 9.4 s at
    100,000 routes, which the first client after ``/readyz`` said ready, or after each
    reload, waited for (user trial Y3)."""
    from schemarouter.integrations.names import tool_names

    view = gateway.pinned()
    view.router = router
    view.retrieve(WARM_QUERY, 1)
    tool_names(router.snapshot())


def _opened(gateway: Any, router: Any, folder: Path | None, *, progress: bool) -> IndexState:
    """Open ``router``'s index (and search it once, :func:`_warm`); its state, the
    generation named before and after the load (a save that replaced the folder meanwhile
    leaves it unknown rather than guessed)."""
    before = _generation(folder)
    router.build_index(progress=progress)
    _warm(gateway, router)
    after = _generation(folder)
    return IndexState(
        state="open",
        generation=before[0] if before == after else None,
        registry_fingerprint=router.snapshot().fingerprint,
        loaded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        left_out=before[1] if before == after else None,
    )


def open_index(gateway: Any, *, progress: bool = False) -> IndexState:
    """Open ``gateway``'s index now (``serve`` runs this beside its first requests):
    ``loading`` until it is, then ``open``, or ``failed`` with the error's code (raised)."""
    with gateway.reload_lock:  # a SIGHUP meanwhile is told a load is under way
        gateway.index_state = IndexState(state="loading")
        try:
            state = _opened(gateway, gateway.router, served_folder(gateway), progress=progress)
        except Exception as exc:  # any: /readyz says failed (it said loading for ever)
            code = exc.code if isinstance(exc, SchemaRouterError) else type(exc).__name__
            gateway.index_state = IndexState(state="failed", error=code)
            raise
        gateway.index_state = state
        return state


def reload(gateway: Any, *, progress: bool = False, said: list[str] | None = None) -> bool:
    """Register the config's sources again and open its index folder as it is now, then
    switch ``gateway`` to them; the old ones answer until then, and stay where the new ones
    cannot be served (the log says why, and so does ``said``, where given: the reason a
    ``POST /admin/reload`` answers with). Returns whether the gateway switched."""
    config = gateway.config
    folder = served_folder(gateway)
    if config.mcp_servers:
        return _refused(
            said,
            "reload refused: this gateway has upstream MCP servers, whose sessions a reload "
            "would drop; restart serve to load the new index",
        )
    if folder is None:
        return _refused(
            said, "reload refused: the gateway serves no saved index folder (--index DIR)"
        )
    if getattr(gateway, "closed", False):
        return _refused(said, "reload refused: the gateway is closing", level=logging.WARNING)
    lock: threading.Lock = gateway.reload_lock
    if not lock.acquire(blocking=False):
        return _refused(
            said, "reload: the index is already loading; this one is ignored", level=logging.WARNING
        )
    try:
        return _reload(gateway, folder, progress=progress, said=said)
    finally:
        lock.release()


def serve_hint(exc: SchemaRouterError, folder: Path | None = None) -> SchemaRouterError:
    """``exc`` (an index that did not open, at start or on a reload) with its hint in the
    terms of ``serve``'s operator: the library's names Python calls (``sync=True``,
    ``encoder=``, ``router.index.save(FOLDER)``) the operator cannot make (trials T2, Y3).
    ``folder``: the one served (a damaged file's error names the file, not the folder)."""
    if not isinstance(exc, CorruptIndexError | StaleIndexError):
        return exc
    out = folder if folder is not None else exc.where
    build = f"`schemarouter index build --config CONFIG --out {out}`"
    then = (
        "then reload serve (`kill -HUP PID`, or POST /admin/reload with the admin token) or "
        "restart it"
    )
    if isinstance(exc, CorruptIndexError):
        return exc.hinting(
            f"Build it from the sources serve registers ({build}, with serve's own --config "
            f"and source flags), {then}"
        )
    if exc.other_version:
        return exc
    if getattr(exc, "encoder_identity", None):
        return exc.hinting(
            "Pass --encoder with the folder the index was built with (none where it is the "
            f"shipped one), or rebuild it for this encoder ({build}, with serve's own "
            "--config, source flags and --encoder)"
        )
    return exc.hinting(
        f"Rebuild it from the sources serve registers ({build}, with serve's own --config "
        f"and source flags), {then}"
    )


def _refused(said: list[str] | None, message: str, *, level: int = logging.ERROR) -> bool:
    """Log ``message`` (and add it to ``said``): the reload did not switch."""
    logger.log(level, "%s", message)
    if said is not None:
        said.append(message)
    return False


def _reload(gateway: Any, folder: Path, *, progress: bool, said: list[str] | None) -> bool:
    from schemarouter.serve.sources import build_router

    old = gateway.index_state
    logger.warning(
        "reload: loading %s (generation %s answers meanwhile)", folder, old.generation or "-"
    )
    for attempt in range(1, _RELOAD_ATTEMPTS + 1):
        router: Any = None
        try:
            router = build_router(gateway.config, **gateway.router_options)
            state = _opened(gateway, router, folder, progress=progress)
            break
        except Exception as exc:  # any failure: what it opened is closed, the old answers
            replaced = _close_failed(router)
            if isinstance(exc, StaleIndexError) and replaced and attempt < _RELOAD_ATTEMPTS:
                continue  # the folder was rebuilt between its registry and its index: again
            why = " ".join(str(why_failed(exc, folder)).split())
            return _refused(
                said, f"reload refused, generation {old.generation or '-'} still answers: {why}"
            )
    if getattr(gateway, "closed", False):  # closed meanwhile (SIGTERM): nothing to serve
        router.close()
        return _refused(
            said,
            "reload: the gateway closed while the new generation loaded: not used",
            level=logging.WARNING,
        )
    previous = gateway.router
    gateway.router, gateway.index_state = router, state
    logger.warning(
        "reload: generation %s answers now (%d routes, registry %s), was %s (%d routes)",
        state.generation or "-",
        len(router.snapshot()),
        state.registry_fingerprint,
        old.generation or "-",
        len(previous.snapshot()),
    )
    try:
        gateway._check_credentials()
    finally:
        previous.close()  # its index holds no connection; requests under way keep their own
    return True


def _close_failed(router: Any) -> bool:
    """Close ``router``, a new generation that failed to load (``None``: none was built),
    whatever it raised; whether its folder was replaced while it loaded."""
    if router is None:
        return False
    try:
        replaced = bool(router.restored_replaced())
    except Exception:
        replaced = False
    try:
        router.close()
    except Exception as exc:  # the reload is refused for its own reason: this one is logged
        logger.warning("reload: closing the generation that failed to load: %r", exc)
    return replaced


def why_failed(exc: Exception, folder: Path | None) -> str:
    """Why an index did not open (at start or on a reload), as the log says it: a
    ``SchemaRouterError`` in ``serve``'s terms (:func:`serve_hint`), any other error by its
    type and text (a bug, an ``OSError`` reading a generation's files)."""
    if isinstance(exc, SchemaRouterError):
        return str(serve_hint(exc, folder))
    return f"{type(exc).__name__}: {exc}"[:2000]
