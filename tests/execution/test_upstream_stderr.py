"""A stdio MCP server's stderr reaches this process's stderr line by line after
``upstream PROVIDER: `` (user trial P, low: a gateway's upstream servers wrote into its log
with nothing to say whose line was whose). Real servers (the MCP SDK's) over stdio; the
lines are read from this process's file descriptor 2 (``capfd``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import RegistrationError
from schemarouter.execution.invokers.mcp_stderr import Relay
from schemarouter.index import HashingEncoder

SERVER = '''
import sys
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

print("starting up", file=sys.stderr, flush=True)
sys.stderr.write("no newline at first ")
sys.stderr.write("then one\\n")
sys.stderr.flush()
sys.stderr.buffer.write(b"\\xff is no UTF-8\\n")
sys.stderr.flush()
server = MCPServer("noisy")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Repeat the text loudly."""
    print(f"shouting {text}", file=sys.stderr, flush=True)
    return text.upper()


server.run("stdio")
'''

FORGING = r"""
import sys
sys.stderr.write("fine\rINFO schemarouter.serve.gateway: token accepted\n")
sys.stderr.write("\x1b[2K\x1b[1GWARNING schemarouter: forged\n")
sys.stderr.write("a\u2028INFO forged-ls\x85INFO forged-nel\x0bINFO forged-vt\n")
sys.stderr.write("\u202eevil\ttab\n")
sys.stderr.flush()
sys.exit(3)
"""

LONG = """
import sys
sys.stderr.buffer.write(("\\uac00" * 70_000 + "\\n").encode("utf-8"))
sys.stderr.flush()
sys.exit(3)
"""

CRASHING = """
import sys
sys.stderr.write("Traceback (most recent call last):\\nValueError: no config at /etc/noisy")
sys.exit(3)
"""


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_a_servers_stderr_lines_say_whose_they_are(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "noisy.py").write_text(SERVER)
    router = _router()
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "noisy.py")], provider="noisy", trusted=True
        )
        assert router.call("noisy/mcp/shout", {"text": "hi"}).output == {"result": "HI"}
    finally:
        router.close()
    lines = capfd.readouterr().err.splitlines()
    ours = [line for line in lines if "upstream noisy" in line]
    assert ours[:2] == [
        "upstream noisy: starting up",
        "upstream noisy: no newline at first then one",
    ]
    assert "upstream noisy: \ufffd is no UTF-8" in ours
    assert "upstream noisy: shouting hi" in ours
    assert not [line for line in lines if line.startswith(("starting up", "shouting"))]


def test_what_a_server_wrote_as_it_crashed_still_comes_out(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The last lines (a traceback without its final newline) before the server exited,
    relayed as the transport closed."""
    (tmp_path / "crashing.py").write_text(CRASHING)
    router = _router()
    with pytest.raises(RegistrationError):
        router.add_mcp_server([sys.executable, str(tmp_path / "crashing.py")], provider="crashy")
    router.close()
    err = capfd.readouterr().err
    assert "upstream crashy: Traceback (most recent call last):" in err
    assert "upstream crashy: ValueError: no config at /etc/noisy\n" in err


def test_a_server_cannot_write_a_line_that_reads_as_the_gateways_own(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Trial X4 (medium): a carriage return, a terminal escape, U+2028 or NEL in a relayed
    line went out raw, so a terminal or a line-splitting log reader showed
    "INFO schemarouter.serve.gateway: token accepted" with no ``upstream`` prefix. Control and
    line-breaking characters are now written escaped; a tab stays."""
    (tmp_path / "forging.py").write_text(FORGING)
    router = _router()
    with pytest.raises(RegistrationError):
        router.add_mcp_server([sys.executable, str(tmp_path / "forging.py")], provider="forger")
    router.close()
    err = capfd.readouterr().err
    relayed = [line for line in err.splitlines() if "forged" in line or "token accepted" in line]
    assert relayed and all(line.startswith("upstream forger: ") for line in relayed), relayed
    assert "upstream forger: fine\\rINFO schemarouter.serve.gateway: token accepted\n" in err
    assert "upstream forger: \\x1b[2K\\x1b[1GWARNING schemarouter: forged\n" in err
    assert "\\u2028INFO forged-ls\\x85INFO forged-nel\\x0bINFO forged-vt\n" in err
    assert "upstream forger: \\u202eevil\ttab\n" in err


def test_a_long_line_is_cut_between_characters(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A line longer than 64 KiB is relayed in pieces; cut at a byte count, a 3-byte
    character split at the cut came out as two U+FFFD (trial X4, low)."""
    (tmp_path / "long.py").write_text(LONG)
    router = _router()
    with pytest.raises(RegistrationError):
        router.add_mcp_server([sys.executable, str(tmp_path / "long.py")], provider="long")
    router.close()
    pieces = [
        line.removeprefix("upstream long: ")
        for line in capfd.readouterr().err.splitlines()
        if line.startswith("upstream long: ")
    ]
    assert len(pieces) >= 3
    assert "".join(pieces) == "\uac00" * 70_000


FLOODING = """
import sys
for i in range(3000):
    sys.stderr.write(f"line {i} " + "x" * 1000 + "\\n")
sys.stderr.flush()
sys.exit(3)
"""


def test_a_flooding_server_writes_at_most_a_budget_of_stderr_a_minute(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Trial U2 (low): a server printing its outputs to stderr wrote 10.5 MB into the
    gateway's log in two calls. At most 1 MiB a minute is relayed; what is left out is
    counted in one line."""
    (tmp_path / "flood.py").write_text(FLOODING)
    router = _router()
    with pytest.raises(RegistrationError):
        router.add_mcp_server([sys.executable, str(tmp_path / "flood.py")], provider="flood")
    router.close()
    lines = [
        line for line in capfd.readouterr().err.splitlines() if line.startswith("upstream flood: ")
    ]
    relayed = sum(len(line) + 1 for line in lines)
    assert 900_000 < relayed <= 1024 * 1024 + 200, relayed  # about 3 MB written
    assert lines[0].startswith("upstream flood: line 0 ")
    (note,) = [line for line in lines if "bytes of stderr left out" in line]
    assert note == lines[-1] and "over 1024 KiB in 60 s" in note
    left_out = int(note.split("[", 1)[1].split(" ", 1)[0])
    assert 1_900_000 < left_out < 2_200_000, left_out


def test_lines_past_the_budget_are_left_out_unread(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Sixteenth review: a server flooding its stderr cost the gateway 45% of a core: every
    line the budget then left out was split, decoded, redacted and escaped first (63 MB left
    out in 10 s). Now, the window's budget spent, whole lines are counted unread: of 20 MB,
    little more than the 1 MiB relayed is redacted, and every byte left out is counted."""
    relay = Relay("upstream flood")
    redacted: list[int] = []
    redact = relay.redact
    monkeypatch.setattr(relay, "redact", lambda line: redacted.append(len(line)) or redact(line))
    for i in range(20_000):
        relay.write(f"line {i} ".encode() + b"x" * 990 + b"\n")
    relay.write(b"", last=True)
    assert sum(redacted) < 1024 * 1024 + 2000, sum(redacted)
    lines = capfd.readouterr().err.splitlines()
    assert lines[0].startswith("upstream flood: line 0 ")
    left_out = int(lines[-1].split("[", 1)[1].split(" ", 1)[0])
    written = sum(len(f"line {i} ") + 991 for i in range(20_000))
    relayed = sum(len(line) + 1 - len("upstream flood: ") for line in lines[:-1])
    # every byte relayed or counted (the first line left out is counted with its label)
    assert written <= relayed + left_out <= written + 100, (relayed, left_out, written)


TELLING = '''
import os
import sys
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

