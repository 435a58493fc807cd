"""A user's labelled requests: the training input of ``train-reranker``, ``train-encoder`` and
``train-ranking`` (``--requests FILE``), and the suite ``schemarouter eval --suite requests``
measures on.

The file is JSON lines, one request each::

    {"request": "push a message onto the billing queue", "routes": ["sqs/rest/send_message"]}
    {"request": "how many vacation days do I have left",
     "routes": ["acme/python/vacation_days_left"], "split": "heldout", "id": "hr-7"}

``routes`` are route ids as the router registers them (``retrieve`` prints them) from the
catalog given beside the file with the options every command takes (``--catalog``,
``--openapi``, ``--mcp-tools``, ``--config``). ``split`` (``train`` or ``heldout``) and
``id`` are optional; a request without ``id`` is named by the hash of its text.

Checked when read (:func:`load_requests`, :func:`check_routes`), each a coded error naming
the file and the line: an empty file, a line that is no JSON or has the wrong keys, an
empty request or route list, an id used twice, a route id the catalog does not register
(named, with the closest registered ones). A request given twice is warned about and read
once.

Held out (:func:`split_requests`): the requests marked ``"split": "heldout"``, and, with
``--holdout FRACTION``, a seeded share of the unmarked ones. They are never trained on; a
training command writes their ids beside the model (``heldout_requests.jsonl``) and the
file's hash, counts and split into its card (:func:`requests_manifest`).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError, DocumentError
from schemarouter.training.records import STR_LIST, check_record, read_json_lines

__all__ = [
    "HELDOUT_FILE",
    "SPLITS",
    "LabelledRequest",
    "RequestSet",
    "add_requests_arguments",
    "catalog_manifest",
    "check_routes",
    "load_requests",
    "measured_training_requests",
    "read_requests",
    "request_queries",
    "requests_manifest",
    "requests_router",
    "split_requests",
    "write_heldout",
]

#: The values of a request's ``split``.
SPLITS = ("train", "heldout")
#: Written beside a model trained on ``--requests``: the held-out requests, never trained on.
HELDOUT_FILE = "heldout_requests.jsonl"
_WHAT = "requests file"
_FIELDS: dict[str, type | str] = {"request": str, "routes": STR_LIST}
_OPTIONAL: dict[str, type | str] = {"split": str, "id": str}
#: The catalog options (flag, attribute) a training card names.
_SOURCE_OPTIONS = (
    ("--catalog", "catalog"),
    ("--openapi", "openapi"),
    ("--mcp-tools", "mcp_tools"),
    ("--optimade", "optimade"),
    ("--config", "config"),
)


def _norm(text: str) -> str:
    """The text an id is made of: lowercase, single spaces (ids of files already read keep)."""
    return " ".join(text.lower().split())


def _words(text: str) -> str:
    """What makes two requests one: their words and digits, lowercase, in any script, without
    punctuation ("... right now" and "... right now?" are one request, so the held-out one is
    never trained on: trial U3)."""
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


@dataclass(frozen=True)
class LabelledRequest:
    """One request of the file and the routes that serve it."""

    id: str
    text: str
    routes: tuple[str, ...]
    #: ``train``, ``heldout`` or ``None`` (unmarked)
    split: str | None = None
    line: int = 0


@dataclass
class RequestSet:
    """The requests of one file, each once, and what reading it found."""

    path: Path
    sha256: str
    requests: list[LabelledRequest]
    #: lines dropped as a repeat of an earlier request (same text, whatever the case)
    duplicates: int = 0
    warnings: list[str] = field(default_factory=list)


def load_requests(path: str | Path) -> RequestSet:
    """The requests of ``path`` (see the module docstring), each a coded error
    (:class:`~schemarouter.errors.DocumentError`, ``file:line``) where it is wrong."""
    path = Path(path)
    lines = read_json_lines(path, what=_WHAT)  # an empty file, no JSON: file:line
    out: list[LabelledRequest] = []
    first: dict[str, LabelledRequest] = {}
    ids: dict[str, int] = {}
    warnings: list[str] = []
    duplicates = 0
    for number, value in lines:
        where = f"{path}:{number}"
        record = check_record(value, required=_FIELDS, optional=_OPTIONAL, where=where, what=_WHAT)
        text = record["request"].strip()
        routes = tuple(dict.fromkeys(r.strip() for r in record["routes"]))
        if not text:
            raise DocumentError(
                "the request is empty", where=f"{where} request", hint="Write the request text"
            )
        if not routes or not all(routes):
            raise DocumentError(
                "a request names no route" if not routes else "a route id is empty",
                where=f"{where} routes",
                hint="List the route ids that serve it, as `schemarouter retrieve` prints them",
            )
        split = record.get("split")
        if split is not None and split not in SPLITS:
            raise DocumentError(
                f"split must be one of {', '.join(SPLITS)}, not {split!r}",
                where=f"{where} split",
                hint="Leave it out to let --holdout choose",
            )
        rid = record.get("id") or "q-" + hashlib.sha256(_norm(text).encode()).hexdigest()[:12]
        key = _words(text)
        if key in first:
            earlier = first[key]
            duplicates += 1
            note = f"line {number} repeats the request of line {earlier.line}: read once"
            if set(routes) != set(earlier.routes):
                note += f" (its routes {list(routes)} differ: line {earlier.line}'s kept)"
            if split == "heldout" and earlier.split != "heldout":  # held out wins
                out[out.index(earlier)] = first[key] = LabelledRequest(
                    earlier.id, earlier.text, earlier.routes, "heldout", earlier.line
                )
                note += f"; held out, as line {number} marks it"
            warnings.append(note)
            continue
        if rid in ids:
            raise DocumentError(
                f"id {rid!r} is used twice (lines {ids[rid]} and {number})",
                where=f"{where} id",
                hint="Give each request its own id",
            )
        ids[rid] = number
        item = LabelledRequest(rid, text, routes, split, number)
        first[key] = item
        out.append(item)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return RequestSet(path, digest, out, duplicates, warnings)


def check_routes(requests: RequestSet, registered: Collection[str]) -> None:
    """A :class:`~schemarouter.errors.DocumentError` naming every route id of ``requests``
    the catalog does not register (with the lines that name it and the closest registered
    ids), so nothing is trained on a label that points nowhere."""
    unknown: dict[str, list[int]] = {}
    for r in requests.requests:
        for route in r.routes:
            if route not in registered:
                unknown.setdefault(route, []).append(r.line)
    if not unknown:
        return
    known = sorted(registered)
    parts = []
    for route, lines in list(unknown.items())[:8]:
        close = difflib.get_close_matches(route, known, n=2, cutoff=0.6)
        at = ", ".join(map(str, lines[:5])) + (" ..." if len(lines) > 5 else "")
        part = f"{route!r} (line {at}"
        part += f"; closest: {', '.join(map(repr, close))})" if close else ")"
        parts.append(part)
    more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
    raise DocumentError(
        f"{len(unknown)} route id(s) the catalog does not register: {'; '.join(parts)}{more}",
        where=str(requests.path),
        hint=f"Route ids are PROVIDER/ACCESS/ENDPOINT as `schemarouter retrieve` prints them "
        f"(the catalog given registers {len(known)}); check the ids, or give the catalog that "
        "registers them (--catalog, --openapi, --mcp-tools, --config)",
    )


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1)")
    return value


def split_requests(
    requests: RequestSet, holdout: float = 0.0, *, seed: int = 0, training: bool = True
) -> tuple[list[LabelledRequest], list[LabelledRequest], str]:
    """``(train, held out, how)``: the requests marked ``heldout``, and ``holdout`` of the
    unmarked ones (a seeded draw by id, the same on every run), held out; the rest train.
    ``training``: an :class:`~schemarouter.errors.ArgumentError` where nothing is left to
    train on."""
    marked = [r for r in requests.requests if r.split == "heldout"]
    unmarked = [r for r in requests.requests if r.split is None]

    def rank(r: LabelledRequest) -> str:
        return hashlib.sha256(f"{seed}:{r.id}".encode()).hexdigest()

    drawn = set(map(id, sorted(unmarked, key=rank)[: round(holdout * len(unmarked))]))
    held = [r for r in requests.requests if r.split == "heldout" or id(r) in drawn]
    train = [r for r in requests.requests if r.split != "heldout" and id(r) not in drawn]
    how = []
    if marked:
        how.append(f"{len(marked)} marked heldout in the file")
    if holdout:
        how.append(
            f"{len(drawn)} of {len(unmarked)} unmarked drawn (--holdout {holdout}, seed {seed})"
        )
    if training and not train:
        raise ArgumentError(
            f"every request of {requests.path} is held out: nothing to train on",
            where=str(requests.path),
            hint="Mark fewer requests heldout, or pass a smaller --holdout",
        )
    return train, held, "; ".join(how) or "none held out"


def _ids_sha(items: Sequence[LabelledRequest]) -> str:
    return hashlib.sha256("\n".join(sorted(r.id for r in items)).encode()).hexdigest()


def requests_manifest(
    requests: RequestSet,
    train: Sequence[LabelledRequest],
    held: Sequence[LabelledRequest],
    how: str,
) -> dict[str, Any]:
    """What the card says of the requests file: its hash, counts and split."""
    return {
        "file": str(requests.path),
        "sha256": requests.sha256,
        "requests": len(requests.requests),
        "duplicates_dropped": requests.duplicates,
        "train": len(train),
        "heldout": len(held),
        "split": how,
        "heldout_ids_sha256": _ids_sha(held),
        "heldout_file": HELDOUT_FILE if held else None,
    }


def write_heldout(folder: str | Path, held: Sequence[LabelledRequest]) -> Path | None:
    """``folder/heldout_requests.jsonl``: the held-out requests (id, request, routes), never
    trained on; ``schemarouter eval --suite requests`` measures on them."""
    path = Path(folder) / HELDOUT_FILE
    if not held:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_suffix(".tmp")
    with open(staged, "w", encoding="utf-8") as handle:
        for r in held:
            row = {"id": r.id, "request": r.text, "routes": list(r.routes), "split": "heldout"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    staged.replace(path)
    return path


def measured_training_requests(
    folders: dict[str, str | None], measured: Sequence[LabelledRequest]
) -> dict[str, Any]:
    """For each model folder (``{role: folder}``) a training command wrote from ``--requests``
    (its card has ``data.requests``): how many of the ``measured`` requests are not among the
    held-out ones written beside it (:data:`HELDOUT_FILE`, matched by id or by text, whatever
    the case and spacing), so that it may have trained on them. Folders of models trained
    on other data, and names that are no folder (``default``, ``auto``), are left out."""
    out: dict[str, Any] = {}
    for role, name in folders.items():
        folder = Path(name) if name else None
        if folder is None or not (folder / "card.json").is_file():
            continue
        try:
            card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        manifest = (card.get("data") or {}).get("requests") if isinstance(card, dict) else None
        if not isinstance(manifest, dict):
            continue
        if isinstance(manifest.get("requests"), dict):  # train-ranking nests it once more
            manifest = manifest["requests"]
        if "heldout_ids_sha256" not in manifest:  # not a --requests file (tooltrain's)
            continue
        ids: set[str] = set()
        texts: set[str] = set()
        listed = (folder / HELDOUT_FILE).is_file()
        if listed:
            for _, row in read_json_lines(folder / HELDOUT_FILE, what="held-out requests"):
                if isinstance(row, dict):
                    ids.add(str(row.get("id", "")))
                    texts.add(_words(str(row.get("request", ""))))
        trained = [r for r in measured if r.id not in ids and _words(r.text) not in texts]
        if not listed and _ids_sha(measured) == manifest.get("heldout_ids_sha256"):
            trained = []  # the list is gone, but the card's hash names these very ids
        out[role] = {
            "folder": str(folder),
            "requests_file": manifest.get("file"),
            "requests_sha256": manifest.get("sha256"),
            "trained_on": manifest.get("train"),
            "heldout_listed": listed,
            "measured": len(measured),
            "measured_not_held_out": len(trained),
        }
    return out


def request_queries(requests: Sequence[LabelledRequest], *, split: str = "test") -> list[Any]:
    """The requests as labelled queries (every route each names is needed)."""
    from schemarouter.training.datasets.suite import EvalQuery, all_needed

    return [
        EvalQuery(r.id, r.text, r.routes, all_needed(r.routes), "requests", r.split or split)
        for r in requests
    ]


# -- the command line ----------------------------------------------------------------------------


def add_requests_arguments(parser: argparse.ArgumentParser, *, holdout: bool = True) -> None:
    """``--requests FILE``, ``--holdout FRACTION`` and the catalog options of ``schemarouter
    retrieve`` / ``index build`` (``--catalog``, ``--openapi``, ``--mcp-tools``, ``--config``)."""
    group = parser.add_argument_group("your own catalog and labelled requests (docs/training.md)")
    group.add_argument(
        "--requests",
        default=None,
        metavar="FILE",
        help='labelled requests, JSON lines: {"request": ..., "routes": [ROUTE_ID, ...]} '
        '(optional "split": train|heldout, "id"); the catalog comes from the options below',
    )
    if holdout:
        group.add_argument(
            "--holdout",
            type=_share,
            default=0.0,
            metavar="FRACTION",
            help="hold out this share of the requests not marked with a split (seeded by "
            "--seed); held-out requests are never trained on and are listed beside the model",
        )
    group.add_argument(
        "--catalog", action="append", type=Path, metavar="PATH", help="catalog file or folder"
    )
    group.add_argument(
        "--openapi",
        action="append",
        default=[],
        metavar="[PROVIDER=]FILE|URL",
        help="an OpenAPI 2.0/3.x document (repeatable)",
    )
    group.add_argument(
        "--mcp-tools",
        action="append",
        default=[],
        metavar="[PROVIDER=]FILE",
        help="a recorded MCP tools/list result (repeatable)",
    )
    group.add_argument(
        "--optimade",
        action="append",
        default=[],
        metavar="[PROVIDER=]URL|FILE",
        help="an OPTIMADE service: base URL, or a file of its recorded payloads (repeatable)",
    )
    group.add_argument(
        "--config", type=Path, metavar="FILE", help="a gateway config: its catalogs and servers"
    )


def has_catalog(args: argparse.Namespace) -> bool:
    return bool(
        getattr(args, "catalog", None)
        or getattr(args, "openapi", None)
        or getattr(args, "mcp_tools", None)
        or getattr(args, "optimade", None)
        or getattr(args, "config", None)
    )


def requests_router(args: argparse.Namespace, **options: Any) -> Any:
    """The catalog the options name, registered as ``retrieve`` and ``serve`` register it
    (the same route ids), in a router with ``options`` (no abstention, no reranker unless
    given)."""
    from schemarouter.serve.cli import sources_config
    from schemarouter.serve.config import GatewayConfig, load_config
    from schemarouter.serve.sources import build_router

    if not has_catalog(args):
        raise ArgumentError(
            "--requests needs the catalog its route ids name",
            where="--requests",
            hint="Give it with --catalog, --openapi, --mcp-tools, --optimade or --config, as to "
            "`schemarouter index build`",
        )
    config = load_config(args.config) if args.config else GatewayConfig()
    config = sources_config(args, config)
    options.setdefault("abstention", None)
    options.setdefault("reranker", None)
    return build_router(config, **options)


def _source_file(given: str) -> Path | None:
    """The local file a source option names (``[PROVIDER=]FILE``), else ``None`` (a URL, a
    folder)."""
    for candidate in (given, given.split("=", 1)[-1]):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def catalog_manifest(args: argparse.Namespace, router: Any) -> dict[str, Any]:
    """What the card says of the catalog the requests were read over: each source option as
    given (with the sha256 of a local file), the routes it registered and the registry's
    fingerprint (the one a saved index of it carries)."""
    sources = []
    for flag, attr in _SOURCE_OPTIONS:
        given = getattr(args, attr, None) or []
        for value in [given] if isinstance(given, str | Path) else given:
            file = _source_file(str(value))
            digest = hashlib.sha256(file.read_bytes()).hexdigest() if file else None
            sources.append({"option": flag, "given": str(value), "sha256": digest})
    snapshot = router.snapshot()
    return {
        "sources": sources,
        "routes": len(snapshot.routes),
        "registry_fingerprint": snapshot.fingerprint,
    }


def read_requests(
    args: argparse.Namespace,
    router: Any,
    out: Callable[[str], Any],
) -> tuple[RequestSet, list[LabelledRequest], list[LabelledRequest], dict[str, Any]]:
    """The ``--requests`` file read and checked against ``router``'s routes, split, its
    warnings said through ``out``: ``(set, train, held out, card manifest)``."""
    requests = load_requests(args.requests)
    check_routes(requests, router.snapshot().routes)
    for note in requests.warnings:
        out(f"warning: {args.requests}: {note}")
    train, held, how = split_requests(
        requests, getattr(args, "holdout", 0.0), seed=getattr(args, "seed", 0)
    )
    repeated = requests.duplicates
    out(
        f"{len(requests.requests)} labelled requests: {len(train)} to train on, {len(held)} held "
        f"out ({how})" + (f"; {repeated} repeated line(s) read once" if repeated else "")
    )
    if not held:
        out(
            "warning: no request is held out: nothing is left to compare trained and shipped "
            'models on (pass --holdout 0.3, or mark requests "split": "heldout")'
        )
    manifest = requests_manifest(requests, train, held, how)
    manifest["catalog"] = catalog_manifest(args, router)
    return requests, train, held, manifest
