"""The ``schemarouter`` command.

::

    schemarouter --version
    schemarouter catalog validate PATH...        check catalogs; exit 1 listing every problem
    schemarouter catalog show PATH...            a readable summary
    schemarouter catalog semantics PATH [--out]  the SEMANTICS.md of a catalog
    schemarouter catalog schema [--out FILE]     the JSON Schema of the catalog format
    schemarouter retrieve "QUERY" [-k 5] [sources] [--index DIR] [--json | --tools FORMAT]
                          [--encoder DIR] [--reranker shipped|none|DIR] [--ranking ...]
    schemarouter serve [sources] [--transport stdio|http] [...]
    schemarouter routes [CATALOG...] [sources] [--json]      the route ids, to label requests
    schemarouter catalog export [sources | --index DIR] --out FILE
    schemarouter index build [CATALOG...] [sources] --out DIR [--encoder DIR]
    schemarouter index build [CATALOG...] [sources] --backend milvus --uri URI [--rebuild]
    schemarouter index info DIR [--json]       a saved index, and what its build left out

    sources (each repeatable, any mix): --catalog PATH, --openapi [P=]FILE|URL,
    --mcp-tools [P=]FILE, --config FILE (a gateway config: its sources and upstream servers).
    A file of another kind is refused with its kind and the flag that takes it.
    schemarouter eval --suite NAME [--data PATH] --out DIR      (offline: needs training deps)
    schemarouter train-reranker --out models/reranker [...]     (offline: needs [train])
    schemarouter train-encoder --out models/encoder [...]       (offline: needs [train])
    schemarouter train-ranking --out models/ranking [...]       (offline)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schemarouter._version import __version__
from schemarouter.cli.export import add_export_parser
from schemarouter.cli.index_hints import config_index, index_hint, sync_note
from schemarouter.cli.index_info import add_index_info_parser, json_printable, left_out
from schemarouter.cli.report import (
    library_warnings_on_stderr,
    render_catalog_summary,
    render_retrieval,
    render_semantics,
    say_failed,
    say_skipped,
    say_warnings,
)
from schemarouter.errors import ArgumentError, CorruptIndexError, SchemaRouterError, StaleIndexError
from schemarouter.registry.catalog import (
    bundled_catalog,
    catalog_json_schema,
    catalog_problems,
    load_catalog,
)
from schemarouter.registry.kinds import command_line_hints
from schemarouter.serve.cli import (
    add_serve_parser,
    add_skip_invalid_argument,
    add_source_arguments,
    index_path,
    positive_int,
    show_progress,
    sources_config,
)
from schemarouter.serve.config import GatewayConfig, load_config

__all__ = ["main"]


def _cmd_catalog_validate(args: argparse.Namespace) -> int:
    problems = catalog_problems(args.paths)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} found", file=sys.stderr)
        return 1
    registration = load_catalog(args.paths)
    fields = sum(len(r.endpoint.output_fields) for r in registration.routes)
    for warning in registration.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"ok: {len(registration.providers)} providers, {len(registration.routes)} routes, "
        f"{fields} output fields"
    )
    return 0


def _cmd_catalog_show(args: argparse.Namespace) -> int:
    print(render_catalog_summary(load_catalog(args.paths), color=sys.stdout.isatty()), end="")
    return 0


def _write_or_print(text: str, out: str | None) -> int:
    """``text`` into the file ``out`` (saying so), or onto stdout where none is given."""
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ArgumentError(
                f"cannot write {out}: {exc.strerror or type(exc).__name__}",
                where="--out",
                hint="Give a file path in a folder that exists and you may write",
            ) from None
        print(f"wrote {out}")
    else:
        print(text, end="")
    return 0


def _cmd_catalog_semantics(args: argparse.Namespace) -> int:
    text = render_semantics(load_catalog(args.path), title=args.title)
    return _write_or_print(text, args.out)


def _cmd_catalog_schema(args: argparse.Namespace) -> int:
    text = json.dumps(catalog_json_schema(), indent=2, ensure_ascii=False) + "\n"
    return _write_or_print(text, args.out)


def _sources(args: argparse.Namespace, *, catalogs: Sequence[Path] = ()) -> GatewayConfig:
    """The sources a command was given: its gateway config (``--config``), then the flags."""
    config = load_config(args.config) if getattr(args, "config", None) else GatewayConfig()
    config = config.model_copy(update={"catalogs": config.catalogs + tuple(map(str, catalogs))})
    return sources_config(args, config)


def _has_sources(config: GatewayConfig) -> bool:
    return bool(
        config.catalogs
        or config.openapi
        or config.mcp_tools
        or config.optimade
        or config.mcp_servers
    )


def _catalogs_and_sources(args: argparse.Namespace, nothing: str) -> GatewayConfig | None:
    """The catalogs and sources a command was given; ``None``, said on stderr as
    ``nothing``, where it was given none."""
    config = _sources(args, catalogs=args.catalogs)
    if _has_sources(config):
        return config
    print(
        f"error: {nothing}: give catalogs, --openapi, --mcp-tools, --optimade or --config",
        file=sys.stderr,
    )
    return None


def _synced(index: str) -> Any:
    """The saved index folder ``index`` brought to the sources given (``retrieve --sync``):
    routes it lacks are embedded and those it has beyond them left out, in memory; its
    files are not changed."""
    from schemarouter.index.build import IndexFolder

    return IndexFolder(index, sync=True)


def _cmd_retrieve(args: argparse.Namespace) -> int:
    from schemarouter.index.backend import is_milvus_uri
    from schemarouter.serve.sources import build_router

    config = _sources(args)
    folder = (args.index or config.index) and not is_milvus_uri(args.index or config.index)
    if not _has_sources(config) and not folder:  # an index folder alone: its registry
        config = config.model_copy(update={"catalogs": (str(bundled_catalog()),)})
    kwargs: dict[str, Any] = {}
    if args.reranker:
        kwargs["reranker"] = args.reranker  # shipped, none or a model folder, as in Python
    if args.ranking:
        kwargs["ranking"] = args.ranking  # shipped, none or a model folder, as in Python
    if args.encoder:
        kwargs["encoder"] = args.encoder  # a train-encoder folder, as in Python
    if args.sync and folder and not _has_sources(config):
        print(
            "error: --sync brings the index folder to the sources given, and none is given: "
            "give them, or drop --sync to start from the registry the index keeps",
            file=sys.stderr,
        )
        return 2
    if args.sync and (not args.index or is_milvus_uri(args.index)):
        print(
            "error: --sync goes with --index DIR, a saved index folder; a Milvus collection "
            "is shared, and only its writer brings it to a registry (MilvusIndex(..., "
            "sync=True), docs/scale.md)",
            file=sys.stderr,
        )
        return 2
    if args.index:
        kwargs["index"] = _synced(args.index) if args.sync else args.index
    if is_milvus_uri(args.index):  # a read: a missing collection is refused, never built
        from schemarouter.index import MilvusIndex

        kwargs["index"] = MilvusIndex.from_uri(args.index, create=False)
    router = build_router(config, progress=show_progress(args), **kwargs)
    try:
        with sync_note(args.index) if args.sync else contextlib.nullcontext():
            router.build_index(progress=show_progress(args))
        result = router.retrieve(args.query, k=args.k, abstain=args.abstain)
    except (StaleIndexError, CorruptIndexError) as exc:  # its hint in the command's terms
        raise index_hint(exc, args.index) from None
    finally:
        router.close()
        if is_milvus_uri(args.index):
            kwargs["index"].close()  # the router closes only what it opened itself
    if args.tools:
        print(
            json_printable(json.dumps(list(result.tools(args.tools)), indent=2, ensure_ascii=False))
        )
    elif args.json:
        print(json_printable(result.model_dump_json(indent=2)))
    else:
        print(render_retrieval(result, color=sys.stdout.isatty()), end="")
    return 0


def _registry_router(
    config: GatewayConfig, *, servers: bool, progress: bool = False
) -> tuple[Any, list[tuple[str, Any]], list[tuple[str, SchemaRouterError]]]:
    """A router with ``config``'s sources registered as retrieve and serve register them (the
    same route ids and fingerprints) and no model loaded, for what needs only the registry;
    with each source's change, and each source that could not be registered, listed."""
    from schemarouter.serve.sources import build_router

    registered: list[tuple[str, Any]] = []
    failed: list[tuple[str, SchemaRouterError]] = []
    router = build_router(
        config,
        servers=servers,
        registered=registered,
        failed=failed,
        progress=progress,
        abstention=None,
        reranker=None,
        ranking=None,
        encoder=None,
        embedding_cache=None,
    )
    return router, registered, failed


