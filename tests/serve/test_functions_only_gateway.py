"""A gateway whose tools are Python functions only: the config names no source, so
``Gateway.from_config`` refuses it, and its refusal says how to serve the functions.

Trial X3 (a lab app's own functions behind the gateway, as the docs' ``my_gateway.py``
example puts them beside a config's documents): a config with only ``allow`` and ``search``
was refused with "the gateway registers no route ... List catalogs, openapi documents,
mcp_tools, optimade services or mcp_servers", which a user with no document could not do.
``Gateway(router, config)`` over a router the functions are registered on serves them."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError, PolicyError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig


def freezer_temperature(freezer_id: str) -> float:
    """Current temperature of a lab freezer in degrees Celsius."""
    return -80.2


def move_sample(sample_id: str, location: str) -> str:
    """Move a sample to another storage location."""
    return location


def test_a_config_of_no_source_says_how_to_serve_functions_alone() -> None:
    config = GatewayConfig(allow={"write": ["lab/python/move_sample"]})
    with pytest.raises(DocumentError, match="registers no route") as refused:
        Gateway.from_config(config)
    assert "Gateway(router, config)" in str(refused.value)

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(freezer_temperature, provider="lab")
    router.add_callable(move_sample, provider="lab", effect="write")
    gateway = Gateway(router, config)
    found = gateway.search("current temperature of freezer F-1", k=2)
    assert found["tools"][0]["name"] == "lab__python__freezer_temperature"
    assert gateway.call("lab__python__move_sample", {"sample_id": "S-1", "location": "fridge"})
    with pytest.raises(PolicyError):  # the config's allow holds for functions too
        Gateway(router, GatewayConfig()).call(
            "lab__python__move_sample", {"sample_id": "S-1", "location": "fridge"}
        )
    router.close()
