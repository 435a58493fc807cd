"""A field given to field-first planning as words, not a semantic id, is named with the ids
its words name (trial X4: ``PlanRequest(fields=("밴드갭",))`` said only "requested field
'밴드갭' is not provided by any registered route")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest


class Gap(BaseModel):
    band_gap: float = Field(
        json_schema_extra={"x-unit": "eV", "x-semantic-id": "electronic.band_gap"}
    )


def band_gap(formula: str) -> Gap:
    """Band gap of a material."""
    return Gap(band_gap=1.7)


def _router() -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_callable(band_gap, provider="kmdb")
    return router


def test_a_field_given_in_words_is_named_with_its_semantic_id() -> None:
    plan = _router().plan(PlanRequest(fields=("밴드갭",)))
    assert (
        "requested field '밴드갭' is not provided by any registered route: fields are semantic "
        "ids, and '밴드갭' names 'electronic.band_gap'; pass "
        "PlanRequest(fields=('electronic.band_gap',))"
    ) in plan.warnings
    english = _router().plan(PlanRequest(fields=("band gap",)))
    assert any("names 'electronic.band_gap'" in w for w in english.warnings)


def test_an_unknown_id_that_names_nothing_says_only_that() -> None:
    plan = _router().plan(PlanRequest(fields=("thermo.melting_point",)))
    assert (
        "requested field 'thermo.melting_point' is not provided by any registered route"
        in plan.warnings
    )