def _cmd_index_build(args: argparse.Namespace) -> int:
    from schemarouter.index.build import build_index, build_milvus_index
    from schemarouter.index.encoders.defaults import encoder_of
    from schemarouter.index.store import check_index_folder

    config = _catalogs_and_sources(args, "nothing to index")
    if config is None:
        return 2
    if args.backend == "milvus" and not args.uri:
        print("error: --backend milvus needs --uri (see docs/scale.md)", file=sys.stderr)
        return 2
    if args.backend != "milvus" and args.out is None:
        print(
            f"error: the in-process backend needs --out DIR{config_index(config)}", file=sys.stderr
        )
        return 2
    if args.backend != "milvus":
        ignored = [f"--{n}" for n in ("uri", "token", "collection") if getattr(args, n)]
        ignored += ["--rebuild"] if args.rebuild else []
        if ignored:
            named = " and ".join([", ".join(ignored[:-1]), ignored[-1]] if ignored[1:] else ignored)
            print(
                f"warning: {named} only apply to --backend milvus; "
                "ignored for the in-process index",
                file=sys.stderr,
            )
        check_index_folder(args.out)  # before the build, not after it
    elif args.out is not None:  # a collection is no folder: nothing is written there
        print(
            "warning: --out only applies to the in-process backend; ignored for --backend "
            "milvus (the collection at --uri is the index, kept by Milvus; for an index folder "
            "as well, run `schemarouter index build SOURCES --out DIR` without --backend)",
            file=sys.stderr,
        )
    # the folder's files and card checked before anything is registered or embedded
    folder = args.encoder or config.models.encoder  # a flag wins over the config's
    encoder = encoder_of(folder) if folder else None
    # registered as retrieve and serve register them (the same route ids and fingerprints),
    # with no model loaded: only the registry is needed here
    progress = show_progress(args) and not args.quiet
    began = time.perf_counter()
    router, registered, failed = _registry_router(config, servers=True, progress=progress)
    try:
        snapshot = router.snapshot()
    finally:
        router.close()
    registering = time.perf_counter() - began  # the closing line's time counts it too
    say_warnings(registered, every=args.all_warnings)
    if failed and not config.skip_invalid:
        return say_failed(failed, len(registered), "nothing was indexed")
    say_skipped(failed, len(registered))
    if args.backend == "milvus":
        report = build_milvus_index(
            snapshot,
            args.uri,
            token=args.token,
            collection=args.collection,
            rebuild=args.rebuild,
            progress=progress,
            workers=args.workers,
            encoder=encoder,
            cache=not args.no_cache,
        )
    else:
        report = build_index(
            snapshot,
            args.out,
            progress=progress,
            workers=args.workers,
            encoder=encoder,
            cache=not args.no_cache,
            left_out=left_out(failed),  # in its manifest: index info and /readyz say them
        )
    print(
        f"indexed {report.routes} routes ({report.documents} documents) into {report.path}: "
        f"{report.texts_embedded} texts embedded, {report.texts_from_cache} from cache, "
        f"{registering:.1f} s registering {len(registered)} "
        f"source{'s' * (len(registered) != 1)} + "
        f"{report.seconds_load + report.seconds_index + report.seconds_save:.1f} s indexing, "
        f"peak RSS {report.peak_rss_mib:.0f} MiB"
    )
    return 0


