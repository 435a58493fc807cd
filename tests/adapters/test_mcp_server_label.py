"""A stdio MCP server's command line is its routes' ``server`` label, written into a saved
index's registry and a catalog export and shown in retrievals and errors: a secret passed as
a flag's value is shown ``[redacted]`` there (trial W1: ``--api-key sk-...`` was written into
``registry.json.gz`` and the export)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.mcp import server_label
from schemarouter.index import HashingEncoder
from schemarouter.placement import command_secrets

SERVER = Path(__file__).parents[1] / "mcp_servers" / "materials_server.py"
SECRETS = (
    "sk-label-test-4411",
    "tok-label-test-4412",
    "ghp-label-test-4413",
    "bearer-label-test-4414",
)


@pytest.mark.parametrize(
    ("server", "shown"),
    [
        (["node", "s.js", "--api-key", "k1"], "node s.js --api-key '[redacted]'"),
        (
            "npx -y srv --access-token t1 --verbose",
            "npx -y srv --access-token '[redacted]' --verbose",
        ),
        (
            ["srv", "--token=t1", "GITHUB_TOKEN=g1"],
            "srv '--token=[redacted]' 'GITHUB_TOKEN=[redacted]'",
        ),
        (
            ["srv", "--db", "postgres://app:pw@db/x?sslmode=require"],
            "srv --db 'postgres://app:[redacted]@db/x?sslmode=require'",
        ),
        (["srv", "--upstream", "https://u:pw@h/v1?key=1"], "srv --upstream https://h/v1"),
        # the rule a server's env is read by (trial V1: these were shown as written)
        (
            ["srv", "--dsn", "d1", "--signing-salt", "s1"],
            "srv --dsn '[redacted]' --signing-salt '[redacted]'",
        ),
        (
            ["srv", "--session-cookie=c1", "API_PIN=1234"],
            "srv '--session-cookie=[redacted]' 'API_PIN=[redacted]'",
        ),
        (["python", "server.py", "--port", "8080"], "python server.py --port 8080"),
        ("python server.py", "python server.py"),
        ("https://u:pw@host/mcp?token=1", "https://host/mcp"),
    ],
)
def test_a_command_lines_secret_flags_are_redacted(server: str | list[str], shown: str) -> None:
    assert server_label(server) == shown


@pytest.mark.parametrize(
    ("server", "shown", "hidden"),
    [
        (  # mcp-remote's documented way to pass a bearer token
            [
                "npx",
                "mcp-remote",
                "https://mcp.example.com/sse",
                "--header",
                "Authorization: Bearer b1",
            ],
            "npx mcp-remote https://mcp.example.com/sse --header 'Authorization: [redacted]'",
            ["Bearer b1", "b1"],
        ),
        (["srv", "-H", "X-API-Key:k1"], "srv -H 'X-API-Key: [redacted]'", ["k1"]),
        (
            ["srv", "--header=Cookie: session=c1"],
            "srv '--header=Cookie: [redacted]'",
            ["session=c1"],
        ),
        (  # a JSON config (Smithery's CLI)
            ["srv", "--config", '{"apiKey": "j1", "region": "eu"}'],
            """srv --config '{"apiKey": "[redacted]", "region": "eu"}'""",
            ["j1"],
        ),
        (
            ["srv", "--connection-string", "Server=db;User Id=sa;Password=p1;"],
            "srv --connection-string 'Server=db;User Id=sa;Password=[redacted];'",
            ["p1"],
        ),
        (
            ["srv", "--url", "wss://u:w1@h/x?region=eu&token=t1"],
            "srv --url 'wss://u:[redacted]@h/x?region=eu&token=[redacted]'",
            ["w1", "t1"],
        ),
        (["srv", "--label", "team: infra"], "srv --label 'team: infra'", []),
        (["srv", "--config", '{"region": "eu"}'], """srv --config '{"region": "eu"}'""", []),
    ],
)
def test_a_secret_header_json_member_or_setting_in_one_argument_is_redacted(
    server: list[str], shown: str, hidden: list[str]
) -> None:
    """A header, a JSON config or a connection string passed as one argument (trial X1:
    ``--header "Authorization: Bearer VALUE"`` was written into saved indexes and logs)."""
    assert server_label(server) == shown
    assert command_secrets(server) == hidden


_ISSUED = [
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk-proj-abcdefghijklmnop1234",
    "sk_live_51H8abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE",
    "glpat-xxxxxxxxxxxxxxxxxxxx",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
]


@pytest.mark.parametrize("token", _ISSUED)
@pytest.mark.parametrize("before", [[], ["-k"], ["--access"]])
def test_a_token_of_a_known_issuers_shape_is_redacted_wherever_it_stands(
    token: str, before: list[str]
) -> None:
    """A bare positional token (``npx server-github ghp_...``) or one after a flag whose
    name says nothing (``-k``, ``--access``) was shown as written: its name told nothing
    (trials X1, Y1). A token of a known issuer's shape is now hidden by its shape."""
    server = ["npx", "-y", "@modelcontextprotocol/server-github", *before, token]
    assert server_label(server) == " ".join([*server[:-1], "'[redacted]'"])
    assert command_secrets(server) == [token]


