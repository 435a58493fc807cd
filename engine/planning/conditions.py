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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Effect
from schemarouter.planning.fallbacks import keeps_to
from schemarouter.planning.planner import _open_step
from schemarouter.planning.refusals import QUOTED

if TYPE_CHECKING:
    from schemarouter.planning.planner import Plan, PlanStep
    from schemarouter.registry.registry import RegistrySnapshot
    from schemarouter.retrieval.analysis import BoundValue

__all__ = ["condition_span", "withhold_conditional"]

#: An English condition, to the end of its clause: "unless it shipped", "only if it is open",
#: "once order O-1 is refunded"; not a courtesy ("if possible", "if you can", "if any"), not
#: "at once" / "once more", and not what a report or a check asks ("let me know when ...",
#: "check if ...").
_ENGLISH = re.compile(
    r"(?<!\bknow\s)(?<!\bme\s)(?<!\bus\s)(?<!\bcheck\s)(?<!\bsee\s)(?<!\bask\s)"
    r"(?<!\bverify\s)(?<!\bsay\s)(?<!\bat\s)(?<!\ball\s)"
    r"\b(?:only\s+if|if|unless|when(?:ever)?|provided(?:\s+that)?|as\s+long\s+as|in\s+case"
    r"|as\s+soon\s+as|once(?=\s+(?!more\b|again\b|a\b|an\b|per\b|every\b|each\b|daily\b|or\b"
    r"|and\b|only\b|already\b)[\w'-]+\s+\w))"
    r"\b(?!\s+(?:possible|any|applicable|you\s+(?:can|could|please)|you\s+don'?t\s+mind)\b)"
    r"[^,.;:!?]*",
    re.I,
)
#: A Korean condition: a verb's -면 ("열려 있으면", "배송되지 않았으면", "필요하면") with the word
#: before it, or "... 경우(에만)" ("배송되지 않은 경우에만"); not "-면 안 돼", which forbids, a
#: courtesy ("가능하면", "괜찮으면"), nor a report ("완료되면 알려줘"). Each match starts at a
#: word (the leftmost one always did): started inside a word, ``\S+`` read it to its end from
#: every letter, and a word of 10,000 letters took 4 s (thirteenth security review).
_KOREAN = re.compile(
    r"(?<!\S)(?:\S+\s+)?(?<!\S)(?!가능하면|괜찮으면|좋으면)\S*(?:있으면|없으면|으면|되면|하면|라면|다면|않으면)"
    r"(?=\s|$)(?!\s*안\s*[돼되됩])(?!\s*(?:바로\s*)?알려)"
    r"|(?<!\S)(?:\S+\s+)?\S+\s+경우(?:에만|에는|에)?"
)
#: A Korean word that is a condition's subject ("O-1이", "티켓이"), and one with a particle
#: of its own (not the bare thing word before a subject: "주문 O-1이").
_KO_SUBJECT = re.compile(r"\S+(?:이|가)$")
_KO_PARTICLE = re.compile(r"(?:은|는|을|를|이|가|에|의|도|로|와|과|고|서|면|며)$")
_CLAUSE_START = re.compile(r"[,.;:!?]\s*")


def condition_span(query: str) -> tuple[int, int] | None:
    """Where ``query`` states a condition (module docstring), outside quoted text: an English
    one from its word to its clause's end, a Korean one from its subject (and the thing word
    before it: "주문 O-1이 환불되면") to its -면 or 경우; ``None`` where it states none."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    found = _ENGLISH.search(text)
    if found is not None:
        return found.start(), found.end()
    found = _KOREAN.search(text)
    if found is None:
        return None
    start = max((m.end() for m in _CLAUSE_START.finditer(text, 0, found.start())), default=0)
    words = list(re.finditer(r"\S+", text[start : found.start()]))
    begin = found.start()
    for at in range(len(words) - 1, -1, -1):  # back to the condition's subject
        if _KO_SUBJECT.search(words[at].group()):
            begin = start + words[at].start()
            if at > 0 and not _KO_PARTICLE.search(words[at - 1].group()):
                begin = start + words[at - 1].start()
            break
    return begin, found.end()


def withhold_conditional(
    plan: Plan,
    snapshot: RegistrySnapshot,
    values: Sequence[BoundValue],
    rank: Callable[[str], Sequence[tuple[str, Sequence[str]]]],
) -> tuple[Plan, list[str]]:
    """``plan`` without its changes where its request states a condition
    (:func:`condition_span`), with a read of what the condition is about in their place (see
    the module docstring), and the route ids withheld; ``plan`` itself, and none, where the
    request states none or the plan changes nothing. ``rank`` gives the routes retrieval
    ranks for a text (``(route id, field hits)``, best first); ``read_step`` makes a step on a
    route from a text, its values and the route's field hits."""
    query = plan.request.query
    routes = snapshot.routes
    changes = [
        i
        for i, step in enumerate(plan.steps)
        if step.route_id not in routes or routes[step.route_id].endpoint.effect is not Effect.READ
    ]
    span = condition_span(query) if changes else None
    if span is None:
        return plan, []
    condition = query[span[0] : span[1]].strip()
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
        f"the request makes its change depend on a condition ({condition!r}) that no router "
        f"can check: the change is not planned ({shown}); "
    )
    said += (
        f"{read.route_id} is planned to read what the condition is about. "
        if read is not None
        else "no read of what it is about is planned. "
    )
    said += "Once the condition holds, ask for the change without it"
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
