"""A required parameter whose schema's ``pattern`` names its identifiers takes the one token
of a request that fits it, wherever the request writes it.

Only a pattern that says what an id of its own looks like binds: anchored at both ends, and
every string it matches writes a literal character (``^ORD-[0-9]{8}$``), so that it does not
take any number of the request (``^\\d+$``, ``^ORD-\\d+|\\d+$``, ``^(ORD-)?\\d+$``). The
pattern is matched with RE2, as the gate matches it: linear in the token, whatever the
pattern. An identifier-named parameter with no such pattern, required or not, binds by the
shape its description shows by example ("The contact, like C-3.":
:func:`~.example_ids.documented_pattern`), and one whose description shows none by the
shape its provider's other parameters of that name show (:func:`~.example_ids.shared_pattern`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from schemarouter.contracts import Parameter, schema_validator
from schemarouter.planning.described_ids import describes
from schemarouter.planning.example_ids import documented_pattern, shared_pattern
from schemarouter.planning.merged_ids import merge_side
from schemarouter.planning.named_values import Clauses
from schemarouter.planning.route_parts import Spans
from schemarouter.retrieval.identifiers import names_identifier
from schemarouter.safety.patterns import regex

#: A token of a request that may be an identifier: letters, digits and ``_-.:/``, with a digit.
_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-.:/])(?=[A-Za-z0-9_\-.:/]*\d)[A-Za-z0-9][\w\-.:/]*")
#: A Korean particle written onto a token ("km-101의", "ORD-20240001을"): Hangul at its end.
#: It starts at a run's first syllable only: from each syllable, a run not at the token's end
#: was scanned to its end again (40,000 syllables and a letter: 4 s).
_HANGUL_TAIL = re.compile(r"(?<![\uac00-\ud7a3])[\uac00-\ud7a3]+$")


def _fits(token: str, fits: Any) -> str | None:
    """``token`` where it fits, else the token without a Korean particle on its end where that
    fits (``km-101의`` -> ``km-101``), else ``None``."""
    if fits(token):
        return token
    bare = _HANGUL_TAIL.sub("", token).rstrip(".:/-")
    return bare if bare and bare != token and fits(bare) else None


def bind_by_pattern(
    open_: list[tuple[Parameter, bool]],
    query: str,
    arguments: dict[str, Any],
    filled: dict[str, Any],
    clauses: Clauses | None = None,
    *,
    read: bool = False,
    given_back: frozenset[str] = frozenset(),
    provider: str = "",
    others: Callable[[], Spans] | None = None,
) -> None:
    """Each open required parameter (of a ``read``, an optional one too: a list's filter,
    "list open work orders for P-101": ``equipment_tag``, trial 21) whose schema's
    :func:`specific` ``pattern``
    (``^ORD-[0-9]{8}$``) exactly one id-like token of the request matches, a token no other
    open parameter's pattern matches and no argument holds, takes it (moved out of
    ``open_``). Trial K: "ORD-20240001 주문 취소해줘" writes the id before its thing, as
    Korean does, and ``order_id`` stayed open though the value was plainly one. A particle
    written onto the id ("km-101의 데바이 온도") is no part of it (trial T3). A token of a
    clause that says not to use it binds only where it is ``given_back``. An optional
    parameter of a change bound by a shape it was shown takes no token of the spans
    ``others`` gives (:mod:`.route_parts`: the parts that ask another change)."""
    located = [
        (m.start(), m.group(0).rstrip(".:/-"))
        for m in _ID_TOKEN.finditer(query)
        # "don't cancel ORD-20240001", but an id given back (:mod:`.referred`)
        if (clauses is None or not clauses.against(m) or m.group(0) in given_back)
        and not describes(query, m.start(), m.end())  # "the order that ORD-1 replaced"
    ]
    tokens = list(dict.fromkeys(t for _, t in located))
    held = {str(v) for v in [*arguments.values(), *filled.values()]}
    matches: dict[int, list[str]] = {}
    for i, (parameter, _) in enumerate(open_):
        pattern = parameter.json_schema.get("pattern")
        mine = tokens
        if not ((parameter.required or read) and isinstance(pattern, str) and specific(pattern)):
            # "The contact, like C-3." (trial 20), or as the provider's other contact_id say
            pattern = documented_pattern(parameter) or shared_pattern(provider, parameter)
            if pattern is None or not names_identifier(parameter.name) or merge_side(parameter):
                continue  # a merge's side is the id its words give it (merged_ids)
            spans = others() if others is not None and not (parameter.required or read) else ()
            if spans:  # "move D-12 to proposal, then create a task ..."
                mine = [t for s, t in located if not any(a <= s < b for a, b in spans)]
        compiled = regex(pattern)  # RE2: linear in the token, whatever the pattern
        if compiled is None:
            continue  # a pattern RE2 cannot run is not enforced: it says nothing here
        valid = schema_validator(parameter.json_schema).is_valid

        def fits(t: str, compiled: Any = compiled, valid: Any = valid) -> bool:
            return t not in held and bool(compiled.search(t.encode())) and bool(valid(t))

        fitting = (_fits(t, fits) for t in mine)
        matches[i] = list(dict.fromkeys(t for t in fitting if t is not None))
    taken = [t for found in matches.values() for t in found]
    for i, found in sorted(matches.items(), reverse=True):
        if len(found) == 1 and taken.count(found[0]) == 1:
            parameter, inside = open_.pop(i)
            (filled if inside else arguments)[parameter.name] = found[0]


#: A quantifier; group 1 is a counted repeat's least count (``{0,3}``: ``0``).
_QUANTIFIER = re.compile(r"(?:[?*+]|\{(\d*)(?:,\d*)?\})\??")


def specific(pattern: str) -> bool:
    """Whether ``pattern`` is anchored at both ends and every match writes a character of its
    own outside classes (``^ORD-[0-9]{8}$``, ``^(ORD|INV)-\\d+$``), not only a shape
    (``^\\d+$``). A top-level ``|`` anchors only its ends (``^ORD-\\d+|\\d+$`` matches
    ``15000``), and an optional literal (``^(ORD-)?\\d+$``) is no literal."""
    if not (pattern.startswith("^") and pattern.endswith("$")) or pattern.endswith("\\$"):
        return False
    branches = _branches(pattern[1:-1])
    return branches is not None and len(branches) == 1 and branches[0]


def _branches(body: str) -> list[bool] | None:
    """Per top-level alternative of ``body``, whether it holds a literal character every match
    writes; None where the pattern cannot be read (unbalanced)."""
    out: list[bool] = []
    literal, i = False, 0
    while i < len(body):
        c = body[i]
        if c == "|":
            out.append(literal)
            literal, i = False, i + 1
            continue
        end = _atom_end(body, i)
        if end is None:
            return None
        atom, i = body[i:end], end
        quantifier = _QUANTIFIER.match(body, i)
        optional = quantifier is not None and (
            quantifier.group(0)[0] in "?*" or quantifier.group(1) in ("", "0")
        )
        i = quantifier.end() if quantifier else i
        if optional or re.fullmatch(r"\(\?[a-zA-Z]+\)", atom):
            continue  # an optional atom, or inline flags (``(?i)``), writes nothing
        if atom.startswith("(") and not atom.startswith(("(?=", "(?!", "(?<=", "(?<!")):
            inner = _branches(re.sub(r"^\((?:\?(?::|P?<\w+>|[a-z]+:))?", "", atom)[:-1])
            if inner is None:
                return None
            literal = literal or all(inner)
        elif re.fullmatch(r"[A-Za-z0-9_-]|\\[-_]", atom):
            literal = True
    out.append(literal)
    return out


def _atom_end(body: str, i: int) -> int | None:
    """Where the atom at ``body[i]`` ends: a class, an escape, a group or one character."""
    if body[i] == "\\":
        return i + 2 if i + 1 < len(body) else None
    if body[i] == "[":
        found = re.compile(r"\[\^?\]?(?:\\.|[^\]])*\]").match(body, i)
        return found.end() if found else None
    if body[i] != "(":
        return i + 1
    depth, j = 0, i
    while j < len(body):
        if body[j] == "\\":
            j += 2
            continue
        if body[j] == "[":
            end = _atom_end(body, j)
            if end is None:
                return None
            j = end
            continue
        depth += {"(": 1, ")": -1}.get(body[j], 0)
        j += 1
        if depth == 0:
            return j
    return None
