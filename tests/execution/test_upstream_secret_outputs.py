"""A stdio MCP server's own env values (its API key) reach neither the agent nor the
gateway's log: not in a tool's normal output (trial X1, high: a "whoami" tool's answer
carried the key as written and URL-encoded, where its errors had it redacted), and not in
base64 (an ``Authorization: Basic`` header or a key the server logged encoded). A real
server (the MCP SDK's) over stdio; its stderr is read from file descriptor 2."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.execution.credentials import Redactor, base64_cores
from schemarouter.index import HashingEncoder

SERVER = """
import base64, os, sys, urllib.parse
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

KEY = os.environ["LEAKY_API_KEY"]
basic = base64.b64encode(f"svc:{KEY}".encode()).decode()
print(f"GET /v1 Authorization: Basic {basic}", file=sys.stderr, flush=True)
server = MCPServer("leaky")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def whoami() -> dict:
    \"\"\"Who the backend says we are.\"\"\"
    return {
        "user": "svc",
        "token": KEY,
        "encoded": base64.b64encode(KEY.encode()).decode(),
        "url": "https://x.example/?k=" + urllib.parse.quote(KEY, safe=""),
    }


server.run("stdio")
"""

KEY = "sk-live-" + "Zq9Xw8Vu7Ts6" * 3


def test_a_key_in_a_tool_output_or_in_base64_never_leaves_the_gateway(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "leaky.py").write_text(SERVER)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "leaky.py")],
            provider="leaky",
            trusted=True,
            env={"LEAKY_API_KEY": KEY},
        )
        output = router.call("leaky/mcp/whoami").output
    finally:
        router.close()
    assert output["user"] == "svc"
    assert output["token"] == "[redacted]"
    assert output["url"] == "https://x.example/?k=[redacted]"
    said = repr(output) + capfd.readouterr().err
    encoded = base64.b64encode(KEY.encode()).decode()
    assert "upstream leaky: GET /v1 Authorization: Basic" in said
    assert KEY not in said and encoded[:-2] not in said
    assert [c for c in base64_cores(KEY) if c in said] == []


@pytest.mark.parametrize("lead", ["", "s", "sv", "svc:", "user:"])
def test_a_value_in_base64_is_redacted_wherever_it_starts(lead: str) -> None:
    text = base64.b64encode(f"{lead}{KEY}!".encode()).decode()
    assert "[redacted]" in Redactor([KEY])(text)
    assert base64_cores("short-one") == set()  # under 12 bytes: no core of its own


SETTINGS_SERVER = """
import os
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("files")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def listing() -> dict:
    \"\"\"The files of the data folder.\"\"\"
    return {
        "files": [os.environ["DATA_DIR"] + "/a.csv"],
        "region": os.environ["REGION"],
        "owner": os.environ["OWNER"],
        "signed": "u=" + os.environ["BACKEND"],
        "dsn": os.environ["DATABASE_URL"],
    }


server.run("stdio")
"""


def test_an_output_keeps_the_servers_settings_and_loses_its_keys(tmp_path: Path) -> None:
    """Redacting every env value from outputs (trial X1's fix) made a file tool answer
    ``[redacted]/a.csv`` for ``DATA_DIR=/srv/data``: an output is data, so settings stay,
    while a value under a secret's name, a URL with a password or a key-like value go."""
    (tmp_path / "files.py").write_text(SETTINGS_SERVER)
    env = {
        "DATA_DIR": "/srv/data",
        "REGION": "eu-west-1",
        "OWNER": "research-team",
        "BACKEND": "Zq9Xw8Vu7Ts6Rr5Q",  # a key under a plain name: key-like, so it goes
        "DATABASE_URL": "postgres://app:hunter2-pw@db.internal/lab",
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "files.py")], provider="files", trusted=True, env=env
        )
        output = router.call("files/mcp/listing").output
    finally:
        router.close()
    assert output["files"] == ["/srv/data/a.csv"]
    assert (output["region"], output["owner"]) == ("eu-west-1", "research-team")
    assert output["signed"] == "u=[redacted]"
    assert output["dsn"] == "[redacted]"


NAMED_SERVER = """
import os
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("config")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def dump() -> dict:
    \"\"\"The server's configuration.\"\"\"
    return {name: os.environ[name] for name in sorted(os.environ) if name.startswith("CFG_")}


server.run("stdio")
"""


