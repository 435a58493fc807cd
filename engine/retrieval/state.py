"""Typed execution state and the state-aware filter.

The host passes what it knows *now* (credentials it can supply, effects it allows, routes that
are unhealthy or already tried, fields it already holds, invokers it has bound). The router
never re-ranks by state: it filters the same ranked list and records a reason for each route
it leaves out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, model_validator

from schemarouter.contracts import AvailabilityStatus, Effect, Route
from schemarouter.retrieval.effect_notes import overridden

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "BLOCKED_HINTS",
    "Exclusion",
    "ExecutionState",
    "blocked_summary",
    "exclusion_for",
    "read_by_name_note",
    "reads_by_name",
    "unregistered_routes",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExecutionState(_Frozen):
    """What the host knows right now; used to filter (never to re-rank) the ranked list."""

    #: Names of credentials the host can supply (``MP_API_KEY``). ``None``: not checked.
    credentials: frozenset[str] | None = None
    allowed_effects: frozenset[Effect] = frozenset({Effect.READ})
    unhealthy_routes: frozenset[str] = frozenset()
    tried_routes: frozenset[str] = frozenset()
    #: Semantic ids the host already holds: routes that add none of the needed fields go
    #: (OpenAPI and MCP fields carry one only where they declare ``x-semantic-id``: skip
    #: routes whose fields carry none with tried_routes).
    fields_held: frozenset[str] = frozenset()
    #: Keep only routes bound to an invoker at their current fingerprint.
    require_bound: bool = False
    #: Route ids the host has bound invokers for (in addition to the router's own bindings).
    bound_routes: frozenset[str] = frozenset()
    #: Licences the host may use output under (``CC-BY-4.0``, ``CC0-1.0``). ``None``: any. A
    #: route with a value under another, or none declared, is left out (reason ``license``).
    allowed_licenses: frozenset[str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        """A key the state does not have (``tried_rotes``) is refused naming the one meant,
        not only as pydantic's "Extra inputs are not permitted"."""
        if isinstance(data, Mapping):
            fields = list(cls.model_fields)
            for key in data:
                if isinstance(key, str) and key not in fields:
                    close = difflib.get_close_matches(key, fields, n=1, cutoff=0.6)
                    meant = f"did you mean {close[0]!r}? " if close else ""
                    raise ValueError(
                        f"ExecutionState has no field {key!r}: {meant}its fields are "
                        f"{', '.join(fields)}"
                    )
        return data


class Exclusion(_Frozen):
    """A route the state filtered out, and why."""

    route_id: str
    rank: int
    reason: str  # stable code: "credentials", "effect", "unhealthy", "tried", ...
    detail: str


def exclusion_for(
    route: Route,
    state: ExecutionState,
    *,
    rank: int,
    is_bound: Callable[[str], bool],
    needed_semantic_ids: Iterable[str] = (),
    detail: Callable[[str, str], str | None] | None = None,
) -> Exclusion | None:
    """Why ``route`` is not eligible under ``state`` (``None`` if it is). ``detail(reason,
    route_id)`` is the router's own account of a route it left out, where it has one (a
    cooldown it started after failed calls, a session it closed); else the detail says
    what ``state`` told."""

    def out(reason: str, default: str) -> Exclusion:
        told = detail(reason, route.route_id) if detail is not None else None
        return Exclusion(route_id=route.route_id, rank=rank, reason=reason, detail=told or default)

    endpoint = route.endpoint
    if route.route_id in state.tried_routes:
        return out("tried", "already tried in this session")
    if route.route_id in state.unhealthy_routes:
        return out("unhealthy", HOST_UNHEALTHY)
    # a deprecated route still runs (its tool description and a plan that picks it say so)
    if endpoint.availability.status is AvailabilityStatus.UNAVAILABLE:
        return out("unavailable", f"registered as {endpoint.availability.status.value}")
    if endpoint.effect not in state.allowed_effects:
        allowed = ", ".join(sorted(e.value for e in state.allowed_effects))
        why = (
            f"effect {endpoint.effect.value} is not allowed, only {allowed}"
            if allowed
            else f"effect {endpoint.effect.value} is not allowed (allowed_effects is empty: "
            "no effect is)"
        )
        if Effect.READ in state.allowed_effects and reads_by_name(route):
            why += f" ({READ_BY_NAME})"
        return out("effect", why)
    if state.allowed_licenses is not None and (
        off := route.licenses_outside(state.allowed_licenses)
    ):
        allowed = ", ".join(sorted(state.allowed_licenses)) or "none"
        return out("license", f"its output is under {', '.join(off)}; allowed: {allowed}")
    auth = route.access.auth
    if state.credentials is not None and auth.credentials and not auth.optional:
        missing = sorted(set(auth.credentials) - state.credentials)
        if missing:
            return out("credentials", f"needs credentials {', '.join(missing)}")
    if state.require_bound and not (
        route.route_id in state.bound_routes or is_bound(route.route_id)
    ):
        return out("unbound", "no invoker is bound to the current fingerprint")
    needed = set(needed_semantic_ids)
    if needed and state.fields_held:
        offered = {f.semantic_id for f in endpoint.output_fields if f.semantic_id}
        new = (needed & offered) - state.fields_held
        if needed & offered and not new:
            return out("fields_held", "every field it would add is already held")
    return None


