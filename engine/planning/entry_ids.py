"""The id of the thing a route's name names, where its parameter calls that thing another word.

``set_thermostat(device_id: str, temperature: float | None = None)``, "Set a thermostat's
target temperature", takes the thermostat's id as ``device_id``: the thermostat is the
device it addresses. "set thermostat T-1 to 21 degrees" left ``device_id`` open (the request
names a thermostat's id, the parameter a device's), and the update of nothing was not read as
one, since its id was no id of the thing its name names (twelfth security review).
:func:`unnamed_entry_id` reads such a parameter from the route (:mod:`.empty_changes` counts
it as the entry an update addresses), :func:`named_thing_id` binds the request's id to it
(:func:`~schemarouter.planning.arguments.fill_arguments`). A route that says whose id it
takes is left as it is: ``update_firmware(device_id)``, "Install a firmware update on a
device", names the device, and its ``device_id`` is no firmware's.

A parameter that numbers a thing's entries (``issue_number``) is that thing's id
(:func:`numbered_thing`): "issue 5" binds it (:func:`numbered_ids`), and an update taking it
beside the thing its name names (``update_issue``) is an update of that entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import TRANSPORT_LOCATIONS, Parameter, Route
from schemarouter.planning.named_values import coerced
from schemarouter.retrieval.actions import name_words
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue, named_identifiers
from schemarouter.retrieval.identifiers import identifier_thing, stem

__all__ = ["named_thing_id", "numbered_ids", "numbered_thing", "unnamed_entry_id"]

#: ``<thing>_number`` / ``<thing>Number`` / ``<thing>_no`` / ``<thing>_num``: the number an
#: entry of the thing is known by (GitHub's ``issue_number``, ``pull_number``).
_NUMBERED = re.compile(r"^(?P<thing>[A-Za-z][A-Za-z0-9_]*?)(?:[_-](?:number|num|no)|Number|Num)$")


def numbered_thing(name: str) -> str | None:
    """The thing (its :func:`stem`) whose entries parameter ``name`` numbers
    (``issue_number``: ``issu``), else ``None``; a number of a thing is its id, as
    ``issue_id`` would be."""
    match = _NUMBERED.match(name)
    thing = re.sub(r"[_-]", "", match["thing"]) if match else ""
    return stem(thing) if len(thing) > 1 else None


def unnamed_entry_id(route: Route) -> Parameter | None:
    """The route's one required identifier, where it is of a thing neither the route's name
    nor its description names: the id of the thing its name names, said in another word
    (``set_thermostat(device_id, temperature=None)``, "Set a thermostat's target
    temperature": the thermostat is the device it addresses). ``None`` where the route says
    whose id it takes ("Install a firmware update on a device": ``update_firmware``'s
    ``device_id`` is no firmware's), or takes none or several."""
    ids = [p for p in route.endpoint.parameters if p.required and identifier_thing(p.name)]
    if len(ids) != 1:
        return None
    endpoint = route.endpoint
    said = {stem(w) for w in name_words(f"{endpoint.name} {endpoint.description}")}
    # a thing of several words is said where any of its words is (``leave_request_id`` of
    # ``get_leave_request``), or where its words run together ("leaverequest")
    whose = {stem(w) for w in name_words(ids[0].name)} - {"id", "ids"}
    if whose & said or identifier_thing(ids[0].name) in said:
        return None
    return ids[0]


def named_thing_id(
    route: Route, values: Sequence[BoundValue], bound: Mapping[str, Any]
) -> dict[str, Any]:
    """The id the request gives after the thing ``route``'s name names, for the route's one
    required identifier of a thing neither its name nor its description names
    (:func:`~schemarouter.planning.empty_changes.unnamed_entry_id`):
    ``set_thermostat(device_id, temperature=None)`` asked "set thermostat T-1 to 21 degrees"
    takes ``device_id="T-1"`` (the id was left open: twelfth security review). Not where the
    request names two such ids, or one of the parameter's own thing ("device D-1").
    ``bound``: what is bound already."""
    parameter = unnamed_entry_id(route)
    thing = identifier_thing(parameter.name) if parameter is not None else None
    if parameter is None or parameter.name in bound or thing in named_identifiers(values):
        return {}
    things = {stem(w) for w in name_words(route.endpoint.name)}
    found = {
        v.value for v in values if v.kind == NAMED_IDENTIFIER and v.of and stem(v.of) in things
    }
    value = coerced(parameter, found.pop()) if len(found) == 1 else None
    return {} if value is None else {parameter.name: value}


def numbered_ids(
    route: Route, values: Sequence[BoundValue], bound: Mapping[str, Any]
) -> dict[str, Any]:
    """The id the request gives after a thing, for ``route``'s parameter that numbers that
    thing's entries (:func:`numbered_thing`): ``update_issue(owner, repo, issue_number, ...)``
    asked "update issue 5 in octocat/hello-world" takes ``issue_number=5`` (a callable's or an
    MCP tool's parameter, which no path template places after ``/issues``: it was left open,
    and the plan warned that no step takes issue id 5). ``bound``: what is bound already."""
    named = named_identifiers(values)
    out: dict[str, Any] = {}
    for parameter in route.endpoint.parameters:
        thing = numbered_thing(parameter.name)
        if parameter.name in bound or parameter.location in TRANSPORT_LOCATIONS or not thing:
            continue
        value = coerced(parameter, named[thing]) if thing in named else None
        if value is not None:
            out[parameter.name] = value
    return out
