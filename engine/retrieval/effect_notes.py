"""The registration's warning for operations whose names delete but whose method made them
a ``write`` (or a ``read``): AWS's query protocol sends every operation as a ``POST``, so
``DeleteTable``, ``PurgeQueue`` and ``BatchDeleteImage`` register as writes, and a gateway's
``allow.write`` (``allow_effects=["write"]``) runs them without the approval a
``destructive`` route needs (user trial Y3). The warning names them and the override that
declares them; the effect stays the method's (the caller's word decides, as for the POSTs
whose names read: :func:`~schemarouter.retrieval.state.read_by_name_note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from schemarouter.contracts import Effect, Route

__all__ = ["delete_by_name_note", "deletes_by_name", "overridden"]


def deletes_by_name(route: Route) -> bool:
    """Whether ``route``'s operation name deletes (``delete_table``, ``purge_queue``,
    ``batch_delete_image``) while its method (not ``DELETE``) registered it as no
    ``destructive`` route."""
    from schemarouter.retrieval.actions import verb_of_route

    endpoint = route.endpoint
    method = (endpoint.operation.method or "").upper()
    return (
        bool(method)
        and method != "DELETE"
        and endpoint.effect is not Effect.DESTRUCTIVE
        and verb_of_route(route) == "delete"
    )


def _lead(routes: Sequence[Route]) -> str | None:
    """The first word most of ``routes``' names open with where it deletes (``Delete`` of
    ``DeleteTable``), for a pattern; ``None`` where none does."""
    from schemarouter.retrieval.actions import route_verb

    leads = [m.group(0) for r in routes if (m := re.match(r"[A-Za-z][a-z]*", r.endpoint.name))]
    leads = [lead for lead in leads if route_verb(lead) == "delete"]
    return max(leads, key=leads.count) if leads else None


def overridden(route: Route, told: Sequence[str]) -> bool:
    """Whether a key of ``told`` (``effect_overrides``'s: names, or patterns of them, such as
    ``Describe*``) names or matches ``route`` (its endpoint id, name, or method and path)."""
    endpoint = route.endpoint
    method = (endpoint.operation.method or "").upper()
    names = (endpoint.id, endpoint.name, f"{method} {endpoint.operation.path}")
    return any(fnmatchcase(name, key) for key in told for name in names)


def delete_by_name_note(routes: Sequence[Route], overrides: Mapping[str, Any] | None) -> str | None:
    """The warning for ``routes`` whose names delete (:func:`deletes_by_name`), those an
    ``overrides`` key names or matches left aside (the caller has said); ``None`` if none."""
    told = list(overrides or ())
    found = [r for r in routes if deletes_by_name(r) and not overridden(r, told)]
    if not found:
        return None
    ids = [r.endpoint.id for r in found]
    methods = sorted({(r.endpoint.operation.method or "").upper() for r in found})
    effects = sorted({r.endpoint.effect.value for r in found})
    many = len(ids) > 1
    pattern = (
        f", or by pattern: {{'{lead}*': 'destructive'}}" if many and (lead := _lead(found)) else ""
    )
    return (
        f"paths: {len(ids)} {'/'.join(methods)} operation{'s' * many} whose "
        f"name{'s' * many} delete{'' if many else 's'} registered as "
        f"{' or '.join(effects)}{'s' * many} by {'their' if many else 'its'} method "
        f"({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}): a gateway's allow.write "
        f"(allow_effects=['write']) runs {'them' if many else 'it'} without the approval a "
        "destructive call needs; declare those that delete: add_openapi(..., "
        f"effect_overrides={{'{ids[0]}': 'destructive', ...}}){pattern}"
    )