def unregistered_routes(state: ExecutionState, snapshot: RegistrySnapshot) -> list[str]:
    """A warning for each field of ``state`` that names route ids not registered now (a typo,
    or a route removed since the host recorded it): such an id excludes (or binds) nothing,
    so the host would otherwise go on as if it did. Each says the field, the ids and, where
    one of its provider's is close, the registered id it may mean. The snapshot's routes are
    looked up, never copied (this runs on every state-aware retrieval). ``fields_held``
    semantic ids no registered field offers are named too: a misspelt one excluded nothing,
    with no word, where the same typo in ``tried_routes`` was warned of (trial T1)."""
    registered = snapshot.routes
    warnings = []
    unknown_ids = sorted(s for s in state.fields_held if not snapshot.providers_of(s))
    if unknown_ids:
        warnings.append(_held_warning(unknown_ids, snapshot))
    for name in ("tried_routes", "unhealthy_routes", "bound_routes"):
        unknown = sorted(r for r in getattr(state, name) if r not in registered)
        if not unknown:
            continue
        shown = []
        for route_id in unknown[:5]:
            provider = route_id.split("/", 1)[0] + "/"
            siblings = [r for r in registered if r.startswith(provider)]
            close = difflib.get_close_matches(route_id, siblings, n=1, cutoff=0.9)
            shown.append(route_id + (f" (did you mean {close[0]!r}?)" if close else ""))
        if len(unknown) > 5:
            shown.append(f"and {len(unknown) - 5} more")
        count = len(unknown)
        effect = "binds nothing" if name == "bound_routes" else "excludes nothing"
        warnings.append(
            f"ExecutionState.{name} names {count} route{'s' if count > 1 else ''} that "
            f"{'are' if count > 1 else 'is'} not registered: {', '.join(shown)}; it "
            f"{effect} (a typo, or a route removed since): use the route ids the router gives"
        )
    return warnings


def _held_warning(unknown_ids: Sequence[str], snapshot: RegistrySnapshot) -> str:
    """The warning for ``fields_held`` semantic ids no registered field offers: a typo, a
    field's name given for its semantic id, or a catalog whose fields carry none (an OpenAPI
    document's or MCP tool's: trial T6, where "use the semantic_id of a result's field" sent
    the host to ids every result's field had as ``None``). Scans the routes only here, where
    the host's state names something no field offers."""
    semantic = bool(snapshot.semantic_ids())  # does any registered field have one?
    wanted = set(unknown_ids)
    names: dict[str, tuple[str, str | None]] = {}
    for route_id, route in snapshot.routes.items():
        for item in route.endpoint.output_fields:
            if item.name in wanted:
                names.setdefault(item.name, (route_id, item.semantic_id))
        if len(names) == len(wanted):
            break
    named = ", ".join(repr(s) for s in unknown_ids[:5])
    more = f" and {len(unknown_ids) - 5} more" if len(unknown_ids) > 5 else ""
    text = (
        f"ExecutionState.fields_held names semantic ids no registered field offers: "
        f"{named}{more}; they exclude nothing"
    )
    fields = [
        f"{held!r} is the name of a field of {names[held][0]}, "
        + (
            f"whose semantic id is {names[held][1]!r}"
            if names[held][1]
            else "which has no semantic id"
        )
        for held in unknown_ids[:5]
        if held in names
    ]
    if fields:
        text += f" ({'; '.join(fields)}: fields_held takes semantic ids, not field names)"
    skip = "put a route whose output you hold in ExecutionState.tried_routes to skip it"
    if not semantic:
        return (
            text + ": no registered field has a semantic id (the fields of OpenAPI documents and "
            "MCP tools carry one only where they declare x-semantic-id; a catalog's and "
            f"@capability fields do), so fields_held excludes no route here; {skip}"
        )
    if any(names[held][1] is None for held in names):
        return f"{text}; {skip}"
    if fields:
        return f"{text}: use those semantic ids"
    return f"{text} (a typo?): use the semantic_id of a result's field"


