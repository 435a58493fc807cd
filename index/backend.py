"""The index behind the router: one interface, two implementations.

::

    SchemaRouter ──► RouteIndex ──┬── HybridIndex   BM25 + FAISS in this process, plain files
                                  └── MilvusIndex   a Milvus collection (Milvus Lite file or a
                                                    cluster by URI), behind the ``milvus`` extra

What the router needs from an index, and nothing more (:class:`RouteIndex`):

* ``apply(snapshot, change)``: bring the index to a registry snapshot. The difference is
  computed from route fingerprints (routes added, replaced, removed), so a missed or
  repeated change cannot leave it wrong.
* ``search(query, k=, mode=, filters=)``: the ``k`` best routes as :class:`RouteHit` rows
  (fused score, each retriever's score and rank, the field documents that matched), the
  input of the router's query analysis, abstention features, reranker and state filters.
  :class:`RouteFilter` keeps only routes of some providers, effects, source types or access
  kinds, inside the index (so ``k`` routes still come back).
* ``known_token_share(query)``: the abstention feature read from the lexical vocabulary.

``search`` and ``known_token_share`` take the request's text or its
:class:`~schemarouter.index.tokenize.QueryText` (the router makes one per request, so the
request is tokenized once for the search, the known-word share and the word coverage).
* ``check_current(snapshot)``, ``describe()``, ``encoder_identity``, ``registry_fingerprint``.

An index that must first be attached to a registry (a Milvus collection named by a URI)
is a :class:`DeferredIndex`: the router calls ``open(snapshot)`` on first use, which checks
(or builds) it and returns the ready index. :func:`open_index` turns whatever was passed as
``SchemaRouter(index=...)`` into a ready index.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    TypedDict,
    Unpack,
    get_args,
    runtime_checkable,
)

from schemarouter.contracts import AccessKind, Effect, Route, SourceType, route_sources
from schemarouter.index.settings import RouteHit
from schemarouter.registry.registry import RegistryChange, RegistrySnapshot

if TYPE_CHECKING:
    from schemarouter.index.cache import EmbeddingCache, EmbedStats
    from schemarouter.index.encoders.dense import Encoder
    from schemarouter.index.tokenize import QueryText

__all__ = [
    "MILVUS_SCHEMES",
    "BuildOptions",
    "DeferredIndex",
    "OpenOptions",
    "RouteFilter",
    "RouteIndex",
    "SearchMode",
    "check_search_mode",
    "is_milvus_uri",
    "looks_like_uri",
]

#: How a search combines its two sides: both fused, or one alone.
SearchMode = Literal["hybrid", "lexical", "dense"]
#: URI schemes that name a Milvus collection (see :mod:`schemarouter.index.milvus.index`).
MILVUS_SCHEMES = ("milvus://", "milvus+https://", "milvus+lite://")


def check_search_mode(mode: str) -> None:
    """``ValueError`` unless ``mode`` is a :data:`SearchMode` (every index's ``search``)."""
    if mode not in get_args(SearchMode):
        raise ValueError(f"unknown search mode {mode!r} (hybrid, lexical or dense)")


def _frozen(values: Iterable[Any] | None, kind: Any = str) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    return frozenset(str(kind(v)) for v in values)


@dataclass(frozen=True)
class RouteFilter:
    """Which routes a search may return; ``None`` = no constraint on that facet.

    A route passes when its provider id, its endpoint's effect and its access kind are in
    the given sets, and (for ``source_types``) one of its fields or its provider has one of
    the wanted source types or an unknown one: the rule the router's provenance filter uses
    (:func:`schemarouter.retrieval.candidates.matches_sources`).
    """

    providers: frozenset[str] | None = None
    effects: frozenset[str] | None = None
    source_types: frozenset[str] | None = None
    access_kinds: frozenset[str] | None = None

    @classmethod
    def of(
        cls,
        *,
        providers: Iterable[str] | str | None = None,
        effects: Iterable[Effect | str] | Effect | str | None = None,
        source_types: Iterable[SourceType | str] | SourceType | str | None = None,
        access_kinds: Iterable[AccessKind | str] | AccessKind | str | None = None,
    ) -> RouteFilter:
        """A filter from plain values (checked: an unknown effect, source type or access
        kind raises ``ValueError`` naming it)."""
        return cls(
            providers=_frozen(providers),
            effects=_frozen(effects, Effect),
            source_types=_frozen(source_types, SourceType),
            access_kinds=_frozen(access_kinds, AccessKind),
        )

    @property
    def empty(self) -> bool:
        return all(
            v is None for v in (self.providers, self.effects, self.source_types, self.access_kinds)
        )

    def wanted_sources(self) -> frozenset[str] | None:
        if self.source_types is None:
            return None
        return self.source_types | {SourceType.UNKNOWN.value}

    def matches(self, route: Route) -> bool:
        if self.providers is not None and route.provider.id not in self.providers:
            return False
        if self.effects is not None and route.endpoint.effect.value not in self.effects:
            return False
        if self.access_kinds is not None and route.access.kind.value not in self.access_kinds:
            return False
        wanted = self.wanted_sources()
        return wanted is None or bool({s.value for s in route_sources(route)} & wanted)


class BuildOptions(TypedDict, total=False):
    """How an index embeds what it adds: the keywords of ``apply`` (and of ``open`` and
    ``rebuild``, with :class:`OpenOptions`' encoder), the same for every backend."""

    #: vectors kept between runs, by encoder and document text (None: embed everything)
    cache: EmbeddingCache | None
    #: progress bars while embedding (default False)
    progress: bool


class OpenOptions(BuildOptions, total=False):
    """The keywords of ``DeferredIndex.open`` (and ``MilvusIndex.rebuild``)."""

    #: the encoder to embed with (None: the index's own, else the shipped encoder)
    encoder: Encoder | None


@runtime_checkable
class RouteIndex(Protocol):
    """What the router calls on its index (see the module docstring)."""

    @property
    def encoder_identity(self) -> str: ...

    @property
    def registry_fingerprint(self) -> str: ...

    @property
    def registry_version(self) -> int: ...

    def __len__(self) -> int: ...

    def apply(
        self,
        snapshot: RegistrySnapshot,
        change: RegistryChange | None = None,
        **options: Unpack[BuildOptions],
    ) -> EmbedStats: ...

    def search(
        self,
        query: str | QueryText,
        *,
        k: int = 50,
        mode: SearchMode = "hybrid",
        filters: RouteFilter | None = None,
    ) -> list[RouteHit]: ...

    def known_token_share(self, query: str | QueryText) -> float: ...

    def check_current(self, snapshot: RegistrySnapshot) -> None: ...

    def describe(self) -> dict[str, Any]: ...


@runtime_checkable
class DeferredIndex(Protocol):
    """An index to attach to a registry on first use (``open`` checks or builds it)."""

    def open(self, snapshot: RegistrySnapshot, **options: Unpack[OpenOptions]) -> RouteIndex: ...


def is_milvus_uri(value: object) -> bool:
    return isinstance(value, str) and value.startswith(MILVUS_SCHEMES)


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")


def looks_like_uri(value: object) -> bool:
    """Whether ``value``, not a Milvus URI, is still written as a URI (``://``, a scheme
    followed by ``/``, or a ``milvus``-like scheme: ``milvus+lte:///x.db``, ``mivlus://h``,
    ``milvus:/oops``) rather than an index folder: a misspelt Milvus URI, refused as one
    (:func:`~schemarouter.index.milvus.rows.parse_milvus_uri`) where it would otherwise be
    read as a folder that holds no index. A path that exists is a path."""
    if not isinstance(value, str) or is_milvus_uri(value):
        return False
    scheme = _SCHEME.match(value)
    if "://" not in value and not scheme:
        return False
    try:
        if Path(value).exists():
            return False
    except OSError:
        pass
    if "://" in value:
        return True
    assert scheme is not None
    first = scheme.group(1).split("+")[0].lower()
    rest = value[scheme.end() :]
    return rest.startswith("/") or difflib.SequenceMatcher(None, first, "milvus").ratio() >= 0.8
