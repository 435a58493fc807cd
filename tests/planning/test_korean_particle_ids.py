"""A Korean particle written onto an identifier ("km-101의") does not hide it from the
parameter whose pattern it fits (trial T3: "km-101의 데바이 온도" left ``material_id`` missing
and the plan asked for a producer, while "km-7 Debye temperature" bound it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

CATALOG = """\
schemarouter_catalog: 1
providers:
  - id: kmat_calc
    display_name: KMat 계산 소재 DB
    license: CC-BY-4.0
    source_type: calculated
    access:
      - id: rest
        kind: http
        base_url: {base_url}
        endpoints:
          - id: thermal
            name: GET /materials/{{material_id}}/thermal
            operation: {{method: GET, path: "/materials/{{material_id}}/thermal"}}
            summary: Thermal properties of a material by its KMat id (Debye temperature).
            parameters:
              - {{name: material_id, location: path, required: true,
                 json_schema: {{type: string, pattern: "^km-[0-9]+$"}}}}
            output_fields:
              - {{name: debye_temperature, path: debye_temperature_k, json_schema: {{type: number}},
                 semantic_id: thermo.debye_temperature, aliases: [Debye temperature, 데바이 온도],
                 unit: K, dimension: temperature}}
"""


def _app(request: Request) -> Response:
    return json_response({"debye_temperature_k": 600})


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(_app) as server:
        path = tmp_path / "kmat.yaml"
        path.write_text(CATALOG.format(base_url=server.base_url), encoding="utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        yield router, server


@pytest.mark.parametrize(
    "request_text",
    ["km-101의 데바이 온도", "km-101은 데바이 온도가 몇 K야?", "km-101 데바이 온도"],
)
def test_an_identifier_with_a_korean_particle_binds(
    served: tuple[SchemaRouter, LoopbackServer], request_text: str
) -> None:
    router, server = served
    plan = router.plan(request_text)
    (step,) = plan.steps
    assert step.arguments == {"material_id": "km-101"}
    assert plan.missing_arguments == {}
    result = router.execute(plan)
    assert result.steps[0].fields["debye_temperature"].value == 600
    assert [r.path for r in server.requests] == ["/materials/km-101/thermal"]


def test_a_long_hangul_tail_is_read_once(served: tuple[SchemaRouter, LoopbackServer]) -> None:
    """A token of an id-like start and a long Hangul run not at its end was scanned again
    from each syllable (40,000 syllables: 4 s; review of trial T3)."""
    import time

    router, server = served
    started = time.process_time()  # CPU: other jobs' load is not ours
    plan = router.plan("km-1" + "가" * 40_000 + "x 데바이 온도")
    assert time.process_time() - started < 2.0
    assert all(v != "km-1" for step in plan.steps for v in step.arguments.values())
    assert server.requests == []