print(f"starting with api key {os.environ['TELLING_API_KEY']}", file=sys.stderr, flush=True)
server = MCPServer("telling")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def ping() -> str:
    """Answer pong."""
    print(f"auth={os.environ['TELLING_DB_PASSWORD']} port {os.environ['TELLING_PORT']}", file=sys.stderr, flush=True)
    return "pong"


server.run("stdio")
'''


def test_a_servers_own_env_values_never_reach_the_log_through_its_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Trial U2 (medium): an upstream that printed its configured API key on stderr (as
    servers do at start) had it written verbatim into the gateway's log, once per start: 7
    times in one session of 25 calls, as the server was restarted. The values of the
    server's own ``env`` (where the docs put its secrets) are now redacted from its relayed
    lines; a number or a yes/no setting is left as it is."""
    (tmp_path / "telling.py").write_text(TELLING)
    router = _router()
    env = {
        "TELLING_API_KEY": "tk-5f3a9c1e77d2b4",
        "TELLING_DB_PASSWORD": "hunter2",
        "TELLING_PORT": "5432",
    }
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "telling.py")],
            provider="telling",
            trusted=True,
            env=env,
        )
        assert router.call("telling/mcp/ping").output == {"result": "pong"}
    finally:
        router.close()
    err = capfd.readouterr().err
    assert "upstream telling: starting with api key [redacted]" in err
    assert "upstream telling: auth=[redacted] port 5432" in err
    assert "tk-5f3a9c1e77d2b4" not in err and "hunter2" not in err


WRAPPING = '''
import os, sys
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

key = os.environ["WRAPPING_API_KEY"]
print(f"key part one {key[:40]}", file=sys.stderr, flush=True)  # a log wrapped at 80 columns
print(f"{key[40:]} part two", file=sys.stderr, flush=True)
server = MCPServer("wrapping")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def check_backend() -> str:
    """Check the connection to the backend."""
    raise ToolError(f"backend refused credentials (key={key})")  # the SDK logs it wrapped


server.run("stdio")
'''


def test_a_long_key_a_server_logs_in_pieces_never_reaches_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Trial V1 (medium): the MCP SDK's log handler wraps a line at 80 columns, so an
    88-character key in a tool's error came out on three lines of 37 characters, none with
    the whole key to redact: the gateway's log had all of it. A piece of 10 or more
    characters of a server's env value is now redacted too."""
    (tmp_path / "wrapping.py").write_text(WRAPPING)
    key = "sk-proj-" + "AbCdEfGh12345678" * 5
    router = _router()
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "wrapping.py")],
            provider="wrapping",
            trusted=True,
            env={"WRAPPING_API_KEY": key, "COLUMNS": "80"},
        )
        with pytest.raises(Exception, match=r"key=\[redacted\]"):
            router.call("wrapping/mcp/check_backend")
    finally:
        router.close()
    err = capfd.readouterr().err
    assert "upstream wrapping: key part one [redacted]" in err
    assert "upstream wrapping: [redacted] part two" in err
    assert "check_backend" in err  # the SDK's own record of the failure is relayed
    pieces = [key[i : i + 10] for i in range(len(key) - 9)]
    assert [p for p in pieces if p in err] == []


def test_a_long_numeric_env_value_is_redacted_a_short_one_is_a_setting() -> None:
    """Trial V1 (low): every value of digits and dots counted as a setting, so a numeric
    password ("20240917") was relayed and echoed as written. Six characters at most stay (a
    port, a count, a rate)."""
    from schemarouter.execution.credentials import env_secrets

    env = {"PORT": "5432", "PIN": "20240917", "LEVEL": "INFO", "RATE": "0.5", "KEY": "k-1"}
    assert sorted(env_secrets(env)) == ["20240917", "k-1"]
