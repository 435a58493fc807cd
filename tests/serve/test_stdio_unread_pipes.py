"""``schemarouter serve`` over stdio with a client that does not read one of its pipes
(thirteenth review): a real ``serve`` process in front of a real weather API on loopback.

- stderr piped and never read: once the pipe was full (64 KiB), the next log record blocked
  the thread that wrote it, and the gateway answered nothing more;
- stdout never read: an answer waited for the client for ever (SIGTERM ended it in 25 s);
- stderr a socket or a terminal nobody reads (sixteenth review): as the pipe before.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import queue
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from servers.loopback import LoopbackServer
from servers.serve_process import MODELS, SERVE, build
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

FORECAST = "weather__rest__get_forecast"


def lines_of(pipe: IO[bytes]) -> queue.Queue[bytes | None]:
    """``pipe``'s lines, read in a thread from now on (``None`` at its end)."""
    lines = queue.Queue[bytes | None]()

    def read() -> None:
        for line in pipe:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


@contextmanager
def serving(
    tmp_path: Path, base_url: str, *flags: str, stderr: int = subprocess.PIPE
) -> Iterator[subprocess.Popen[bytes]]:
    """``serve`` over stdio of the weather API at ``base_url``, every pipe of it the test's
    (none read yet), after ``initialize``; ``stderr``: a descriptor of the test's instead."""
    source = tmp_path / "weather.yaml"
    source.write_text(yaml.safe_dump(weather_openapi(base_url)))
    build(source, tmp_path / "index")
    argv = [sys.executable, "-c", SERVE, "serve", "--openapi", f"weather={source}"]
    argv += ["--index", str(tmp_path / "index"), "--no-progress", *MODELS, *flags]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "tests", "version": "1"}
        send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert process.stdout is not None
        assert json.loads(process.stdout.readline())["id"] == 0
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield process
    finally:
        process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()


