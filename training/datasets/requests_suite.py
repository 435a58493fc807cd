"""``schemarouter eval --suite requests``: a user's own catalog and labelled requests
(:mod:`schemarouter.training.requests`), measured like every suite.

The catalog comes from the options ``retrieve`` and ``index build`` take (``--catalog``,
``--openapi``, ``--mcp-tools``, ``--config``) and is registered in the harness's router as
they register it (the same route ids). The queries are the held-out requests of
``--requests FILE`` (those marked ``"split": "heldout"`` and the ``--holdout`` share drawn as
the training commands draw it), or every request with ``--requests-split all``. The
``heldout_requests.jsonl`` a training command writes beside its model is such a file: all
of its requests are held out.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from schemarouter.training.datasets.suite import Benchmark

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = ["config_models", "load_requests_suite"]

#: eval's model flags and the value each has when not given.
_MODEL_FLAGS = {"encoder": "default", "reranker": "auto", "ranking": "auto"}


def config_models(args: argparse.Namespace, out: Callable[[str], Any]) -> None:
    """The ``models:`` of ``--config`` (folders relative to the file) as eval's
    ``--encoder``, ``--reranker`` and ``--ranking`` where those flags are not given (a flag
    wins over the config's models, as in ``retrieve`` and ``serve``), each said through
    ``out``: the gateway's config is measured with the models it serves."""
    if not getattr(args, "config", None):
        return
    from schemarouter.serve.config import load_config

    models = load_config(args.config).models.options()
    for role, unset in _MODEL_FLAGS.items():
        value = models.get(role)
        if value is None or getattr(args, role, unset) != unset:
            continue
        setattr(args, role, "auto" if value.lower() == "shipped" else value)
        out(f"--{role} {value} (the {role} of {args.config}; a flag wins over it)")


def load_requests_suite(router: SchemaRouter, args: argparse.Namespace) -> Benchmark:
    """The catalog of ``args`` registered in ``router``; the requests of ``args.requests``
    (held out, or all with ``args.requests_split == "all"``) as queries."""
    from schemarouter.errors import ArgumentError
    from schemarouter.serve.cli import sources_config
    from schemarouter.serve.config import GatewayConfig, load_config
    from schemarouter.serve.sources import connect_server, register_sources
    from schemarouter.training.requests import (
        check_routes,
        has_catalog,
        load_requests,
        measured_training_requests,
        request_queries,
        requests_manifest,
        split_requests,
    )

    if not getattr(args, "requests", None) or not has_catalog(args):
        raise ArgumentError(
            "the requests suite needs --requests FILE and its catalog",
            where="--suite requests",
            hint="Give --requests and the catalog with --catalog, --openapi, --mcp-tools, "
            "--optimade or --config (docs/training.md)",
        )
    config = sources_config(args, load_config(args.config) if args.config else GatewayConfig())
    register_sources(
        router,
        catalogs=config.catalogs,
        openapi=config.openapi,
        mcp_tools=config.mcp_tools,
        optimade=config.optimade,
    )
    for server in config.mcp_servers:
        connect_server(router, server)
    found = load_requests(args.requests)
    check_routes(found, router.snapshot().routes)
    which = getattr(args, "requests_split", "heldout")
    train, heldout, how = split_requests(
        found, getattr(args, "holdout", 0.0), seed=args.seed, training=False
    )
    held = heldout
    if which == "all":
        train, held, how = [], list(found.requests), "every request"
    elif which == "train":
        held, how = train, how + " (the training requests measured)"
    if not held:
        raise ArgumentError(
            f"{args.requests} holds no request out to measure on",
            where="--requests",
            hint="Pass the heldout_requests.jsonl written beside a trained model, mark "
            'requests "split": "heldout", pass --holdout as in training, or '
            "--requests-split all",
        )
    # a training request is labelled "train", never "test" (the report's line on the
    # "held-out test half" reads that label)
    kept = {r.id for r in heldout}
    queries = request_queries(
        [r if r.id in kept else dataclasses.replace(r, split="train") for r in held], split="test"
    )
    folders = {role: getattr(args, role, None) for role in ("encoder", "reranker", "ranking")}
    trained_on = measured_training_requests(folders, held)
    for role, entry in trained_on.items():
        if entry["measured_not_held_out"] and not entry["heldout_listed"]:
            print(
                f"warning: the {role} of {entry['folder']} was trained on requests of "
                f"{entry['requests_file']}, and its {entry['folder']}/heldout_requests.jsonl "
                "is missing: the measured requests are not the ones its card says it held out "
                "(data.requests.heldout_ids_sha256), so they may have been trained on; "
                "measure the held-out split of the file it was trained on (with the --holdout "
                "and --seed of its training)",
                file=sys.stderr,
                flush=True,
            )
        elif entry["measured_not_held_out"]:
            print(
                f"warning: the {role} of {entry['folder']} was trained on requests of "
                f"{entry['requests_file']}: {entry['measured_not_held_out']} of the "
                f"{entry['measured']} measured requests are not among its held-out ones "
                f"({entry['folder']}/heldout_requests.jsonl), so its rows are not measured on "
                "held-out requests; measure its heldout_requests.jsonl, or the file's held-out "
                "split with the --holdout and --seed of its training",
                file=sys.stderr,
                flush=True,
            )
    notes = {
        "requests": requests_manifest(found, train, held, how),
        "measured": which,
        "trained_models": trained_on,
    }
    routes = {rid: rid for rid in router.snapshot().routes}
    return Benchmark.checked("requests", router, queries, routes, notes)
