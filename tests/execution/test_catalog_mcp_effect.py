"""A catalog's MCP tool endpoint written without ``effect:`` (trial X4, high): the contract's
default, ``read``, let ``router.call`` run a tool the catalog never said was safe (here the
materials server's ``delete_structure``) with no ``allow_effects`` and no approval, where the
same tool from the live server (untrusted) is a write. A real MCP server over stdio."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import PolicyError
from schemarouter.execution.invokers import MCPConnection, bind_mcp_session
from schemarouter.index import HashingEncoder

SERVER = Path(__file__).parents[1] / "mcp_servers" / "materials_server.py"

CATALOG = """
schemarouter_catalog: 1
providers:
  - id: materials
    display_name: Materials lab server
    license: CC-BY-4.0
    access:
      - id: mcp
        kind: mcp
        endpoints:
          - id: band_gap
            name: band_gap
            operation: {tool: band_gap}
            summary: Band gap of a material by its id.
            effect: read
            parameters:
              - {name: material_id, json_schema: {type: string}, required: true}
          - id: delete_structure
            name: delete_structure
            operation: {tool: delete_structure}
            summary: Delete a stored structure.
            parameters:
              - {name: structure_id, json_schema: {type: string}, required: true}
"""


@pytest.fixture(scope="module")
def connection() -> Iterator[MCPConnection]:
    with MCPConnection([sys.executable, str(SERVER)], timeout=60) as conn:
        yield conn


def test_an_mcp_tool_in_a_catalog_without_effect_is_a_write(
    tmp_path: Path, connection: MCPConnection
) -> None:
    (tmp_path / "materials.yaml").write_text(CATALOG)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_catalog(tmp_path / "materials.yaml")
    assert sorted(bind_mcp_session(router, connection, provider="materials")) == [
        "materials/mcp/band_gap",
        "materials/mcp/delete_structure",
    ]
    routes = {route.route_id: route for route in router.snapshot()}
    assert routes["materials/mcp/delete_structure"].endpoint.effect is Effect.WRITE
    assert routes["materials/mcp/band_gap"].endpoint.effect is Effect.READ  # written: kept
    with pytest.raises(PolicyError, match="write"):
        router.call("materials/mcp/delete_structure", {"structure_id": "s-1"})
    assert router.call("materials/mcp/band_gap", {"material_id": "mp-149"}).status == "ok"