#: The detail of a route the host marked unhealthy (``ExecutionState.unhealthy_routes``), where
#: the router has no cooldown of its own to tell of.
HOST_UNHEALTHY = "the host marked this route unhealthy"
#: The detail an effect exclusion adds for a ``POST`` registered ``write`` by its method
#: whose operation name reads (AWS's ``DescribeClusters``, ``ListJobs``: every one a POST).
READ_BY_NAME = "a POST whose name reads: write by its method"


def reads_by_name(route: Route) -> bool:
    """Whether ``route`` is a ``POST`` registered ``write`` whose name reads (``describe_``,
    ``list_``, ``get_`` ...): its effect is its method's, perhaps not what it does."""
    from schemarouter.retrieval.actions import action_of

    endpoint = route.endpoint
    method = (endpoint.operation.method or "").upper()
    return method == "POST" and endpoint.effect is Effect.WRITE and action_of(route) == "read"


def read_by_name_note(routes: Sequence[Route], overrides: Mapping[str, Any] | None) -> str | None:
    """The registration's warning for its ``POST`` routes registered ``write`` whose names
    read (:func:`reads_by_name`), those ``overrides`` names left aside; ``None`` if none."""
    told = list(overrides or ())  # names, or patterns of them ("Describe*")
    found = [r for r in routes if reads_by_name(r) and not overridden(r, told)]
    if not found:
        return None
    ids = [r.endpoint.id for r in found]
    many = len(ids) > 1
    patterns = _read_patterns(found, routes) if many else []
    pattern = (
        ", or by pattern: {" + ", ".join(f"'{p}': 'read'" for p in patterns) + "}"
        if patterns
        else ""
    )
    return (
        f"paths: {len(ids)} POST operation{'s' * many} whose name{'s' * many} "
        f"read{'' if many else 's'} registered as write{'s' * many} by {'their' if many else 'its'}"
        f" method ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}): retrieve_executable "
        f"and read-only plans leave {'them' if many else 'it'} out; declare those that only read: "
        f"add_openapi(..., effect_overrides={{'{ids[0]}': 'read', ...}}){pattern}"
    )


def _read_patterns(found: Sequence[Route], routes: Sequence[Route]) -> list[str]:
    """Patterns declaring ``found`` read, one per read verb their names open with
    (``Describe*``, ``Get*``, ``List*``; ``BatchGet*``, the verb second), each matching no
    POST whose name writes; a name no such pattern fits is left to be named."""
    from schemarouter.retrieval.actions import is_read_verb

    writes = [
        r
        for r in routes
        if (r.endpoint.operation.method or "").upper() == "POST"
        and r.endpoint.effect is not Effect.READ
        and not reads_by_name(r)
    ]
    patterns: list[str] = []
    for route in found:
        if overridden(route, patterns):
            continue
        name = route.endpoint.name
        words = name.split("_") if "_" in name else _CAMEL_WORD.findall(name)
        for n in range(1, min(2, len(words) - 1) + 1):
            lead = "_".join(words[:n]) + "_" if "_" in name else "".join(words[:n])
            if is_read_verb(words[n - 1]) and not any(overridden(r, [f"{lead}*"]) for r in writes):
                patterns.append(f"{lead}*")
                break
    return patterns


