"""Deterministic query understanding: names, provenance words, identifiers, binding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter.contracts import SourceType
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot
from schemarouter.retrieval.analysis import (
    NAMED_IDENTIFIER,
    QueryAnalysis,
    RuleAnalyzer,
    bind_parameters,
    find_values,
    fitted_value_count,
    gate_analysis,
)


@pytest.fixture
def snapshot(tiny_catalog: Path) -> RegistrySnapshot:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    return registry.snapshot()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "band gap of Fe2O3 and LiFePO4 (mp-149)",
            [
                ("chemical.formula", "Fe2O3"),
                ("chemical.formula", "LiFePO4"),
                ("identifier.material_id", "mp-149"),
            ],
        ),
        ("cite 10.1103/PhysRevB.54.11169.", [("identifier.doi", "10.1103/PhysRevB.54.11169")]),
        ("arXiv:2106.01234v2 abstract", [("identifier.arxiv_id", "2106.01234v2")]),
        ("CAS 7732-18-5", [("identifier.cas", "7732-18-5")]),
        ("Young's modulus for MAT-7", [("identifier.material_id", "MAT-7")]),
        ("filed on 2024-03-31", [("time.date", "2024-03-31")]),
        ("bulk modulus of Si at 300 K", [("chemical.formula", "Si"), ("quantity", "300")]),
        ("In Korea, I think K is cold", []),
        ("탄화규소 SiC 의 밴드갭", [("chemical.formula", "SiC")]),
        ("mp-149의 밴드갭", [("identifier.material_id", "mp-149")]),  # a particle ends it
        # ... and a formula (trial Q §1: "Fe2O3의" was not read, the search went unfiltered)
        ("Fe2O3의 밴드갭", [("chemical.formula", "Fe2O3")]),
        ("Materials Project에서 LiFePO4의 형성에너지", [("chemical.formula", "LiFePO4")]),
        ("GaN과 SiO2를 비교", [("chemical.formula", "GaN"), ("chemical.formula", "SiO2")]),
        ("Fe2O3-x 의 밴드갭", []),  # a hyphen still ends no formula
    ],
)
def test_find_values(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(v.kind, v.value) for v in find_values(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("look up CallFire contact 12345", [("contact", "12345")]),
        ("share Box folder #3301 with maria.lopez@acme.com", [("folder", "3301")]),
        ("deactivate the WorkDocs user u-77", [("user", "u-77")]),
        ("contact id: 998 please", [("contact", "998")]),
        # "with (the) id", "whose id is", "identifier" (the ticket's id was left missing)
        ("close the ticket with id T-1", [("ticket", "T-1")]),
        ("show the order with the ID 10042", [("order", "10042")]),
        ("get the customer whose id is acme-1", [("customer", "acme-1")]),
        ("delete customer with identifier acme7", [("customer", "acme7")]),
        ("pay at Square location L88917 now", [("location", "L88917")]),
        ("how did text broadcast 7788 do?", [("broadcast", "7788")]),
        # counts, sizes and times are not identifiers
        ("create a playlist 50 songs long", []),
        ("the top 10 movies", []),
        ("season 3 of Breaking Bad", []),
        ("move the folder 12 levels up", []),
        ("page 2 of the results", []),
        ("get 3 users", []),
        # nor are file names and decimals
        ("upload file report-2026.csv", []),
        ("set the price 24.50", []),
        # Korean: a Hangul particle ends the identifier, and the thing word before it is
        # read through the glossary (trial N §6)
        ("센서 S-00017의 배터리 전압 알려줘", [("sensor", "S-00017")]),
        ("센서 S-00017 의 배터리 전압", [("sensor", "S-00017")]),
        ("창고 WH-AMS-1의 재고 수준을 보여줘", [("warehouse", "WH-AMS-1")]),
        ("고객 cus_ab12cd34의 미결제 인보이스 목록", [("customer", "cus_ab12cd34")]),
        ("주문 12345번 조회", [("order", "12345")]),
        ("파일 3개 보여줘", []),  # a count
        # an amount in a Hangul unit after an English thing word (trial K)
        ("refund 15000원 for ORD-20240001", []),
        ("invoice 3만원짜리 보여줘", []),
        ("order 12345번 조회", [("order", "12345")]),
        ("스퀘어 S-00017의 상태", []),  # a name the glossary does not know is no thing
        # a Korean verb before an id names no thing, and a quantity is no id (trial K B2:
        # "the request names connect id 'C-1001'", "shipping id '3kg'")
        ("상담원 연결해줘 C-1001", []),
        ("잔액 확인해줘 cus_8812", []),
        ("서울 배송비 3kg 견적", []),
        ("ship the parcel 2.5kg to Busan", []),
        # an amount, a share or a weight written in English after the thing word: "refund
        # 50 USD" bound refund_id=50 and its plan fetched someone else's refund
        ("refund 50 USD for order ORD-1", []),
        ("invoice 300 EUR to customer C-1", [("customer", "C-1")]),
        ("refund 20% of order 77", [("order", "77")]),
        ("refund 20 percent", []),
        ("payment 500 yen", []),
        ("order 3 kg of flour", []),
        # a word after the id that names what is asked of the thing is no counted plural
        ("order 1234 status", [("order", "1234")]),
        ("show order 1234 details", [("order", "1234")]),
        # parts joined by colons are one id (a region-scoped one), read whole, not its first
        # part: "identity us-east-1:9f8e7d" read us-east-1, and a change refused it as written
        # on past its end, warning the request "says not to use the ids it names" (trial z1)
        ("list the datasets of identity us-east-1:9f8e7d", [("identity", "us-east-1:9f8e7d")]),
        ("close ticket T-1: it is done", [("ticket", "T-1")]),
        ("customer id: C-42", [("customer", "C-42")]),
        ("meeting 10:30 with the team", []),  # a time of day
    ],
)
def test_an_identifier_written_after_its_thing(text: str, expected: list[tuple[str, str]]) -> None:
    found = [(v.of, v.value) for v in find_values(text) if v.kind == NAMED_IDENTIFIER]
    assert found == expected


def test_names_and_sources(snapshot: RegistrySnapshot) -> None:
    analysis = RuleAnalyzer().analyze(
        "measured cell volume from the Crystallography Open Database, not MP",
        snapshot,
    )
    assert set(analysis.named_providers) == {"cod", "matproj"}
    assert analysis.source_constraints == (SourceType.EXPERIMENTAL,)
    korean = RuleAnalyzer().analyze("실험으로 측정한 밀도", snapshot)
    assert korean.source_constraints == (SourceType.EXPERIMENTAL,)
    calc = RuleAnalyzer().analyze("DFT band gap of GaN", snapshot)
    assert calc.source_constraints == (SourceType.CALCULATED,)
    assert calc.named_providers == ()


def test_binding_respects_schema(snapshot: RegistrySnapshot) -> None:
    route = snapshot.route("matproj/rest/summary")
    assert bind_parameters(route, find_values("band gap of GaN")) == {"formula": "GaN"}
    assert bind_parameters(route, find_values("band gap of 10.1000/xyz")) == {}


def test_gate_analysis_drops_invented_names(snapshot: RegistrySnapshot) -> None:
    proposed = QueryAnalysis(
        text="x",
        named_providers=("cod", "skynet"),
        named_routes=("cod/rest/result", "skynet/x/y"),
        analyzer="llm",
    )
    gated = gate_analysis(proposed, snapshot)
    assert gated.named_providers == ("cod",)
    assert gated.named_routes == ("cod/rest/result",)
    assert gated.rejected == ("provider:skynet", "route:skynet/x/y")


def _inventory(*, materials: bool = False) -> RegistrySnapshot:
    """An inventory API (items by ``itemId``, warehouses by ``warehouseId``), with or without
    a route taking a ``material_id``."""
    from schemarouter.adapters.openapi import openapi_registration

    def get(name: str, parameter: str) -> dict[str, Any]:
        return {
            "get": {
                "operationId": name,
                "parameters": [
                    {
                        "name": parameter,
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }

    paths = {
        "/items/{itemId}": get("getItem", "itemId"),
        "/warehouses/{warehouseId}/stock": get("getStock", "warehouseId"),
    }
    if materials:
        paths["/materials/{material_id}"] = get("getMaterial", "material_id")
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Inventory", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/"}],
        "paths": paths,
    }
    registry = Registry()
    registry.register(openapi_registration(document))
    return registry.snapshot()


def test_codes_are_material_ids_only_where_a_route_takes_one() -> None:
    """``\\b[A-Z]{2,5}-\\d+\\b`` read the SKU BOL-0042 as a Materials Project id in a registry
    with no materials route, so it never bound, and ``WH-AMS-1`` as the fragment ``AMS-1``
    (trial N §2). Now a domain kind applies where a parameter takes it; elsewhere the code
    is an identifier after its thing, read whole."""
    snapshot = _inventory()
    found = RuleAnalyzer().analyze("unit weight of item BOL-0042", snapshot).values
    assert [(v.kind, v.value, v.of) for v in found] == [(NAMED_IDENTIFIER, "BOL-0042", "item")]
    assert bind_parameters(snapshot.route("inventory/rest/get_item"), found) == {
        "itemId": "BOL-0042"
    }
    found = RuleAnalyzer().analyze("stock levels in warehouse WH-AMS-1", snapshot).values
    assert [(v.kind, v.value) for v in found] == [(NAMED_IDENTIFIER, "WH-AMS-1")]
    assert bind_parameters(snapshot.route("inventory/rest/get_stock"), found) == {
        "warehouseId": "WH-AMS-1"
    }
    # the abstention model's value count reads as the model was fit: the code counts
    analysis = RuleAnalyzer().analyze("recent papers on COVID-19", snapshot)
    assert analysis.values == () and fitted_value_count(analysis) == 1
    # where a route takes a material id, the kind applies, but never to a piece of a code
    snapshot = _inventory(materials=True)
    found = RuleAnalyzer().analyze("band gap of material MAT-7", snapshot).values
    assert [(v.kind, v.value) for v in found] == [("identifier.material_id", "MAT-7")]
    found = RuleAnalyzer().analyze("stock levels in warehouse WH-AMS-1", snapshot).values
    assert [(v.kind, v.value) for v in found] == [(NAMED_IDENTIFIER, "WH-AMS-1")]


def test_a_korean_request_binds_the_identifier_before_its_particle() -> None:
    """ "품목 BOL-0042를 조회해줘" extracted no value: the particle was read as part of the
    code, and 품목 (item) was no thing (trial N §6)."""
    snapshot = _inventory()
    for text, route, bound in [
        ("품목 BOL-0042를 조회해줘", "get_item", {"itemId": "BOL-0042"}),
        ("창고 WH-AMS-1의 재고 수준을 보여줘", "get_stock", {"warehouseId": "WH-AMS-1"}),
    ]:
        found = RuleAnalyzer().analyze(text, snapshot).values
        assert bind_parameters(snapshot.route(f"inventory/rest/{route}"), found) == bound


def _lab(tmp_path: Path) -> RegistrySnapshot:
    """Lab routes: a sample by ``sample_id`` (aliases sample, 시료, 배치), a chamber by
    ``chamber_id``, and a material by ``material_id`` (so material-id-shaped codes are read)."""

    def endpoint(name: str, path: str, parameter: str, aliases: list[str]) -> dict[str, Any]:
        return {
            "id": name,
            "name": f"GET {path}",
            "operation": {"method": "GET", "path": path},
            "parameters": [
                {
                    "name": parameter,
                    "location": "path",
                    "required": True,
                    "json_schema": {"type": "string"},
                    "aliases": aliases,
                }
            ],
            "output_fields": [
                {"name": "value", "path": "value", "json_schema": {"type": "number"}}
            ],
        }

    catalog = {
        "schemarouter_catalog": 1,
        "providers": [
            {
                "id": "lab",
                "display_name": "Lab",
                "access": [
                    {
                        "id": "rest",
                        "kind": "http",
                        "base_url": "https://lab.example.org",
                        "endpoints": [
                            endpoint(
                                "sample",
                                "/samples/{sample_id}",
                                "sample_id",
                                ["sample", "시료", "배치"],
                            ),
                            endpoint("chamber", "/chambers/{chamber_id}", "chamber_id", []),
                            endpoint("material", "/materials/{material_id}", "material_id", []),
                        ],
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


def test_an_identifier_after_a_thing_a_parameter_declares_binds_to_it(tmp_path: Path) -> None:
    """Trial Q §4: "시료 S-12의 밴드갭" bound nothing though sample_id declares the alias 시료;
    "relative humidity in chamber GB-2" read GB-2 as a material id (another route takes
    those) and left chamber_id missing."""
    snapshot = _lab(tmp_path)
    sample = snapshot.route("lab/rest/sample")
    for text in ("시료 S-12의 밴드갭", "샘플 S-12의 밴드갭", "배치 S-12의 밴드갭", "sample S-12"):
        found = RuleAnalyzer().analyze(text, snapshot).values
        assert bind_parameters(sample, found) == {"sample_id": "S-12"}, text
    found = RuleAnalyzer().analyze("relative humidity in chamber GB-2", snapshot).values
    assert [(v.kind, v.value, v.of) for v in found] == [(NAMED_IDENTIFIER, "GB-2", "chamber")]
    assert bind_parameters(snapshot.route("lab/rest/chamber"), found) == {"chamber_id": "GB-2"}
    # a code after the thing a domain kind names is still that kind, and a bare one too
    for text in ("band gap of material MAT-7", "band gap of MAT-7"):
        found = RuleAnalyzer().analyze(text, snapshot).values
        assert [(v.kind, v.value) for v in found] == [("identifier.material_id", "MAT-7")]
    # a Korean word no parameter declares and the glossary does not know is still no thing
    assert RuleAnalyzer().analyze("스퀘어 S-00017의 상태", snapshot).values == ()


def test_a_request_naming_many_values_is_read_in_linear_time() -> None:
    """Trial V1 (medium, pre-existing): every value found was checked against every span
    taken before it: "room R1, " 10,000 times took 1.5 s, 30,000 times 13 s (and a plan of
    270,000 characters 15 s). The spans are looked up by bisection: 30,000 in 0.3 s here."""
    import time

    from schemarouter.retrieval.analysis import find_values

    started = time.process_time()  # CPU: other jobs' load is not ours
    values = find_values("room R1, " * 60_000)
    # linear: under 1 s here; the quadratic reading took 13 s at half the size (52 s at
    # this one), so the bound holds on a loaded machine and still fails the old code
    assert time.process_time() - started < 15.0
    assert len(values) == 60_000 and {(v.of, v.value) for v in values} == {("room", "R1")}
    # overlapping readings are still kept apart: the formula is not also an id
    found = find_values("band gap of Fe2O3 for material mp-149 and order 77")
    assert [(v.kind, v.value) for v in found] == [
        ("chemical.formula", "Fe2O3"),
        ("identifier.material_id", "mp-149"),
        ("identifier.named", "77"),
    ]
