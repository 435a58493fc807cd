"""Readable names for what an OpenAPI document registers: provider ids and endpoint ids.

A route's tool name joins its provider, access path and endpoint ids with ``__``
(``spotify__rest__get_albums_id``) and must stay within 64 characters of ``[A-Za-z0-9_-]``
(:mod:`schemarouter.integrations.names`, which hashes a name it cannot use as it is). So:

- **provider id**, where the caller gives none: the document's ``info.title`` without the
  words every API title carries (``GitHub v3 REST API``: ``github``; ``Spotify Web API``:
  ``spotify``; ``NetworkManagementClient``: ``network_management``; ``Amazon Route 53``:
  ``amazon_route_53``), else the base URL's host (``api.spotify.com``: ``spotify``), else
  the file's name; at most three words and 28 characters, never a ``.``; a second document
  that would take the id of a provider registered from another document gets ``_2``;
- **endpoint id**: the ``operationId``'s words (``repos/get-content``: ``repos_get-content``),
  else the method and the path's meaningful words: version segments (``v3``,
  ``2010-04-01``) and file extensions (``.json``) left out, path parameters too but a final
  one (``GET /2010-04-01/Accounts/{AccountSid}/SMS/ShortCodes/{Sid}.json``:
  ``get_accounts_sms_short_codes_sid``); never a ``.``;
- an endpoint id that would make the tool name longer than 64 characters is shortened
  readably (repeated and filler words dropped, then the longest middle words cut to five
  letters, then middle words dropped), and the registration says so in a warning: never
  cut silently. Ids stay unique within the document (``_2``, ``_3`` in document order).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from schemarouter.registry.compile import slugify

__all__ = [
    "MAX_PROVIDER_ID",
    "endpoint_budget",
    "endpoint_slug",
    "fit_endpoint_id",
    "provider_slug",
]

#: Longest provider id derived from a document (explicit ones are the caller's), and its
#: words: a longer id leaves the endpoint ids less room in a 64-character tool name (on the
#: 124 shared documents, 4 words and 32 characters shortened 208 endpoint ids, 3 and 28
#: fewer; titles that still meet, "Amazon EC2 Container Registry" and "... Service", get
#: ``_2`` when registered together).
MAX_PROVIDER_ID = 28
_MAX_PROVIDER_WORDS = 3
_MAX_TOOL_NAME = 64
#: Words nearly every API title carries: they tell one provider from no other.
_GENERIC = frozenset(
    {
        "a",
        "an",
        "the",
        "api",
        "apis",
        "rest",
        "restful",
        "web",
        "http",
        "https",
        "service",
        "services",
        "openapi",
        "swagger",
        "spec",
        "specification",
        "client",
        "server",
        "public",
        "documentation",
        "docs",
        "reference",
        "version",
        "for",
        "of",
        "and",
    }
)
_VERSION = re.compile(r"^(?:v\d+(?:[._]\d+)*[a-z]?|\d+(?:[._-]\d+)*|(?:19|20)\d\d-\d\d-\d\d)$")
#: A version in a title: ``v3``, ``2.0``, a year; a plain number is a name (``Route 53``).
_TITLE_VERSION = re.compile(r"^(?:v\d+(?:[._]\d+)*[a-z]?|\d+(?:[._-]\d+)+|(?:19|20)\d\d)$")
_FILLER = frozenset({"by", "for", "the", "of", "a", "an", "and", "in", "on", "with", "to", "from"})
_HOST_PREFIXES = frozenset({"api", "apis", "www", "rest", "developer", "developers", "dev", "app"})


def _words(text: str) -> list[str]:
    """Lower-case words of ``text``; a long camelCase word is split (``NetworkManagement``)."""
    words: list[str] = []
    for raw in re.findall(r"[A-Za-z0-9]+(?:\.[0-9]+)*", text):  # "2.0" stays one word
        if len(raw) > 12 and re.search(r"[a-z][A-Z]", raw):
            words.extend(w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", raw))
        else:
            words.append(raw.lower())
    return words


def _join(words: list[str], limit: int = MAX_PROVIDER_ID) -> str:
    out = ""
    for word in words[:_MAX_PROVIDER_WORDS]:
        candidate = f"{out}_{word}" if out else word
        if len(candidate) > limit:
            break
        out = candidate
    return out or words[0][:limit]


def _host_words(url: str | None) -> list[str]:
    if not url:
        return []
    host = (urlsplit(url).hostname or "").lower()
    labels = [p for p in host.split(".") if p]
    if len(labels) < 2 or all(p.isdigit() for p in labels):
        return []  # localhost, an IP address
    labels = labels[:-1]  # the top-level domain
    if len(labels) > 1 and len(labels[-1]) <= 3 and labels[-1] in {"co", "com", "ac", "gov", "org"}:
        labels = labels[:-1]  # bbc.co.uk
    labels = [p for p in labels if p not in _HOST_PREFIXES] or labels
    return _words(labels[-1])


def provider_slug(title: object, base_url: str | None, fallback: str) -> str:
    """A provider id for a document whose caller named none (see the module docstring)."""
    if isinstance(title, str):
        words = [w for w in _words(title) if w not in _GENERIC and not _TITLE_VERSION.match(w)]
        if words:
            return _join(words)
    words = _host_words(base_url)
    if words:
        return _join(words)
    words = [w for w in _words(fallback) if not _VERSION.match(w)] or ["api"]
    return _join([w.replace(".", "_") for w in words])


def endpoint_slug(operation_id: str, method: str, path: str) -> str:
    """The endpoint id's words before any shortening (see the module docstring)."""
    if operation_id:
        return _clean(slugify(operation_id, max_length=10_000))
    segments = [s for s in path.split("/") if s]
    words: list[str] = [method.lower()]
    for i, segment in enumerate(segments):
        segment = re.sub(r"\.(json|xml|yaml|yml|csv|txt|html)$", "", segment, flags=re.IGNORECASE)
        template = re.fullmatch(r"\{([^{}]+)\}", segment)
        if template and i < len(segments) - 1:
            continue  # an inner path parameter: the segment before it names the collection
        text = template.group(1) if template else segment
        if _VERSION.match(text.lower()):
            continue
        for word in _clean(slugify(text, max_length=10_000)).split("_"):
            if word and word != words[-1]:
                words.append(word)
    return "_".join(words)


