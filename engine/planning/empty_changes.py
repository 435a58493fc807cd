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

What addresses the entry is no change (:func:`change_parameters`): its path parameters
(``owner``, ``repo`` and ``issue_number`` of ``PATCH /repos/{owner}/{repo}/issues/
{issue_number}``: "update issue 5 in octocat/hello-world" was sent with no body), a required
parameter named as any thing's identifier or taking one by its value kind (a callable's or an
MCP tool's ``owner`` and ``repo``, beside ``issue_number``, the number of the issue its name
names: :func:`~.entry_ids.numbered_thing`), and the one id of a thing the route's name and
description do not name (``set_thermostat(device_id, ...)``: :mod:`.entry_ids`). Where the
update takes a JSON object body (:mod:`.body`), the body's properties are the changes
(``"body.title|body.body|body.state"``) and a parameter outside it (``?notify=true``) is none.

Left as they were: an action on an entry its id alone names (``lock_door``,
``remove_device``, ``cancel_order``, ``approve_claim``: no edit verb), an update whose id is
of another thing than its name's, said so (``update_firmware(device_id, version=None)``,
"Install a firmware update on a device", installs the latest firmware), one with a required
parameter that addresses nothing (a required setting, given or refused by the schema, a
required body property too), a form body, and ``router.call``, where the caller names the
arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schemarouter.contracts import TRANSPORT_LOCATIONS, Effect, Parameter, ParameterLocation, Route
from schemarouter.errors import ParameterValidationError
from schemarouter.planning.body import body_fields, body_key
from schemarouter.planning.entry_ids import numbered_thing, unnamed_entry_id
from schemarouter.planning.enum_values import again_base, enum_value, option_words, state_forms
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import name_words, verb_forms, verb_of_route
from schemarouter.retrieval.identifiers import (
    identifier_thing,
    is_template,
    names_identifier,
    path_segments,
    stem,
)
from schemarouter.retrieval.values import parameter_kind, value_schema

__all__ = [
    "EDIT_VERBS",
    "ONE_OF",
    "change_parameters",
    "changes_to_state",
    "empty_change",
    "held_empty",
    "refuse_empty",
    "set_arguments",
]

#: The verbs that open the name of a route editing an entry's fields: general English.
EDIT_VERBS = frozenset(("update", "set", "patch", "edit", "modify", "change"))
#: Joins the names of a missing entry any one of which gives it (``"name|room_id"``).
ONE_OF = "|"
#: The kinds of value that say where an entry is: an identifier, a repository's owner or name.
_ADDRESS_KINDS = ("identifier.", "repository.")
#: Parameters the router fills itself (:mod:`.arguments`' projection ones).
_ROUTER_PARAMETERS = frozenset({"response_fields", "_fields"})


def change_parameters(route: Route) -> tuple[str, ...]:
    """The parameters an update of one entry changes, where ``route`` is one (module
    docstring); ``()`` where it is not. What addresses the entry is no change: a path
    parameter (``owner``, ``repo`` and ``issue_number`` of ``PATCH
    /repos/{owner}/{repo}/issues/{issue_number}``), an identifier of the thing the name
    names, a required parameter named like any thing's identifier (``workspace_id``); nor is
    a header or a cookie. Where the update takes a JSON object body (:func:`body_fields`),
    the body is the change: its properties, named ``body.title``; a parameter outside it
    says which entry or how (``?notify=true``), never what changes."""
    endpoint = route.endpoint
    if endpoint.effect is Effect.READ or verb_of_route(route) != "update":
        return ()
    params = [p for p in endpoint.parameters if p.name not in _ROUTER_PARAMETERS]
    words = list(name_words(endpoint.name))
    at = next((i for i, w in enumerate(words) if EDIT_VERBS & set(verb_forms(w))), None)
    if at is None:
        return ()
    things = {stem(w) for i, w in enumerate(words) if i != at}
    entry = {p.name for p in params if _names_entry(p.name, things) or _entry_path(p, route)}
    entry |= {p.name for p in [unnamed_entry_id(route)] if p is not None and not entry}
    if not entry:
        return ()
    address = entry | {p.name for p in params if _addresses(p)}
    if any(p.location is ParameterLocation.BODY for p in params):
        body = body_fields(route)
        if body is None or any(p.required for p in body.properties):
            return ()  # a form, a body of no declared properties, or a required setting
        outside = [p for p in params if p is not body.parameter and p.name not in address]
        if any(p.required for p in outside):
            return ()
        return tuple(body_key(body.parameter, p.name) for p in body.properties)
    others = [p for p in params if p.name not in address]
    if any(p.required for p in others):
        return ()  # a required setting: given, or refused by the schema
    return tuple(p.name for p in others if p.location not in TRANSPORT_LOCATIONS)


