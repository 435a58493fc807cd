"""An upstream whose tools change while the gateway runs (user trial S #2, #3, #10): the
server says ``notifications/tools/list_changed`` (stdio), or is redeployed between two calls
(streamable HTTP, whose session does not notice). Either way the gateway lists its tools
again before the next call reaches it: a removed tool is never forwarded, a tool newly
marked destructive needs ``allow.destructive``, a new tool can be called. The upstream is
tests/mcp_servers/changing_server.py, a real ``MCPServer``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from schemarouter.contracts import Effect
from schemarouter.errors import GateError, InvocationError, PolicyError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig

from servers.processes import free_port, serving

SERVER = Path(__file__).parents[1] / "mcp_servers" / "changing_server.py"


def _gateway(server: dict[str, Any]) -> Gateway:
    config = GatewayConfig(
        mcp_servers=[{"provider": "lab", **server}], allow={"write": ["lab/mcp/*"]}
    )
    return Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )


def _effect(gateway: Gateway, route_id: str) -> Effect | None:
    route = gateway.router.snapshot().routes.get(route_id)
    return None if route is None else route.endpoint.effect


def test_a_tools_list_changed_notification_registers_what_changed(tmp_path: Path) -> None:
    """The trial's upstream switched its list live and sent tools/list_changed; the gateway
    kept the old list: a tool the server now marks destructive ran under allow.write."""
    log = tmp_path / "calls.log"
    gateway = _gateway(
        {"command": [sys.executable, str(SERVER)], "env": {"CHANGING_LOG": str(log)}}
    )
    try:
        assert _effect(gateway, "lab/mcp/purge_samples") is Effect.WRITE
        assert gateway.call("lab__mcp__upgrade").output == {"result": "version 2"}
        deadline = time.monotonic() + 60  # listed again at once, in the background
        while _effect(gateway, "lab/mcp/purge_samples") is not Effect.DESTRUCTIVE:
            assert time.monotonic() < deadline, "the changed list was not registered"
            time.sleep(0.05)
        with pytest.raises(PolicyError, match=r"allow\.destructive"):
            gateway.call("lab__mcp__purge_samples")
        with pytest.raises(GateError, match=r"legacy_report.*was removed at registry version"):
            gateway.call("lab__mcp__legacy_report", {"month": "2025-03"})
        assert gateway.call("lab__mcp__calibrate_sensor", {"sensor": "t1"}).output == {
            "result": "calibrated t1"
        }
    finally:
        gateway.close()
    assert log.read_text().split() == ["upgrade", "calibrate_sensor"]


def test_an_http_upstream_redeployed_between_calls_is_listed_again(tmp_path: Path) -> None:
    """The trial's HTTP upstream was stopped and started again with other tools between two
    calls; the session never noticed (no call failed), so a removed tool was forwarded, and a
    tool the new version marks destructive ran under allow.write."""
    log = tmp_path / "calls.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, str(SERVER), "http", str(port)]
    with serving(command, port, env={"CHANGING_LOG": str(log)}):
        gateway = _gateway({"url": url})
        first = gateway.call("lab__mcp__server_pid").output
    try:
        with serving([*command, "--v2"], port, env={"CHANGING_LOG": str(log)}):
            # the first call after the redeploy: gated under the old definition, not sent
            with pytest.raises(InvocationError, match="changed tool 'purge_samples'"):
                gateway.call("lab__mcp__purge_samples")
            with pytest.raises(PolicyError, match=r"allow\.destructive"):
                gateway.call("lab__mcp__purge_samples")
            with pytest.raises(GateError, match=r"legacy_report.*was removed at registry version"):
                gateway.call("lab__mcp__legacy_report", {"month": "2025-03"})
            assert gateway.call("lab__mcp__server_pid").output != first
            assert gateway.router.is_healthy("lab/mcp/purge_samples")
    finally:
        gateway.close()
    assert log.read_text().split() == ["server_pid", "server_pid"]


def test_relist_s_trusts_a_listing_that_long_then_a_removed_tool_is_refused(
    tmp_path: Path,
) -> None:
    """``relist_s`` (per upstream): a listing of an HTTP server's tools is trusted that many
    seconds, saving the round trip that listing them before every call costs (the default,
    0). Within it a redeploy goes unnoticed (the removed tool is forwarded, and the server
    refuses it); after it the removed tool is refused, unsent, as with the default."""
    log = tmp_path / "calls.log"
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, str(SERVER), "http", str(port)]
    with serving(command, port, env={"CHANGING_LOG": str(log)}):
        trusting = _gateway({"url": url, "relist_s": 3600})
        window = _gateway({"url": url, "relist_s": 1})
        assert trusting.call("lab__mcp__server_pid").ok and window.call("lab__mcp__server_pid").ok
    try:
        with serving([*command, "--v2"], port, env={"CHANGING_LOG": str(log)}):
            time.sleep(1.2)  # past the 1 s window (the redeploy itself took longer)
            # within its window: listed an hour ago, so the call is forwarded as it stands
            with pytest.raises(InvocationError, match="the tool reported an error"):
                trusting.call("lab__mcp__legacy_report", {"month": "2025-03"})
            # past its window: listed again first, so the removed tool is refused, unsent
            with pytest.raises(
                InvocationError, match="no longer lists tool 'legacy_report'"
            ) as removed:
                window.call("lab__mcp__legacy_report", {"month": "2025-03"})
            assert "again later" not in str(removed.value)  # not a server that did not answer
            with pytest.raises(GateError, match=r"legacy_report.*was removed at registry version"):
                window.call("lab__mcp__legacy_report", {"month": "2025-03"})
            assert window.call("lab__mcp__calibrate_sensor", {"sensor": "t1"}).ok
    finally:
        trusting.close()
        window.close()
    # the removed tool never ran: the new version does not have it
    assert log.read_text().split() == ["server_pid", "server_pid", "calibrate_sensor"]


def test_relist_s_must_be_seconds() -> None:
    from pydantic import ValidationError

    from schemarouter import SchemaRouter
    from schemarouter.errors import ArgumentError

    with pytest.raises(ValidationError, match="relist_s"):
        GatewayConfig(mcp_servers=[{"provider": "lab", "url": "http://x/mcp", "relist_s": -1}])
    with pytest.raises(ArgumentError, match="relist_s"):
        SchemaRouter(encoder=HashingEncoder()).add_mcp_server(
            "http://127.0.0.1:9/mcp", provider="lab", relist_s=float("nan")
        )


STALLING = Path(__file__).parents[1] / "mcp_servers" / "stalling_server.py"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_call_whose_listing_stalls_is_not_sent_under_the_old_definition(
    tmp_path: Path, transport: str
) -> None:
    """Trial G: a hostile upstream marked ``read_data`` destructive, then let every
    ``tools/list`` hang. The listing before the call (HTTP) or the one its
    ``tools/list_changed`` asked for (stdio) failed, was logged, and the call was sent
    anyway under the old definition: the now-destructive tool ran under ``allow.write``.
    A call whose fresh listing cannot be had is refused, unsent, saying why."""
    log = tmp_path / "calls.log"
    env = {"STALLING_LOG": str(log)}
    if transport == "stdio":
        gateway = _gateway({"command": [sys.executable, str(STALLING)], "env": env, "timeout": 2})
        _calls(gateway, log)
        return
    port = free_port()
    with serving([sys.executable, str(STALLING), "http", str(port)], port, env=env):
        gateway = _gateway({"url": f"http://127.0.0.1:{port}/mcp", "timeout": 2})
        _calls(gateway, log)


def _calls(gateway: Gateway, log: Path) -> None:
    try:
        assert gateway.call("lab__mcp__switch", {}).ok
        for _ in range(2):  # and still refused: the listing is still due
            with pytest.raises(InvocationError, match=r"did not list its tools.*not sent"):
                gateway.call("lab__mcp__read_data", {"key": "k"})
    finally:
        gateway.close()
    assert log.read_text().split() == ["switch"]
