"""The package's imports, room by room (run on demand; docs/architecture.md draws it).

    python -m schemarouter.training.bench.imports [--inside-index]

Reads the installed package's source with :mod:`ast` (nothing is imported), every import
statement alike: at module level, inside functions and under ``TYPE_CHECKING``. A *room* is a
package of ``schemarouter`` (``registry/``, ``retrieval/``, ...; ``index/`` and ``training/``
whole) or a top-level module (``router``, ``contracts``, ...); ``--inside-index`` draws the
rooms inside ``index/`` instead (each module a room, ``encoders/`` and ``milvus/`` one each).
A room's floor is one above the highest room it imports; the one import that runs back up on
purpose (:data:`EXCEPTIONS`) is drawn but left out of the floors. Prints one line per room,
from the top floor down.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from schemarouter.registry.defs import strong_components

__all__ = [
    "EXCEPTIONS",
    "circles",
    "floors",
    "module_graph",
    "package_root",
    "room_graph",
    "room_of",
]

#: Imports between rooms that run back up on purpose, (from module, to module): the lazy
#: import in ``CapabilityRetrieval.tools()`` (docs/architecture.md#the-one-exception).
EXCEPTIONS = frozenset(
    {("schemarouter.retrieval.results", "schemarouter.integrations.definitions")}
)
#: Packages of ``schemarouter`` that are one room each.
_ROOMS = (
    "registry",
    "retrieval",
    "planning",
    "execution",
    "adapters",
    "integrations",
    "serve",
    "data",
    "models",
)


def package_root() -> Path:
    """The folder of the installed ``schemarouter`` package (with ``index/`` and
    ``training/`` inside it, as installed)."""
    import schemarouter

    return Path(schemarouter.__file__).parent


def _module_names(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(("schemarouter", *parts))] = path
    return out


def module_graph(root: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports (anywhere in the module)."""
    files = _module_names(root)

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{above}.{base}" if base else above
                names = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names
                ]
            else:
                continue
            for name in names:
                found = known(name) if name.startswith("schemarouter") else None
                if found is not None and found != module:
                    targets.add(found)
        graph[module] = targets
    return graph


def room_of(module: str, *, inside_index: bool = False) -> str:
    """The room ``module`` stands in (see the module docstring)."""
    parts = module.split(".")[1:]
    if not parts:
        return "__init__"
    if parts[0] == "index":
        if inside_index and len(parts) > 1:
            return (
                f"index/{parts[1]}/" if parts[1] in ("encoders", "milvus") else f"index/{parts[1]}"
            )
        return "index/"
    if parts[0] == "training" or parts[0] in _ROOMS:
        return parts[0] + "/"
    return parts[0]


def room_graph(
    graph: Mapping[str, Iterable[str]], *, inside_index: bool = False, exceptions: bool = True
) -> dict[str, set[str]]:
    """room -> the rooms it imports (``exceptions=False`` leaves :data:`EXCEPTIONS` out);
    with ``inside_index``, the rooms inside ``index/`` only."""
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = room_of(module, inside_index=inside_index)
        rooms.setdefault(here, set())
        for target in targets:
            there = room_of(target, inside_index=inside_index)
            if there != here and (exceptions or (module, target) not in EXCEPTIONS):
                rooms[here].add(there)
    if inside_index:
        rooms = {
            r: {t for t in ts if t.startswith("index/")}
            for r, ts in rooms.items()
            if r.startswith("index/")
        }
    return rooms


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every group of two or more nodes that import one another in a loop (Tarjan's, the
    registry's :func:`~schemarouter.registry.defs.strong_components`)."""
    groups = strong_components(sorted(graph), lambda node: graph.get(node, ()))
    return [sorted(group) for group in groups if len(group) > 1]


def floors(rooms: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """room -> its floor (1: imports no other room); the rooms must not import in a loop."""
    out: dict[str, int] = {}

    def floor(room: str) -> int:
        if room not in out:
            out[room] = 1 + max((floor(t) for t in rooms.get(room, ())), default=0)
        return out[room]

    for room in rooms:
        floor(room)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inside-index", action="store_true", help="the rooms inside index/")
    args = parser.parse_args(argv)
    graph = module_graph(package_root())
    drawn = room_graph(graph, inside_index=args.inside_index)
    level = floors(room_graph(graph, inside_index=args.inside_index, exceptions=False))
    upward = {(room_of(a), room_of(b)) for a, b in EXCEPTIONS}
    for number in sorted(set(level.values()), reverse=True):
        print(f"floor {number:2d}:")
        for room in sorted(r for r, n in level.items() if n == number):
            names = [
                t + (" (lazy: the one exception)" if (room, t) in upward else "")
                for t in sorted(drawn[room])
            ]
            print(f"   {room:<16} -> {', '.join(names) or '(no other room)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
