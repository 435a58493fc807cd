"""What kind of source a parsed file is: for errors that name it and the flag to use.

Every command that reads sources (``retrieve``, ``index build``, ``serve``) takes the same
four kinds: catalogs (``--catalog``), OpenAPI documents (``--openapi``), recorded MCP
``tools/list`` results (``--mcp-tools``) and gateway configs (``--config``). A file given as
one kind that is plainly another is refused with both named (``this is an OpenAPI document,
not a SchemaRouter catalog``) and what takes it, before any schema error about keys the file
was never meant to have: on the command line (inside :func:`command_line_hints`) the flag,
else, in Python, the router's method (``router.add_openapi(...)``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from schemarouter.errors import DocumentError

__all__ = [
    "KINDS",
    "Kind",
    "check_kind",
    "command_line_hints",
    "document_kind",
    "on_command_line",
]

Kind = Literal["catalog", "openapi", "mcp_tools", "config"]

#: kind -> (what it is, the flag that takes it, the Python call that takes it)
KINDS: Mapping[str, tuple[str, str, str]] = {
    "catalog": (
        "a SchemaRouter catalog",
        "--catalog PATH",
        "router.add_catalog(path) or SchemaRouter.from_catalog(path)",
    ),
    "openapi": ("an OpenAPI document", "--openapi [PROVIDER=]FILE", "router.add_openapi(...)"),
    "mcp_tools": (
        "an MCP tools/list result",
        "--mcp-tools [PROVIDER=]FILE",
        "router.add_mcp_tools(..., provider=...)",
    ),
    "config": (
        "a gateway config",
        "--config FILE",
        "schemarouter.serve.config.load_config(path) and serve.sources.build_router",
    ),
}
#: Whether a refusal is for the command line (its flags) rather than Python (its methods).
_COMMAND_LINE: ContextVar[bool] = ContextVar("schemarouter_command_line", default=False)


@contextmanager
def command_line_hints() -> Iterator[None]:
    """Within it, a file of the wrong kind is told which command-line flag takes it (the CLI
    runs its commands inside); outside, which Python method does."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def on_command_line() -> bool:
    """Whether a refusal is worded for the command line (inside :func:`command_line_hints`):
    its flags, rather than Python's keywords, which a command's user cannot pass."""
    return _COMMAND_LINE.get()


_CONFIG_KEYS = frozenset(
    {"catalogs", "openapi", "mcp_tools", "optimade", "mcp_servers", "allow", "search"}
)


def _tool_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(t, Mapping) and "name" in t and ("inputSchema" in t or "input_schema" in t)
            for t in value
        )
    )


def document_kind(data: Any) -> Kind | None:
    """Which of the four kinds ``data`` (a parsed file) plainly is, or ``None``."""
    if _tool_list(data):
        return "mcp_tools"
    if not isinstance(data, Mapping):
        return None
    if "schemarouter_catalog" in data:
        return "catalog"
    if isinstance(data.get("openapi"), str) or "swagger" in data:
        return "openapi"
    tools = data.get("tools")
    if tools == [] or _tool_list(tools):
        return "mcp_tools"
    if set(data) & _CONFIG_KEYS and set(data) <= _CONFIG_KEYS | {"name", "index", "credentials"}:
        return "config"
    return None


def check_kind(data: Any, expected: Kind, *, where: str) -> None:
    """A :class:`DocumentError` where ``data`` is plainly another kind than ``expected``,
    naming both and what takes it: the flag on the command line, else the Python method."""
    kind = document_kind(data)
    if kind is None and expected == "catalog" and isinstance(data, Mapping):
        _check_catalog_keys(data, where=where)
    if kind is None or kind == expected:
        return
    what, flag, method = KINDS[kind]
    hint = (
        f"Pass it with {flag} (retrieve, index build and serve all take it)"
        if _COMMAND_LINE.get()
        else f"Register it with {method}"
    )
    raise DocumentError(f"this is {what}, not {KINDS[expected][0]}", where=where, hint=hint)


def _check_catalog_keys(data: Mapping[str, Any], *, where: str) -> None:
    """A mapping with neither a catalog's version key nor its providers is no catalog at all
    (a CI config or docker-compose.yml left in a catalog folder): one error saying so, where
    each of its keys was "unknown key" beside a missing schemarouter_catalog (trial A)."""
    if "schemarouter_catalog" in data or "providers" in data:
        return
    keys = ", ".join(sorted(map(str, data))[:5]) + (", ..." if len(data) > 5 else "")
    raise DocumentError(
        f"this is no SchemaRouter catalog: it has no schemarouter_catalog key (its keys: "
        f"{keys or 'none'})",
        where=where,
        hint="A catalog starts with 'schemarouter_catalog: 1' and a 'providers' list; a "
        "catalog folder reads every *.yaml, *.yml and *.json under it, so move another file "
        "out of it or start its name with '_'",
    )
