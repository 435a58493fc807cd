"""What a stdio transport sent, to read each reply of its server against it (see
:class:`Requests`).

The SDK drops a reply whose id no request of its has (at DEBUG), so a server that answered
another id than the one asked left its call to wait for the call's timeout: "timed out
after 5 s", three times for a read, with nothing saying the server had answered (sixteenth
review). Such a reply says the server mixes its replies up: whichever request a reply names
may be another's, so the session ends at once (every call in flight fails as a lost session:
a read is tried again through a new one, a write is not) and its calls say why.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from schemarouter.execution.invokers.mcp_listing import page_too_large
from schemarouter.execution.invokers.payload import clip

__all__ = ["MixedReply", "Requests"]

#: Request ids cancelled and still unanswered, kept to know a late reply for one.
CANCELLED_KEPT = 1024
#: A reply line this long is counted for its tools before the SDK reads it.
PRECHECK_BYTES = 1024 * 1024


def _error(request_id: Any, error: dict[str, Any]) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError

    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(**error)))


class MixedReply(Exception):
    """A reply whose id is no request in flight's (nor one cancelled): :attr:`what` the
    server did (which id it answered, and which requests were in flight)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"the server {what}")
        self.what = what
        self.why = f"the server {what}"


def _key(request_id: Any) -> Any:
    """A request id as the SDK matches it (``"7"`` and ``7`` are one id)."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            return request_id
    return request_id


class Requests:
    """The requests a stdio transport sent and its server has not answered: :meth:`sent`
    with each message written, :meth:`received` with each read. A reply to a ``tools/list``
    with more than ``max_tools`` tools is answered with an error before the SDK reads them
    (:func:`~.mcp_listing.page_too_large`)."""

    def __init__(self, *, max_tools: int) -> None:
        self.max_tools = max_tools
        self.pending: dict[Any, tuple[Any, str]] = {}  # key -> (id as sent, method)
        self.cancelled: OrderedDict[Any, None] = OrderedDict()

    def sent(self, message: Any) -> None:
        """Note a message written to the server (a ``SessionMessage``)."""
        inner = getattr(message, "message", message)
        method = getattr(inner, "method", None)
        request_id = getattr(inner, "id", None)
        if method is not None and request_id is not None:
            params = getattr(inner, "params", None)
            tool = params.get("name") if method == "tools/call" and params else None
            shown = f"{method} {clip(tool, 80)}" if isinstance(tool, str) else method
            self.pending[_key(request_id)] = (request_id, shown)
        elif method == "notifications/cancelled":
            params = getattr(inner, "params", None) or {}
            key = _key(params.get("requestId")) if isinstance(params, dict) else None
            if key is not None and self.pending.pop(key, None) is not None:
                self.cancelled[key] = None
                while len(self.cancelled) > CANCELLED_KEPT:
                    self.cancelled.popitem(last=False)

    def refused_page(self, line: bytes) -> Any:
        """The error that answers a ``tools/list`` whose reply ``line`` lists more than
        :attr:`max_tools` tools, found before the SDK's model reads it (80,000 tools in one
        18 MB line took it 3.5 s and 0.5 GB; ``json`` reads the line in a fifth of that, and
        only where the line names more keys ``"name"`` than ``max_tools``); ``None`` for
        any other line (:meth:`received` reads the rest, a key written with escapes too)."""
        if not any(method == "tools/list" for _, method in self.pending.values()):
            return None
        if len(line) < PRECHECK_BYTES or line.count(b'"name"') <= self.max_tools:
            return None
        try:
            reply = json.loads(line)
        except ValueError:
            return None  # the SDK's reading says what is wrong
        if not isinstance(reply, dict) or "method" in reply:
            return None
        request_id, error = reply.get("id"), page_too_large(reply.get("result"), self.max_tools)
        asked = self.pending.get(_key(request_id)) if isinstance(request_id, int | str) else None
        if error is None or asked is None or asked[1] != "tools/list":
            return None
        return _error(request_id, error)  # answered once :meth:`received` reads it

    def received(self, message: Any) -> Any:
        """``message`` (a ``SessionMessage`` read from the server), or the error that answers
        its request instead; raises :class:`MixedReply` for a reply to no request."""
        from mcp.types import JSONRPCError, JSONRPCResponse

        inner = getattr(message, "message", None)
        if not isinstance(inner, JSONRPCResponse | JSONRPCError) or inner.id is None:
            return message  # a request or a notification of the server's, or no message
        key = _key(inner.id)
        asked = self.pending.pop(key, None)
        if asked is None:
            if key in self.cancelled:  # a late reply to a cancelled request: the SDK drops it
                del self.cancelled[key]
                return message
            raise MixedReply(self._mixed(inner.id))
        if asked[1] == "tools/list" and isinstance(inner, JSONRPCResponse):
            error = page_too_large(inner.result, self.max_tools)
            if error is not None:
                return _error(inner.id, error)
        return message

    def _mixed(self, answered: Any) -> str:
        shown = [f"{request_id!r} ({method})" for request_id, method in self.pending.values()]
        if not shown:
            asked = "no request was in flight"
        elif len(shown) == 1:
            asked = f"the one request in flight was {shown[0]}"
        else:
            asked = f"the requests in flight were {', '.join(shown[:5])}"
            asked += f" and {len(shown) - 5} more" if len(shown) > 5 else ""
        return (
            f"answered id {clip(repr(answered), 80)}, which no request in flight has "
            f"({asked}): its replies cannot be matched to their requests"
        )
