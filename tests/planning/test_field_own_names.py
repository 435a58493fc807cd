"""Words that are one field's own name do not also need a field listing them as an alias
(trial X4: PubChem's ``chemistry.experimental_properties`` lists "density", 밀도 and
"melting point" among its aliases, so "GaN의 밀도" needed it beside ``structure.density``, and
every such plan warned that one call leaves it uncovered, or made a second call)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

CATALOG = """\
schemarouter_catalog: 1
providers:
  - id: crystals
    display_name: Crystal structures
    license: CC-BY-4.0
    source_type: calculated
    access:
      - id: rest
        kind: http
        base_url: https://crystals.example.com
        endpoints:
          - id: structure
            name: GET /structures/{formula}
            operation: {method: GET, path: "/structures/{formula}"}
            summary: Crystal structure of a compound by formula.
            parameters:
              - {name: formula, location: path, required: true, json_schema: {type: string}}
            output_fields:
              - {name: density, path: density, json_schema: {type: number},
                 semantic_id: structure.density, unit: g/cm^3, dimension: density}
  - id: handbook
    display_name: Chemistry handbook
    license: CC-BY-4.0
    source_type: experimental
    access:
      - id: rest
        kind: http
        base_url: https://handbook.example.com
        endpoints:
          - id: compound
            name: GET /compounds/{formula}
            operation: {method: GET, path: "/compounds/{formula}"}
            summary: Measured properties of a compound.
            parameters:
              - {name: formula, location: path, required: true, json_schema: {type: string}}
            output_fields:
              - {name: experimentalProperties, path: experimentalProperties,
                 json_schema: {type: array, items: {type: string}},
                 semantic_id: chemistry.experimental_properties,
                 aliases: [density, melting point, 밀도, 녹는점]}
"""


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> SchemaRouter:
    path: Path = tmp_path_factory.mktemp("catalog") / "catalog.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_catalog(path)
    return router


@pytest.mark.parametrize(
    "request_text", ["density of GaN", "GaN의 밀도를 알려줘", "GaN density만", "GaN 밀도"]
)
def test_a_fields_own_name_is_not_also_an_aliases_field(
    router: SchemaRouter, request_text: str
) -> None:
    plan = router.plan(request_text)
    assert list(plan.coverage.required) == ["structure.density"]
    assert not any("uncovered" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    "request_text", ["melting point of GaN", "GaN의 녹는점", "experimental properties of GaN"]
)
def test_words_no_field_has_as_its_name_still_need_the_aliases_field(
    router: SchemaRouter, request_text: str
) -> None:
    plan = router.plan(request_text)
    assert list(plan.coverage.required) == ["chemistry.experimental_properties"]
    assert [s.route_id for s in plan.steps] == ["handbook/rest/compound"]


def test_both_fields_named_by_their_own_words_are_both_needed(router: SchemaRouter) -> None:
    plan = router.plan("density and experimental properties of GaN", max_calls=2)
    assert sorted(plan.coverage.required) == [
        "chemistry.experimental_properties",
        "structure.density",
    ]
