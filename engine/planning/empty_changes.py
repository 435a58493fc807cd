"""An update that would change nothing: planned with what it changes missing, never sent.

An OpenAPI update's JSON body (PATCH, PUT) is never sent empty (:mod:`.body`: it stays
missing). An MCP tool or a Python callable takes its arguments at the top level, so the same
empty write went out there: trial 11's "조명 D-302 밝기를 30으로 설정해줘" sent
``update_device(device_id="D-302")`` to its server, no field set, and the server answered
success. Here an update of one entry is read from the route alone (:func:`change_parameters`):
a write whose name opens with a verb that edits fields (:data:`EDIT_VERBS`: ``update_device``,
``set_light``, ``patch_ticket``; ``verb_of_route`` reads each as ``"update"``), and that takes
an identifier of the thing its name names beside that verb (``device_id`` of
``update_device``, or a plain ``id``); what it changes are its other parameters. Where the
arguments give none of them (a ``null`` is none, nor is
the parameter's declared default), the change is empty
(:func:`empty_change`): the plan lists them as one missing entry, ``"name|room_id"``, given
once any of them is (:func:`~schemarouter.planning.arguments.is_given`), and says what to
add (:func:`held_empty`); ``execute`` refuses such a step, planned or built by hand
(:func:`refuse_empty`).

Left as they were: an action on an entry its id alone names (``lock_door``,
``remove_device``, ``cancel_order``, ``approve_claim``: no edit verb), an update whose id is
of another thing than its name's (``update_firmware(device_id, version=None)`` installs the
latest firmware), one with a required parameter that is no id of that thing (a required
setting, given or refused by the schema), a route with a request body (:mod:`.body`'s), and
``router.call``, where the caller names the arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schemarouter.contracts import Effect, ParameterLocation, Route
from schemarouter.errors import ParameterValidationError
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import name_words, verb_forms, verb_of_route
from schemarouter.retrieval.identifiers import identifier_thing, stem

__all__ = [
    "EDIT_VERBS",
    "ONE_OF",
    "change_parameters",
    "empty_change",
    "held_empty",
    "refuse_empty",
]

#: The verbs that open the name of a route editing an entry's fields: general English.
EDIT_VERBS = frozenset(("update", "set", "patch", "edit", "modify", "change"))
#: Joins the names of a missing entry any one of which gives it (``"name|room_id"``).
ONE_OF = "|"
#: Parameters the router fills itself (:mod:`.arguments`' projection ones).
_ROUTER_PARAMETERS = frozenset({"response_fields", "_fields"})


def change_parameters(route: Route) -> tuple[str, ...]:
    """The parameters an update of one entry changes, where ``route`` is one (module
    docstring); ``()`` where it is not."""
    endpoint = route.endpoint
    if endpoint.effect is Effect.READ or verb_of_route(route) != "update":
        return ()
    params = [p for p in endpoint.parameters if p.name not in _ROUTER_PARAMETERS]
    if any(p.location is ParameterLocation.BODY for p in params):
        return ()  # a request body: body.py's rule
    words = list(name_words(endpoint.name))
    at = next((i for i, w in enumerate(words) if EDIT_VERBS & set(verb_forms(w))), None)
    if at is None:
        return ()
    things = {stem(w) for i, w in enumerate(words) if i != at}
    entry = {p.name for p in params if _names_entry(p.name, things)}
    others = [p for p in params if p.name not in entry]
    if not entry or any(p.required for p in others):
        return ()
    return tuple(p.name for p in others)


def _names_entry(name: str, things: set[str]) -> bool:
    """Whether parameter ``name`` is an identifier of one of ``things`` (stems), or a plain
    ``id``."""
    thing = identifier_thing(name)
    if thing is None:
        return False
    return thing == "" or thing in things or any(stem(w) in things for w in name_words(name))


def empty_change(route: Route, given: Mapping[str, Any] | Iterable[str]) -> tuple[str, ...]:
    """What ``route`` changes where ``given`` (arguments, or the names given) sets none of
    it, else ``()``."""
    changes = change_parameters(route)
    if not changes:
        return ()
    if isinstance(given, Mapping):
        given = _set(route, given)
    return () if set(changes) & set(given) else changes


def _set(route: Route, arguments: Mapping[str, Any]) -> list[str]:
    """The names of ``arguments`` that set something: not ``null``, nor the value the
    parameter's schema declares as its default (``notify=False`` of ``notify: bool = False``
    is the call without it: twelfth security review)."""
    defaults = {
        p.name: p.json_schema["default"]
        for p in route.endpoint.parameters
        if "default" in p.json_schema
    }
    return [
        k
        for k, v in arguments.items()
        if v is not None
        and not (k in defaults and type(v) is type(defaults[k]) and v == defaults[k])
    ]


def _said(route: Route, changes: Sequence[str], given: Iterable[str]) -> str:
    ids = ", ".join(repr(n) for n in given if n not in changes) or "nothing"
    return (
        f"{route.route_id} is an update that changes nothing with only {ids}: none of "
        f"{', '.join(repr(c) for c in changes)} is given"
    )


def held_empty(snapshot: RegistrySnapshot, steps: Sequence[Any], warnings: list[str]) -> list[Any]:
    """``steps`` (plan steps), each update that would change nothing with its changes listed
    as one missing entry (:data:`ONE_OF`), said in ``warnings``."""
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        changes = (
            empty_change(route, [*_set(route, step.arguments), *step.bindings])
            if route is not None
            else ()
        )
        if route is not None and changes and ONE_OF.join(changes) not in step.missing_parameters:
            warnings.append(
                f"{_said(route, changes, step.arguments)}, so it is not sent: give at least one "
                f"with Plan.with_arguments({step.route_id!r}, {{{changes[0]!r}: ...}})"
            )
            missing = (*step.missing_parameters, ONE_OF.join(changes))
            step = step.model_copy(update={"missing_parameters": missing})
        out.append(step)
    return out


def refuse_empty(
    route: Route, arguments: Mapping[str, Any], pending: Iterable[str], where: str
) -> None:
    """Raise :class:`~schemarouter.errors.ParameterValidationError` where a plan's step on
    ``route`` would send an update that changes nothing (``pending``: the names bound to an
    earlier step's output, given then)."""
    given = _set(route, arguments)
    changes = empty_change(route, [*given, *pending])
    if changes:
        raise ParameterValidationError(
            _said(route, changes, given),
            where=f"{where} arguments",
            hint=f"Give at least one before executing: plan = plan.with_arguments("
            f"{route.route_id!r}, {{{changes[0]!r}: ...}}) (an update with nothing to change "
            "is never sent)",
        )
