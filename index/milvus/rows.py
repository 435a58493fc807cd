"""What a :class:`~schemarouter.index.milvus.index.MilvusIndex` stores and how it reads results
back.

Pure functions, no pymilvus: the rows of a route (the same endpoint and field documents
as the in-process index, :mod:`schemarouter.index.documents`), the collection's metadata, filter
expressions, the roll-up of document hits to routes, and ``milvus://`` URIs.

**Rows.** One per document, primary key ``<route key>:<n>`` where the route key hashes the
route id with the route's fingerprint: a changed route gets new keys, so an update writes
the new version before it deletes the old one, and a retried write (an upsert) lands on
the same rows. ``text`` is the document's lexical text already cut into the project's
tokens (:func:`~schemarouter.index.tokenize.tokenize`, joined by spaces), so Milvus's
``standard`` analyzer and its BM25 function see the same terms as the in-process BM25.
``vector`` is the encoder's embedding of the dense text; a document without one (a field
known only by its name) stores zeros with ``has_vector = false`` and never enters a
dense search. ``provider``, ``effect``, ``access`` and ``sources`` carry the route's facets
for :class:`~schemarouter.index.backend.RouteFilter`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple
from urllib.parse import parse_qs, quote, unquote, urlsplit

from schemarouter.contracts import Route, route_sources
from schemarouter.errors import ArgumentError
from schemarouter.index.backend import RouteFilter
from schemarouter.index.documents import DocKind, route_documents
from schemarouter.index.settings import IndexSettings
from schemarouter.index.tokenize import tokenize

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_CONSISTENCY",
    "FUSIONS",
    "META_KEY",
    "SCHEMA_VERSION",
    "DocHit",
    "MilvusTarget",
    "filter_expression",
    "parse_milvus_uri",
    "redact_uri",
    "roll_up",
    "route_key",
    "route_rows",
]

DEFAULT_COLLECTION = "schemarouter_routes"
#: Reads see every write acknowledged before them (a registration is searchable at once).
#: "Bounded" trades that for latency on a cluster; see docs/scale.md.
DEFAULT_CONSISTENCY = "Strong"
#: Who fuses the lexical and dense lists (see :mod:`schemarouter.index.milvus.index`).
FUSIONS = ("router", "rrf", "weighted")
#: Collection property holding the metadata (JSON): format, encoder, settings, registry.
META_KEY = "schemarouter.index"
#: Version of the row layout; a collection written with another is refused.
SCHEMA_VERSION = 1
#: Milvus VARCHAR lengths are in bytes; texts are clipped to fit.
MAX_TEXT_BYTES = 65_000
MAX_ID_BYTES = 2_048
#: Settings that shape the stored documents (the rest only shape queries).
DOCUMENT_SETTINGS = ("tokenizer", "limits")
#: At most this many values in one ``in [...]`` expression.
IN_BATCH = 500


def route_key(route_id: str, route_fingerprint: str) -> str:
    """The key of one version of a route (its rows' primary keys start with it)."""
    return hashlib.sha256(f"{route_id}\0{route_fingerprint}".encode()).hexdigest()[:32]


def _clip(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


class PendingRow(NamedTuple):
    """A row before its vector is known: the dense text to embed ("" = none)."""

    row: dict[str, Any]
    dense_text: str


def route_rows(route: Route, settings: IndexSettings) -> list[PendingRow]:
    """The rows of ``route``: its endpoint document, then one per output field."""
    key = route_key(route.route_id, route.fingerprint)
    facets = {
        "route_key": key,
        "route_id": _clip(route.route_id, MAX_ID_BYTES),
        "route_fp": route.fingerprint,
        "provider": _clip(route.provider.id, MAX_ID_BYTES),
        "effect": route.endpoint.effect.value,
        "access": route.access.kind.value,
        "sources": sorted(s.value for s in route_sources(route)),
    }
    out = []
    for n, doc in enumerate(route_documents(route, settings.limits)):
        tokens = " ".join(tokenize(doc.text, settings.tokenizer))
        row = {
            "pk": f"{key}:{n}",
            **facets,
            "kind": int(doc.kind),
            "field": _clip(doc.field or "", MAX_ID_BYTES),
            "text": _clip(tokens, MAX_TEXT_BYTES),
            "has_vector": bool(doc.dense_text),
        }
        out.append(PendingRow(row, doc.dense_text))
    return out


def _literal(values: Iterable[str]) -> str:
    return json.dumps(sorted(values), ensure_ascii=False)


def filter_expression(filters: RouteFilter | None, *, dense: bool = False) -> str:
    """The Milvus boolean expression of ``filters`` (documents only, never metadata)."""
    parts = ["kind < 2"]
    if dense:
        parts.append("has_vector == true")
    if filters is not None:
        if filters.providers is not None:
            parts.append(f"provider in {_literal(filters.providers)}")
        if filters.effects is not None:
            parts.append(f"effect in {_literal(filters.effects)}")
        if filters.access_kinds is not None:
            parts.append(f"access in {_literal(filters.access_kinds)}")
        wanted = filters.wanted_sources()
        if wanted is not None:
            parts.append(f"ARRAY_CONTAINS_ANY(sources, {_literal(wanted)})")
    return " and ".join(parts)


def in_expression(field: str, values: Sequence[str]) -> str:
    return f"{field} in {_literal(values)}"


class DocHit(NamedTuple):
    """One document a Milvus search returned (``score``: higher is better)."""

    route_id: str
    kind: int
    field: str
    score: float


def doc_hits(result: Sequence[dict[str, Any]], *, bm25: bool = False) -> list[DocHit]:
    """Hits of one query. BM25 distances are scores; Milvus Lite reports them negated
    (smaller is better, as for its other metrics), a cluster does not: ``abs`` fits both."""
    out = []
    for hit in result:
        entity = hit.get("entity", hit)
        score = float(hit["distance"])
        out.append(
            DocHit(
                str(entity["route_id"]),
                int(entity["kind"]),
                str(entity.get("field") or ""),
                abs(score) if bm25 else score,
            )
        )
    return out


def roll_up(
    hits: Sequence[DocHit], *, field_weight: float, field_depth: int, field_floor: float | None
) -> tuple[dict[str, float], dict[str, dict[str, int]]]:
    """Route scores (max over a route's documents, field documents times ``field_weight``),
    best first, and ``route -> field -> rank`` of the field documents that hit: the best
    ``field_depth`` field documents, from ``field_floor`` up when one is given."""
    scores: dict[str, float] = {}
    fields: dict[str, dict[str, int]] = {}
    rank = 0
    for hit in hits:
        weighted = hit.score * field_weight if hit.kind == DocKind.FIELD else hit.score
        if hit.route_id not in scores or weighted > scores[hit.route_id]:
            scores[hit.route_id] = weighted
        if hit.kind == DocKind.FIELD and hit.field:
            rank += 1
            if rank <= field_depth and (field_floor is None or hit.score >= field_floor):
                fields.setdefault(hit.route_id, {}).setdefault(hit.field, rank)
    order = sorted(scores, key=lambda r: (-scores[r], r))
    return {r: scores[r] for r in order}, fields


class MilvusTarget(NamedTuple):
    """Where a collection lives: what ``MilvusClient`` needs, and the collection's name."""

    uri: str
    token: str
    db_name: str
    collection: str
    consistency_level: str

    @property
    def is_lite(self) -> bool:
        return not self.uri.startswith(("http://", "https://", "tcp://", "unix:"))

    def redacted(self) -> str:
        """The target for logs and errors: never the token, a password or a query string."""
        return f"{redact_uri(self.uri)}#{self.db_name or 'default'}/{self.collection}"

    def redact(self, text: str) -> str:
        """``text`` (an engine's error message, say) without the token or a password the
        URI carries, in any of the forms a client library may print them."""
        secrets = {self.token, *self.token.split(":", 1)[1:]} if self.token else set()
        userinfo = urlsplit(self.uri).password if "://" in self.uri else None
        if userinfo:
            secrets.add(userinfo)
        for secret in sorted((s for s in secrets if len(s) >= 3), key=len, reverse=True):
            for form in (secret, quote(secret, safe=""), quote(secret)):
                text = text.replace(form, "[redacted]")
        return text


def redact_uri(uri: str) -> str:
    """``uri`` without userinfo (``root:password@``) or query string (``?token=``)."""
    if "://" not in uri:
        return uri.split("?", 1)[0]
    scheme, _, rest = uri.partition("://")
    authority, slash, path = rest.partition("/")
    host = authority.rsplit("@", 1)[-1]
    return f"{scheme}://{host}{slash}{path.split('?', 1)[0]}"


_URI_FORMS = (
    "milvus://HOST:PORT[/COLLECTION][?token=..&db=..]; milvus+https://HOST[:PORT]; "
    "milvus+lite:///PATH/routes.db[?collection=..]"
)


def _bad_uri(what: str, uri: str) -> ArgumentError:
    return ArgumentError(
        what, where=f"Milvus URI {redact_uri(uri)[:200]!r}", hint=f"Write it as {_URI_FORMS}"
    )


def parse_milvus_uri(uri: str) -> dict[str, str]:
    """``MilvusIndex`` arguments from a URI (see docs/scale.md)::

        milvus://HOST:PORT[/COLLECTION][?token=..&db=..&consistency=..&fusion=..]
        milvus+https://HOST[:PORT][/COLLECTION][?...]      TLS
        milvus://USER:PASSWORD@HOST:PORT/...              the same as token=USER:PASSWORD
        milvus+lite:///ABSOLUTE/PATH/routes.db[?collection=..]   Milvus Lite, embedded
        milvus+lite://relative/routes.db                  (relative to the working folder)

    The token may also come from ``$MILVUS_TOKEN`` (keeps it out of shell history). A URI
    that says none of these is an :class:`~schemarouter.errors.ArgumentError` (also a
    ``ValueError``) naming the URI without its secrets.
    """
    if not isinstance(uri, str):
        raise ArgumentError(
            f"a Milvus URI must be text, got {type(uri).__name__}", where="Milvus URI"
        )
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme not in ("milvus", "milvus+https", "milvus+lite"):
        raise _bad_uri("not a milvus:// URI", uri)
    try:
        parts = urlsplit(f"x://{rest}")
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        username, password, port = parts.username, parts.password, parts.port
    except ValueError as exc:  # a port that is no number, an unclosed IPv6 bracket
        raise _bad_uri(f"not a valid Milvus URI ({exc})", uri) from None
    unknown = set(query) - {"token", "db", "consistency", "collection", "fusion"}
    if unknown:
        raise _bad_uri(f"unknown Milvus URI parameters {sorted(unknown)}", uri)
    if query.get("fusion") and query["fusion"] not in FUSIONS:
        raise _bad_uri(
            f"unknown fusion {query['fusion'][:40]!r} (one of {', '.join(FUSIONS)})", uri
        )
    path = unquote(parts.path)
    out: dict[str, str] = {}
    if scheme == "milvus+lite" or (not parts.netloc and path.endswith(".db")):
        location = f"{parts.netloc}{path}" if scheme == "milvus+lite" else path
        if not location:
            raise _bad_uri("a Milvus Lite URI needs a file path", uri)
        out["uri"] = location
    else:
        host = parts.hostname
        if not host:
            raise _bad_uri("a milvus:// URI needs HOST:PORT", uri)
        proto = "https" if scheme == "milvus+https" else "http"
        netloc = f"[{host}]" if ":" in host else host
        out["uri"] = f"{proto}://{netloc}" + (f":{port}" if port is not None else "")
        name = path.strip("/")
        if name:
            out["collection"] = name
    if "collection" in query:
        out["collection"] = query["collection"]
    token = query.get("token") or os.environ.get("MILVUS_TOKEN", "")
    if username is not None and not query.get("token"):
        # Milvus reads user and password as the token "user:password"; never in the URI
        token = f"{unquote(username)}:{unquote(password or '')}"
    if token:
        out["token"] = token
    if query.get("db"):
        out["db_name"] = query["db"]
    if query.get("consistency"):
        out["consistency_level"] = query["consistency"]
    if query.get("fusion"):
        out["fusion"] = query["fusion"]
    return out
