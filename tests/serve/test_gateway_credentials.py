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


def test_serves_log_has_one_line_per_record_from_the_start(tmp_path: Any) -> None:
    """``schemarouter serve``'s log, as an operator collects it (stderr to a file): records
    logged before the MCP server was built (registration, the credentials this gateway
    lacks) were dropped, since nothing had configured logging yet; the rest went through the
    SDK's Rich handler, which wraps a record over several lines at the terminal's width,
    with the time on the first only (a secret split over two lines escapes a grep too).
    ``serve`` now logs one line per record (time, level, logger, message) from its start."""
    import json
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "orders.json").write_text(json.dumps(ORDERS))
    config = {
        "openapi": [{"source": "orders.json", "provider": "orders"}],
        "mcp_servers": [
            {"provider": "broken", "command": [sys.executable, "-c", "raise SystemExit(3)"]}
        ],
        "credentials": {"env_prefix": "TRIALP_"},
        "search": {"rerank": False},
    }
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    log = tmp_path / "serve.log"
    command = "import sys; from schemarouter.cli import main; sys.exit(main())"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIALP_")}
    with log.open("wb") as err:
        serve = subprocess.Popen(
            [sys.executable, "-c", command, "serve", "--config", str(tmp_path / "gateway.json")],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**env, "COLUMNS": "80"},
        )
        try:
            deadline = time.monotonic() + 60
            while "exited with status 3" not in log.read_text(errors="replace"):
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.2)
        finally:
            assert serve.stdin is not None
            serve.stdin.close()  # the client went away: serve ends
            serve.wait(timeout=60)
    lines = log.read_text(errors="replace").splitlines()
    assert any(
        "WARNING" in line and "$TRIALP_ORDERS_API_KEY (orders/rest/list_orders)" in line
        for line in lines
    ), lines
    assert any(
        "upstream broken did not connect" in line and "exited with status 3" in line
        for line in lines
    ), lines


def test_a_search_of_a_gateway_with_no_tools_yet_names_no_python_call() -> None:
    """A gateway whose every upstream failed to connect (a command that does not exist)
    answered a search with "no route is registered: register some first (add_openapi,
    add_mcp_tools, add_callable or add_catalog; SchemaRouter.from_catalog(...) ...)": Python
    calls the agent cannot make (user trial P). It says none is offered yet, and who to tell."""
    config = GatewayConfig(
        mcp_servers=[{"provider": "ghost", "command": ["/no/such/binary"]}],
        search={"rerank": False, "upstream_wait": 0},
    )
    gateway = Gateway.from_config(
        config, background=True, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    try:
        gateway.upstreams.wait(30)
        answer = gateway.search("stock level of an item", k=3)
    finally:
        gateway.close()
    assert answer["tools"] == []
    assert "add_openapi" not in answer["reason"] and "SchemaRouter" not in answer["reason"]
    assert "none is offered here yet" in answer["reason"]
    assert "gateway's operator" in answer["reason"]
    assert "/no/such/binary" in answer["unavailable"]["ghost"]


def test_serves_info_log_holds_no_faiss_loader_lines() -> None:
    """At ``serve --log-level info`` faiss's loader wrote "Could not load library with AVX512
    support due to: ModuleNotFoundError(...)", which reads as an error in the gateway's log
    (trial D). serve's logging keeps that logger at WARNING; its own INFO records stay."""
    import subprocess
    import sys

    code = (
        "from schemarouter.serve.cli import _log_to_stderr; _log_to_stderr('info'); "
        "import faiss, logging; logging.getLogger('schemarouter.serve').info('own record')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "own record" in done.stderr
    assert "faiss.loader" not in done.stderr