_CAMEL_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


#: What each exclusion reason means, as a summary says it of one route or several.
_LABELS: Mapping[str, tuple[str, str]] = {
    "effect": ("is not allowed", "are not allowed"),
    "credentials": ("needs a credential that is missing", "need credentials that are missing"),
    "unbound": ("cannot run here", "cannot run here"),
    "unhealthy": ("is unhealthy right now", "are unhealthy right now"),
    "unavailable": ("is unavailable", "are unavailable"),
    "tried": ("was tried already", "were tried already"),
    "fields_held": ("adds no field not held already", "add no field not held already"),
    "license": ("is under a license not allowed", "are under licenses not allowed"),
}
#: What a caller of the router can do about each reason.
BLOCKED_HINTS: Mapping[str, str] = {
    "effect": "allow the effect in ExecutionState(allowed_effects=...) to list them",
    # where some are POSTs whose names read: the safer remedy first (:data:`READ_BY_NAME`)
    "effect_read_by_name": "where such a POST only reads, declare it a read when you register "
    "it (add_openapi(..., effect_overrides={'%s': 'read'})); else allow the effect in "
    "ExecutionState(allowed_effects=...) to list them",
    "credentials": "supply the credentials to list them",
    "unbound": "no invoker is bound to them: register them with a base URL, bind one "
    "(router.bind), connect their server (add_mcp_server) or register their functions "
    "again (add_callable(..., replace=True))",
    "unhealthy": "they come back when their cooldown ends (router.mark_healthy)",
    "license": "allow the license in ExecutionState(allowed_licenses=...) to list them",
    # routes the host marked (no cooldown of the router's: mark_healthy does not clear them)
    "unhealthy_host": "remove them from ExecutionState.unhealthy_routes to list them",
}


def blocked_summary(
    exclusions: Sequence[Exclusion],
    *,
    within: int,
    name: Callable[[str], str] = str,
    hints: Mapping[str, str] = BLOCKED_HINTS,
    noun: str = "route",
) -> str:
    """One sentence per reason for the ``exclusions`` that ranked among the best
    ``within``: how many ``noun``s, which (by ``name``), why, and what to do (``hints``);
    ``""`` where none of them did. ``2 matching tools are not allowed: a, b (effect write is
    not allowed, only read); allow them in the gateway config.``"""
    groups: dict[str, list[Exclusion]] = {}
    for exclusion in sorted(exclusions, key=lambda e: e.rank):
        if exclusion.rank <= within:
            groups.setdefault(exclusion.reason, []).append(exclusion)
    sentences = []
    for reason, items in groups.items():
        one, many = _LABELS.get(reason, ("was left out", "were left out"))
        count = len(items)
        names = ", ".join(name(e.route_id) for e in items[:5])
        if count > 5:
            names += f" and {count - 5} more"
        details = list(dict.fromkeys(e.detail for e in items if e.detail))
        text = f"{count} matching {noun}{'s' if count > 1 else ''} {many if count > 1 else one}"
        text += f": {names}"
        if details and len(details) <= 2:
            text += f" ({'; '.join(details)})"
        hint = _unhealthy_hint(items, hints) if reason == "unhealthy" else hints.get(reason)
        read = next((e for e in items if READ_BY_NAME in e.detail), None)
        if reason == "effect" and read is not None and "effect_read_by_name" in hints:
            hint = hints["effect_read_by_name"] % name(read.route_id).rsplit("/", 1)[-1]
        if hint:
            text += f"; {hint}"
        sentences.append(text + ".")
    return " ".join(sentences)


def _unhealthy_hint(items: Sequence[Exclusion], hints: Mapping[str, str]) -> str | None:
    """What to do about unhealthy routes: the host's own marks are lifted by the host
    (``hints["unhealthy_host"]``), the router's cooldowns end or are cleared by it
    (``hints["unhealthy"]``); both, each said of its routes, where there are both."""
    host = [e for e in items if e.detail == HOST_UNHEALTHY]
    own, marked = hints.get("unhealthy"), hints.get("unhealthy_host")
    if not host or marked is None:
        return own
    if len(host) == len(items) or own is None:
        return marked
    return f"those the host marked: {marked}; the others: {own}"
