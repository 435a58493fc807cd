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

A pattern matches names the document or server chose, so it never makes laxer what is
``firm``: a ``DELETE``, ``PUT`` or ``PATCH``, an operation its document claims destructive, a
tool its server says is destructive (trial Y1: ``List*: read`` made a ``DELETE`` named
``ListAndPurgeBucket`` a read, planned and run without approval); the effect stays and a
note says so. Nor does it make a read of a name that joins a change to its first verb
(``ListAndPurgeBucket``, ``GetOrCreateBucket``, ``get_and_send_notes``): the AWS query protocol
sends every operation as a ``POST``, so only the name tells that ``List*`` does more than list
there. An exact name still overrides anything: it is the caller's word for one operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from schemarouter.contracts import Effect
from schemarouter.retrieval.actions import name_words, verb_of

__all__ = ["is_pattern", "override_for", "unused_keys"]


_JOINS = frozenset(("and", "or", "then"))
#: Words that may stand between a join and its change ("ListAndAlsoPurge", "AndBatchDelete").
_BETWEEN = frozenset(("also", "then", "batch", "bulk", "force", "maybe", "optionally", "all"))
#: Changes no verb table knows ("GetAndRefundOrder", "DescribeAndRotateKey"); base forms only
#: (``DescribeDeletedItems`` reads).
_MORE_CHANGES = frozenset(
    ("refund", "rotate", "truncate", "void", "expire", "invalidate", "evict", "retire", "wipe")
) | frozenset(("unpublish",))


def joins_a_change(name: str) -> bool:
    """Whether an operation or tool name joins a change to what it opens with
    (``ListAndPurgeBucket``, ``get_or_create_bucket``, ``ListAndRevokeTokens``,
    ``ListAndAlsoPurgeBucket``), where ``and`` may join two nouns (``ListUsersAndGroups``): a
    write verb retrieval's tables know or one of :data:`_MORE_CHANGES`, the first word after
    the join past those of :data:`_BETWEEN`."""
    words = name_words(name)
    for i, word in enumerate(words[:-1]):
        if word not in _JOINS:
            continue
        after = [w for w in words[i + 1 : i + 4] if w not in _BETWEEN][:1]
        if after and (after[0] in _MORE_CHANGES or verb_of(after[0]) is not None):
            return True
    return False


def is_pattern(key: str) -> bool:
    """Whether an ``effect_overrides`` key is a glob pattern, not one name."""
    return any(c in key for c in "*?[")


def override_for(
    overrides: Mapping[str, Effect],
    names: Sequence[str],
    *,
    firm: Effect | None = None,
    notes: list[str] | None = None,
) -> tuple[Effect | None, set[str]]:
    """The effect ``overrides`` give the operation or tool called ``names`` (``None``: no key
    names or matches it), and every key that names or matches it, the one that gave the
    effect and those it took precedence over: a key in none of these sets of a document is
    a mistake (a name it does not have, a pattern matching nothing). ``firm`` is the effect
    no pattern may make laxer (see the module docstring; told in ``notes``)."""
    exact = [name for name in names if name in overrides]
    matching = [
        key
        for key in overrides
        if is_pattern(key) and any(fnmatchcase(name, key) for name in names)
    ]
    keys = [*exact, *matching]
    if not keys:
        return None, set()
    effect = overrides[keys[0]]
    why = "as its method or its own word says"
    if firm is None and any(joins_a_change(name) for name in names):
        firm, why = Effect.WRITE, "as its name joins a change to its first verb"
    if not exact and firm is not None and effect.rank < firm.rank:
        if notes is not None:
            notes.append(
                f"effect_overrides: the pattern {keys[0]!r} would make {names[0]!r} "
                f"{effect.value}; kept {firm.value}, {why} (a pattern matches the names a "
                "document chooses): name it exactly to override it"
            )
        effect = firm
    return effect, set(keys)


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
