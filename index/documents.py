"""Searchable documents built from registry contracts.

Every route gives one **endpoint document** (provider display name and aliases, endpoint
name, operation, summary and description, parameter names and descriptions, output field
names) and one **field document** per output field (name, semantic id, aliases,
description, unit, qualifiers, and the endpoint's name). A field document that matches a
query rolls up to its route and names the field in ``RouteHit.matched_fields``.

Each document has two texts:

* ``text`` feeds BM25: everything above, markup stripped, descriptions clipped.
* ``dense_text`` feeds the sentence encoder, and is kept short because the encoder's cost
  grows with length. A field's dense text leaves out its endpoint's name on purpose:
  identical fields (``NextMarker``, ``created_at``, ``band_gap [eV]``) then share one
  text, which is embedded once and stored once; the endpoint document carries the
  route-specific words. A field known only by its name (no description, semantic id,
  aliases, unit or qualifiers) has no dense text: the endpoint's dense text already lists
  field names, and bare names such as ``status`` or ``data.id`` matched queries at random
  (on StableToolBench G1, where every field is a bare name, dense R@5 fell from 0.70 to
  0.68 with them).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from enum import IntEnum
from functools import lru_cache
from typing import NamedTuple

from schemarouter.contracts import OutputField, Route

__all__ = [
    "DEFAULT_TEXT_LIMITS",
    "DocKind",
    "Document",
    "TextLimits",
    "clean_text",
    "endpoint_texts",
    "field_texts",
    "route_documents",
]


class DocKind(IntEnum):
    ENDPOINT = 0
    FIELD = 1


class Document(NamedTuple):
    route_id: str
    kind: DocKind
    #: The output field's name for field documents, ``None`` for endpoint documents.
    field: str | None
    text: str
    dense_text: str


class TextLimits(NamedTuple):
    """Character budgets (the encoder sees about one word piece per four characters)."""

    #: Description kept in the lexical endpoint text.
    lexical_description: int = 1500
    #: Whole dense endpoint text.
    dense_endpoint: int = 280
    #: Description inside the dense endpoint text.
    dense_description: int = 160
    #: Whole dense field text.
    dense_field: int = 160
    #: Field documents per route (the rest are still named in the endpoint document).
    max_fields: int = 100


DEFAULT_TEXT_LIMITS = TextLimits()

_TAG = re.compile(r"<[^>]{0,200}>")
_SPACE = re.compile(r"\s+")


def clean_text(text: str, limit: int | None = None) -> str:
    """Markup stripped, entities decoded, whitespace collapsed, clipped at a word boundary."""
    if not text:
        return ""
    return _clean_text(text, limit)


@lru_cache(maxsize=16384)  # catalogs repeat descriptions (one API under many providers)
def _clean_text(text: str, limit: int | None) -> str:
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "&" in text:
        text = html.unescape(text)
    text = _SPACE.sub(" ", text).strip()
    if limit is not None and len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        text = text[: cut if cut > limit // 2 else limit].rstrip(" ,;:.")
    return text


def _join(parts: Iterable[str]) -> str:
    return " ".join(p for p in parts if p)


def _operation_words(route: Route) -> list[str]:
    op = route.endpoint.operation
    return [op.method or "", op.path or "", op.tool or "", op.qualname or ""]


def endpoint_texts(route: Route, limits: TextLimits = DEFAULT_TEXT_LIMITS) -> tuple[str, str]:
    """``(lexical text, dense text)`` of a route's endpoint document."""
    provider = route.provider
    endpoint = route.endpoint
    description = endpoint.description or ""
    summary = endpoint.summary or ""
    if summary and summary in description:
        summary = ""
    params = endpoint.parameters
    fields = endpoint.output_fields
    lexical = _join(
        [
            provider.display_name,
            " ".join(provider.aliases),
            endpoint.name,
            _join(_operation_words(route)),
            clean_text(summary, limits.lexical_description),
            clean_text(description, limits.lexical_description),
            _join(
                _join([p.name, " ".join(p.aliases), clean_text(p.description, 200)]) for p in params
            ),
            _join(f.name for f in fields),
            " ".join(endpoint.intents),
        ]
    )
    about = clean_text(summary or description, limits.dense_description)
    dense = f"{provider.display_name}: {endpoint.name}"
    if about:
        dense += f". {about}"
    if params:
        dense += ". Inputs: " + ", ".join(p.name for p in params[:8])
    if fields:
        dense += ". Returns: " + ", ".join(f.name for f in fields[:8])
    return lexical, clean_text(dense, limits.dense_endpoint)


def _qualifier_words(item: OutputField) -> str:
    return _join(f"{k} {v}" for k, v in sorted(item.qualifiers.items()))


def field_texts(
    route: Route, item: OutputField, limits: TextLimits = DEFAULT_TEXT_LIMITS
) -> tuple[str, str]:
    """``(lexical text, dense text)`` of one output field's document."""
    semantic = item.semantic_id or ""
    aliases = " ".join(item.aliases)
    description = clean_text(item.description, 400)
    unit = item.unit or ""
    qualifiers = _qualifier_words(item)
    lexical = _join(
        [item.name, semantic, aliases, description, unit, qualifiers, route.endpoint.name]
    )
    if not (semantic or aliases or description or unit or qualifiers):
        # A bare name ("status", "data.id") says nothing the encoder can use that the
        # endpoint document (which lists field names) does not; no dense document.
        return lexical, ""
    dense = item.name
    extra = ", ".join(x for x in (semantic.replace("_", " ").replace(".", " "), aliases) if x)
    if extra:
        dense += f" ({extra})"
    if description:
        dense += f": {description}"
    if unit:
        dense += f" [{unit}]"
    if qualifiers:
        dense += f" {qualifiers}"
    return lexical, clean_text(dense, limits.dense_field)


def route_documents(route: Route, limits: TextLimits = DEFAULT_TEXT_LIMITS) -> list[Document]:
    """The endpoint document of ``route`` first, then one document per output field."""
    lexical, dense = endpoint_texts(route, limits)
    docs = [Document(route.route_id, DocKind.ENDPOINT, None, lexical, dense)]
    for item in route.endpoint.output_fields[: limits.max_fields]:
        lexical, dense = field_texts(route, item, limits)
        docs.append(Document(route.route_id, DocKind.FIELD, item.name, lexical, dense))
    return docs
