"""Command-line parts shared by ``schemarouter retrieve`` and ``schemarouter serve``.

Both take the same sources: ``--catalog PATH``, ``--openapi [PROVIDER=]FILE|URL`` and
``--mcp-tools [PROVIDER=]FILE`` (repeatable); ``serve`` also takes ``--config FILE`` (the
gateway config: see :mod:`schemarouter.serve.config`), upstream servers
(``--mcp-server PROVIDER=COMMAND|URL``), the routes allowed to have effects, and the
transport. Flags add to what the config file lists.
"""

from __future__ import annotations

import argparse
import gc
import logging
import shlex
import sys
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemarouter.errors import DocumentError
from schemarouter.index.backend import is_milvus_uri
from schemarouter.registry.catalog import bundled_catalog
from schemarouter.registry.compile import format_validation_error
from schemarouter.serve.config import (
    GatewayConfig,
    McpServerSpec,
    SearchSpec,
    check_providers,
    load_config,
    parse_source,
)
from schemarouter.serve.stdio_drain import STALLED_EXIT, STDOUT_TIMEOUT

__all__ = [
    "add_serve_parser",
    "add_skip_invalid_argument",
    "add_source_arguments",
    "index_path",
    "positive_int",
    "sources_config",
]


SERVE_EPILOG = """\
The gateway config (YAML or JSON; paths relative to it), every key (all optional):

  name: lab-gateway                         # the MCP server's name (default: schemarouter)
  catalogs: [catalogs/materials]
  openapi: [{source: weather.yaml, provider: weather, base_url: "http://127.0.0.1:8080",
             effect_overrides: {getForecast: read},        # source: a path or an http(s) URL
             server_variables: {region: eu}}]              # its servers' {variables}
  mcp_tools: [{source: tools.json, provider: github}]      # recorded tools/list (search only)
  optimade: [{source: "https://optimade.example.org/v1", provider: groupdb}]
  mcp_servers:                              # upstream servers (exactly one of command, url)
    - {provider: notes, command: [python, notes_server.py], env: {NOTES_KEY: "..."},
       cwd: servers/notes, trusted: false,
       effect_overrides: {search_notes: read}, timeout: 30, max_response_bytes: 10485760,
       relist_s: 0, skip_invalid_tools: false, max_tools: 10000}
    - {provider: search, url: "http://127.0.0.1:9000/mcp", trusted: true,
       default_effect: write}              # default_effect: trusted servers only
  allow: {write: [notes/mcp/add_note], destructive: [],    # read-only by default
          licenses: [CC-BY-4.0]}            # offer and run only output under these (any)
  search: {k: 5, max_k: 20, rerank: true, executable_only: true, upstream_wait: 10}
  index: .schemarouter/index                # a saved index (or a milvus:// URI)
  skip_invalid: false                       # true: a source that cannot be registered is
                                            # left out with a warning (--skip-invalid)
  models: {encoder: DIR, ranking: shipped|none|DIR, reranker: shipped|none|DIR}
  credentials: {env_prefix: ""}             # a route's credential NAME is read from $PREFIXNAME
  calls: {timeout: 10, max_attempts: 2, max_seconds: 25}   # each call's limits (seconds)

Upstream MCP tools register as untrusted (write) unless `trusted: true`; only routes named
under `allow` may run writes. A stdio upstream gets the SDK's default environment plus its
`env: {KEY: value}` (not the gateway's whole environment); `cwd: DIR` is where it starts.
`${NAME}` in an upstream's `env` values and `url` is read from the gateway's environment
(`env: {DB_PASSWORD: "${DB_PASSWORD}"}`: the secret stays out of the file; `$${NAME}` is
the text `${NAME}`). `timeout`
bounds opening an upstream and each attempt of a call (seconds); `calls` bounds each attempt
of any call, how many attempts a read gets, and a call's whole time (default: three 30 s
attempts). The log is stderr, one line per record (--log-level); a stderr piped and not read
blocks nothing: past 64 KiB waiting, lines are dropped and counted in one line.

SIGHUP reloads the index folder (--index DIR, after `schemarouter index build --out DIR`): the
old generation answers until the new one is open, and stays where the new one is damaged or
stale (the log says why); /readyz names the generation served. Over http, with an admin
token (--admin-token-env/--admin-token-file), POST /admin/reload does the same and answers
with the generation served, or why the old one was kept (409). SIGTERM lets the requests
under way finish (up to 25 s; over stdio new requests get a JSON-RPC error), then closes.
Over stdio, a client that reads none of an answer for --stdout-timeout seconds (default 60)
is given up on: serve logs why, closes and exits 74 (EX_IOERR) for its supervisor to restart.
"""


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more (not inf or nan)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def index_path(text: str) -> str:
    """An argparse type: a saved index path, never empty (``--index "$DIR"`` with ``DIR``
    unset was ignored, and the whole index built in process)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (is the variable that names it unset?)")
    return text


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog",
        action="append",
        type=Path,
        metavar="PATH",
        help="catalog file or folder (repeatable)",
    )
    parser.add_argument(
        "--openapi",
        action="append",
        default=[],
        metavar="[PROVIDER=]FILE|URL|DIR",
        help="an OpenAPI 2.0/3.x document, or a folder of them (each *.json, *.yaml under it; "
        "repeatable; provider defaults to the document's title, else its host)",
    )
    parser.add_argument(
        "--mcp-tools",
        action="append",
        default=[],
        metavar="[PROVIDER=]FILE",
        help="a recorded MCP tools/list result, JSON or YAML (repeatable)",
    )
    parser.add_argument(
        "--optimade",
        action="append",
        default=[],
        metavar="[PROVIDER=]URL|FILE",
        help="an OPTIMADE service: its base URL (https://.../v1), or a JSON/YAML file of its "
        "recorded /info and /info/structures payloads (repeatable; provider defaults to the "
        "host or the file's stem)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bars on stderr while the index is first built (default: when stderr "
        "is a terminal)",
    )


def add_skip_invalid_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        default=None,
        help="leave out a source that cannot be registered (a malformed document), with a "
        "warning naming it and why, rather than refuse the run (the config's skip_invalid)",
    )


def show_progress(args: argparse.Namespace) -> bool:
    """``--progress`` / ``--no-progress``, else whether stderr is a terminal."""
    flag = getattr(args, "progress", None)
    return sys.stderr.isatty() if flag is None else bool(flag)


def sources_config(args: argparse.Namespace, base: GatewayConfig | None = None) -> GatewayConfig:
    """``base`` (or an empty config) plus the sources given as flags."""
    config = base or GatewayConfig()
    return config.model_copy(
        update={
            "catalogs": config.catalogs + tuple(str(c) for c in args.catalog or ()),
            "openapi": config.openapi + tuple(parse_source(s) for s in args.openapi),
            "mcp_tools": config.mcp_tools + tuple(parse_source(s) for s in args.mcp_tools),
            "optimade": config.optimade
            + tuple(parse_source(s) for s in getattr(args, "optimade", ())),
            "skip_invalid": getattr(args, "skip_invalid", None) or config.skip_invalid,
        }
    )


def _mcp_server(text: str) -> McpServerSpec:
    provider, sep, target = text.partition("=")
    if not sep or not provider or not target:
        raise argparse.ArgumentTypeError(f"expected PROVIDER=COMMAND or PROVIDER=URL, got {text!r}")
    if target.lower().startswith(("http://", "https://")):
        return McpServerSpec(provider=provider, url=target)
    return McpServerSpec(provider=provider, command=shlex.split(target))


def _serve_config(args: argparse.Namespace) -> GatewayConfig:
    config = load_config(args.config) if args.config else GatewayConfig()
    config = sources_config(args, config)
    flags = {
        key: value
        for key, value in {
            "k": args.k,
            "rerank": False if args.no_rerank else None,
            "executable_only": False if args.all_routes else None,
        }.items()
        if value is not None
    }
    try:  # checked as the file's are: -k above the config's max_k was taken as it was
        search = SearchSpec.model_validate({**config.search.model_dump(), **flags})
    except ValidationError as exc:
        what, _ = format_validation_error(exc)
        raise DocumentError(what, where="serve -k", hint="Lower -k or raise search.max_k") from None
    allow = config.allow.model_copy(
        update={
            "write": config.allow.write + tuple(args.allow_write),
            "destructive": config.allow.destructive + tuple(args.allow_destructive),
        }
    )
    update: dict[str, Any] = {
        "mcp_servers": config.mcp_servers + tuple(args.mcp_server),
        "search": search,
        "allow": allow,
    }
    if args.index:
        update["index"] = str(args.index)
    models = {k: getattr(args, k) for k in ("encoder", "ranking", "reranker") if getattr(args, k)}
    if models:  # the flags win over the config's models
        update["models"] = config.models.model_copy(update=models)
    reranker = models.get("reranker") or config.models.reranker
    if not search.rerank and reranker and reranker.lower() != "none":
        raise DocumentError(
            f"a reranker ({reranker}) is given but searches do not rerank",
            where="serve --reranker/--no-rerank" if models.get("reranker") else "serve",
            hint="Drop --no-rerank (or search.rerank: false), or the reranker",
        )
    if args.name:
        update["name"] = args.name
    config = config.model_copy(update=update)
    check_providers(config, where="serve --config/--mcp-server")
    return config


def _warm_up(gateway: Any, progress: bool) -> None:
    """Open the index off the request path (``/readyz`` answers 503 until it is open, and
    after it failed); a failure is one line on stderr (the searches that follow say it too,
    with what to do), not a thread's traceback. Printed, not logged: it may come before the
    server has set up logging."""
    from schemarouter.serve.generation import open_index, served_folder, why_failed

    try:
        open_index(gateway, progress=progress)
    except Exception as exc:  # any: one line, where a plain error was a thread's traceback
        said = " ".join(why_failed(exc, served_folder(gateway)).split())
        print(f"schemarouter serve: the index did not open: {said}", file=sys.stderr, flush=True)


#: ``serve``'s log records: one line each, on stderr.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _log_to_stderr(level: str = "warning") -> None:
    """One line per record on stderr, at ``level`` (``--log-level``), from ``serve``'s
    start. Before, nothing was configured until the MCP SDK's server was built, so the
    records of registration (the credentials the gateway lacks) were dropped, and then the
    SDK's Rich handler wrapped each record over several lines at the terminal's width (a log
    file read 80 columns wide, the time on the first line only). A host that configured
    logging itself keeps its own (the SDK's ``basicConfig`` then changes nothing either)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(level.upper())
    # faiss's loader says at INFO which CPU build it tried ("Could not load library with
    # AVX512 support"): read as an error in the gateway's log, and none of the operator's
    if logging.getLogger("faiss.loader").level == logging.NOTSET:
        logging.getLogger("faiss.loader").setLevel(logging.WARNING)
    # httpx and httpcore log each upstream request's URL at INFO, its path and query: the
    # call's arguments ("GET .../forecast?city=Paris"), which the gateway's own record of the
    # call never names; below --log-level debug they say warnings only
    for name in ("httpx", "httpcore"):
        library = logging.getLogger(name)
        if library.level == logging.NOTSET and root.level > logging.DEBUG:
            library.setLevel(logging.WARNING)


def _cmd_serve(args: argparse.Namespace) -> int:
    from schemarouter.serve.stderr_pipe import unblocked_stderr

    # a stderr piped and never read blocks no write, the log's included (thirteenth review)
    with unblocked_stderr(logging.Formatter(LOG_FORMAT)):
        return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    from schemarouter.serve.admin import read_admin_token
    from schemarouter.serve.gateway import Gateway
    from schemarouter.serve.generation import IndexState
    from schemarouter.serve.server import run_server

    _log_to_stderr(args.log_level)
    token = _http_access(args)  # refused binds fail before any upstream starts
    admin = read_admin_token(
        env=args.admin_token_env,
        file=args.admin_token_file,
        token=token,
        transport=args.transport,
        path=args.path,
    )
    config = _serve_config(args)
    if (
        not (config.catalogs or config.openapi or config.mcp_tools or config.optimade)
        and not config.mcp_servers
        # an index folder alone: its saved registry (a Milvus collection keeps none)
        and not (config.index and not is_milvus_uri(config.index))
    ):
        config = config.model_copy(update={"catalogs": (str(bundled_catalog()),)})
    # the config's own sources now; its upstream servers connect all at once, in the
    # background, and join when ready: the client's first request is answered at once
    gateway = Gateway.from_config(config, background=True)
    # the index (and its models) warms up beside them, off the request path
    progress = show_progress(args)
    gateway.index_state = IndexState(state="loading")  # not ready before the thread runs
    threading.Thread(target=_warm_up, args=(gateway, progress), daemon=True).start()
    upstreams = f", {len(config.mcp_servers)} upstream servers connecting" * bool(
        config.mcp_servers
    )
    print(
        f"schemarouter serve: {len(gateway.router.snapshot())} routes{upstreams} over "
        f"{args.transport}"
        + (f" at http://{args.host}:{args.port}{args.path}" if args.transport == "http" else "")
        + (" (bearer token required)" if token else "")
        + ("; probes at /healthz and /readyz" if args.transport == "http" else "")
        + ("; POST /admin/reload with the admin token" if admin else ""),
        file=sys.stderr,
    )
    try:
        run_server(
            gateway,
            transport=args.transport,
            host=args.host,
            port=args.port,
            path=args.path,
            token=token,
            allowed_hosts=tuple(args.allowed_host),
            insecure=args.insecure,
            admin_token=admin,
            stdout_timeout=args.stdout_timeout or None,
        )
    except KeyboardInterrupt:  # Ctrl-C: the server has shut down and closed the gateway
        return 130
    finally:
        # the process ends now: no collection of what it holds (the models' objects) at
        # exit, which took seconds (up to 25 s on a busy machine) after every Ctrl-C
        gc.freeze()
    return 0


def _http_access(args: argparse.Namespace) -> str | None:
    """The bearer token for ``--transport http`` (refusing an exposed bind without one)
    before anything is started; ``None`` for stdio or where no token is set."""
    from schemarouter.serve.probes import check_path
    from schemarouter.serve.security import check_bind, read_token

    if args.transport != "http":
        return None
    check_path(args.path)
    token = read_token(env=args.token_env, file=args.token_file)
    check_bind(
        args.host, token=token, insecure=args.insecure, allowed_hosts=tuple(args.allowed_host)
    )
    return token


def add_serve_parser(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve tool search over MCP (stdio or streamable HTTP)",
        description="An MCP server with search_tools, describe_tool and call_tool over the "
        "registered routes (default: the bundled catalog). Needs the serve extra.",
        epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--config", type=Path, metavar="FILE", help="gateway config (YAML/JSON)")
    add_source_arguments(serve)
    add_skip_invalid_argument(serve)
    serve.add_argument(
        "--mcp-server",
        action="append",
        default=[],
        type=_mcp_server,
        metavar="PROVIDER=COMMAND|URL",
        help="an upstream MCP server (repeatable; untrusted: its tools count as writes)",
    )
    serve.add_argument(
        "--allow-write",
        action="append",
        default=[],
        metavar="ROUTE",
        help="a route id or tool name (wildcards) that may run writes (repeatable)",
    )
    serve.add_argument(
        "--allow-destructive", action="append", default=[], metavar="ROUTE", help="likewise"
    )
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument(
        "--stdout-timeout",
        type=seconds,
        default=STDOUT_TIMEOUT,
        metavar="SECONDS",
        help="stdio: how long an answer waits for a client that reads none of it (its stdout "
        f"full) before serve gives up on the client and exits {STALLED_EXIT}, for its "
        f"supervisor to restart it (default: {STDOUT_TIMEOUT:g}; 0: no limit)",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--path", default="/mcp", help="URL path of the MCP endpoint (http)")
    serve.add_argument(
        "--token-env",
        metavar="VAR",
        help="http: require 'Authorization: Bearer <token>' with the token in this environment "
        "variable (default: SCHEMAROUTER_SERVE_TOKEN, where set)",
    )
    serve.add_argument(
        "--token-file", type=Path, metavar="FILE", help="http: the bearer token, from a file"
    )
    serve.add_argument(
        "--admin-token-env",
        metavar="VAR",
        help="http: turn on POST /admin/reload (reloads the index folder, as SIGHUP does) for "
        "requests carrying 'Authorization: Bearer <admin token>', the token in this "
        "environment variable; not the clients' token (off by default)",
    )
    serve.add_argument(
        "--admin-token-file",
        type=Path,
        metavar="FILE",
        help="http: the admin token of POST /admin/reload, from a file",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="http: a Host name clients use besides loopback (repeatable; Host/Origin checks)",
    )
    serve.add_argument(
        "--insecure",
        action="store_true",
        help="http: listen on a non-loopback address without a bearer token",
    )
    serve.add_argument("-k", type=positive_int, help="default number of tools a search returns")
    serve.add_argument("--no-rerank", action="store_true", help="fusion order only (faster)")
    serve.add_argument(
        "--all-routes", action="store_true", help="search every route, not only executable ones"
    )
    serve.add_argument("--index", type=index_path, metavar="DIR", help="a saved index to load")
    serve.add_argument(
        "--encoder",
        metavar="DIR",
        help="a model folder from `schemarouter train-encoder` (default: the config's "
        "models.encoder, else the shipped encoder); with --index, the one it was built with",
    )
    serve.add_argument(
        "--ranking",
        metavar="shipped|none|DIR",
        help="the learned ranking stage (default: the config's models.ranking, else the "
        "router's default)",
    )
    serve.add_argument(
        "--reranker",
        metavar="shipped|none|DIR",
        help="the cross-encoder (default: the config's models.reranker, else the router's default)",
    )
    serve.add_argument("--name", help="the server's name (default: schemarouter)")
    serve.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning",
        help="stderr log, one line per record (default: warning; info adds a line per call: "
        "tool, route, effect, outcome, milliseconds; never arguments or outputs)",
    )
    serve.set_defaults(handler=_cmd_serve)
