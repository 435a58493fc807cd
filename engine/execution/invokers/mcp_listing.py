"""A server's whole tool listing, read page by page within a bound on its tools.

A server registers whole or not at all, so a listing too large to register was read whole,
then compiled until the registration's size limit refused it: a server listing 100,000
tools was refused at ``tools[50000]`` after 10 to 32 s and 0.5 to 1.1 GB (sixteenth
review). :func:`every_tool` stops reading past ``max_tools`` (:data:`DEFAULT_MAX_TOOLS`) and
raises :class:`TooManyTools`, which says how many tools, the limit and what to do; a stdio
transport refuses a single page past it before the SDK reads its tools
(:func:`page_too_large`), a streamable-HTTP one as the page arrives, once it has read more
than ``max_tools`` of its tools (:class:`PageCount`). A listing is read to its end: its pages
were cut at 100, so a server of 60,000 tools in pages of 100 registered its first 10,000 and
said nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from schemarouter.registry.progress import EVERY, step

__all__ = [
    "DEFAULT_MAX_TOOLS",
    "NODES_PER_TOOL",
    "ListingNeverEnds",
    "PageCount",
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
PROGRESS_TOOLS = EVERY
#: Marks the error a transport answers a page past ``max_tools`` with (its ``data``).
_MARK = "schemarouter.max_tools"


class TooManyTools(RuntimeError):
    """A server lists more than ``max_tools`` tools: what was read of its listing is
    dropped, nothing is registered."""

    retryable = False

    def __init__(
        self, count: int, limit: int, *, pages: int | None = None, at_least: bool = False
    ) -> None:
        if pages is None:
            many = f"at least {count:,}" if at_least else f"{count:,}"
            listed = f"{many} tools in one page, more than max_tools ({limit:,})"
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
    return _page_error(len(tools), limit, at_least=False)


def _page_error(count: int, limit: int, *, at_least: bool) -> dict[str, Any]:
    said = str(TooManyTools(count, limit, at_least=at_least))
    return {"code": -32603, "message": said, "data": {_MARK: [count, limit, at_least]}}


_BLANK = re.compile(r"[ \t\n\r]*")


def _after(text: str, pos: int, char: str) -> int:
    """The place after ``char`` (blanks around it skipped) at ``pos``; -1 where it is not."""
    pos = _BLANK.match(text, pos).end()  # type: ignore[union-attr]
    if not text.startswith(char, pos):
        return -1
    return _BLANK.match(text, pos + 1).end()  # type: ignore[union-attr]


def _members(text: str, pos: int, want: str) -> int:
    """The place of the value of member ``want`` of the object whose first member is at
    ``pos`` (the members before it read whole); -1 where ``text`` ends first."""
    decoder = json.JSONDecoder()
    while text.startswith('"', pos):
        key, pos = decoder.raw_decode(text, pos)
        pos = _after(text, pos, ":")
        if pos < 0 or key == want:
            return pos
        _, pos = decoder.raw_decode(text, pos)
        pos = _after(text, pos, ",")
        if pos < 0:
            return -1
    return -1


def tools_begun(text: str) -> tuple[int, bool]:
    """How many whole tools the ``result.tools`` of the JSON-RPC reply that ``text``
    begins lists (``text`` may stop anywhere; 0 where it stops before them), and whether
    the list ends in ``text``."""
    decoder = json.JSONDecoder()
    try:
        pos = _after(text, 0, "{")
        pos = _members(text, pos, "result") if pos >= 0 else -1
        pos = _after(text, pos, "{") if pos >= 0 else -1
        pos = _members(text, pos, "tools") if pos >= 0 else -1
        pos = _after(text, pos, "[") if pos >= 0 else -1
    except ValueError:
        return 0, False
    count = 0
    while 0 <= pos < len(text) and text[pos] != "]":
        try:
            _, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
        count += 1
        pos = _BLANK.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _BLANK.match(text, pos + 1).end()  # type: ignore[union-attr]
        elif not text.startswith("]", pos):
            break
    return count, 0 <= pos < len(text) and text[pos] == "]"


class PageCount:
    """Counts the tools of a ``tools/list`` reply as its bytes arrive, to refuse a page of
    more than ``limit`` tools before it is read whole: over streamable HTTP, a page of
    80,000 tools (18 MB, under the 20 MiB message cap) was read and made the SDK's objects
    before :func:`every_tool` counted them (6.5 s and 760 MB). Each tool has a ``"name"``
    key, so its count bounds the tools; past ``limit``, the reply read so far is parsed
    (:func:`tools_begun`) each time it has grown by a quarter, and where it lists more than
    ``limit`` whole tools, :meth:`feed` says so. ``text`` makes the JSON of the bytes read
    (a server-sent event's ``data`` lines)."""

    GROWTH = 1.25

    def __init__(self, limit: int, text: Callable[[bytes], str]) -> None:
        self.limit, self.text = limit, text
        self.names = 0
        self.scanned = 0  # bytes counted for names
        self.parsed = 0  # bytes parsed at the last try

    def feed(self, message: bytes | bytearray, *, whole: bool) -> dict[str, Any] | None:
        """The JSON-RPC error that answers the reply ``message`` (read so far, or ``whole``)
        where it lists more than ``limit`` tools; ``None`` where it is not known to."""
        self.names += message.count(b'"name"', max(0, self.scanned - 5))
        self.scanned = len(message)
        if self.names <= self.limit:
            return None
        if not whole and len(message) < self.parsed * self.GROWTH:
            return None
        self.parsed = len(message)
        if whole:  # the whole reply: read as the SDK would, its tools counted exactly
            try:
                reply = json.loads(self.text(bytes(message)))
            except ValueError:
                return None  # the SDK's reading says what is wrong
            result = reply.get("result") if isinstance(reply, dict) else None
            return page_too_large(result, self.limit)
        count, ended = tools_begun(self.text(bytes(message)))
        return _page_error(count, self.limit, at_least=not ended) if count > self.limit else None


def _refused_page(error: BaseException) -> TooManyTools | None:
    data = getattr(error, "data", None)
    count_limit = data.get(_MARK) if isinstance(data, Mapping) else None
    if isinstance(count_limit, list) and len(count_limit) in (2, 3):
        at_least = len(count_limit) == 3 and count_limit[2] is True
        return TooManyTools(int(count_limit[0]), int(count_limit[1]), at_least=at_least)
    return None


def _read(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def progress(done: int, before: int, message: str, *args: Any) -> None:
    """Log ``message % args`` at INFO where ``done`` passed a multiple of
    :data:`PROGRESS_TOOLS` since ``before`` (:func:`~schemarouter.registry.progress.step`)."""
    step(done, before, message, *args)


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
