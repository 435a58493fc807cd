"""A change the request makes on a condition about the world, which no router can check.

"Refund order O-1 unless it shipped" planned ``POST /orders/O-1/refund`` with ``{}`` (a refund
in full) and "Close ticket T-1 if it is still open" the close, as if the condition held (trial
V3); a warning was added then, but the change stayed ready to send, and "Delete customer C-1
once order O-1 is refunded" was read as no condition at all (the tenth security review). A
condition is the user's to check: :func:`withhold_conditional` takes every change out of such
a plan, names it and its arguments in a warning with the condition, and plans in its place a
read of what the condition is about (the thing and id it names, "order O-1", else the changed
thing itself, "its balance": the customer), as a question about a change plans a read of it
(:mod:`.questions`). A quoted title ("the ticket titled 'what if it breaks'") sets none, a
courtesy ("if possible", "if you can") or a report ("let me know when it is done", "완료되면
알려줘") neither, and a plan that changes nothing is left as it is.

Only the changes the condition holds are withheld (:func:`condition_scopes`): "Refund order
O-1, and if customer C-1 has no open orders, delete C-1" withheld the refund asked outright
too. A condition written before its change ("if ..., delete C-1") holds the rest of its
sentence; one written after it ("delete C-1 once ...") holds its whole sentence but what a
comma's "and" or "then" sets apart before it; a Korean one (always before its change) the
rest of its sentence, or the whole where nothing follows it. A condition that stands alone,
nothing after it and nothing but a joining word before it in what it would hold ("Refund
order O-1. Only if it has shipped.", "..., but only if it has shipped."), holds its sentence
and the one before (:func:`_before`). A clause asked "now" before a condition is set apart
from it (:mod:`.later_clauses`). "When" that asks ("When was order O-1 created? Refund it.")
is no condition. A change is planned only where
the request asks it outside them, with every id it takes written there (:func:`_asked_outside`).
"After" with a state ("after order O-1 is refunded", "주문 O-1이 환불된 후에") is a condition;
"after you refund order O-1", "after refunding order O-1" and "주문 O-1을 환불한 후에" ask for
both changes (:mod:`schemarouter.retrieval.sequence`).

A later time or an event to act after ("tomorrow", "in two hours", "after the refund of order
O-1", "2시간 후에": :mod:`.deferred`) holds a change as a condition does (:func:`deferral_scopes`)
where its route takes no date or time: no router can schedule it, and sent now it is not the
change asked.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Effect
from schemarouter.planning.asked_changes import asked_verbs, does_change
from schemarouter.planning.condition_spans import condition_span, condition_spans
from schemarouter.planning.deferred import deferral_spans, takes_a_time
from schemarouter.planning.fallbacks import keeps_to
from schemarouter.planning.later_clauses import set_apart_now, times_to_act
from schemarouter.planning.planner import _open_step
from schemarouter.planning.refusals import QUOTED
from schemarouter.retrieval.actions import name_words, verb_forms
from schemarouter.retrieval.sequence import where_written

if TYPE_CHECKING:
    from schemarouter.contracts import Route
    from schemarouter.planning.planner import Plan, PlanStep
    from schemarouter.registry.registry import RegistrySnapshot
    from schemarouter.retrieval.analysis import BoundValue

__all__ = [
    "condition_scopes",
    "condition_span",
    "condition_spans",
    "conditional_parts",
    "deferral_scopes",
    "withhold_conditional",
]


#: Where a sentence ends: at ".", "!" or "?" before the end or a space and no lower-case
#: word ("e.g. right away" goes on), at an id's or a number's "." before a lower-case word
#: that joins nothing ("Refund order O-1. if C-1 has no open orders, delete C-1": "if"
#: starts a sentence; "O-1. and ..." goes on), at a word's "." before a lower-case
#: condition ("in full. if ..."; not an abbreviation's: "e.g. if", "approx. if", "a. if"),
#: and at a line's end. A ";" ends none: "If ticket T-1 is open, close it; delete ticket
#: T-2" holds the deletion too.
_SENTENCE_END = re.compile(
    r"[.!?](?=\s*$|\s+[^a-z\s])|(?<=\d)\.(?=\s+(?!(?:and|or|nor|but|then|plus|so|also|with"
    r"|without|to|in|of|for|by|on|at|as)\b)[a-z])"
    r"|(?<!\be\.g)(?<!\bi\.e)(?<!\bapprox)(?<!\betc)(?<!\bincl)(?<!\bexcl)(?<!\besp)(?<!\bvs)"
    r"(?<!\bcf)(?<!\bca)(?<!\bno)(?<!\bmin)(?<!\bmax)(?<!\best)(?<!\bavg)(?<![\s.]\w)"
    r"\.(?=\s+(?:if|unless|when|whenever|once|only\s+if|provided|in\s+case)\b)|\n"
)
#: What a condition that stands alone may be led by: "But only if it has shipped.", "..., but
#: only when customer C-1 replies".
_LEAD_ONLY = re.compile(r"[\s,]*(?:(?:and|but|or|then|so|also|though|just|only|even)[\s,]+)*", re.I)
#: A word that only joins a clause to the one before: "Refund order O-1, and if ...".
_JOINING = re.compile(r"(?:^|[\s,])(?:and|but|then|so|also|or|plus)[\s,]*$", re.I)
#: What sets a clause apart before a condition written after its change: "Refund order O-1,
#: then delete C-1 if ...", "..., and delete C-1 if ...", "...; delete C-1 if ..."; a bare
#: "and" or comma joins.
_APART = re.compile(
    r";|,\s*(?:and\s+then|and\s+also|and|then|but|also)\b"
    r"|\b(?:and\s+then|then|after\s+that|afterwards)\b",
    re.I,
)


def condition_scopes(query: str) -> list[tuple[int, int, int, int]]:
    """Each condition of ``query`` (:func:`condition_spans`) and what it holds:
    ``(condition start, condition end, hold start, hold end)``, the hold as the module
    docstring says, short of a clause before it asked now (:func:`.later_clauses.set_apart_now`)."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    return set_apart_now(text, _scopes(query, condition_spans(query)), after_too=False)


