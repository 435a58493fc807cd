"""``schemarouter catalog export``: what sources register, written as one catalog file.

The sources are given as ``retrieve`` takes them (catalogs, ``--openapi``, ``--mcp-tools``,
``--optimade``, ``--config``), or ``--index DIR``: the registry a saved index keeps. The
file registers again (``--catalog FILE``, ``router.add_catalog``) with the same route ids
and fingerprints (:mod:`schemarouter.registry.export`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schemarouter.cli.report import say_failed, say_warnings
from schemarouter.serve.cli import add_source_arguments, index_path
from schemarouter.serve.config import GatewayConfig

__all__ = ["add_export_parser"]


def add_export_parser(
    commands: Any,
    *,
    sources: Callable[[argparse.Namespace], GatewayConfig],
    config_argument: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Add ``export`` to the ``catalog`` subcommands (``sources`` reads a command's sources
    as retrieve reads them; ``config_argument`` adds ``--config``)."""
    export = commands.add_parser(
        "export",
        help="write what sources register as one catalog file",
        description="Register the sources as retrieve does (or read the registry a saved "
        "index keeps, --index DIR) and write them as one catalog (JSON) that registers again "
        "with the same route ids and fingerprints. Python functions and live MCP sessions "
        "are not saved, only their routes' contracts.",
    )
    add_source_arguments(export)
    config_argument(export)
    export.add_argument(
        "--index", type=index_path, metavar="DIR", help="the registry a saved index folder keeps"
    )
    export.add_argument("--name", help="the catalog's name")
    export.add_argument("--out", type=Path, required=True, help="the catalog file to write")
    export.set_defaults(handler=lambda args: _cmd_export(args, sources(args)))


def _cmd_export(args: argparse.Namespace, config: GatewayConfig) -> int:
    from schemarouter.registry.export import catalog_document, write_catalog
    from schemarouter.serve.sources import build_router

    has = config.catalogs or config.openapi or config.mcp_tools or config.optimade
    if not (has or config.mcp_servers or args.index):
        print(
            "error: nothing to export: give catalogs, --openapi, --mcp-tools, --optimade, "
            "--config or --index",
            file=sys.stderr,
        )
        return 2
    registered: list[tuple[str, Any]] = []
    failed: list[tuple[str, Any]] = []
    options: dict[str, Any] = {"index": str(args.index)} if args.index and not has else {}
    router = build_router(
        config,
        registered=registered,
        failed=failed,
        abstention=None,
        reranker=None,
        ranking=None,
        encoder=None,
        embedding_cache=None,
        **options,
    )
    try:
        snapshot = router.snapshot()
    finally:
        router.close()
    say_warnings(registered)
    if failed:
        return say_failed(failed, len(registered), "nothing was exported")
    path = write_catalog(catalog_document(snapshot, name=args.name), args.out)
    providers = len({r.provider.id for r in snapshot.routes.values()})
    print(f"exported {len(snapshot)} routes of {providers} providers to {path}")
    return 0
