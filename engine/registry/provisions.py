"""A route's offers of semantic fields, as the registry's snapshot indexes them by semantic
id (``RegistrySnapshot.providers_of``): the unit, its canonical unit, qualifiers,
provenance and license of each."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from schemarouter.contracts import OutputField, Route, SourceType

__all__ = ["FieldProvision", "provisions"]


class FieldProvision(NamedTuple):
    """One route's offer of a semantic field."""

    route_id: str
    field: OutputField
    unit: str | None
    canonical_unit: str | None
    qualifiers: Mapping[str, str]
    source_type: SourceType
    license: str | None


def provisions(route: Route) -> list[FieldProvision]:
    """``route``'s offers of semantic fields, in field order."""
    out = []
    for item in route.endpoint.output_fields:
        if item.semantic_id is None:
            continue
        spec = item.normalization
        out.append(
            FieldProvision(
                route_id=route.route_id,
                field=item,
                unit=item.unit,
                canonical_unit=spec.canonical_unit if spec else item.unit,
                qualifiers=MappingProxyType(dict(item.qualifiers)),
                source_type=route.field_source_type(item),
                license=route.field_license(item),
            )
        )
    return out
