"""Where in a YAML (or JSON) text a location is written: the line a contract error names.

A config or catalog is checked after it is parsed, so an error of the check names its key path
(``mcp_servers[0].timeout``) but not where that is in the file; in a long hand-written file the
author had to count (user trial P). :func:`line_of` reads the line back from the text, on the
error path only. The last text composed is kept (:func:`_composed`): a catalog with a
problem in each of its 1000 endpoints was composed 1000 times, 30 s (trial X4).
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["line_of", "with_line"]

#: ``[3]`` or a key, as :func:`~schemarouter.registry.compile.validation_problems` writes a path
_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def line_of(text: str, loc: str) -> int | None:
    """The line (from 1) of ``text`` where ``loc`` is written: the key's own line, or, where the
    path ends before ``loc`` does (a required key that is missing, a validator's own name in the
    path), the line of the deepest mapping or item it reaches. ``None`` where ``text`` does not
    compose as YAML (JSON is YAML here) or ``loc`` names nothing in it."""
    import yaml

    node = _composed(text)
    if node is None:
        return None
    line: int | None = None
    for index, key in _PART.findall(loc):
        if isinstance(node, yaml.MappingNode) and key:
            found = [(k, v) for k, v in node.value if getattr(k, "value", None) == key]
            if not found:
                break
            line, node = found[0][0].start_mark.line + 1, found[0][1]
        elif isinstance(node, yaml.SequenceNode) and index and int(index) < len(node.value):
            node = node.value[int(index)]
            line = node.start_mark.line + 1
        else:
            break
    return line


@functools.lru_cache(maxsize=1)
def _composed(text: str) -> Any:
    """The node tree of ``text``, or ``None`` where it does not compose."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.compose(text, Loader=loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def with_line(source: str, text: str, loc: str) -> str:
    """``source:LINE: loc`` where :func:`line_of` finds the line, else ``source: loc``."""
    line = line_of(text, loc)
    return f"{source}:{line}: {loc}" if line is not None else f"{source}: {loc}"
