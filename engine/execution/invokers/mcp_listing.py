"""A server's whole tool listing, read page by page within a bound on its tools.

A server registers whole or not at all, so a listing too large to register was read whole,
then compiled until the registration's size limit refused it: a server listing 100,000
tools was refused at ``tools[50000]`` after 10 to 32 s and 0.5 to 1.1 GB (sixteenth
review). :func:`every_tool` stops reading past ``max_tools`` (:data:`DEFAULT_MAX_TOOLS`) and
raises :class:`TooManyTools`, which says how many tools, the limit and what to do; a stdio
transport refuses a single page past it before the SDK reads its tools
(:func:`page_too_large`). A listing is read to its end: its pages were cut at 100, so a
server of 60,000 tools in pages of 100 registered its first 10,000 and said nothing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from typing import Any

__all__ = [
    "DEFAULT_MAX_TOOLS",
    "NODES_PER_TOOL",
    "ListingNeverEnds",
    "TooManyTools",
    "every_tool",
    "page_too_large",
    "progress",
]

logger = logging.getLogger(__name__)

#: The most tools one server may list (``max_tools`` raises it).
DEFAULT_MAX_TOOLS = 10_000
#: JSON nodes the schemas of one listing may have per tool it may list: 25 times the
#: default's 10,000 is the 250,000 of one document (``MAX_DOCUMENT_SCHEMA_NODES``), and a
#: larger ``max_tools`` raises the listing's node limit with it (the shared tool sets'
#: parameters have 5 nodes on average, 26 at most per set).
NODES_PER_TOOL = 25
#: A large listing says how far it got (at INFO) each this many tools, listed and compiled:
#: 100,000 tools took a gateway two minutes to list and compile, saying nothing meanwhile.
PROGRESS_TOOLS = 5_000
#: Marks the error a transport answers a page past ``max_tools`` with (its ``data``).
_MARK = "schemarouter.max_tools"


class TooManyTools(RuntimeError):
    """A server lists more than ``max_tools`` tools: what was read of its listing is
    dropped, nothing is registered."""

    retryable = False

    def __init__(self, count: int, limit: int, *, pages: int | None = None) -> None:
        if pages is None:
            listed = f"{count:,} tools in one page, more than max_tools ({limit:,})"
        else:
            listed = f"more than max_tools ({limit:,}) tools: {count:,} in {pages:,} pages"
        #: what the server does, for "the MCP server ..."
        rest = "the page was not read further" if pages is None else "the rest was not read"
        self.what = f"lists {listed}; {rest}"
        super().__init__(f"the server {self.what}")
        self.count, self.limit = count, limit
        self.hint = (
            f"A server registers whole or not at all: split it into servers of at most "
            f"{limit:,} tools each, or raise max_tools (add_mcp_server(..., max_tools=N), "
            f"add_mcp_tools(..., max_tools=N), or max_tools: in the gateway's config for "
            f"the server); its schemas may then have {NODES_PER_TOOL} JSON nodes per tool"
        )


class ListingNeverEnds(RuntimeError):
    """A server's listing goes on with pages of no new tools (a cursor given twice, or more
    pages than it may have tools)."""

    retryable = False


def page_too_large(result: Any, limit: int) -> dict[str, Any] | None:
    """The JSON-RPC error a transport answers a ``tools/list`` ``result`` (its raw JSON)
    with where it holds more than ``limit`` tools; ``None`` where it does not."""
    tools = result.get("tools") if isinstance(result, Mapping) else None
    if not isinstance(tools, list) or len(tools) <= limit:
        return None
    said = str(TooManyTools(len(tools), limit))
    return {"code": -32603, "message": said, "data": {_MARK: [len(tools), limit]}}


def _refused_page(error: BaseException) -> TooManyTools | None:
    data = getattr(error, "data", None)
    count_limit = data.get(_MARK) if isinstance(data, Mapping) else None
    if isinstance(count_limit, list) and len(count_limit) == 2:
        return TooManyTools(int(count_limit[0]), int(count_limit[1]))
    return None


def _read(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def progress(done: int, before: int, message: str, *args: Any) -> None:
    """Log ``message % args`` at INFO where ``done`` passed a multiple of
    :data:`PROGRESS_TOOLS` since ``before``."""
    if done // PROGRESS_TOOLS > before // PROGRESS_TOOLS:
        logger.info(message, *args)


def _no_tool_again(listed: list[Any], names: set[str], pages: int, before: int) -> None:
    """Note the names of ``listed`` (page ``pages``) in ``names``; raise
    :class:`ListingNeverEnds` where an earlier page listed one of them: a server whose pages
    repeat their tools under new cursors was read to ``max_tools`` and refused as too large
    ("lists more than max_tools (100,000) tools: 100,002 in 50,001 pages", 12.9 s, with the
    advice to split it; eighteenth security review). Two of one name in one page are the
    registration's to refuse ("listed twice")."""
    page = {name for tool in listed if isinstance(name := _read(tool, "name"), str)}
    again = page & names
    if again:
        raise ListingNeverEnds(
            f"the server's listing does not end: page {pages:,} lists tool "
            f"{min(again)!r} again, which an earlier page listed ({before:,} tools so far)"
        )
    names |= page


async def every_tool(
    client: Any, *, max_tools: int = DEFAULT_MAX_TOOLS, label: str = "an MCP server"
) -> list[Any]:
    """Every tool ``client`` (an ``mcp.Client``) lists, page after page to the end; raises
    :class:`TooManyTools` once more than ``max_tools`` were read (or a page had them) and
    :class:`ListingNeverEnds` for a cursor given twice or more pages than ``max_tools``.
    A large listing says how far it got (:func:`progress`; ``label`` names the server)."""
    tools: list[Any] = []
    seen: set[bytes] = set()  # digests of the cursors given (a cursor may be long)
    names: set[str] = set()  # the tools earlier pages listed
    cursor, pages = None, 0
    while True:
        try:
            page = await (client.list_tools(cursor=cursor) if cursor else client.list_tools())
        except Exception as exc:
            refused = _refused_page(exc)
            if refused is None:
                raise
            raise refused from None
        pages += 1
        before = len(tools)
        listed = list(_read(page, "tools") or [])
        _no_tool_again(listed, names, pages, before)
        tools.extend(listed)
        progress(len(tools), before, "%s: %d tools listed (%d pages)", label, len(tools), pages)
        if len(tools) > max_tools:
            raise TooManyTools(len(tools), max_tools, pages=pages)
        cursor = _read(page, "next_cursor", "nextCursor")
        if not cursor:
            return tools
        digest = hashlib.sha256(str(cursor).encode("utf-8", "replace")).digest()
        if digest in seen or pages > max_tools:
            why = (
                f"page {pages:,} gave a cursor an earlier page gave"
                if digest in seen
                else f"it went on past {pages:,} pages, more than max_tools ({max_tools:,})"
            )
            raise ListingNeverEnds(
                f"the server's listing does not end: {why} ({len(tools):,} tools so far)"
            )
        seen.add(digest)
