"""A field the request says not to fetch is not one it needs (trial X4).

"km-101의 체적 탄성률 말고 전단 탄성률만 알려줘" (the shear modulus, not the bulk modulus)
planned both as required fields; so did "band gap은 빼고" and "but not the shear modulus".
The planner now reads the field's clause as it reads an id's (:mod:`schemarouter.retrieval.clauses`),
leaves it out and says so; "뿐만 아니라" ("not only ... but also") leaves nothing out.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


def _field(unit: str, semantic_id: str) -> dict[str, str]:
    return {"x-unit": unit, "x-semantic-id": semantic_id}


class Elasticity(BaseModel):
    bulk_modulus: float = Field(json_schema_extra=_field("GPa", "mechanical.bulk_modulus"))
    shear_modulus: float = Field(json_schema_extra=_field("GPa", "mechanical.shear_modulus"))
    band_gap: float = Field(json_schema_extra=_field("eV", "electronic.band_gap"))


def mechanical_properties(material_id: str) -> Elasticity:
    """Elastic moduli and band gap of a material."""
    return Elasticity(bulk_modulus=202.0, shear_modulus=120.0, band_gap=1.7)


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_callable(mechanical_properties, provider="kmdb")
    return router


@pytest.mark.parametrize(
    ("request_text", "needed", "refused"),
    [
        ("km-101의 체적 탄성률 말고 전단 탄성률만 알려줘", ["shear"], ["bulk"]),
        ("km-101의 밴드갭은 빼고 체적 탄성률 알려줘", ["bulk"], ["band_gap"]),
        ("km-101의 밴드갭 제외, 전단 탄성률", ["shear"], ["band_gap"]),
        ("bulk modulus of km-101 but not the shear modulus", ["bulk"], ["shear"]),
    ],
)
def test_a_field_the_request_says_not_to_fetch_is_not_needed(
    router: SchemaRouter, request_text: str, needed: list[str], refused: list[str]
) -> None:
    ids = {
        "bulk": "mechanical.bulk_modulus",
        "shear": "mechanical.shear_modulus",
        "band_gap": "electronic.band_gap",
    }
    plan = router.plan(request_text)
    assert list(plan.coverage.required) == [ids[n] for n in needed]
    (note,) = [w for w in plan.warnings if "says not to fetch" in w]
    assert note == (
        f"the request says not to fetch {ids[refused[0]]}: left out of the fields it needs"
    )


@pytest.mark.parametrize(
    "request_text",
    ["km-101의 밴드갭뿐만 아니라 체적 탄성률도", "km-101의 밴드갭뿐 아니라 체적 탄성률도"],
)
def test_not_only_but_also_keeps_both_fields(router: SchemaRouter, request_text: str) -> None:
    plan = router.plan(request_text)
    assert set(plan.coverage.required) == {"electronic.band_gap", "mechanical.bulk_modulus"}
    assert not [w for w in plan.warnings if "says not to fetch" in w]


def test_a_request_that_refuses_every_field_it_names_keeps_them(router: SchemaRouter) -> None:
    plan = router.plan("km-101의 밴드갭 말고")
    assert plan.coverage.required == ("electronic.band_gap",)
