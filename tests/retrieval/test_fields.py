"""Field resolution from a request's text, Korean spacing and particles included (trial Q §3:
"체적 탄성률을" lost the two-word alias "체적 탄성률", and the plan still reported full coverage)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter.planning.planner import PlanRequest, plan_routes
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot
from schemarouter.retrieval.fields import resolve_fields


def _field(name: str, semantic_id: str, aliases: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "path": name,
        "json_schema": {"type": "number"},
        "semantic_id": semantic_id,
        "aliases": aliases,
    }


@pytest.fixture
def snapshot(tmp_path: Path) -> RegistrySnapshot:
    return _snapshot(
        tmp_path,
        [
            _field("optical_gap", "electronic.band_gap", ["band gap", "밴드갭"]),
            _field("bulk_modulus", "mechanical.bulk_modulus", ["bulk modulus", "체적 탄성률"]),
            _field("melting_point", "thermo.melting_point", ["melting point", "녹는점"]),
            _field("heat_capacity", "thermo.heat_capacity", ["몰 열용량 상수"]),
        ],
    )


def _snapshot(tmp_path: Path, fields: list[dict[str, Any]]) -> RegistrySnapshot:
    endpoint = {
        "id": "props",
        "name": "GET /samples/{sample_id}",
        "operation": {"method": "GET", "path": "/samples/{sample_id}"},
        "parameters": [
            {
                "name": "sample_id",
                "location": "path",
                "required": True,
                "json_schema": {"type": "string"},
            }
        ],
        "output_fields": fields,
    }
    catalog = {
        "schemarouter_catalog": 1,
        "providers": [
            {
                "id": "lab",
                "display_name": "Lab",
                "source_type": "experimental",
                "access": [
                    {
                        "id": "rest",
                        "kind": "http",
                        "base_url": "https://lab.example.org",
                        "endpoints": [endpoint],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "lab.yaml"
    path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
    registry = Registry()
    registry.register(load_catalog(path))
    return registry.snapshot()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("밴드갭과 체적 탄성률 실험값", ["electronic.band_gap", "mechanical.bulk_modulus"]),
        # a particle on the last word of a two-word alias
        ("밴드갭과 체적 탄성률을 실험값으로", ["electronic.band_gap", "mechanical.bulk_modulus"]),
        ("체적 탄성률과 밴드갭을 실험값으로", ["mechanical.bulk_modulus", "electronic.band_gap"]),
        ("체적 탄성률은?", ["mechanical.bulk_modulus"]),
        ("몰 열용량 상수를 알려줘", ["thermo.heat_capacity"]),
        # the alias written as one word, with a particle
        ("체적탄성률을 알려줘", ["mechanical.bulk_modulus"]),
        # a one-word alias written with a space at a word's start, with a particle
        ("녹는 점을 알려줘", ["thermo.melting_point"]),
        # ... but not across a space anywhere else, nor an unrelated word
        ("탄성 체적을 알려줘", []),
        ("체적 탄성을 알려줘", []),
        ("bulk modulus", ["mechanical.bulk_modulus"]),
    ],
)
def test_korean_aliases_with_particles_and_spacing(
    snapshot: RegistrySnapshot, query: str, expected: list[str]
) -> None:
    assert resolve_fields(query, snapshot)[0] == expected


def test_a_named_korean_field_is_covered_not_dropped(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(PlanRequest(query="시료 S-12의 밴드갭과 체적 탄성률을 실험값으로"), snapshot)
    assert plan.coverage.required == ("electronic.band_gap", "mechanical.bulk_modulus")
    assert plan.coverage.complete
    (step,) = plan.steps
    assert set(step.covers) == {"electronic.band_gap", "mechanical.bulk_modulus"}
    assert {"optical_gap", "bulk_modulus"} <= set(step.fields)


def test_a_provenance_word_is_a_filter_not_a_provenance_field(tmp_path: Path) -> None:
    """Trial Q §5: "formation energy per atom for mp-149, DFT only" also required
    provenance.method (NOMAD's method_name lists the alias DFT), so the plan was incomplete
    or added an unfiltered NOMAD step."""
    method = _field("method_name", "provenance.method", ["method", "DFT", "실험"])
    method["json_schema"] = {"type": "string"}
    snapshot = _snapshot(
        tmp_path,
        [_field("e_form", "thermo.formation_energy_per_atom", ["formation energy"]), method],
    )
    for query in ("formation energy for mp-149, DFT only", "mp-149의 형성에너지 실험값"):
        assert "provenance.method" not in resolve_fields(query, snapshot)[0], query
    assert resolve_fields("formation energy, DFT only", snapshot)[0] == [
        "thermo.formation_energy_per_atom"
    ]
    # the field's other names still ask for it
    assert resolve_fields("which method was used", snapshot)[0] == ["provenance.method"]


@pytest.fixture
def english(tmp_path: Path) -> RegistrySnapshot:
    """A lab's catalog written in English only: names, aliases and semantic ids, no Korean."""
    return _snapshot(
        tmp_path,
        [
            _field("band_gap", "electronic.band_gap", []),
            _field("density", "physical.density", ["mass density"]),
            _field("bulk_modulus", "mechanical.bulk_modulus", []),
            _field("volume", "structure.volume", ["cell volume"]),
            _field("melting_point", "thermo.melting_point", []),
            _field("contact_email", "contact.email", ["email"]),
        ],
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ZnO의 밴드갭 알려줘", ["electronic.band_gap"]),
        ("GaN 밴드 갭이 몇 eV야", ["electronic.band_gap"]),
        ("구리 밀도는?", ["physical.density"]),
        ("Fe2O3의 체적 탄성률과 녹는점", ["mechanical.bulk_modulus", "thermo.melting_point"]),
        # written as one word: the bulk modulus, not also the volume (체적) inside it
        ("Fe2O3의 체적탄성률", ["mechanical.bulk_modulus"]),
        ("실리콘 셀 부피", ["structure.volume"]),
        ("담당자 이메일 주소", ["contact.email"]),
        ("band gap and density of ZnO", ["electronic.band_gap", "physical.density"]),
        ("ZnO 결정 구조 그림", []),  # nothing the catalog offers
    ],
)
def test_korean_words_resolve_fields_of_an_english_catalog(
    english: RegistrySnapshot, query: str, expected: list[str]
) -> None:
    """Trial T3 (medium): with catalogs written in English, 0 of 15 Korean requests resolved
    a field (plans "no semantic field resolved", no fallbacks by field). The Korean words
    for a field's English name, alias or semantic id resolve it now."""
    assert resolve_fields(query, english)[0] == expected


def test_a_plan_covers_the_fields_a_korean_request_names_in_an_english_catalog(
    english: RegistrySnapshot,
) -> None:
    plan = plan_routes(PlanRequest(query="시료 S-12의 밴드갭과 밀도"), english)
    assert plan.coverage.required == ("electronic.band_gap", "physical.density")
    assert plan.coverage.complete
    (step,) = plan.steps
    assert {"band_gap", "density"} <= set(step.fields)
