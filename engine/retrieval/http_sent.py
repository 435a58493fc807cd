"""A request that sends an HTTP request: "send an HTTP POST to ...", "make a PUT request",
"issue a DELETE". Its verb (send, make ...) does not name the change; the method it sends
does (:func:`.actions.read_request` reads a ``GET`` as a read, ``POST`` as ``post``, ``PUT``,
``PATCH`` and ``DELETE`` as their changes), so "send an HTTP POST" finds a tool named
``..._post`` before the mail-sending routes beside it."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["http_method_sent"]

#: Verbs whose object may be an HTTP request ("send a POST", "make an HTTP DELETE request").
_SENDS = frozenset(("send", "make", "issue", "fire", "perform", "do"))
_HTTP_METHODS = frozenset(("get", "head", "post", "put", "patch", "delete"))


def http_method_sent(words: Sequence[str], i: int) -> str | None:
    """The HTTP method (lower case) ``words[i]``, a verb of sending, sends: "send an HTTP
    POST", "make a PUT request", "issue a DELETE"; written in capitals, after "HTTP" or
    before "request", so "make a post about it" sends none."""
    if words[i].lower() not in _SENDS:
        return None
    rest = [w for w in words[i + 1 : i + 4] if w.lower() not in ("a", "an", "the")]
    http = bool(rest) and rest[0].lower() in ("http", "https")
    rest = rest[1:] if http else rest
    if not rest or rest[0].lower() not in _HTTP_METHODS:
        return None
    said = http or rest[0].isupper() or [w.lower() for w in rest[1:2]] == ["request"]
    return rest[0].lower() if said else None