def changes_to_state(route: Route, verb: str, query: str = "") -> bool:
    """Whether ``route``, an update of one entry (:func:`change_parameters`), can put it in
    the state ``verb`` leaves it in: one of its changes is an enum holding the verb's past
    form (``update_issue``'s ``state``: open, closed, for "close"), or a re- verb's base
    ("reopen": open; :func:`~.enum_values.state_forms`), or one of its changes is named by a
    re- verb's base ("reassign": ``assignee``). "close issue 5 in octocat/hello-world" on a
    tool list with no ``close_issue`` planned ``list_issues``. An option the ``query`` names
    whose first word is that past form is one too: "mark deal D-15 as closed won" asks
    ``stage=closed_won`` (trial 20 planned ``get_deal``). An update whose state is a required
    setting (``update_deal_stage(deal_id, stage)``: no :func:`change_parameters`) takes the
    state by its enum parameters."""
    changes = change_parameters(route)
    setting = not changes and verb_of_route(route) == "update"
    if not changes and not setting:
        return False
    base = again_base(verb)
    if base and any(stem(base) in re.sub(r"[^a-z]", "", c.lower()) for c in changes):
        return True
    body = body_fields(route)
    taken = [p for p in route.endpoint.parameters if setting or p.name in changes]
    if body is not None:
        taken += [
            p for p in body.properties if setting or body_key(body.parameter, p.name) in changes
        ]
    forms = state_forms(verb)
    if any(
        isinstance(option, str) and option.lower() in forms
        for p in taken
        for option in value_schema(p.json_schema).get("enum") or ()
    ):
        return True
    named = [enum_value(p, query) for p in taken] if query else []
    words = [option_words(v) for v in named if isinstance(v, str)]
    return any(w and w[0].lower() in forms for w in words)


def _addresses(parameter: Parameter) -> bool:
    """Whether ``parameter`` says which entry an update of an entry changes, beside the
    entry's own id: a path parameter (``owner``, ``repo``), or a required one that takes an
    identifier, by its name (``workspace_id``) or by the kind of value it takes (a callable's
    ``owner`` and ``repo`` take a repository's: ``update_issue(owner, repo, issue_number,
    title=None, ...)`` read them as required settings, so it was no update of one entry and
    one of nothing was sent)."""
    if parameter.location is ParameterLocation.PATH:
        return True
    kind = parameter_kind(parameter) or ""
    return parameter.required and (
        names_identifier(parameter.name) or kind.startswith(_ADDRESS_KINDS)
    )


def _entry_path(parameter: Parameter, route: Route) -> bool:
    """Whether ``parameter`` is the path's template right after a collection the route's
    name names (``{issue_number}`` of ``issues/update``'s ``/issues/{issue_number}``)."""
    segments = path_segments(route)
    template = "{" + parameter.name + "}"
    if parameter.location is not ParameterLocation.PATH or template not in segments:
        return False
    at = segments.index(template)
    words = {stem(w) for w in name_words(route.endpoint.name)}
    return at > 0 and not is_template(segments[at - 1]) and stem(segments[at - 1]) in words


def _names_entry(name: str, things: set[str]) -> bool:
    """Whether parameter ``name`` is an identifier of one of ``things`` (stems), or a plain
    ``id``; a number of one is its id (``issue_number`` of ``update_issue``)."""
    thing = identifier_thing(name)
    if thing is None and numbered_thing(name) in things:
        return True
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
        given = set_arguments(route, given)
    return () if set(changes) & set(given) else changes


def set_arguments(route: Route, arguments: Mapping[str, Any]) -> list[str]:
    """The names of ``arguments`` that set something: not ``null``, nor the value the
    parameter's schema declares as its default (``notify=False`` of ``notify: bool = False``
    is the call without it: twelfth security review); a JSON object body's properties so
    set, each as ``body.title`` (an empty body ``{}`` sets nothing)."""
    body = body_fields(route)
    out = _set_of(route.endpoint.parameters, arguments)
    held = arguments.get(body.parameter.name) if body is not None else None
    if body is not None and isinstance(held, Mapping):
        out.remove(body.parameter.name)
        out += [body_key(body.parameter, n) for n in _set_of(body.properties, held)]
    return out


def _set_of(parameters: Iterable[Parameter], arguments: Mapping[str, Any]) -> list[str]:
    defaults = {p.name: p.json_schema["default"] for p in parameters if "default" in p.json_schema}
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


def _example(change: str) -> str:
    """How :meth:`Plan.with_arguments` gives ``change``: ``{'name': ...}``, a body's property
    inside the body (``body.title``: ``{'body': {'title': ...}}``)."""
    head, _, tail = change.partition(".")
    return f"{{{head!r}: {{{tail!r}: ...}}}}" if tail else f"{{{change!r}: ...}}"


def held_empty(snapshot: RegistrySnapshot, steps: Sequence[Any], warnings: list[str]) -> list[Any]:
    """``steps`` (plan steps), each update that would change nothing with its changes listed
    as one missing entry (:data:`ONE_OF`), said in ``warnings``."""
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        changes = (
            empty_change(route, [*set_arguments(route, step.arguments), *step.bindings])
            if route is not None
            else ()
        )
        # a required body left missing holds every change already (``body``, not again)
        listed = {ONE_OF.join(changes), *(c.partition(".")[0] for c in changes if "." in c)}
        if route is not None and changes and not listed & set(step.missing_parameters):
            warnings.append(
                f"{_said(route, changes, step.arguments)}, so it is not sent: give at least one "
                f"with Plan.with_arguments({step.route_id!r}, {_example(changes[0])})"
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
    given = set_arguments(route, arguments)
    changes = empty_change(route, [*given, *pending])
    if changes:
        raise ParameterValidationError(
            _said(route, changes, given),
            where=f"{where} arguments",
            hint=f"Give at least one before executing: plan = plan.with_arguments("
            f"{route.route_id!r}, {_example(changes[0])}) (an update with nothing to change "
            "is never sent)",
        )
