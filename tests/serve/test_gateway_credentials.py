"""The gateway and the credentials its routes need (user trial P): a tool whose credential is
not in the gateway's environment is one that cannot run here, in ``describe_tool`` as in
``search_tools``. The routes are a user's OpenAPI document with an API-key scheme."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig

ORDERS: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Orders API", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
    },
    "security": [{"key": []}],
    "paths": {
        "/orders": {
            "get": {
                "operationId": "listOrders",
                "summary": "List customer orders",
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.fixture
def router() -> Any:
    with SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    ) as router:
        router.add_openapi(ORDERS, provider="orders")
        yield router


def test_describe_says_a_tool_whose_credential_is_missing_cannot_run(
    router: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``describe_tool`` said ``"executable": true`` for a tool whose credential the gateway's
    environment lacks, while ``search_tools`` left it out for that reason and its call was
    refused ("needs credentials ORDERS_API_KEY, which are not available")."""
    gateway = Gateway(router, GatewayConfig(credentials={"env_prefix": "ACME_"}))
    monkeypatch.delenv("ACME_ORDERS_API_KEY", raising=False)
    monkeypatch.setenv("ORDERS_API_KEY", "set-without-the-prefix")  # not the one read
    described = gateway.describe("orders__rest__list_orders")
    assert described["credentials"] == ["ORDERS_API_KEY"]
    assert described["executable"] is False
    assert "orders__rest__list_orders" not in [
        t["name"] for t in gateway.search("list customer orders", k=2)["tools"]
    ]
    monkeypatch.setenv("ACME_ORDERS_API_KEY", "the-key-the-gateway-reads")
    assert gateway.describe("orders__rest__list_orders")["executable"] is True


def test_the_variables_a_gateways_routes_lack_are_logged_at_start(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With ``credentials: {env_prefix: ACME_}`` the gateway reads ``$ACME_ORDERS_API_KEY``,
    but every message named ``ORDERS_API_KEY`` and none went to the operator: the routes were
    left out of searches without a word in the log. At start the log names each variable
    missing, as it is read, and the routes that need it."""
    import json

    (tmp_path / "orders.json").write_text(json.dumps(ORDERS))
    config = GatewayConfig(
        openapi=[{"source": str(tmp_path / "orders.json"), "provider": "orders"}],
        credentials={"env_prefix": "ACME_"},
    )
    options: dict[str, Any] = {
        "encoder": HashingEncoder(),
        "embedding_cache": None,
        "abstention": None,
    }
    monkeypatch.delenv("ACME_ORDERS_API_KEY", raising=False)
    monkeypatch.setenv("ORDERS_API_KEY", "set-without-the-prefix")
    with caplog.at_level("WARNING", logger="schemarouter.serve.gateway"):
        Gateway.from_config(config, **options).close()
    said = [r.getMessage() for r in caplog.records if "credentials" in r.getMessage()]
    assert len(said) == 1
    assert "$ACME_ORDERS_API_KEY (orders/rest/list_orders)" in said[0]
    caplog.clear()
    monkeypatch.setenv("ACME_ORDERS_API_KEY", "the-key-the-gateway-reads")
    with caplog.at_level("WARNING", logger="schemarouter.serve.gateway"):
        Gateway.from_config(config, background=True, **options).close()
    assert not [r for r in caplog.records if "credentials" in r.getMessage()]