def _cmd_routes(args: argparse.Namespace) -> int:
    """Every route the sources register, as retrieve and serve register them: its id (what
    a labelled request names), effect, operation, credentials needed and summary, one a line
    or as JSON."""
    config = _catalogs_and_sources(args, "no sources")
    if config is None:
        return 2
    router, registered, failed = _registry_router(config, servers=False)
    try:
        routes = list(router.snapshot().routes.values())
    finally:
        router.close()
    if failed:
        return say_failed(failed, len(registered), "no route was listed")
    rows = []
    for route in routes:
        operation = route.endpoint.operation
        how = (
            f"{operation.method} {operation.path}"
            if operation.method
            else operation.tool or operation.qualname or ""
        )
        summary = " ".join((route.endpoint.summary or route.endpoint.description).split())
        auth = route.access.auth
        rows.append(
            {
                "route_id": route.route_id,
                "effect": route.endpoint.effect.value,
                "operation": how,
                "summary": summary[:200],
                # the names of the credentials a call needs and where each travels, never
                # a value: what an operator provisions before the route can run
                "credentials": [
                    {
                        "name": name,
                        "scheme": p.scheme,
                        "in": p.location.value if p.location else None,
                        "parameter": p.parameter,
                    }
                    for p in auth.placements()
                    for name in p.credentials
                ],
                "credentials_optional": auth.optional,
            }
        )
    if args.json:
        print(json_printable(json.dumps(rows, indent=2, ensure_ascii=False)))
        return 0
    for row in rows:
        line = f"{row['route_id']}  [{row['effect']}]  {row['operation']}"
        if row["credentials"]:
            names = ", ".join(c["name"] for c in row["credentials"])
            line += f"  (needs {names}{', optional' if row['credentials_optional'] else ''})"
        print(f"{line}  {row['summary'][:100]}".rstrip())
    print(f"{len(rows)} routes", file=sys.stderr)
    return 0


