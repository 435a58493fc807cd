"""Human API docs as lines: HTML reduced to text with the standard library's ``html.parser``
(``<pre>`` becomes a fenced block, table rows become ``| a | b |`` lines); Markdown and plain
text are read as they are."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["header_row", "header_words", "table_row", "to_text"]


class _Text(HTMLParser):
    _BLOCKS = frozenset(
        {
            "p",
            "div",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "section",
            "br",
            "tr",
            "table",
            "ul",
            "ol",
            "dt",
            "dd",
            "article",
            "header",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag == "pre":
            self.pre += 1
            self.out.append("\n```\n")
        elif tag in ("li", "dt"):  # a definition list's term reads as a bullet
            self.out.append("\n- ")
        elif tag == "dd":  # ... and its definition as the bullet's words
            self.out.append(": ")
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif re.fullmatch(r"h[1-6]", tag):  # a heading reads as Markdown's
            self.out.append("\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "dt":
            return
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.out.append("\n```\n")
        elif tag == "tr":
            self.out.append(" |\n")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def to_text(text: str) -> str:
    if not re.search(r"<(html|body|p|div|h[1-6]|pre|table|ul|code)\b", text, re.IGNORECASE):
        return text
    parser = _Text()
    parser.feed(text)
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.out).splitlines()]
    return "\n".join(line for line in lines if line.strip() or False)


def table_row(line: str) -> list[str] | None:
    """The cells of a ``| a | b |`` line; ``None`` for another line or a ``|---|`` rule."""
    if not line.strip().startswith("|"):
        return None
    cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
    return None if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c) else cells


#: Words a table's header row is made of: a row of these only, after another table's rows, is
#: the next table's header (two HTML tables with nothing between them read as one).
_HEADER_WORDS = frozenset(
    ("name", "parameter", "field", "type", "unit", "required", "description", "in", "default")
)


def header_row(cells: list[str]) -> bool:
    """Whether a table row's cells, lower case, are a header (``field | type | unit``)."""
    return cells[:1] in (["name"], ["parameter"], ["field"]) and set(cells) <= _HEADER_WORDS


#: A table's Korean header words, read as the English ones.
_HEADER = {
    "이름": "name", "매개변수": "parameter", "파라미터": "parameter", "필드": "field",
    "항목": "field", "타입": "type", "유형": "type", "자료형": "type", "형식": "type",
    "필수": "required", "필수 여부": "required", "설명": "description", "단위": "unit",
    "위치": "in",
}  # fmt: skip


def header_words(cells: list[str]) -> list[str]:
    """A table row's cells, lower case, a Korean header word as the English one."""
    return [_HEADER.get(c.lower(), c.lower()) for c in cells]