def test_a_secret_under_a_pass_pin_or_salt_name_leaves_no_output(tmp_path: Path) -> None:
    """Trial Z1 (high): a password under ``DB_PASS`` or ``PASSPHRASE``, a ``*_PIN``, a
    ``*_SALT`` or a short connection string's password came back in a tool's output as
    written; only ``*PASSW*`` names were read as a secret's."""
    (tmp_path / "config.py").write_text(NAMED_SERVER)
    env = {
        "CFG_DB_PASS": "Tr0ub4dor&3",
        "CFG_SMTP_PASS": "horse-battery",
        "CFG_PASSPHRASE": "correct horse battery staple",
        "CFG_API_PIN": "90210-7",
        "CFG_SIGNING_SALT": "pepper-77",
        "CFG_OTP_SEED": "JBSWY3DPEH",
        "CFG_CONN": "Server=db;Pwd=s3cr3t",
        "CFG_REGION": "eu-west-1",
        "CFG_OPTIONS": "verbose,color",
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "config.py")], provider="cfg", trusted=True, env=env
        )
        output = router.call("cfg/mcp/dump").output
    finally:
        router.close()
    kept = {"CFG_REGION", "CFG_OPTIONS"}
    assert {name: output[name] for name in kept} == {name: env[name] for name in kept}
    assert {name: output[name] for name in env if name not in kept} == {
        name: "[redacted]" for name in env if name not in kept
    }


@pytest.mark.parametrize("secret", ["Tr0ub4dor&3", "sk-live-" + "Zq9Xw8Vu7Ts6" * 3])
def test_a_secret_in_hex_or_whole_in_base64_is_redacted(secret: str) -> None:
    """Trial Z1 (low): a server that logged its password as ``.hex()`` or, under 12 bytes,
    in base64 (too short for a core of its own) wrote it in no form redaction knew."""
    raw = secret.encode()
    redactor = Redactor([secret])
    for form in (raw.hex(), raw.hex().upper(), base64.b64encode(raw).decode()):
        assert redactor(f"login {form} failed") == "login [redacted] failed", form


SPLIT_SERVER = """
import os
import textwrap
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("split")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def config() -> dict:
    \"\"\"The server's configuration, as its log wrote it.\"\"\"
    key = os.environ["SPLIT_API_KEY"]
    return {
        "halves": [key[:20], key[20:]],
        "log": "\\n".join(textwrap.wrap("configured with api key " + key, 30)),
        "host": os.environ["SPLIT_HOST"],
        "host_again": "db at " + os.environ["SPLIT_HOST"][:12],
    }


server.run("stdio")
"""


def test_a_key_a_tool_returns_in_parts_leaves_no_part(tmp_path: Path) -> None:
    """Trial Z1 (medium): a key returned in two fields, or wrapped on lines of a log the tool
    returned, went out in halves, none of them the whole key to redact."""
    (tmp_path / "split.py").write_text(SPLIT_SERVER)
    env = {"SPLIT_API_KEY": KEY, "SPLIT_HOST": "postgres://app:pw-123@db.internal/lab"}
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "split.py")], provider="split", trusted=True, env=env
        )
        output = router.call("split/mcp/config").output
    finally:
        router.close()
    said = repr(output)
    assert KEY[:20] not in said and KEY[20:] not in said
    assert [KEY[i : i + 10] for i in range(len(KEY) - 9) if KEY[i : i + 10] in said] == []
    assert output["host"] == "[redacted]"
    # a URL's parts are no key: a piece of its host stays where the tool names it
    assert output["host_again"] == "db at postgres://a"


PIN_SERVER = """
import os, sys
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

PIN = os.environ["BANK_API_PIN"]
print(f"logging in with pin {PIN}", file=sys.stderr, flush=True)
server = MCPServer("bank")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def session() -> dict:
    \"\"\"The backend session.\"\"\"
    return {"pin": PIN, "port": os.environ["PORT"], "retries": os.environ["AUTH_RETRIES"]}


server.run("stdio")
"""


def test_a_numeric_pin_under_a_secret_name_is_redacted(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A number of six digits or fewer read as a setting (a port, a count), so a PIN or a
    one-time code under ``*_PIN`` or ``*_TOKEN`` reached the log and the agent (trial X1);
    ``PORT=5432`` and ``AUTH_RETRIES=3`` still read."""
    (tmp_path / "bank.py").write_text(PIN_SERVER)
    env = {"BANK_API_PIN": "482193", "PORT": "5432", "AUTH_RETRIES": "3"}
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "bank.py")], provider="bank", trusted=True, env=env
        )
        output = router.call("bank/mcp/session").output
    finally:
        router.close()
    assert output == {"pin": "[redacted]", "port": "5432", "retries": "3"}
    said = repr(output) + capfd.readouterr().err
    assert "logging in with pin [redacted]" in said
    assert "482193" not in said