def deferral_scopes(query: str, snapshot: RegistrySnapshot) -> list[tuple[int, int, int, int]]:
    """:func:`condition_scopes` of each later time or event ``query`` asks a change for
    (:func:`~.deferred.deferral_spans`: "tomorrow", "in two hours", "2시간 후에"; not one
    that is no time to act, :func:`.later_clauses.times_to_act`), held as a condition is,
    short of a clause before or after it asked now."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    spans = times_to_act(text, deferral_spans(query), snapshot, _asks)
    return set_apart_now(text, _scopes(query, spans), after_too=True)


def _scopes(query: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """Each of ``spans`` (conditions) and what it holds (:func:`condition_scopes`). Each
    sentence's marks are found once and bisected: read again from the sentence's start for
    each span, 3,200 "after the refund of order O-1" in one sentence took 8 s."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    marks = [m.start() for m in re.finditer(r"[,;:]", text)]
    aparts: dict[int, list[int]] = {}  # a sentence's start: the ends of its _APART matches
    out = []
    for start, end in spans:
        at = bisect_right(ends, start)
        first = ends[at - 1] if at else 0
        after = bisect_right(ends, end - 1)
        last = ends[after] if after < len(ends) else len(text)
        follows = bool(re.search(r"\w", text[end:last]))
        prior = ends[at - 2] if at >= 2 else 0  # where the sentence before starts
        if not text[start:end].isascii():
            hold = start if follows else first
            out.append((start, end, _before(text, start, hold, follows, prior), last))
            continue
        mark = bisect_left(marks, start) - 1
        clause = marks[mark] - first + 1 if mark >= 0 and marks[mark] >= first else 0
        lead = text[first + clause : start]
        if (
            follows
            and text[end:last].lstrip().startswith(",")
            and (not lead.strip() or _JOINING.search(lead))
        ):  # "If ..., delete C-1"; "Refund order O-1, and if ..., delete C-1"
            out.append((start, end, start, last))
            continue
        if first not in aparts:
            stop = ends[at] if at < len(ends) else len(text)
            aparts[first] = [m.end() for m in _APART.finditer(text, first, stop)]
        found = aparts[first]
        before = bisect_right(found, start) - 1
        hold = found[before] if before >= 0 else first
        if hold > first and _before(text, start, hold, follows, first) == first:
            hold = first  # "Refund order O-1, but only if it has shipped."
        out.append((start, end, _before(text, start, hold, follows, prior), last))
    return out


