"""A server URL's variables take the caller's values (trial M: only the defaults were read,
and ``region=eu`` was reachable only by writing the whole ``base_url=``):
``add_openapi(..., server_variables={...})`` and a gateway config's
``openapi: [{..., server_variables: {...}}]``; a name no server URL has, or a value outside
the variable's enum, is refused. A real server on loopback receives the calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway
from schemarouter.serve.config import GatewayConfig, load_config

from servers.loopback import LoopbackServer, Request, Response, json_response

ROUTE = "regions/rest/get_status"


def _document() -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    version = {"default": "v1", "enum": ["v1", "v2"]}
    return {
        "openapi": "3.0.3",
        "info": {"title": "regions", "version": "1"},
        "servers": [
            {
                "url": "http://127.0.0.1:{port}/{version}",
                "variables": {"port": {"default": "9"}, "version": version},
            }
        ],
        "paths": {"/status": {"get": {"operationId": "getStatus", "responses": ok}}},
    }


def _app(request: Request) -> Response:
    return json_response({"path": request.path})


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_server_variables_choose_the_server_the_calls_reach() -> None:
    with LoopbackServer(_app) as server:
        port = server.base_url.rsplit(":", 1)[1]
        router = _router()
        router.add_openapi(_document(), server_variables={"port": port, "version": "v2"})
        assert router.snapshot().route(ROUTE).access.base_url == f"{server.base_url}/v2"
        assert router.call(ROUTE, {}).output == {"path": "/v2/status"}
        assert server.paths() == ["/v2/status"]


@pytest.mark.parametrize(
    ("variables", "said"),
    [
        ({"regoin": "eu"}, "server_variables names ['regoin'], which no server URL"),
        ({"version": "v3"}, "server variable 'version'='v3' is not among its enum"),
    ],
)
def test_a_variable_the_servers_lack_or_a_value_outside_its_enum_is_refused(
    variables: dict[str, str], said: str
) -> None:
    router = _router()
    with pytest.raises(DocumentError) as refused:
        router.add_openapi(_document(), server_variables=variables)
    assert said in str(refused.value)
    assert not router.snapshot().routes  # nothing registered


def test_a_gateway_configs_openapi_entry_takes_server_variables(tmp_path: Path) -> None:
    with LoopbackServer(_app) as server:
        port = server.base_url.rsplit(":", 1)[1]
        (tmp_path / "regions.json").write_text(json.dumps(_document()))
        (tmp_path / "gateway.yaml").write_text(
            "openapi:\n  - {source: regions.json, server_variables: "
            f"{{port: '{port}', version: v2}}}}\n"
        )
        config = load_config(tmp_path / "gateway.yaml")
        gateway = Gateway.from_config(config, encoder=HashingEncoder(), embedding_cache=None)
        try:
            assert gateway.call("regions__rest__get_status", {}).output == {"path": "/v2/status"}
        finally:
            gateway.close()
    with pytest.raises(ValidationError, match="only an openapi entry's servers"):
        GatewayConfig.model_validate(
            {"mcp_tools": [{"source": "tools.json", "server_variables": {"a": "b"}}]}
        )