def _offline(module: str, function: str) -> Any:
    """An offline tool from ``schemarouter.training`` (imported only when asked for)."""
    import importlib

    return getattr(importlib.import_module(f"schemarouter.training.{module}"), function)


#: command -> (module, function taking argv): offline tools that parse their own arguments,
#: so the engine imports ``schemarouter.training`` only when one of them is asked for
_OFFLINE_COMMANDS = {
    "eval": ("evaluate", "eval_main"),
    "train-reranker": ("train", "train_main"),
    "train-encoder": ("encoder", "encoder_main"),
    "train-ranking": ("ranking", "ranking_main"),
}


def _add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="a gateway config (YAML/JSON): its catalogs, documents and MCP servers",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schemarouter",
        description="Retrieve, validate and execute only registered capabilities.",
    )
    parser.add_argument("--version", action="version", version=f"schemarouter {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    catalog = commands.add_parser("catalog", help="validate, show and document catalog files")
    catalog_commands = catalog.add_subparsers(dest="catalog_command", metavar="ACTION")
    validate = catalog_commands.add_parser("validate", help="check catalog files")
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    validate.set_defaults(handler=_cmd_catalog_validate)
    show = catalog_commands.add_parser("show", help="a readable summary of a catalog")
    show.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    show.set_defaults(handler=_cmd_catalog_show)
    semantics = catalog_commands.add_parser("semantics", help="write SEMANTICS.md")
    semantics.add_argument("path", type=Path)
    semantics.add_argument("--out", type=Path)
    semantics.add_argument("--title", default="Semantic ids")
    semantics.set_defaults(handler=_cmd_catalog_semantics)
    schema = catalog_commands.add_parser("schema", help="the JSON Schema of catalog files")
    schema.add_argument("--out", type=Path)
    schema.set_defaults(handler=_cmd_catalog_schema)
    add_export_parser(catalog_commands, sources=_sources, config_argument=_add_config_argument)

    retrieve = commands.add_parser(
        "retrieve",
        help="the k best registered routes for a query",
        description="Retrieve over catalogs, OpenAPI documents and MCP tool listings "
        "(default: the bundled materials catalog).",
    )
    retrieve.add_argument("query")
    retrieve.add_argument("-k", type=positive_int, default=5, help="how many routes (>= 1)")
    add_source_arguments(retrieve)
    _add_config_argument(retrieve)
    retrieve.add_argument(
        "--index",
        type=index_path,
        metavar="DIR|URI",
        help="a saved index folder, or a milvus:// URI",
    )
    retrieve.add_argument(
        "--sync",
        action="store_true",
        help="with --index DIR: bring an index folder saved from other sources to these (routes "
        "it lacks are embedded in memory, its files are not changed); without it a difference "
        "is refused as stale",
    )
    retrieve.add_argument(
        "--reranker",
        metavar="shipped|none|DIR",
        default=None,
        help="the cross-encoder: the shipped model (even where its card leaves it off), none, "
        "or a model folder from `schemarouter train-reranker` (default: the router's default)",
    )
    retrieve.add_argument(
        "--ranking",
        metavar="shipped|none|DIR",
        default=None,
        help="the learned ranking stage: the shipped model (even where its card leaves it off), "
        "none, or a model folder from `schemarouter train-ranking` (default: the router's "
        "default)",
    )
    retrieve.add_argument(
        "--encoder",
        metavar="DIR",
        default=None,
        help="a model folder from `schemarouter train-encoder` (default: the --config's "
        "models.encoder, else the shipped encoder); with --index, the folder the index was "
        "built with",
    )
    retrieve.add_argument("--json", action="store_true", help="print the full result as JSON")
    retrieve.add_argument(
        "--abstain",
        action="store_true",
        help="print no routes for a request the calibrated verdict finds off the catalog "
        "(default: print the best routes and flag the request)",
    )
    retrieve.add_argument(
        "--tools",
        choices=["anthropic", "openai", "openai-chat", "mcp"],
        help="print the routes as tool definitions for this API instead",
    )
    retrieve.set_defaults(handler=_cmd_retrieve)
    add_serve_parser(commands)

    routes = commands.add_parser(
        "routes",
        help="list the routes sources register (their ids, to label requests with)",
        description="Every route the sources register, as retrieve and serve register them "
        "(upstream MCP servers of a --config are not connected): route id, effect, operation, "
        "the credentials a call needs (names and where they travel, never values) and summary.",
    )
    routes.add_argument("catalogs", nargs="*", type=Path, metavar="CATALOG")
    add_source_arguments(routes)
    _add_config_argument(routes)
    routes.add_argument("--json", action="store_true", help="print the routes as JSON")
    routes.set_defaults(handler=_cmd_routes)

    index = commands.add_parser("index", help="build and describe saved indexes")
    index_commands = index.add_subparsers(dest="index_command", metavar="ACTION")
    build = index_commands.add_parser(
        "build",
        help="index sources in batch and save",
        description="Index catalogs, OpenAPI documents, MCP tool listings and the sources of "
        "a gateway config, as retrieve and serve register them.",
    )
    build.add_argument("catalogs", nargs="*", type=Path, metavar="CATALOG")
    add_source_arguments(build)
    add_skip_invalid_argument(build)
    _add_config_argument(build)
    build.add_argument(
        "--out", type=lambda text: Path(index_path(text)), help="index folder (in-process backend)"
    )
    build.add_argument("--backend", choices=("inprocess", "milvus"), default="inprocess")
    build.add_argument("--uri", help="Milvus: milvus://HOST:PORT/NAME, or milvus+lite:///FILE.db")
    build.add_argument("--token", help="Milvus: token (default: $MILVUS_TOKEN or the URI's)")
    build.add_argument("--collection", help="Milvus: collection name (default: from the URI)")
    build.add_argument(
        "--rebuild", action="store_true", help="Milvus: drop the collection and write it anew"
    )
    build.add_argument(
        "--workers",
        type=positive_int,
        default=2,
        help="threads for embedding (>= 1, at most the CPUs; default 2)",
    )
    build.add_argument(
        "--encoder",
        metavar="DIR",
        help="a model folder from `schemarouter train-encoder` to embed with (default: the "
        "--config's models.encoder, else the shipped encoder); retrieve, serve and Python "
        "load the index with the same folder",
    )
    build.add_argument("--no-cache", action="store_true", help="do not use the embedding cache")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.add_argument(
        "--all-warnings",
        action="store_true",
        help="print every registration warning (past 50, a few of each kind and a count of "
        "the rest)",
    )
    build.set_defaults(handler=_cmd_index_build)
    add_index_info_parser(index_commands)

    # listed for --help; main() hands their arguments to the offline tool itself
    commands.add_parser("eval", help="benchmark routers side by side (offline; see --help)")
    commands.add_parser("train-reranker", help="train and export the reranker (offline)")
    commands.add_parser("train-encoder", help="train and export the dense encoder (offline)")
    commands.add_parser(
        "train-ranking", help="train and export the learned ranking stage (offline)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _OFFLINE_COMMANDS:
        module, function = _OFFLINE_COMMANDS[argv[0]]
        try:
            with command_line_hints():
                return int(_offline(module, function)(argv[1:]))
        except SchemaRouterError as exc:  # bad input files: one line, no traceback
            print(f"error: {exc}", file=sys.stderr)
            return 1
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    # serve logs as its --log-level says
    said = contextlib.nullcontext() if args.command == "serve" else library_warnings_on_stderr()
    try:
        with command_line_hints(), said:
            return int(handler(args))
    except SchemaRouterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `schemarouter catalog show ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