def _clean(slug: str) -> str:
    """No ``.`` (tool names cannot hold one) and no run of ``_`` (``__`` separates parts)."""
    return re.sub(r"_+", "_", slug.replace(".", "_")).strip("_-") or "x"


def fit_endpoint_id(slug: str, budget: int) -> str:
    """``slug`` shortened readably to at most ``budget`` characters (itself where it fits)."""
    budget = max(budget, 16)
    if len(slug) <= budget:
        return slug
    words = slug.split("_")
    seen: set[str] = set()
    kept = []
    for i, word in enumerate(words):  # repeated words and fillers (never the first or last)
        if 0 < i < len(words) - 1 and (word in seen or word in _FILLER):
            continue
        seen.add(word)
        kept.append(word)
    words = kept
    while len("_".join(words)) > budget:
        middle = [i for i in range(1, len(words) - 1) if len(words[i]) > 5]
        if not middle:
            break
        longest = max(middle, key=lambda i: (len(words[i]), -i))
        words[longest] = words[longest][:5]
    while len("_".join(words)) > budget and len(words) > 2:
        del words[len(words) // 2]
    text = "_".join(words)
    return text if len(text) <= budget else text[:budget].rstrip("_-")


def endpoint_budget(provider_id: str, access_id: str) -> int:
    """Characters an endpoint id may have for the tool name to stay within 64."""
    return _MAX_TOOL_NAME - len(provider_id) - len(access_id) - 4
