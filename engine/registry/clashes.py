"""What a registration clashes with, and what its errors and warnings say of it: a route
id already registered, a provider's sources, and a semantic id normalized to two canonical
units."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from schemarouter.contracts import Route

__all__ = ["canonical_clashes", "replace_hint", "sources_of"]


def canonical_clashes(
    providers_of: Callable[[str], Iterable[Any]], routes: Sequence[Route], leaving: set[str]
) -> list[str]:
    """A warning for each semantic id these ``routes`` normalize to another canonical unit
    than a registered route (``providers_of``: the snapshot's offers of a semantic id, each
    with its ``canonical_unit`` and ``route_id``) or another of them does: ``by_semantic_id``
    would give "normalized" values in GPa and Pa side by side."""
    units: dict[str, tuple[str, str]] = {}  # semantic id -> (canonical unit, route id)
    named = {f.semantic_id for r in routes for f in r.endpoint.output_fields if f.semantic_id}
    for semantic_id in named:
        for offer in providers_of(semantic_id):
            if offer.canonical_unit and offer.route_id not in leaving:
                units.setdefault(semantic_id, (offer.canonical_unit, offer.route_id))
    out = []
    for route in routes:
        for item in route.endpoint.output_fields:
            spec = item.normalization
            if item.semantic_id is None or spec is None:
                continue
            seen = units.setdefault(item.semantic_id, (spec.canonical_unit, route.route_id))
            if seen[0] != spec.canonical_unit and seen[1] != route.route_id:
                out.append(
                    f"{route.route_id}: field {item.name!r} normalizes {item.semantic_id!r} to "
                    f"{spec.canonical_unit!r}, {seen[1]} to {seen[0]!r}; values of one "
                    "semantic id are compared in one canonical unit"
                )
    return out


def sources_of(routes: Iterable[Route]) -> str:
    """Where ``routes`` (a provider's) were registered from, for an error."""
    found = sorted({r.access.document or "?" for r in routes})
    return ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")


def replace_hint(route: Route, *, prune: bool) -> str:
    """What ``replace=True`` would do to ``route``'s neighbours, in a duplicate's hint."""
    if not prune:
        return (
            "Pass replace=True to replace just this route (the provider's other routes stay "
            "registered), or remove the provider first"
        )
    return (
        "Pass replace=True to replace it together with the rest of its access path (routes "
        f"of provider {route.provider.id!r} at access path {route.access.id!r} that this "
        "registration lacks are removed), or remove the provider first"
    )