@pytest.mark.parametrize(
    "word", ["mcp-server-postgres@0.6.2", "sk-learn", "skip_live_tests", "AKIA", "./hf_cache"]
)
def test_a_word_that_is_no_token_is_shown(word: str) -> None:
    assert server_label(["uvx", word]) == f"uvx {word}"
    assert command_secrets(["uvx", word]) == []


@pytest.mark.parametrize(
    "server",
    [
        ["sh", "-c", "npx server-github --api-key ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
        ["python3", "-c", "print('key tok-abcdefgh12345678')", "--token", "tok-abcdefgh12345678"],
    ],
)
def test_a_secret_inside_another_argument_is_redacted_there_too(server: list[str]) -> None:
    """A script given to ``sh -c`` or ``python -c`` quoted the token a flag hid elsewhere, or
    a token of a known shape, and the label showed it (trial Y1: the build's error named
    the server so)."""
    label = server_label(server)
    assert "ghp_16C7" not in label and "tok-abcdefgh" not in label, label
    assert "[redacted]" in label and label.startswith(f"{server[0]} -c ")


def test_a_live_servers_secret_arguments_are_in_no_export_or_saved_registry(
    tmp_path: Path,
) -> None:
    import gzip

    router = SchemaRouter(
        encoder=HashingEncoder(64), embedding_cache=None, abstention=None, reranker=None
    )
    command = [sys.executable, str(SERVER), "--api-key", SECRETS[0], f"--token={SECRETS[1]}"]
    command += ["--header", f"Authorization: Bearer {SECRETS[3]}"]
    try:
        router.add_mcp_server(
            command, provider="materials", trusted=True, env={"GH_TOKEN": SECRETS[2]}
        )
        exported = router.export_catalog(tmp_path / "catalog.json").read_text()
        router.build_index()
        router.index.save(tmp_path / "index")
        shown = {route.access.server for route in router.snapshot()}
        # the session runs the command as given; only its label is redacted
        assert router.call(
            next(r for r in router.snapshot().route_ids() if r.endswith("band_gap")),
            {"material_id": "mp-1"},
        ).ok
    finally:
        router.close()
    saved = b"".join(
        gzip.decompress(f.read_bytes()) for f in (tmp_path / "index").glob("*/registry.json.gz")
    ).decode()
    assert saved and exported
    for secret in SECRETS:
        assert secret not in exported and secret not in saved and secret not in str(shown)
    assert "--api-key '[redacted]'" in str(shown)


@pytest.mark.parametrize(
    ("server", "secret"),
    [
        (["sh", "-c", "exec srv --token s3cr3t-value-0001 --port 8080"], "s3cr3t-value-0001"),
        (["bash", "-lc", "srv -H 'X-API-Key: s3cr3t-value-0002'"], "s3cr3t-value-0002"),
        (["python3", "-c", 'import srv; srv.run(token="s3cr3t-value-0003")'], "s3cr3t-value-0003"),
    ],
)
def test_a_scripts_own_secret_flag_is_redacted(server: list[str], secret: str) -> None:
    """Trial Z2: a script's own ``--token VALUE`` (no flag outside it hiding the value, no
    known issuer's shape) was shown as written."""
    label = server_label(server)
    assert secret not in label and "[redacted]" in label, label
    assert secret in command_secrets(server)


def test_a_live_servers_script_secret_is_in_no_route_or_export(tmp_path: Path) -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(64), embedding_cache=None, abstention=None, reranker=None
    )
    script = f"exec {sys.executable} {SERVER} --api-key {SECRETS[0]}"
    try:
        router.add_mcp_server(["sh", "-c", script], provider="materials", trusted=True)
        exported = router.export_catalog(tmp_path / "catalog.json").read_text()
        shown = {route.access.server for route in router.snapshot()}
    finally:
        router.close()
    assert SECRETS[0] not in exported and SECRETS[0] not in str(shown), shown
