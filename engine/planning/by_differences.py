"""A number written after "by" beside a verb that raises or lowers is a difference: it is not
sent as the value it changes.

The twentieth security review: "drop table T-1 by 3 replicas" (read as lowering since trial
21) sent ``update_table(table_id="T-1", replicas=3)``, and "reduce table T-1 by 3 replicas",
"increase table T-1 by 3 replicas", "raise the ttl of table T-1 by 3 days" each set the value
to the difference: a table of 5 replicas asked to lose 3 kept 3. Where a change's argument is
a number the request writes right after "by" in a clause whose verb raises or lowers
(:data:`_CHANGES_BY`), and its parameter holds no difference (``delta``, ``adjustment``,
``offset``, ``change`` in its name: :mod:`.signed_counts`, :mod:`.stated_units`), the
argument is taken out and listed missing, so ``execute`` sends nothing until the new value
is given, and the plan says why (:func:`held_differences`). "drop table T-1 to 2 replicas"
still sends 2; "by" before a date or a time ("by 2026-12-31", "by 5pm") states no difference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Effect
from schemarouter.planning.body import given_arguments, held_back
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["held_differences"]

#: "by" and a number that is no date or time ("by 3 replicas", not "by 2026-12-31", "by 5pm").
_BY = re.compile(
    r"\bby\s+(?:minus\s+)?[-+\u2212]?(\d{1,15}(?:\.\d{1,15})?)(?![\d.:/-]|\s*(?:am|pm)\b|\w)",
    re.IGNORECASE,
)
#: A verb that raises or lowers a value, in any of its forms.
_CHANGES_BY = re.compile(
    r"\b(?:drop|lower|reduce|decrease|cut|raise|increase|bump|boost|shrink|grow|extend|"
    r"shorten|trim|scale|turn)(?:s|d|ed|ped|ping|ing)?\b",
    re.IGNORECASE,
)
#: How far before "by" its verb is looked for, within the clause.
_REACH = 80
#: Where a clause ends: the verb of another clause raises nothing here.
_CLAUSE_END = re.compile(r"[,.;:!?]|\b(?:and|then)\b", re.IGNORECASE)
#: A parameter name that holds a difference itself.
_DIFFERENCE = re.compile(
    r"delta|adjust|increment|offset|diff|change|step|(?:^|_)by(?:_|$)", re.IGNORECASE
)


def _differences(query: str) -> set[float]:
    """The numbers ``query`` writes after "by" in a clause whose verb raises or lowers."""
    found: set[float] = set()
    for match in _BY.finditer(query):
        before = query[max(0, match.start() - _REACH) : match.start()]
        ends = list(_CLAUSE_END.finditer(before))
        clause = before[ends[-1].end() :] if ends else before
        if _CHANGES_BY.search(clause):
            found.add(float(match.group(1)))
    return found


def _numbers(route: Any, arguments: Mapping[str, Any]) -> dict[str, float]:
    """``key -> number`` of the numeric arguments (a body's properties keyed ``body.name``)."""
    given = given_arguments(route, arguments).items()
    return {
        k: float(v) for k, (_, v) in given if isinstance(v, int | float) and not isinstance(v, bool)
    }


def held_differences(
    snapshot: RegistrySnapshot, steps: Sequence[Any], query: str, warnings: list[str]
) -> list[Any]:
    """``steps`` (plan steps), a change's argument that is a difference the request states
    taken out and listed missing, said in ``warnings`` (module docstring)."""
    differences = _differences(query) if "by" in query.lower() else set()
    if not differences:
        return list(steps)
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        if route is None or route.endpoint.effect is Effect.READ:
            out.append(step)
            continue
        numbers = _numbers(route, step.arguments)
        held = [
            key
            for key, number in numbers.items()
            if number in differences and not _DIFFERENCE.search(key.rpartition(".")[2])
        ]
        for key in held:
            warnings.append(
                f"{step.route_id}: the request's {numbers[key]:g} after 'by' "
                f"is how much {key!r} changes, not its new value; the change is not sent "
                f"without it: give the new value with Plan.with_arguments({step.route_id!r}, "
                f"{{{key!r}: ...}})"
            )
        out.append(held_back(step, held) if held else step)
    return out
