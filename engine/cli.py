"""The ``schemarouter`` command.

::

    schemarouter --version
    schemarouter catalog validate PATH...        check catalogs; exit 1 with the first error
    schemarouter catalog show PATH...            a readable summary
    schemarouter catalog semantics PATH [--out]  the SEMANTICS.md of a catalog
    schemarouter catalog schema [--out FILE]     the JSON Schema of the catalog format
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from schemarouter._version import __version__
from schemarouter.catalog import catalog_json_schema, load_catalog
from schemarouter.errors import SchemaRouterError
from schemarouter.report import render_catalog_summary, render_semantics

__all__ = ["main"]


def _cmd_catalog_validate(args: argparse.Namespace) -> int:
    registration = load_catalog(args.paths)
    fields = sum(len(r.endpoint.output_fields) for r in registration.routes)
    print(
        f"ok: {len(registration.providers)} providers, {len(registration.routes)} routes, "
        f"{fields} output fields"
    )
    return 0


def _cmd_catalog_show(args: argparse.Namespace) -> int:
    print(render_catalog_summary(load_catalog(args.paths), color=sys.stdout.isatty()), end="")
    return 0


def _cmd_catalog_semantics(args: argparse.Namespace) -> int:
    text = render_semantics(load_catalog(args.path), title=args.title)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


def _cmd_catalog_schema(args: argparse.Namespace) -> int:
    text = json.dumps(catalog_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args))
    except SchemaRouterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `schemarouter catalog show ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
