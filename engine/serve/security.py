"""Who may talk to ``schemarouter serve --transport http``: a bearer token, and the names the
server answers to.

- **A bearer token** (optional on loopback, required elsewhere): from an environment variable
  (``--token-env``, default ``SCHEMAROUTER_SERVE_TOKEN``) or a file (``--token-file``), at
  least :data:`MIN_TOKEN_CHARS` characters. Every HTTP request must then carry
  ``Authorization: Bearer <token>``, compared in constant time (:func:`hmac.compare_digest`);
  anything else is answered ``401`` before the MCP server sees it.
- **A non-loopback address needs a token**: binding ``0.0.0.0``, ``::`` or a LAN address
  without one is refused unless ``--insecure`` says so explicitly.
- **Host and Origin checks stay on** (DNS-rebinding protection): the loopback names, the
  address bound (where it is one address) and every ``--allowed-host`` are accepted; binding a
  wildcard address needs at least one ``--allowed-host`` (the name clients use), so the checks
  are never silently dropped.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError

__all__ = [
    "DEFAULT_TOKEN_ENV",
    "MIN_TOKEN_CHARS",
    "BearerAuth",
    "bearer_matches",
    "check_bind",
    "is_loopback",
    "read_token",
    "transport_security",
]

#: The environment variable a token is read from unless ``--token-env`` names another.
DEFAULT_TOKEN_ENV = "SCHEMAROUTER_SERVE_TOKEN"
#: A shorter token is refused (``python -c "import secrets; print(secrets.token_urlsafe())"``
#: makes a good one).
MIN_TOKEN_CHARS = 16
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` listens on this machine only."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def read_token(*, env: str | None = None, file: str | Path | None = None) -> str | None:
    """The bearer token from ``file`` (first line) or the environment variable ``env``
    (default :data:`DEFAULT_TOKEN_ENV`); ``None`` where neither gives one. An empty or short
    token, or a file that cannot be read, is an :class:`ArgumentError`."""
    from schemarouter.registry.bounds import UnreadableFile, read_file_bytes

    if file is not None:
        try:
            text = read_file_bytes(file, max_bytes=64 * 1024).decode("utf-8")
        except (UnreadableFile, UnicodeDecodeError) as exc:
            raise ArgumentError(
                f"cannot read the token file: {exc}",
                where=str(file),
                hint="Put the token on the file's first line",
            ) from None
        token, where = (text.strip().splitlines() or [""])[0].strip(), str(file)
    else:
        name = env or DEFAULT_TOKEN_ENV
        value = os.environ.get(name)
        if value is None:
            if env is not None:
                raise ArgumentError(
                    f"the environment variable {name} is not set",
                    where="--token-env",
                    hint="Export the token in it, or name the variable that holds it",
                )
            return None
        token, where = value.strip(), f"${name}"
    if len(token) < MIN_TOKEN_CHARS:
        raise ArgumentError(
            f"the bearer token has {len(token)} characters; it needs at least {MIN_TOKEN_CHARS}",
            where=where,
            hint='Make one with: python -c "import secrets; print(secrets.token_urlsafe())"',
        )
    return token


def check_bind(
    host: str, *, token: str | None, insecure: bool, allowed_hosts: Sequence[str]
) -> None:
    """Refuse to serve ``host`` where that would expose the gateway (see the module
    docstring); an :class:`ArgumentError` says what to add."""
    if not is_loopback(host) and token is None and not insecure:
        raise ArgumentError(
            f"refusing to listen on {host!r} (not loopback) without a bearer token",
            where="--host",
            hint=f"Set a token ({DEFAULT_TOKEN_ENV}, --token-env or --token-file), bind "
            "127.0.0.1 behind your own proxy, or pass --insecure to serve without one",
        )
    if host.strip("[]") in _WILDCARDS and not allowed_hosts:
        raise ArgumentError(
            f"listening on every address ({host!r}) needs the names clients use",
            where="--host",
            hint="Add --allowed-host NAME (repeatable; the Host header clients send) so the "
            "Host and Origin checks stay on",
        )


def transport_security(host: str, allowed_hosts: Iterable[str]) -> Any:
    """The SDK's Host/Origin checks for ``host`` and the names configured."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(_LOOPBACK_NAMES)
    bound = host.strip("[]")
    if bound not in _WILDCARDS and not is_loopback(host):
        names.append(f"[{bound}]" if ":" in bound else bound)
    names += [n.strip() for n in allowed_hosts if n.strip()]
    hosts, origins = [], []
    for name in dict.fromkeys(names):
        hosts += [name, f"{name}:*"]
        origins += [
            f"{scheme}://{name}{port}" for scheme in ("http", "https") for port in ("", ":*")
        ]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def bearer_matches(scope: Scope, token: bytes) -> bool:
    """Whether the request of ``scope`` carries ``Authorization: Bearer <token>``, the token
    compared in constant time."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            scheme, _, given = bytes(value).strip().partition(b" ")
            return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token)
    return False


class BearerAuth:
    """ASGI middleware: every HTTP request carries ``Authorization: Bearer <token>`` (the
    token compared in constant time), or is answered ``401`` without reaching ``app``."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], token: str):
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http" and not bearer_matches(scope, self._token):
            body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="schemarouter"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
