"""What a stale refusal of a saved index says: which routes differ, which part of a changed
route moved (from the part fingerprints ``routes.json`` keeps), and whether a partial
``sync`` may bring it over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemarouter._version import __version__
from schemarouter.errors import StaleIndexError
from schemarouter.index.folder import MANIFEST
from schemarouter.index.settings import IndexSettings
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["are_parts", "check_differs_within", "check_settings_known", "stale_hint"]


def stale_hint(difference: str, *, registered: int | None = None) -> str:
    """What to do about an index built from another registry, ``difference`` said how;
    ``registered`` routes are registered now (none: the sources were never registered, and a
    rebuild or a sync would make an empty index of it)."""
    if registered == 0:
        return (
            "Nothing is registered yet: register the sources the index was built from before "
            "the first query (SchemaRouter.from_catalog(CATALOG, index=DIR), or add_openapi, "
            "add_mcp_tools, add_catalog ... under the same provider names), then retrieve"
        )
    hint = (
        "Rebuild it (`schemarouter index build`), or load it with sync=True"
        " (SchemaRouter(index=IndexFolder(path, sync=True))) to bring it to this registry"
    )
    if "access path" in difference:  # a base URL given in Python, say (trial C)
        hint += (
            "; an access path is how routes are called (base URL, auth): `index build "
            "--openapi FILE` registers a document with its own servers, so for "
            "add_openapi(..., base_url=URL) build from a --config file whose openapi "
            "entry gives it ({source: FILE, base_url: URL})"
        )
    return hint


def are_parts(parts: dict[str, Any]) -> bool:
    """Whether ``parts`` (read from ``routes.json``) has the shape ``route_parts`` gives."""
    return all(
        isinstance(table, dict) and all(isinstance(v, str) for v in table.values())
        for table in (parts.get("providers"), parts.get("access"))
    )


def check_differs_within(
    saved: dict[str, str],
    snapshot: RegistrySnapshot,
    providers: set[str],
    path: str | Path,
    difference: str,
) -> None:
    """:class:`StaleIndexError` unless every route that differs between the saved index
    (route id -> fingerprint) and ``snapshot`` belongs to one of ``providers``."""
    differ = {
        r
        for r, fp in saved.items()
        if (now := snapshot.routes.get(r)) is None or now.fingerprint != fp
    }
    differ |= {r for r in snapshot.routes if r not in saved}
    outside = sorted(r for r in differ if r.split("/", 1)[0] not in providers)
    if outside:
        raise StaleIndexError(
            f"the index was built from a different registry: compared with it, {difference}; "
            f"{len(outside)} of those routes ({', '.join(outside[:3])}"
            f"{', ...' if len(outside) > 3 else ''}) {'is' if len(outside) == 1 else 'are'} "
            f"not of {', '.join(sorted(providers))}",
            where=str(path),
            hint="Rebuild it (`schemarouter index build`) from the sources registered now",
        )


def check_settings_known(path: Path, manifest: dict[str, Any]) -> None:
    """:class:`StaleIndexError` where the manifest's settings name one this version does not
    know: another version of SchemaRouter saved the index (trial V: the release before
    ``hnsw_codec`` called such an index corrupt, "index files are inconsistent")."""
    settings = manifest.get("settings")
    unknown = IndexSettings.unknown_names(settings) if isinstance(settings, dict) else []
    if not unknown:
        return
    version = str(manifest.get("schemarouter_version"))[:40]
    error = StaleIndexError(
        f"the index was written by another version of SchemaRouter ({version}; this is "
        f"{__version__}): its settings {', '.join(unknown[:10])} are unknown to this version",
        where=str(Path(path) / MANIFEST),
        hint="Rebuild it with this version (`schemarouter index build SOURCES --out "
        f"{path}`), or load it with the version that wrote it",
    )
    error.other_version = version
    raise error
