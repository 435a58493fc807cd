"""Why a plan passes over routes retrieval ranked: their effect, provider, licence or source is
not what the request allows (:func:`exclusions`), and the writes a read would stand in for
(:func:`writes_passed_over`), and the writes a request that only reads passes over
(:func:`reads_first`); and what a planned route's own document says against it
(:func:`deprecated_notes`). Used in :attr:`schemarouter.planning.planner.Plan.reason` and
its warnings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from schemarouter.contracts import AccessKind, AvailabilityStatus, Effect, SourceType
from schemarouter.planning.fallbacks import unlicensed
from schemarouter.planning.route_verbs import asks_named_change
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import leading_action, request_action


class _Request(Protocol):
    """What is read of a request here (the planner's ``PlanRequest``)."""

    @property
    def query(self) -> str: ...
    @property
    def allowed_effects(self) -> frozenset[Effect]: ...
    @property
    def providers(self) -> tuple[str, ...]: ...
    @property
    def source_types(self) -> tuple[SourceType, ...]: ...
    @property
    def licenses(self) -> tuple[str, ...]: ...


__all__ = [
    "QUOTED",
    "deprecated_notes",
    "exclusions",
    "planned_first",
    "reads_first",
    "unquoted",
    "writes_passed_over",
]

#: A quoted span: '...', "...", “...”, ‘...’. An apostrophe between two letters is no quote
#: mark ("don't", "it's", "O'Brien"): two contractions enclose no value (twelfth security
#: review: "Don't cancel A-1001, confirm A-1002; we don't want to cancel anything" read the
#: refusal as a quoted value), and a quoted value may hold one ("'don't call'"); a Korean
#: particle may follow a quote ("'닫아줘'라는"). Linear: a span ends at the first quote mark
#: that is not between two letters.
QUOTED = re.compile(
    r"\"[^\"]*\"|“[^”]*”"
    r"|(?<![A-Za-z0-9])'(?:[^']|(?<=[A-Za-z])'(?=[A-Za-z]))*'(?![A-Za-z0-9])"
    r"|‘(?:[^’]|(?<=[A-Za-z])’(?=[A-Za-z]))*’"
)


def planned_first(
    eligible: Sequence[str], route_id: str, warnings: list[str], why: str
) -> list[str]:
    """``eligible`` with ``route_id`` first, and the sentence saying so in ``warnings``: ``why``
    then that it is planned before the best ranked ("..., so X, which does, is planned before
    Y, ranked above it")."""
    warnings.append(f"{why} is planned before {eligible[0]}, ranked above it")
    return [route_id, *(r for r in eligible if r != route_id)]


#: A verb's -ing form right before a date, which it dates ("closing 2027-01-15", "closing end
#: of March", "starting next Monday", "expiring on Friday"): what the thing does then, no
#: change asked (user trial 20: "create a deal for Globex, 12,500 EUR, closing end of March"
#: read as asking to close, and planned a read in place of ``create_deal``).
_DATED = re.compile(
    r"\b[A-Za-z]{3,}ing(?=\s+(?:(?:on|by|at|in|around)\s+)?(?:the\s+)?(?:\d{4}-\d{2}-\d{2}\b"
    r"|(?:end|start|beginning|middle)\s+of\b|(?:next|this|last)\s+[a-z]+"
    r"|tomorrow\b|today\b|tonight\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d"
    r"|q[1-4]\b))",
    re.IGNORECASE,
)


def unquoted(text: str) -> str:
    """``text`` with each quoted span blanked (same length): a quoted title, name or comment
    is a value, never the request's verb ("댓글 추가해줘: '확인 중'" asks to add a comment; its
    확인 is what the comment says); and a verb's -ing form that dates the thing
    (:data:`_DATED`: "closing 2027-01-15") too."""
    blank = QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    return _DATED.sub(lambda m: " " * len(m.group(0)), blank)


def writes_passed_over(
    request: _Request, snapshot: RegistrySnapshot, skipped: Sequence[str], top: str | None
) -> list[str]:
    """Of the ``skipped`` routes (ranked above ``top``, the best eligible one), those left
    out for their effect, where the request asks to write
    (:func:`~schemarouter.retrieval.actions.request_action`) and ``top`` is a read: planning
    that read would "succeed" without the change asked for."""
    if top is None or snapshot.routes[top].endpoint.effect is not Effect.READ:
        return []
    allowed, routes = request.allowed_effects, snapshot.routes
    blocked = [r for r in skipped if r in routes and routes[r].endpoint.effect not in allowed]
    return blocked if blocked and request_action(request.query) == "write" else []


#: How far down the eligible routes a read request looks for a read before a write ranked above
READ_DEPTH = 5


def reads_first(
    request: _Request, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), with its reads first where the request only reads, each
    clause opening with a read verb (:func:`~schemarouter.retrieval.actions.leading_action`:
    "End my listing" reads nothing), its best route is a write or destructive one and a read
    is among the first :data:`READ_DEPTH`; the writes passed over are named in ``warnings``.
    Trial X3: "Show me the open support tickets", with writes allowed, planned
    ``create_ticket`` ("Open a new support ticket" ranked first)."""
    routes = snapshot.routes
    if not eligible or routes[eligible[0]].endpoint.effect is Effect.READ:
        return list(eligible)
    reads = [r for r in eligible if routes[r].endpoint.effect is Effect.READ]
    if (
        not reads
        or reads[0] not in eligible[:READ_DEPTH]
        or leading_action(unquoted(request.query)) != "read"
        # a part opens with the verb a write ranked above is named for: "scale ..., then show"
        or asks_named_change(unquoted(request.query), [routes[r] for r in eligible[:READ_DEPTH]])
    ):
        return list(eligible)
    passed = eligible[: eligible.index(reads[0])]
    warnings.append(
        f"the request asks to read, so {reads[0]} is planned before "
        f"{', '.join(passed)} (effect {routes[passed[0]].endpoint.effect.value}), ranked above "
        "it; plan a change with a request that asks for it, or Plan.with_arguments on that route"
    )
    return reads + [r for r in eligible if r not in reads]


def exclusions(ranked: Sequence[str], snapshot: RegistrySnapshot, request: _Request) -> str:
    """Why the ``ranked`` routes may not be planned, by cause and count."""
    routes = [snapshot.routes[r] for r in ranked if r in snapshot.routes]
    effects = [r for r in routes if r.endpoint.effect not in request.allowed_effects]
    parts = []
    if effects:
        kinds = "/".join(sorted({r.endpoint.effect.value for r in effects}))
        mcp = any(r.access.kind is AccessKind.MCP and not r.access.trusted for r in effects)
        parts.append(
            f"{len(effects)} have effect {kinds}, which the request does not allow"
            + (" (untrusted MCP tools count as write)" if mcp else "")
            + "; allow it with PlanRequest(allowed_effects=...), or run the route with "
            "router.call(..., allow_effects=..., approve=...)"
        )
    others = [r for r in routes if r not in effects]
    if request.providers and (off := [r for r in others if r.provider.id not in request.providers]):
        parts.append(f"{len(off)} belong to providers the request does not name")
        others = [r for r in others if r not in off]
    licensed = [r for r in others if unlicensed(r, request.licenses) is None]
    if len(licensed) < len(others):
        parts.append(
            f"{len(others) - len(licensed)} have output under a license the request does not "
            f"allow (PlanRequest(licenses=...) allows {', '.join(request.licenses)})"
        )
        others = licensed
    if request.source_types and others:
        parts.append(f"{len(others)} do not match the source constraint")
    return "; ".join(parts)


def deprecated_notes(snapshot: RegistrySnapshot, planned: Sequence[str]) -> list[str]:
    """A note per planned route its document marks deprecated: it still runs (``execute``
    sends it; ``retrieve_executable`` and the MCP gateway offer it, described so)."""
    notes = []
    for route_id in planned:
        availability = snapshot.routes[route_id].endpoint.availability
        if availability.status is AvailabilityStatus.DEPRECATED:
            note = availability.note
            # a catalog's own note ("use plant_ops/api/meter_energy") was dropped (trial A)
            said = note if note.startswith("deprecated") else f"deprecated ({note})" if note else ""
            notes.append(
                f"{route_id} is {said or 'deprecated'}: planned as the best route, it runs "
                "as any other; where its provider names a replacement, call that with "
                "router.call(route_id, ...)"
            )
    return notes
