"""Which of several values a lookup returned fills a bound parameter.

Execution fills a bound parameter from the first value its source step returned
(:meth:`~schemarouter.execution.loop.Run.bound`). For a read that is harmless, and a change
whose request says which entry ("close the first ticket") is meant to take it. But a change
whose request picked its entry by a value the list filters on ("close the ticket of
ann@example.com") or said there is one ("rename my only workspace") meant exactly one: where
the lookup matched several, taking the first would change an entry the user did not pick
(trial W2: "Cancel the order of joe@example.com" cancelled the first of joe's two orders).
Such a step is not sent; its error names how many matched and what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.errors import ExecutionError
from schemarouter.execution.outputs import entry_count, present_values
from schemarouter.planning.chained_needs import filter_arguments, says_first
from schemarouter.planning.planner import Binding

__all__ = ["several_note", "unmatched_filter"]


def several_note(
    route: Route,
    name: str,
    raw: Any,
    binding: Binding,
    query: str,
    where: str,
) -> str | None:
    """The warning that ``name`` of ``route`` is the first of several values the step of
    ``binding`` returned (``raw``) at its path, ``None`` where it returned one entry; raises
    :class:`ExecutionError` instead for a change whose request (``query``) does not say it
    takes the first entry (:func:`~schemarouter.planning.chained_needs.says_first`). Entries
    are counted with or without a value at the path: a list of two entries, one of them
    without its id, matched two, and a change takes the first of them only where each has
    one (trial X1: "close my only ticket" closed the one with an id, "close the first
    ticket" the second entry)."""
    found = present_values(raw, binding.path)
    entries = max(len(found), entry_count(raw, binding.path))
    if entries <= 1 or not found:
        return None
    first, step, path = found[0][1], binding.step, binding.path
    change = route.endpoint.effect is not Effect.READ
    # "the first ticket" of a list whose first entry has no id is not the first with one
    if change and (entries > len(found) or not says_first(query, binding.thing)):
        raise ExecutionError(
            f"{name!r} of {route.route_id} ({route.endpoint.effect.value}) would come from "
            f"step {step}, which returned {_count(entries, len(found))} at {path!r}, where "
            "the request names one: which one is meant is not known, so the change is not sent",
            where=f"{where} bindings",
            hint=f"Narrow the lookup, or call {route.route_id} with the id (router.call)",
        )
    return (
        f"{where}: {name!r} is the first of {_count(entries, len(found))} step {step} "
        f"returned at {path!r} ({first}); to use another, call {route.route_id} with it "
        "(router.call)"
    )


def _count(entries: int, values: int) -> str:
    """How many were returned: ``3 values``, or ``2 entries (1 with a value)``."""
    if entries == values:
        return f"{values} values"
    return f"{entries} entries ({values} with a value)"


def unmatched_filter(
    route: Route, name: str, raw: Any, binding: Binding, asked: Mapping[str, Any], where: str
) -> None:
    """Raise :class:`ExecutionError` where the entry a change of ``route`` takes ``name``
    from (the first the step of ``binding`` returned, in ``raw``) shows another value for a
    filter its list was ``asked`` (its arguments): a server that ignored ``number=10042``
    and listed one other order would have had that order cancelled (trial X1)."""
    if route.endpoint.effect is Effect.READ or "." not in binding.path:
        return
    entry = binding.path.rsplit(".", 1)[0]
    for key, wanted in filter_arguments(asked).items():
        if not isinstance(wanted, str | int) or isinstance(wanted, bool):
            continue
        shown = present_values(raw, f"{entry}.{key}")
        if (  # a value the list shows as text or a number ("Bob", not {"name": "Bob"})
            shown
            and isinstance(shown[0][0], str | int)
            and str(shown[0][0]).casefold() != str(wanted).casefold()
        ):
            raise ExecutionError(
                f"{name!r} of {route.route_id} ({route.endpoint.effect.value}) would come from "
                f"step {binding.step}, asked for {key}={wanted!r}, whose entry has {key}="
                f"{shown[0][0]!r} at {shown[0][1]}: the list did not filter so, and the "
                "change is not sent",
                where=f"{where} bindings",
                hint=f"Check the lookup's filter, or call {route.route_id} with the id "
                "(router.call)",
            )
