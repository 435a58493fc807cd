"""A loopback server that attacks its client: decompression bombs, headers that never end,
redirects to ``javascript:`` and to paths outside the registered base, echoed keys, NaN and
absurdly deep outputs. Every path is one attack; the routes live under ``/api`` (the
registered base path) except the target a redirect must never reach.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

from servers.catalogs import endpoint, fld, param, provider
from servers.loopback import Request, Response, json_response

#: The key the hostile server echoes back (``/`` and ``+`` and ``=`` give it escaped forms).
HOSTILE_KEY = "sk/live+7Qx=9"
#: Raw bytes of the gzip bomb's payload (zeros), before two layers of gzip.
BOMB_BYTES = 8 * 1024 * 1024
#: Seconds between the bytes of a drip, and how many it sends (about a minute in all: a
#: client without one deadline for the whole exchange waits all of it).
DRIP = 0.02
DRIP_BYTES = 3000

#: Redirects to hosts that are no valid IDNA (issue #24, finding 4): path -> Location.
IDNA_REDIRECTS = {
    "/api/idna-empty": "http://xn--/",
    "/api/idna-short": "http://xn--a/x",
    "/api/idna-symbol": "http://xn--ls8h.la/",
}

FIELDS = [
    fld("material_id", "data.*.material_id", {"type": "string"}, identifier=True),
    fld("band_gap", "data.*.band_gap", {"type": "number", "minimum": 0, "maximum": 100}),
]
#: Where an echoing server puts the key as an object key.
EXTRA = fld("extra", "data.*.extra.*", {"type": "number"})
STRICT_OUTPUT = {
    "type": "object",
    "properties": {
        "data": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "material_id": {"type": "string"},
                    "band_gap": {},
                    "extra": {"type": "object"},
                },
                "additionalProperties": False,
            },
        }
    },
}


@functools.cache
def bomb() -> bytes:
    """``BOMB_BYTES`` of zeros under ``Content-Encoding: gzip, gzip`` (about 1 kB)."""
    return gzip.compress(gzip.compress(b"\0" * BOMB_BYTES, 9), 9)


def _header_drip() -> Iterator[bytes]:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: "
    yield from (head[i : i + 1] for i in range(len(head)))
    yield from itertools.repeat(b"a", DRIP_BYTES)  # a header line that goes on and on


def _endless_continue() -> Iterator[bytes]:
    return itertools.repeat(b"HTTP/1.1 100 Continue\r\n\r\n", DRIP_BYTES)


def _echo(request: Request) -> Response:
    key = request.headers.get("X-API-KEY", "")
    item = {"material_id": "mp-1", "band_gap": key, "extra": {key: "x"}, key: True}
    data = {"data": [item]}
    return json_response(data)


def _echo_error(request: Request) -> Response:
    key = request.headers.get("X-API-KEY", "")
    escaped = json.dumps(key).replace("/", "\\/")  # as PHP writes JSON
    body = ('{"error": "key ' + escaped[1:-1] + ' is not allowed here"}').encode()
    return Response(400, body, {"Content-Type": "application/json"})


class HostileApp:
    """``hooks[path]()`` runs when a request for ``path`` arrives (a test changes the
    registry while a step is in flight)."""

    def __init__(self) -> None:
        self.hooks: dict[str, Callable[[], None]] = {}

    def __call__(self, request: Request) -> Response:
        path = request.path
        hook = self.hooks.pop(path, None)
        if hook is not None:
            hook()
        if path == "/api/bomb":
            blob = bomb()
            return Response(
                200,
                blob,
                {
                    "Content-Type": "application/json",
                    "Content-Encoding": "gzip, gzip",
                    "Content-Length": str(len(blob)),
                },
            )
        if path == "/api/drip-headers":
            return Response(raw=_header_drip(), pause=DRIP)
        if path == "/api/continue":
            return Response(raw=_endless_continue(), pause=DRIP)
        if path == "/api/js-redirect":
            return Response(302, b"", {"Location": "javascript:alert(1)"})
        if path in IDNA_REDIRECTS:
            return Response(302, b"", {"Location": IDNA_REDIRECTS[path]})
        if path in ("/api/store-307", "/api/wipe-302"):
            return Response(
                307 if path.endswith("307") else 302,
                b"",
                {"Location": "/admin/delete-everything"},
            )
        if path == "/api/search-307":
            return Response(307, b"", {"Location": "/api/good"})
        if path == "/api/escape-307":
            return Response(307, b"", {"Location": "/api/%2e%2e/admin/delete-everything"})
        if path == "/api/escape-slash-307":  # a server that decodes %2F climbs out (trial X4)
            return Response(307, b"", {"Location": "/api/..%2Fadmin/delete-everything"})
        if path == "/api/good":
            return json_response({"data": [{"material_id": "mp-149", "band_gap": 0.61}]})
        if path == "/api/echo":
            return _echo(request)
        if path == "/api/echo-error":
            return _echo_error(request)
        if path == "/api/nan":
            body = b'{"data": [{"material_id": "mp-1", "band_gap": NaN}, ' + (
                b'{"material_id": "mp-2", "band_gap": 1.5}]}'
            )
            return Response(200, body, {"Content-Type": "application/json"})
        if path == "/api/deep":
            deep: Any = 1.0
            for _ in range(700):
                deep = [deep]
            return json_response({"data": [{"material_id": "mp-1", "band_gap": deep}]})
        if path == "/api/empty":  # a 200 with no body at all
            return Response(200, b"", {"Content-Type": "application/json"})
        if path == "/api/surrogate":  # a lone ``\ud800`` escape: valid JSON, not Unicode
            return json_response({"data": [{"material_id": "mp-\ud800", "band_gap": 0.5}]})
        return json_response({"detail": f"this server has no {path}"}, 404)


def hostile_provider(base_url: str) -> dict[str, Any]:
    """Routes under ``{base_url}/api``; an ``X-API-KEY`` header key (``HOSTILE_API_KEY``)."""
    reads = [
        "bomb",
        "drip-headers",
        "continue",
        "js-redirect",
        "good",
        "nan",
        "deep",
        "surrogate",
        "echo-error",
        *(p.removeprefix("/api/") for p in IDNA_REDIRECTS),
    ]
    endpoints = [endpoint(name.replace("-", "_"), f"/{name}", fields=FIELDS) for name in reads]
    endpoints += [
        endpoint("echo", "/echo", fields=[*FIELDS, EXTRA], output_schema=STRICT_OUTPUT),
        endpoint("empty", "/empty", fields=FIELDS, output_schema=STRICT_OUTPUT),
        endpoint(
            "store_307",
            "/store-307",
            method="POST",
            effect="write",
            params=[param("body", "body", {"type": "object"})],
            fields=FIELDS,
        ),
        endpoint("wipe_302", "/wipe-302", method="DELETE", effect="destructive", fields=FIELDS),
        endpoint(
            "search_307",
            "/search-307",
            method="POST",
            params=[param("body", "body", {"type": "object"})],
            fields=FIELDS,
        ),
        endpoint("escape_307", "/escape-307", fields=FIELDS),
        endpoint("escape_slash_307", "/escape-slash-307", fields=FIELDS),
    ]
    auth = {
        "credentials": ["HOSTILE_API_KEY"],
        "scheme": "api_key",
        "location": "header",
        "parameter": "X-API-KEY",
        "optional": True,
    }
    return provider("hostile", base_url + "/api", endpoints, auth=auth)
