"""The data need a plan answers (:class:`PlanRequest`): a query and/or the semantic ids it
requires, with what may answer it, and the zone and moment its times are read in."""

from __future__ import annotations

from pydantic import AwareDatetime, field_validator

from schemarouter.checks import KnownKeys as _Frozen
from schemarouter.contracts import Effect, SourceType
from schemarouter.planning.projection import ProjectionMode
from schemarouter.planning.written_times import zone_named

__all__ = ["PlanRequest"]


class PlanRequest(_Frozen):
    """A data need: a query, and/or the semantic ids it requires."""

    query: str = ""
    fields: tuple[str, ...] = ()
    source_types: tuple[SourceType, ...] = ()
    providers: tuple[str, ...] = ()
    #: Licences the planned routes' outputs and their fallbacks may be under (``()``: any);
    #: a route with a value under another, or none declared, is not planned, and says so.
    licenses: tuple[str, ...] = ()
    allowed_effects: frozenset[Effect] = frozenset({Effect.READ})
    projection: ProjectionMode = "recall"
    #: Plan the best route of each part of a request too, while ``max_calls`` allows
    #: (:mod:`schemarouter.planning.parts`).
    parts: bool = True
    #: The zone the request's wall-clock times are in where it names none: an IANA name
    #: (``"Europe/Berlin"``), ``"UTC"`` or an offset (``"+09:00"``). ``""``: none, and a
    #: change's date-time written with no zone ("tomorrow at 6am") is left to the caller
    #: (:mod:`schemarouter.planning.written_times`): never taken as UTC unasked.
    timezone: str = ""
    #: When the request was made, timezone-aware: "tomorrow", "next Monday" and "in the last
    #: 2 hours" are read against it (``None``: the clock, at planning).
    now: AwareDatetime | None = None

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, name: str) -> str:
        if name:
            zone_named(name)  # a ValueError naming what is taken
        return name
