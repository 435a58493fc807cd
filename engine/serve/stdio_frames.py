"""What ``schemarouter serve`` over stdio reads of its client's lines, before the MCP SDK does.

The SDK's stdio transport read a line whole however long, dropped without a word (and
without an answer) a line that was no JSON-RPC message, and started a task for every
request it read, however many were under way (eleventh security review):

- a line of 300 MB was held whole (the gateway at 1.15 GB) and answered; now a line past
  :data:`MAX_LINE_CHARS` (the SDK's own limit for a request body over HTTP) is skipped as it
  is read, and answered with JSON-RPC error -32600 (with its ``id`` where it is among the
  line's first 64 KiB, else ``null``);
- a line nested 100,000 deep ended the process (``RecursionError`` in the reader); invalid
  JSON, a batch, a ``"jsonrpc"`` other than ``"2.0"``, a request whose ``params`` or ``id``
  is of the wrong type got no answer, and the client waited for ever; now each is answered
  with -32700 (no JSON, or nested past :data:`MAX_DEPTH`) or -32600, and logged;
- a message that is neither a request nor a notification the client may send (a
  ``tools/call`` without an ``id``, an answer that is no answer) is dropped, and logged;
- a client that sent requests and never read its stdout made the gateway hold every
  answer (57,000 requests: 1.2 GB, and growing); now at most :data:`MAX_IN_FLIGHT` requests
  are under way at once, and the next line is read only when one is answered, so a client
  that does not read its answers is not read either (the pipe holds the rest).

Log records of bad lines: the first :data:`_LOGGED` of the process one by one, then one
for every :data:`_LOG_EVERY` (a flood of them does not become a flood of log lines).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_IN_FLIGHT", "MAX_LINE_CHARS", "Frame", "check_line", "read_line"]

logger = logging.getLogger(__name__)

#: The longest line read as a message, in characters: the MCP SDK's limit for a request
#: body over streamable HTTP (4 MiB).
MAX_LINE_CHARS = 4 * 1024 * 1024
#: How deep a message may nest: room for a tool call's envelope around arguments of the
#: 100 levels the router takes (it refuses deeper arguments itself).
MAX_DEPTH = 128
#: Requests under way at once; the next line waits for one of them to be answered.
MAX_IN_FLIGHT = 64
#: How much of a line past the limit is searched for its ``id``.
_ID_WINDOW = 64 * 1024
_CHUNK = 1 << 20
_LOGGED = 20
_LOG_EVERY = 1000

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

_ID_PATTERN = re.compile(r'"id"\s*:\s*(-?\d{1,30}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")')


@dataclass(frozen=True)
class Frame:
    """One line of the client's: ``line`` goes on to the SDK, or ``answer`` (a JSON-RPC
    error line) is written back, or neither (dropped); ``said`` is why, for the log."""

    line: str | None = None
    answer: str | None = None
    said: str = ""
    #: ``line`` read as JSON, and the kind of message the SDK reads it as: the drain takes
    #: them from here, where it read the line again
    message: Any = None
    kind: str | None = None


async def read_line(file: Any) -> tuple[str, bool]:
    """The next line of ``file`` (anyio's wrapper of a text file) and whether it was past
    :data:`MAX_LINE_CHARS`; a line past it comes back as its first :data:`_ID_WINDOW`
    characters, the rest read and thrown away. ``("", False)`` at the end."""
    from anyio import to_thread

    readline = file.wrapped.readline
    line = await to_thread.run_sync(readline, MAX_LINE_CHARS + 1)
    if len(line) <= MAX_LINE_CHARS or line.endswith("\n"):
        return str(line), False
    head = str(line[:_ID_WINDOW])
    while True:  # the rest of the line, a chunk at a time, never held
        rest = await to_thread.run_sync(readline, _CHUNK)
        if not rest or rest.endswith("\n"):
            return head, True


def check_line(line: str, too_long: bool = False) -> Frame:
    """What is done with ``line`` (see the module's text)."""
    if too_long:
        found = _ID_PATTERN.search(line)
        request_id = json.loads(found.group(1)) if found else None
        said = f"a message longer than the limit of {MAX_LINE_CHARS} characters"
        return _refused(request_id, INVALID_REQUEST, said)
    if not line.strip():
        return Frame()  # a blank line: nothing to answer or to say
    try:
        message = json.loads(line)
    except RecursionError:
        return _refused(None, PARSE_ERROR, f"JSON nested deeper than {MAX_DEPTH} levels")
    except ValueError as exc:
        return _refused(None, PARSE_ERROR, f"no JSON ({str(exc)[:80]})")
    if _deeper(message, MAX_DEPTH):
        said = f"JSON nested deeper than {MAX_DEPTH} levels"
        return _refused(_id_of(message), PARSE_ERROR, said)
    if not isinstance(message, dict):
        kind = "a batch (an array)" if isinstance(message, list) else type(message).__name__
        return _refused(None, INVALID_REQUEST, f"{kind}, not one JSON-RPC message (an object)")
    read = sdk_reading(line)
    method = message.get("method")
    if "id" in message and method is not None:
        if read == "JSONRPCRequest":
            return Frame(line=line, message=message, kind=read)
        return _refused(_id_of(message), INVALID_REQUEST, _why_not_a_request(message))
    if method is not None:  # a notification
        if read == "JSONRPCNotification" and str(method).startswith("notifications/"):
            return Frame(line=line, message=message, kind=read)
        if read == "JSONRPCNotification":
            said = f"a {str(method)[:80]!r} without an id (a request needs one): not run"
        else:
            said = "a notification that is no JSON-RPC 2.0 notification"
        return _dropped(said)
    if read in ("JSONRPCResponse", "JSONRPCError"):
        return Frame(line=line, message=message, kind=read)  # an answer to the server
    return _dropped("neither a request, a notification nor an answer")


def sdk_reading(line: str) -> str | None:
    """The kind of message the MCP SDK reads ``line`` as (``JSONRPCRequest`` ...), or
    ``None`` where it reads none (it drops the line). An SDK without its adapter: each
    line is taken for what it says it is."""
    from mcp import types

    adapter = getattr(types, "jsonrpc_message_adapter", None)
    if adapter is None:
        return "JSONRPCRequest" if '"id"' in line else "JSONRPCNotification"
    try:
        return type(adapter.validate_json(line, by_name=False)).__name__
    except ValueError:
        return None


def _why_not_a_request(message: dict[str, Any]) -> str:
    request_id = message.get("id")
    if message.get("jsonrpc") != "2.0":
        return 'not JSON-RPC 2.0 (it needs "jsonrpc": "2.0")'
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return f"an id that is {_json_kind(request_id)} (a string or an integer is one)"
    if not isinstance(message.get("method"), str):
        return f"a method that is {_json_kind(message.get('method'))}, not text"
    if "params" in message and not isinstance(message["params"], dict):
        return f"params that are {_json_kind(message['params'])}, not an object"
    return "not a JSON-RPC 2.0 request"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number with a fraction" if isinstance(value, float) else "an integer"
    if isinstance(value, str):
        return "text"
    return "an object" if isinstance(value, dict) else "an array"


def _id_of(message: Any) -> Any:
    """The request's id where the client can tell it (a string or a number), else None."""
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
        return None
    return request_id


def _deeper(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _refused(request_id: Any, code: int, said: str) -> Frame:
    message = "Parse error" if code == PARSE_ERROR else "Invalid Request"
    error = {"code": code, "message": f"{message}: {said}"}
    answer = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}) + "\n"
    _log(f"answered {code}: {said}")
    return Frame(answer=answer, said=said)


def _dropped(said: str) -> Frame:
    _log(f"dropped: {said}")
    return Frame(said=said)


_count_lock = threading.Lock()
_count = 0


def _log(what: str) -> None:
    global _count
    with _count_lock:
        _count += 1
        count = _count
    if count <= _LOGGED or count % _LOG_EVERY == 0:
        logger.warning("stdio client sent a bad line (%d so far): %s", count, what)