def forecast(request_id: int, city: str = "Paris") -> dict[str, Any]:
    arguments = {"name": FORECAST, "arguments": {"city": city}}
    params = {"name": "call_tool", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def answered(answers: queue.Queue[bytes | None], request_id: int) -> dict[str, Any]:
    """The next answer, which is ``request_id``'s (a hang fails here, not for ever)."""
    try:
        line = answers.get(timeout=30)
    except queue.Empty:
        raise AssertionError(f"no answer to request {request_id} in 30 s") from None
    assert line is not None, "the gateway ended"
    answer: dict[str, Any] = json.loads(line)
    assert answer["id"] == request_id, answer
    return answer


def next_line(lines: queue.Queue[bytes | None]) -> str:
    try:
        line = lines.get(timeout=30)
    except queue.Empty:
        raise AssertionError("no line on stderr in 30 s") from None
    assert line is not None, "stderr ended"
    return line.decode()


def test_a_client_that_never_reads_stderr_is_still_answered(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: with ``--log-level info`` (two records per call, httpx's and the gateway's:
    ~260 bytes), the 251st call got no answer, the log blocked on the full pipe. Now every
    call is answered; the lines that did not fit (past the pipe and a 64 KiB backlog) are
    dropped, and counted in one line once the client reads again; the calls after that are
    each logged as before."""
    calls = 1500
    with serving(tmp_path, weather.base_url, "--log-level", "info") as process:
        assert process.stdout is not None and process.stderr is not None
        answers = lines_of(process.stdout)
        for request_id in range(1, calls + 1):  # stderr never read meanwhile
            send(process, forecast(request_id))
            assert not answered(answers, request_id)["result"]["isError"]
        log = lines_of(process.stderr)  # the client reads its stderr now
        said: list[str] = []
        while not any("lines of stderr dropped" in line for line in said):
            said.append(next_line(log))
        dropped = said[-1]
        count = int(dropped.split("schemarouter.serve.stderr_pipe: ")[1].split()[0])
        logged = sum(f"call {FORECAST} " in line for line in said)
        assert logged > 0 and logged + count >= calls, (logged, count)
        for request_id in range(calls + 1, calls + 4):  # logged one by one again
            send(process, forecast(request_id))
            answered(answers, request_id)
            said.append(next_line(log))
            while f"call {FORECAST} " not in said[-1]:  # after httpx's record of it
                said.append(next_line(log))
        assert not any("dropped" in line for line in said[said.index(dropped) + 1 :])


def all_answered(process: subprocess.Popen[bytes], calls: int) -> None:
    """``calls`` forecasts, each answered (``--log-level info``: a log line each)."""
    assert process.stdout is not None
    answers = lines_of(process.stdout)
    for request_id in range(1, calls + 1):
        send(process, forecast(request_id))
        assert not answered(answers, request_id)["result"]["isError"]


def dropped(fd: int) -> int:
    """How many lines the gateway's stderr, read from ``fd``, says it dropped (a hang fails
    here, not for ever)."""
    said = b""
    while b"lines of stderr dropped" not in said:
        readable, _, _ = select.select([fd], [], [], 30)
        assert readable, f"no line on stderr in 30 s: {said[-500:]!r}"
        said += os.read(fd, 65536)
    line = said.split(b"lines of stderr dropped")[0].rsplit(b"\n", 1)[-1]
    return int(line.split(b"schemarouter.serve.stderr_pipe: ")[1])


def test_a_stderr_socket_nobody_reads_is_no_stop_to_the_gateway(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: with stderr a stream socket (systemd's journal stream) whose reader reads
    nothing, the first log record past the socket's buffer blocked the thread that wrote it,
    and the calls after it got no answer. Now the socket is written with ``MSG_DONTWAIT``:
    every call is answered, the lines that did not fit dropped and counted."""
    ours, theirs = socket.socketpair()
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    flags = ("--log-level", "info")
    with ours, serving(tmp_path, weather.base_url, *flags, stderr=theirs.fileno()) as process:
        theirs.close()
        all_answered(process, 1500)
        assert dropped(ours.fileno()) > 0


def test_a_stderr_datagram_socket_nobody_reads_is_no_stop_to_the_gateway(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: with stderr a datagram socket (a supervisor's or syslog's) whose reader reads
    nothing, the write past its queue blocked the thread that wrote it, and the calls after
    it got no answer (a known limit of the sixteenth review). Now it is written as the
    stream socket is, a datagram a line: every call is answered, the rest counted."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    flags = ("--log-level", "info")
    with ours, serving(tmp_path, weather.base_url, *flags, stderr=theirs.fileno()) as process:
        theirs.close()
        all_answered(process, 1500)
        assert dropped(ours.fileno()) > 0


def test_a_paused_terminal_as_stderr_is_no_stop_to_the_gateway(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: with stderr a terminal paused with Ctrl-S, the next log record blocked the
    thread that wrote it and no call was answered after it. Now the terminal is written
    without blocking, as a pipe: every call is answered, and after Ctrl-Q the log says how
    many lines it dropped."""
    terminal, tty = pty.openpty()
    flags = ("--log-level", "info")
    try:
        with serving(tmp_path, weather.base_url, *flags, stderr=tty) as process:
            os.close(tty)
            os.write(terminal, b"\x13")  # Ctrl-S: the terminal takes no more output
            all_answered(process, 1500)
            os.write(terminal, b"\x11")  # Ctrl-Q
            assert dropped(terminal) > 0
    finally:
        os.close(terminal)


def test_a_client_that_never_reads_stdout_is_given_up_on_after_the_stdout_timeout(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: the client's pipe full, an answer waited for it for ever (560 requests read,
    then nothing, the process alive and silent 70 s on). Now an answer the client takes none
    of for ``--stdout-timeout`` seconds ends the gateway: one ERROR line says why, and the
    exit status is 74 (EX_IOERR), for a supervisor to start it again."""
    flags = ("--stdout-timeout", "2")
    with serving(tmp_path, weather.base_url, *flags) as process:
        assert process.stdin is not None and process.stderr is not None
        fd = process.stdin.fileno()
        os.set_blocking(fd, False)
        describe = {"name": "describe_tool", "arguments": {"name": FORECAST}}
        message = {"jsonrpc": "2.0", "method": "tools/call", "params": describe}
        request_id = 0
        with contextlib.suppress(BlockingIOError, BrokenPipeError):
            while request_id < 100_000:  # until its stdin is full: it reads no more
                request_id += 1
                os.write(fd, (json.dumps({**message, "id": request_id}) + "\n").encode())
        assert request_id < 100_000
        status = process.wait(timeout=60)
        said = process.stderr.read().decode()
    assert status == 74, said[-2000:]
    assert "the client has read none of an answer for 2 s" in said
    assert "giving up on it, exiting 74" in said


def test_the_info_log_names_no_argument_of_a_call(tmp_path: Path, weather: LoopbackServer) -> None:
    """The gateway's record of a call never names its arguments (docs/integrations.md), but
    at ``--log-level info`` httpx's record of the upstream request did, in its URL
    ("HTTP Request: GET .../forecast?city=..."). Now the HTTP libraries log warnings only
    below ``debug``; the gateway's record of the call is there as before."""
    with serving(tmp_path, weather.base_url, "--log-level", "info") as process:
        assert process.stdout is not None and process.stderr is not None
        answers, log = lines_of(process.stdout), lines_of(process.stderr)
        send(process, forecast(1, city="Lyon-secret-city"))
        assert not answered(answers, 1)["result"]["isError"]
        said = [next_line(log)]
        while f"call {FORECAST} " not in said[-1]:
            said.append(next_line(log))
        process.stdin.close()  # type: ignore[union-attr]
        process.wait(timeout=30)
        said += [line.decode() for line in iter(lambda: log.get(timeout=30), None)]
    assert any(f"call {FORECAST} (weather/rest/get_forecast, read): ok" in x for x in said)
    assert not any("Lyon-secret-city" in line for line in said), said
