"""A change that would send nothing the request said, where the request gave content: held.

Trial 15's "Send a text to +15551234567 saying shipment S-205 is delayed" planned CallFire's
``sendCalls`` (ranked first; its body, an array of recipients, is optional) and sent
``POST /v2/calls`` with no body and no parameter: the number and the message were dropped,
and only a warning said that no step took S-205. A required body already stays missing where
the request fills none of it (:mod:`.body`); an optional one went out empty, and so did a
change whose parameters are all optional.

Here a planned change (a write or a delete) whose arguments set nothing (a ``null`` is
nothing, nor is a parameter's declared default) and that takes nothing from an earlier step
is held where the request writes content that no step's arguments hold (:func:`unplaced`): an
id ("S-205"), a phone number ("+15551234567"), a quoted phrase, or the words a message says
("saying ...", :mod:`.message_text`). Its body parameter (or, with none, the parameters it
takes, joined by :data:`~.empty_changes.ONE_OF`) is listed as missing, a warning names what
was not placed, and ``execute`` sends nothing until it is given. A change the request gives
nothing for ("create a new playlist", "Refund order O-1" with its id set) is planned as
before: it drops nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import TRANSPORT_LOCATIONS, Effect, ParameterLocation
from schemarouter.planning.arguments import holds
from schemarouter.planning.empty_changes import ONE_OF, set_arguments
from schemarouter.planning.message_text import said_words
from schemarouter.planning.phone_numbers import written_phones
from schemarouter.planning.refusals import QUOTED
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import without_refused

__all__ = ["held_unplaced", "unplaced"]


def unplaced(
    query: str, values: Sequence[BoundValue], arguments: Sequence[Mapping[str, Any]]
) -> list[str]:
    """What ``query`` writes as content that none of ``arguments`` (each step's) holds: its
    ids (but one in a clause it says not to use), phone numbers, quoted phrases and the words
    a message says, each as written."""
    found = [v.value for v in without_refused(values, query) if v.kind.startswith("identifier.")]
    found += written_phones(query)
    found += [m.group(0).strip("\"'“”‘’") for m in QUOTED.finditer(query)]
    said = said_words(query)
    found += [said] if said else []
    return [
        text
        for text in dict.fromkeys(t for t in found if t)
        if not any(holds(list(step.values()), text) for step in arguments)
    ]


def held_unplaced(
    snapshot: RegistrySnapshot,
    steps: Sequence[Any],
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[Any]:
    """``steps`` (plan steps), each change that would send nothing while the request's content
    is placed nowhere (module docstring) with what it takes listed as missing, said in
    ``warnings``."""
    left: list[str] | None = None  # read only for a step that would send nothing
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        if route is None or route.endpoint.effect is Effect.READ or step.bindings:
            out.append(step)
            continue
        takes = [p for p in route.endpoint.parameters if p.location not in TRANSPORT_LOCATIONS]
        body = [p.name for p in takes if p.location is ParameterLocation.BODY]
        if not takes or set_arguments(route, step.arguments) or step.missing_parameters:
            out.append(step)
            continue
        if left is None:
            left = unplaced(query, values, [s.arguments for s in steps])
        if not left:
            out.append(step)
            continue
        missing = ONE_OF.join(body or [p.name for p in takes])
        written = ", ".join(repr(text) for text in left)
        warnings.append(
            f"{step.route_id} would be sent with nothing the request says: {written} is placed "
            f"in none of its parameters, so it is not sent; give what it is to send with "
            f"Plan.with_arguments({step.route_id!r}, ...), or plan a route that takes it"
        )
        out.append(step.model_copy(update={"missing_parameters": (missing,)}))
    return out
