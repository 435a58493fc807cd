"""An upstream MCP server in a gateway config is named in its messages as its routes name
their server (``server_label``): a secret flag's value is ``[redacted]`` there too, and is
among what a failed connection's error loses (trial V1: the config's duplicate-provider
error showed ``--api-key VALUE`` that the routes' label hid)."""

from __future__ import annotations

import pytest

from schemarouter.errors import DocumentError
from schemarouter.serve.config import GatewayConfig, check_providers

SECRETS = ("sk-upstream-label-7781", "tok-upstream-label-7782")


def _config() -> GatewayConfig:
    return GatewayConfig.model_validate(
        {
            "mcp_servers": [
                {"command": ["srv", "--api-key", SECRETS[0]], "provider": "notes"},
                {"command": f"srv2 --token={SECRETS[1]} --verbose", "provider": "notes"},
            ]
        }
    )


def test_a_config_error_naming_two_upstreams_shows_no_secret_flag() -> None:
    with pytest.raises(DocumentError) as raised:
        check_providers(_config(), where="gateway.yaml")
    said = str(raised.value)
    assert "srv --api-key '[redacted]'" in said
    assert "srv2 '--token=[redacted]' --verbose" in said
    assert not any(secret in said for secret in SECRETS)


def test_an_upstreams_secret_flags_are_what_its_connection_errors_lose() -> None:
    first, second = _config().mcp_servers
    assert first.secrets() == [SECRETS[0]]
    assert second.secrets() == [SECRETS[1]]
    url = GatewayConfig.model_validate(
        {"mcp_servers": [{"url": "https://u:pw@host/mcp?key=k1", "provider": "web"}]}
    ).mcp_servers[0]
    assert url.label() == "https://host/mcp"
    assert set(url.secrets()) >= {"pw", "k1"}
