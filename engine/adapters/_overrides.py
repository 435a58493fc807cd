"""A caller's ``effect_overrides``: an exact name first, then a pattern.

A key with a glob character (``*``, ``?``, ``[``) is a pattern, matched with
:func:`fnmatch.fnmatchcase` against each name of an operation or tool (its operationId or
``METHOD /path``, its endpoint id; a tool's name): ``{"Describe*": "read", "List*": "read"}``
declares every AWS read at once, where each of a document's hundreds of ``POST`` operations
had to be named (trial X5). An exact key wins over any pattern; among patterns, the first in
the mapping's order that matches. Overrides are the trusted caller's word, as exact keys are.
An exact key naming nothing is a mistake the registration refuses; a pattern matching
nothing is only noted, so that one set (``Describe*``, ``Get*``, ``List*``) serves every
document of a family, some of which have no ``List`` operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from schemarouter.contracts import Effect

__all__ = ["is_pattern", "override_for", "unused_keys"]


def is_pattern(key: str) -> bool:
    """Whether an ``effect_overrides`` key is a glob pattern, not one name."""
    return any(c in key for c in "*?[")


def override_for(
    overrides: Mapping[str, Effect], names: Sequence[str]
) -> tuple[Effect | None, set[str]]:
    """The effect ``overrides`` give the operation or tool called ``names`` (``None``: no key
    names or matches it), and every key that names or matches it, the one that gave the
    effect and those it took precedence over: a key in none of these sets of a document is
    a mistake (a name it does not have, a pattern matching nothing)."""
    exact = [name for name in names if name in overrides]
    matching = [
        key
        for key in overrides
        if is_pattern(key) and any(fnmatchcase(name, key) for name in names)
    ]
    keys = [*exact, *matching]
    return (overrides[keys[0]] if keys else None), set(keys)


def unused_keys(overrides: Mapping[str, Effect], used: set[str], notes: list[str]) -> list[str]:
    """The exact keys of ``overrides`` that named nothing (not in ``used``), sorted, for the
    caller to refuse; a pattern that matched nothing is told in ``notes`` instead."""
    unused = sorted(set(overrides) - used)
    if patterns := [key for key in unused if is_pattern(key)]:
        notes.append(
            f"effect_overrides: the pattern{'s' * (len(patterns) > 1)} "
            f"{', '.join(repr(p) for p in patterns)} matched nothing here"
        )
    return [key for key in unused if not is_pattern(key)]
