"""What a plan step fetches of its route's output: the fields a request needs with their
identifiers and field groups (:func:`project_fields`), the fields that carry meaning beyond a
value (:func:`typed_fields`), and each field's metadata on the step (:func:`field_meta`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from schemarouter.contracts import OutputField, Route

__all__ = ["ProjectionMode", "field_meta", "project_fields", "typed_fields"]

ProjectionMode = Literal["recall", "minimal"]


def project_fields(
    route: Route, needed: Iterable[str], *, mode: ProjectionMode = "recall"
) -> tuple[str, ...]:
    """Identifiers + needed fields (+ the rest of their field groups in ``recall`` mode)."""
    needed = set(needed)
    fields = route.endpoint.output_fields
    groups = {f.group for f in fields if f.name in needed and f.group}
    keep = []
    for item in fields:
        if item.identifier or item.name in needed or (mode == "recall" and item.group in groups):
            keep.append(item.name)
    return tuple(keep)


def field_meta(route: Route, item: OutputField) -> dict[str, Any]:
    spec = item.normalization
    return {
        "semantic_id": item.semantic_id,
        "unit": item.unit,
        "canonical_unit": spec.canonical_unit if spec else item.unit,
        "qualifiers": dict(item.qualifiers),
        "source_type": route.field_source_type(item).value,
        "license": route.field_license(item),
        "provider": route.provider.display_name,
    }


def typed_fields(route: Route) -> tuple[str, ...]:
    """The route's fields that carry meaning beyond a value: identifiers, and fields with a
    semantic id or a declared unit (what a whole-output step or call types)."""
    return tuple(
        f.name
        for f in route.endpoint.output_fields
        if f.identifier or f.semantic_id or f.unit or f.normalization
    )
