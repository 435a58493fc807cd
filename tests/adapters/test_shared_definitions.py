"""Large real schemas register (issue #25): definitions on reference cycles stay shared.

A document shaped like Azure's network API (tests/azure_network.py) was refused whole by the
inlining budget; it registers now, each large recursive schema with its cyclic definitions
once under ``$defs``. The shared form is exact (a validator follows the references where the
inlined form cut them), output fields and tool definitions read through it, and references
that fan out without a cycle are still refused in milliseconds (test_hardening_documents.py).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from azure_network import azure_network_document
from jsonschema import Draft202012Validator

from schemarouter import SchemaRouter
from schemarouter.adapters._openapi_reader import OpenAPIReader
from schemarouter.adapters._schema import MAX_SCHEMA_NODES, SHARE_ABOVE, json_size
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.errors import ParameterValidationError, SchemaError
from schemarouter.index import HashingEncoder

_NIC_LIST = "azure/rest/network_interfaces_list_all"
_NIC_PUT = "azure/rest/network_interfaces_create_or_update"


def _nic(subnet_group_rules: Any) -> dict[str, Any]:
    """A network interface whose subnet's security group lists ``subnet_group_rules``: three
    references deep, through the interface -> subnet -> group -> interface cycle."""
    return {
        "id": "/nic/1",
        "properties": {
            "ipConfigurations": [
                {
                    "name": "ipconfig1",
                    "properties": {
                        "subnet": {
                            "id": "/subnet/1",
                            "properties": {
                                "networkSecurityGroup": {
                                    "properties": {
                                        "securityRules": subnet_group_rules,
                                        "networkInterfaces": [{"id": "/nic/1"}],
                                    }
                                }
                            },
                        }
                    },
                }
            ]
        },
    }


def test_a_document_with_shared_cyclic_definitions_registers() -> None:
    # without the shared form (as before): the inlined responses pass the document's budget
    reader = OpenAPIReader(azure_network_document(), source="azure.json", url=None)
    reader.resolver.shared = False
    with pytest.raises(SchemaError, match="larger than 250000 JSON nodes"):
        for ref in reader.operations():
            reader.response(ref)
    registration = openapi_registration(azure_network_document(), provider="azure")
    assert len(registration.routes) == 42
    routes = {r.route_id: r for r in registration.routes}
    output = routes[_NIC_LIST].endpoint.output_schema
    assert output is not None and {"NetworkInterface", "Subnet", "NetworkSecurityGroup"} <= set(
        output["$defs"]
    )
    sizes = [json_size(r.endpoint.output_schema or {}) for r in registration.routes]
    assert max(sizes) < SHARE_ABOVE < MAX_SCHEMA_NODES
    shared = sum("$defs" in (r.endpoint.output_schema or {}) for r in registration.routes)
    assert shared >= 10  # the large recursive responses; small ones stay inlined


@pytest.mark.slow
def test_the_shared_form_registers_the_azure_document_in_seconds() -> None:
    """How long the document above takes (2.6 s on 2 busy cores): a speed goal, so out of
    the default run (``-m slow``), with room for a loaded machine."""
    started = time.monotonic()
    assert len(openapi_registration(azure_network_document(), provider="azure").routes) == 42
    seconds = time.monotonic() - started
    assert seconds < 60, seconds


def test_the_shared_form_validates_exactly_through_the_cycle() -> None:
    """Three references deep, where the inlined form would have cut the recursion (accepting
    anything), the shared form still checks the type."""
    registration = openapi_registration(azure_network_document(), provider="azure")
    output = {r.route_id: r for r in registration.routes}[_NIC_LIST].endpoint.output_schema
    validator = Draft202012Validator(output)
    rule = {
        "access": "Allow",
        "priority": 100,
        "protocol": "Tcp",
        "sourceAddressPrefix": "*",
        "destinationAddressPrefix": "10.0.0.0/24",
    }
    assert validator.is_valid({"value": [_nic([{"properties": rule}])]})
    bad = {"properties": {**rule, "priority": "first"}}
    errors = list(validator.iter_errors({"value": [_nic([bad])]}))
    assert [list(e.absolute_path)[-1] for e in errors] == ["priority"]
    missing = {"properties": {k: v for k, v in rule.items() if k != "access"}}
    assert "'access' is a required property" in str(
        next(validator.iter_errors({"value": [_nic([missing])]})).message
    )


def test_output_fields_and_tool_definitions_read_through_shared_definitions() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(azure_network_document(), provider="azure")
    route = router.snapshot().route(_NIC_LIST)
    names = {f.name for f in route.endpoint.output_fields}
    assert "value.properties.ipConfigurations.properties.privateIPAddress" in names
    assert "value.properties.macAddress" in names
    found = router.retrieve("create or update a network interface", k=5)
    assert _NIC_PUT in found.route_ids
    for fmt in ("anthropic", "openai", "mcp"):
        tools = found.tools(fmt)  # type: ignore[arg-type]
        definition = tools[tools.index(next(t for t in tools if "create_or_update" in str(t)))]
        schema = definition.get("input_schema") or definition.get("parameters")
        schema = schema or definition["inputSchema"]
        Draft202012Validator.check_schema(schema)
        body = schema["properties"]["parameters"]
        assert "$ref" in str(body) and "$defs" in schema  # references resolve at the root


def test_a_call_is_checked_against_shared_definitions() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(azure_network_document(), provider="azure")
    arguments = {
        "resourceGroupName": "rg",
        "networkInterfaceName": "nic1",
        "subscriptionId": "s",
        "api-version": "2016-06-01",
        "parameters": _nic([{"properties": {"protocol": "Tcp", "priority": "first"}}]),
    }
    with pytest.raises(ParameterValidationError, match="priority"):
        router.call(_NIC_PUT, arguments, allow_effects=["read", "write"], approve=lambda *_: True)


def test_fan_out_through_a_cycle_is_shared_not_expanded() -> None:
    """Each definition refers twice to the next and the last back to the first: every one
    lies on the cycle, so the shared form holds each once (2**30 copies were it inlined)."""
    schemas: dict[str, Any] = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/components/schemas/S{(i + 1) % 30}"},
                "b": {"$ref": f"#/components/schemas/S{(i + 1) % 30}"},
            },
        }
        for i in range(30)
    }
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "loop", "version": "1"},
        "components": {"schemas": schemas},
        "paths": {
            "/things": {
                "get": {
                    "operationId": "getThing",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/S0"}}
                            },
                        }
                    },
                }
            }
        },
    }
    registration = openapi_registration(doc, provider="loop")  # 2**30 copies never end
    (route,) = registration.routes
    output = route.endpoint.output_schema
    assert output is not None and len(output["$defs"]) == 30 and json_size(output) < 1000
    assert 0 < len(route.endpoint.output_fields) <= 128