def _before(text: str, start: int, hold: int, follows: bool, prior: int) -> int:
    """Where the hold of a condition at ``start`` that stands alone starts: "Refund order O-1.
    Only if it has shipped.", "Refund order O-1, but only if it has shipped." and "주문 O-1을
    환불해줘. 배송되지 않았으면." held their own words and sent the refund. Where nothing
    follows the condition and nothing but a joining word comes before it from ``hold``, it
    holds from ``prior`` (its sentence's start, or the sentence's before); else from
    ``hold``."""
    if follows or not _LEAD_ONLY.fullmatch(text, hold, start):
        return hold
    return prior


def _covered(size: int, spans: Iterable[tuple[int, int]]) -> list[bool]:
    """Whether each of ``size`` places lies in one of ``spans`` (``[start, end)``), in one
    pass: asking every span for every place took minutes on a long request of many
    conditions (1,200 conditions, 84,000 characters: 34 s)."""
    steps = [0] * (size + 1)
    for start, end in spans:
        start, end = max(start, 0), min(end, size)
        if start < end:
            steps[start] += 1
            steps[end] -= 1
    inside, out = 0, []
    for step in steps[:size]:
        inside += step
        out.append(inside > 0)
    return out


def _held(query: str, scopes: Sequence[tuple[int, int, int, int]]) -> list[bool]:
    """Whether each place of ``query`` is one its conditions hold."""
    return _covered(len(query), [(hold, until) for _, _, hold, until in scopes])


def _outside(query: str, scopes: Sequence[tuple[int, int, int, int]]) -> str:
    """``query`` with what its conditions hold blanked (its places kept)."""
    held = _held(query, scopes)
    return "".join(" " if held[i] else c for i, c in enumerate(query))


def _asks(text: str, route: Route) -> bool:
    """Whether ``text`` asks a change ``route`` does: a verb it reads
    (:func:`~.asked_changes.asked_verbs`), or a form of the route's name's first word
    ("Refund order O-1": ``refund_order``, where "order" is read as the verb)."""
    lead = next(iter(name_words(route.endpoint.name)), "")
    words = re.findall(r"[A-Za-z]+", text)
    return any(does_change(route, verb, text) for verb in asked_verbs(text)) or (
        bool(lead) and any(lead in verb_forms(word) for word in words)
    )


def _asked_outside(
    step: PlanStep,
    route: Route,
    query: str,
    values: Sequence[BoundValue],
    scopes: Sequence[tuple[int, int, int, int]],
) -> bool:
    """Whether the request asks ``step``'s change outside what its conditions hold: it asks a
    change the route does there (its verb, or its name's first word: "refund"), and every id
    the step takes that the request writes (a value read there, or its text, a body's too) is
    written there ("Close ticket T-1, and if it has no replies, delete T-1": the deletion is
    asked in the condition's sentence only)."""
    if not _asks(_outside(query, scopes), route):
        return False
    held = _held(query, scopes)
    for value in _leaves(step.arguments):
        places = [v.start for v in values if v.value == value]
        written = rf"(?<![\w-]){re.escape(value)}(?![A-Za-z0-9-])"  # a Korean particle may follow
        places += [m.start() for m in re.finditer(written, query, re.I)]
        if places and all(0 <= at < len(held) and held[at] for at in places):
            return False
    return True


def _leaves(arguments: Any) -> list[str]:
    """The text and numbers of ``arguments`` (a body's too), as text."""
    if isinstance(arguments, dict):
        return [leaf for value in arguments.values() for leaf in _leaves(value)]
    if isinstance(arguments, list | tuple):
        return [leaf for value in arguments for leaf in _leaves(value)]
    if isinstance(arguments, str | int | float) and not isinstance(arguments, bool):
        return [str(arguments)] if str(arguments).strip() else []
    return []


