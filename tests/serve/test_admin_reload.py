"""``POST /admin/reload``: an orchestrator reloads a replica's index folder without a signal
(user trial X4). Real ``serve`` processes on loopback, an index folder saved with the hashing
encoder; off by default, its own token, never the clients'."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import httpx
import pytest
import yaml

from schemarouter.cli import main

from servers.serve_process import build, serving, settled, tool_call
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")


def document(folder: Path, *, operation: str = "getForecast") -> Path:
    """The weather API's document, its forecast operation named ``operation``."""
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / "weather.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def search(port: int, query: str) -> list[str]:
    result = tool_call(port, "search_tools", {"query": query, "k": 2})
    assert not result.get("isError"), result
    return [tool["name"] for tool in result["structuredContent"]["tools"]]


def token_file(folder: Path, name: str) -> tuple[Path, str]:
    token = secrets.token_urlsafe(24)
    path = folder / name
    path.write_text(token + "\n")
    return path, token


def post(port: int, token: str | None = None, method: str = "POST") -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    url = f"http://127.0.0.1:{port}/admin/reload"
    return httpx.request(method, url, headers=headers, timeout=60)


def test_an_orchestrator_reloads_with_the_admin_token_and_is_told_which_generation_answers(
    tmp_path: Path,
) -> None:
    """Before, SIGHUP was the only way to load a rebuilt folder: a deploy script had to send
    a signal into the container. Now ``POST /admin/reload`` with the admin token does it and
    answers with the generation served, or why the one before was kept."""
    index = tmp_path / "index"
    first = build(document(tmp_path), index)["generation"]
    clients, client_token = token_file(tmp_path, "clients.token")
    admin, admin_token = token_file(tmp_path, "admin.token")
    flags = ("--index", str(index), "--token-file", str(clients), "--admin-token-file", str(admin))
    with serving(*flags, log=tmp_path / "serve.log") as (_, port):
        assert settled(port).json()["index"]["generation"] == first
        second = build(document(tmp_path, operation="getDailyForecast"), index)["generation"]
        for token in (None, client_token, "x" * 32):  # a client, whatever it sends, cannot
            refused = post(port, token)
            assert refused.status_code == 401, refused.text
        assert settled(port).json()["index"]["generation"] == first
        assert post(port, admin_token, method="GET").status_code == 405
        answer = post(port, admin_token)
        assert answer.status_code == 200, answer.text
        assert answer.json()["reloaded"] is True
        assert answer.json()["index"]["generation"] == second
        assert settled(port).json()["index"]["generation"] == second
        third = build(document(tmp_path, operation="getForecastDays"), index)
        vectors = next(name for name in third["files"] if name.endswith(".npy"))
        (index / vectors).write_bytes(b"damaged")
        kept = post(port, admin_token)
        assert kept.status_code == 409, kept.text
        assert kept.json()["reloaded"] is False
        assert f"generation {second} still answers" in kept.json()["reason"]
        assert "[SR302]" in kept.json()["reason"]
        assert kept.json()["index"]["generation"] == second


def test_without_an_admin_token_there_is_no_reload_endpoint(tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = build(document(tmp_path), index)["generation"]
    with serving("--index", str(index), log=tmp_path / "serve.log") as (_, port):
        settled(port)
        build(document(tmp_path, operation="getDailyForecast"), index)
        assert post(port, "x" * 32).status_code == 404
        assert settled(port).json()["index"]["generation"] == first
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_forecast"


def test_the_clients_token_is_refused_as_the_admin_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same, _ = token_file(tmp_path, "one.token")
    argv = ["serve", "--transport", "http", "--token-file", str(same)]
    assert main([*argv, "--admin-token-file", str(same)]) == 1
    assert "the admin token is the clients' bearer token" in capsys.readouterr().err


def test_an_admin_token_it_would_ignore_or_a_path_it_would_hide_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over stdio there is no endpoint: the token was silently ignored; ``--path
    /admin/reload`` would send every MCP request to the admin endpoint."""
    admin, _ = token_file(tmp_path, "admin.token")
    assert main(["serve", "--admin-token-file", str(admin)]) == 1
    assert "an admin token is for --transport http" in capsys.readouterr().err
    argv = ["serve", "--transport", "http", "--path", "/admin/reload"]
    assert main([*argv, "--admin-token-file", str(admin)]) == 1
    assert "is the admin endpoint's" in capsys.readouterr().err


def test_the_reload_endpoint_keeps_to_the_host_and_origin_checks(tmp_path: Path) -> None:
    """``/admin/reload`` was answered before the Host and Origin checks the MCP path keeps
    (DNS-rebinding protection, ``--allowed-host``): a request naming another host, or sent
    from another site's page, reloaded the replica where the MCP path answered 421 (trial
    V3). Now it is refused as the MCP path refuses it, and nothing is reloaded."""
    index = tmp_path / "index"
    first = build(document(tmp_path), index)["generation"]
    admin, admin_token = token_file(tmp_path, "admin.token")
    flags = ("--index", str(index), "--admin-token-file", str(admin))
    with serving(*flags, "--allowed-host", "router.internal", log=tmp_path / "serve.log") as (
        _,
        port,
    ):
        settled(port)
        second = build(document(tmp_path, operation="getDailyForecast"), index)["generation"]
        url = f"http://127.0.0.1:{port}/admin/reload"
        bearer = {"authorization": f"Bearer {admin_token}"}
        for headers, status in (
            ({"host": "evil.example"}, 421),
            ({"host": f"evil.example:{port}"}, 421),
            ({"origin": "http://evil.example"}, 403),
        ):
            refused = httpx.post(url, headers={**bearer, **headers}, timeout=60)
            assert refused.status_code == status, (headers, refused.text)
            assert settled(port).json()["index"]["generation"] == first
        named = {"host": f"router.internal:{port}", "origin": "https://router.internal"}
        answer = httpx.post(url, headers={**bearer, **named}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert answer.json()["index"]["generation"] == second


def test_a_short_admin_token_is_called_the_admin_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A short admin token was refused as "the bearer token has 10 characters" (trial V3):
    the clients' token flag was the one an operator went to check."""
    short = tmp_path / "admin.token"
    short.write_text("0123456789\n")
    argv = ["serve", "--transport", "http", "--admin-token-file", str(short)]
    assert main(argv) == 1
    said = capsys.readouterr().err
    assert "the admin token has 10 characters" in said and "bearer token" not in said
    assert "0123456789" not in said
