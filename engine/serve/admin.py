"""``POST /admin/reload``: an orchestrator asks ``schemarouter serve --transport http`` to load
its rebuilt index folder, as ``SIGHUP`` does, without sending a signal into the container.

Off unless an admin token is given (``--admin-token-env VAR`` or ``--admin-token-file FILE``,
at least :data:`~.security.MIN_TOKEN_CHARS` characters, never the clients' bearer token):
without one ``/admin/reload`` is no path of the server's (the MCP app answers 404), so the
clients that search can never reload a replica. With one, ``POST /admin/reload`` carrying
``Authorization: Bearer <admin token>`` runs :func:`~.generation.reload` and answers once the
new generation answers, or once it was refused::

    200 {"reloaded": true, "index": {"state": "open", "generation": "gen-...", ...}}
    409 {"reloaded": false,
         "reason": "reload refused, generation gen-... still answers: [SR302] ...",
         "index": {...the generation still served...}}

Any other token (the clients' included) is ``401``; another method ``405``. A reload already
under way (a SIGHUP, another POST) is a ``409`` that says so. The Host and Origin checks of
the MCP path hold here too (``421``, ``403``: :func:`~.security.transport_security`, the
names ``--allowed-host`` adds), before the token is read. Before, SIGHUP was the only way
(user trials W4, X4).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError
from schemarouter.serve.security import bearer_matches

__all__ = ["ADMIN_RELOAD_PATH", "AdminReload", "read_admin_token"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: The path an orchestrator posts to (with the admin token) to reload the index folder.
ADMIN_RELOAD_PATH = "/admin/reload"


def read_admin_token(
    *,
    env: str | None = None,
    file: str | Path | None = None,
    token: str | None = None,
    transport: str = "http",
    path: str = "/mcp",
) -> str | None:
    """The admin token from ``file`` or the environment variable ``env`` (``None``: neither
    given, the endpoint is off). Refused (an :class:`ArgumentError`): an unset variable, a
    short token, one equal to the clients' ``token`` (a client could then reload), one for
    a ``transport`` with no endpoint (stdio: it would be ignored) and an MCP ``path`` the
    endpoint would hide."""
    from schemarouter.serve.security import read_token

    if file is None and env is None:
        return None
    flag = "--admin-token-file" if file is not None else "--admin-token-env"
    if transport != "http":
        raise ArgumentError(
            f"an admin token is for --transport http (POST {ADMIN_RELOAD_PATH}); over "
            f"{transport} there is no endpoint to guard",
            where=flag,
            hint="Drop it, or serve --transport http; over stdio, SIGHUP reloads the index",
        )
    if path.rstrip("/") == ADMIN_RELOAD_PATH:
        raise ArgumentError(
            f"the MCP path {path!r} is the admin endpoint's: no MCP request would reach it",
            where="--path",
            hint="Serve MCP at another path, such as --path /mcp",
        )
    if file is None and env is not None and env not in os.environ:
        raise ArgumentError(
            f"the environment variable {env} is not set",
            where="--admin-token-env",
            hint="Export the admin token in it, or name the variable that holds it",
        )
    try:
        admin = read_token(env=env, file=file)
    except ArgumentError as exc:  # "the bearer token has 10 characters": the clients' flag
        what = exc.what.replace("the bearer token", "the admin token")
        raise ArgumentError(what, where=exc.where, hint=exc.hint) from None
    if admin is not None and token is not None and hmac.compare_digest(admin, token):
        raise ArgumentError(
            "the admin token is the clients' bearer token: every client could reload",
            where=flag,
            hint="Give the admin endpoint a token of its own",
        )
    return admin


class AdminReload:
    """ASGI middleware: answers ``/admin/reload`` for ``gateway`` with ``token``, and passes
    every other request to ``app``."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        gateway: Any,
        token: str,
        security: Any = None,
    ):
        self.app = app
        self.gateway = gateway
        self._token = token.encode("utf-8")
        #: the SDK's ``TransportSecuritySettings`` the MCP path keeps to (``None``: no check)
        self._security = security

    def _foreign(self, scope: Scope) -> tuple[int, str] | None:
        """The status and error for a Host or Origin header the MCP path would refuse (a
        page of another site, a DNS-rebound name), else ``None``."""
        if self._security is None or not self._security.enable_dns_rebinding_protection:
            return None
        headers = {
            bytes(k).decode("latin-1").lower(): bytes(v).decode("latin-1")
            for k, v in scope.get("headers") or ()
        }
        if not _named(headers.get("host"), self._security.allowed_hosts):
            return 421, "invalid Host header"
        origin = headers.get("origin")
        if origin and not _named(origin, self._security.allowed_origins):
            return 403, "invalid Origin header"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("path") != ADMIN_RELOAD_PATH:
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = []
        if foreign := self._foreign(scope):
            status, body = foreign[0], {"error": foreign[1]}
        elif not bearer_matches(scope, self._token):
            status, body = 401, {"error": "unauthorized: send Authorization: Bearer <admin token>"}
            headers.append((b"www-authenticate", b'Bearer realm="schemarouter-admin"'))
        elif scope.get("method") != "POST":
            status, body = 405, {"error": f"{ADMIN_RELOAD_PATH} answers POST only"}
            headers.append((b"allow", b"POST"))
        else:
            status, body = await self._reload()
        data = json.dumps(body).encode("utf-8")
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    async def _reload(self) -> tuple[int, dict[str, Any]]:
        from schemarouter.serve.generation import reload

        said: list[str] = []
        switched = await asyncio.to_thread(reload, self.gateway, said=said)
        body: dict[str, Any] = {"reloaded": switched}
        if not switched:
            body["reason"] = said[-1] if said else "reload refused (see the log)"
        body["index"] = self.gateway.index_state.probe()
        return (200 if switched else 409), body


def _named(value: str | None, allowed: list[str]) -> bool:
    """Whether ``value`` (a Host or Origin header) is one of ``allowed``, where ``name:*``
    takes any port of ``name`` (as the SDK's own check reads them)."""
    if not value:
        return False
    return value in allowed or any(a.endswith(":*") and value.startswith(a[:-1]) for a in allowed)