def _asks_on_condition(
    query: str, scopes: Sequence[tuple[int, int, int, int]], snapshot: RegistrySnapshot
) -> bool:
    """Whether what the conditions hold, but for the conditions' own words, asks a change
    (:func:`_asks` of any write route: "Delete customer C-1. If order O-1 is open, refund
    it.", a refund no step may be)."""
    holds, words = _held(query, scopes), _covered(len(query), [(a, b) for a, b, _, _ in scopes])
    held = "".join(c if holds[i] and not words[i] else " " for i, c in enumerate(query))
    if asked_verbs(held):
        return True
    forms = {form for word in re.findall(r"[A-Za-z]+", held) for form in verb_forms(word)}
    return any(
        next(iter(name_words(route.endpoint.name)), "") in forms
        for route in snapshot.routes.values()
        if route.endpoint.effect is not Effect.READ
    )


def conditional_parts(
    query: str,
    parts: Sequence[tuple[str, str]],
    misses: Sequence[tuple[str, str, str]],
    snapshot: RegistrySnapshot,
) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """``parts`` and ``misses`` (:meth:`~schemarouter.retrieval.ranking.Ranker.part_reading`'s)
    with a part a condition holds whose best route is a change, too weak to be planned ("그리고
    고객 C-1의 주문이 없으면 C-1을 삭제해줘": its words are mostly the condition's), planned
    after all: :func:`withhold_conditional` withholds and names it, as the change asked on
    that condition. Only where the request asks that change nowhere else, so it is withheld."""
    scopes = condition_scopes(query) if misses else []
    if not scopes:
        return list(parts), list(misses)
    taken = {route_id for _, route_id in parts}
    holds, outside = _held(query, scopes), _outside(query, scopes)
    added, left = [], []
    for text, route_id, why in misses:
        route = snapshot.routes.get(route_id)
        at = where_written(query, text) if text else -1
        end = at + len(text) - 1
        held = why == "weak" and at >= 0 and 0 <= end < len(holds) and holds[end]
        if (
            held
            and route is not None
            and route.endpoint.effect is not Effect.READ
            and route_id not in taken
            and not _asks(outside, route)  # asked nowhere else: withheld
        ):
            added.append((text, route_id))
            taken.add(route_id)
            continue
        left.append((text, route_id, why))
    return [*parts, *added], left


def withhold_conditional(
    plan: Plan,
    snapshot: RegistrySnapshot,
    values: Sequence[BoundValue],
    rank: Callable[[str], Sequence[tuple[str, Sequence[str]]]],
) -> tuple[Plan, list[str]]:
    """``plan`` without the changes its request's conditions hold (:func:`condition_scopes`;
    each change it does not ask outside them: :func:`_asked_outside`), with a read of what
    the first condition is about in their place (see the module docstring), and the route
    ids withheld; ``plan`` itself, and none, where the request states no condition or no
    change of the plan is held. ``rank`` gives the routes retrieval ranks for a text
    (``(route id, field hits)``, best first)."""
    query = plan.request.query
    routes = snapshot.routes
    writes = any(
        s.route_id not in routes or routes[s.route_id].endpoint.effect is not Effect.READ
        for s in plan.steps
    )
    scopes = condition_scopes(query) if writes else []
    later = deferral_scopes(query, snapshot) if writes else []

    def held(step: PlanStep, route: Route, timed: bool) -> bool:
        """Whether a condition (or, ``timed``, a later time too) holds ``step``'s change."""
        holds = [*scopes, *later] if timed and not takes_a_time(route) else scopes
        return (  # nothing holds a change where nothing is held (no condition, no time)
            bool(holds)
            and route.endpoint.effect is not Effect.READ
            and not _asked_outside(step, route, query, values, holds)
        )

    changes = [
        i
        for i, step in enumerate(plan.steps)
        if step.route_id not in routes or held(step, routes[step.route_id], True)
    ]
    # a change no condition holds is held by a time: said and read as the time's
    timed = [
        i
        for i in changes
        if plan.steps[i].route_id in routes
        and not held(plan.steps[i], routes[plan.steps[i].route_id], False)
    ]
    condition = "; ".join(repr(query[a:b].strip()) for a, b, _, _ in scopes)
    if scopes and not changes and _asks_on_condition(query, scopes, snapshot):
        said = (
            f"the request makes a change depend on a condition ({condition}) that no router "
            "can check: no change asked on it is planned (those planned are asked outside "
            "it). Once the condition holds, ask for the change without it"
        )
        return plan.model_copy(update={"warnings": (*plan.warnings, said)}), []
    if not (scopes or later) or not changes:
        return plan, []
    span = later[0][:2] if timed and (len(timed) == len(changes) or not scopes) else scopes[0][:2]
    gone = set(changes)
    for i, step in enumerate(plan.steps):  # a step bound to a withheld one goes with it
        if any(b.step in gone for b in step.bindings.values()):
            gone.add(i)
    kept = [i for i in range(len(plan.steps)) if i not in gone]
    place = {old: new for new, old in enumerate(kept)}
    steps = [
        plan.steps[i].model_copy(
            update={
                "bindings": {
                    name: b.model_copy(update={"step": place[b.step]})
                    for name, b in plan.steps[i].bindings.items()
                }
            }
        )
        for i in kept
    ]
    withheld = [plan.steps[i] for i in changes]
    read = None
    if len(steps) < plan.max_calls and Effect.READ in plan.request.allowed_effects:
        read = _condition_read(plan, snapshot, span, values, withheld, rank)
        if read is not None and not any(_same(read, s) for s in steps):
            steps.append(read)
    shown = "; ".join(f"{s.route_id} with {_shown(s.arguments)}" for s in withheld)
    said = (
        f"the request makes its change depend on a condition ({condition}) that no router "
        f"can check: the change is not planned ({shown}); "
    )
    if timed:
        times = "; ".join(repr(query[a:b].strip()) for a, b, _, _ in later)
        said = (
            f"the request asks its change for a later time or after an event ({times}) "
            f"that no router can schedule or see: the change is not sent now, nor planned "
            f"({shown}); "
        )
        if len(timed) < len(changes):
            said += f"others depend on a condition ({condition}) that no router can check; "
    said += (
        f"{read.route_id} is planned to read what the "
        f"{'change' if timed and len(timed) == len(changes) else 'condition'} is about. "
        if read is not None
        else "no read of what it is about is planned. "
    )
    said += (
        "When it is due, ask for the change again without the time"
        if timed and len(timed) == len(changes)
        else "Once the condition holds, ask for the change without it"
    )
    update: dict[str, Any] = {"steps": tuple(steps), "warnings": (*plan.warnings, said)}
    if not steps:
        update["reason"] = said
    covered = [s for s in plan.coverage.required if any(s in step.covers for step in steps)]
    update["coverage"] = plan.coverage.model_copy(
        update={
            "covered": tuple(covered),
            "uncovered": tuple(s for s in plan.coverage.required if s not in covered),
        }
    )
    return plan.model_copy(update=update), [s.route_id for s in withheld]


def _condition_read(
    plan: Plan,
    snapshot: RegistrySnapshot,
    span: tuple[int, int],
    values: Sequence[BoundValue],
    withheld: Sequence[PlanStep],
    rank: Callable[[str], Sequence[tuple[str, Sequence[str]]]],
) -> PlanStep | None:
    """The read of what the condition at ``span`` is about: the best-ranked read (for the
    condition's words) that the values written in it fill whole, where it names any ("once
    order O-1 is refunded": the order); else the best-ranked read (for the request) that the
    request fills whole and that takes an argument of a withheld change as it ("when its
    balance is zero": the customer the deletion takes)."""
    query = plan.request.query
    start, end = span
    inside = [
        v.model_copy(update={"start": v.start - start, "end": v.end - start})
        for v in values
        if start <= v.start and v.end <= end
    ]
    taken = {(k, repr(v)) for s in withheld for k, v in s.arguments.items()}
    tries = [(query[start:end], inside, True), (query, list(values), False)] if inside else []
    tries = tries or [(query, list(values), False)]
    for text, found, own in tries:
        for route_id, hits in rank(text):
            route = snapshot.routes.get(route_id)
            if route is None or route.endpoint.effect is not Effect.READ:
                continue
            if not keeps_to(route, plan.request):
                continue
            request = plan.request.model_copy(update={"query": text})
            step = _open_step(snapshot, route_id, request, found, hits)
            if step.missing_parameters or not step.arguments:
                continue
            given = {(k, repr(v)) for k, v in step.arguments.items()}
            written = {v.value for v in found}
            if (own and any(str(v) in written for v in step.arguments.values())) or (
                not own and given & taken
            ):
                return step
    return None


def _same(a: PlanStep, b: PlanStep) -> bool:
    return a.route_id == b.route_id and a.arguments == b.arguments


def _shown(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items()) or "no arguments"
