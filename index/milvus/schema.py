"""The Milvus collection of a :class:`~schemarouter.index.milvus.index.MilvusIndex`: its fields,
indexes and metadata (pymilvus is passed in, never imported here).

=============  =====================  ==================================================
field          type                   holds
=============  =====================  ==================================================
pk             VARCHAR (primary)      ``<route key>:<n>``, n = 0 for the endpoint document
route_key      VARCHAR                hash of route id and route fingerprint (one version)
route_id       VARCHAR                the route
route_fp       VARCHAR                the route's fingerprint
kind           INT8                   0 endpoint document, 1 field document
field          VARCHAR                the output field's name ("" for endpoints)
provider       VARCHAR                filter: the provider id
effect         VARCHAR                filter: read / write / destructive
access         VARCHAR                filter: openapi / http / mcp / optimade / python
sources        ARRAY<VARCHAR>         filter: source types of the route and its fields
text           VARCHAR, analyzed      the project's tokens of the lexical text
sparse         SPARSE_FLOAT_VECTOR    BM25 function output over ``text`` (BM25 metric)
has_vector     BOOL                   whether ``vector`` is an embedding (else zeros)
vector         FLOAT_VECTOR(dim)      the encoder's L2-normalized embedding (IP metric)
=============  =====================  ==================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.errors import CorruptIndexError, StaleIndexError
from schemarouter.index.encoders.dense import Encoder
from schemarouter.index.milvus.rows import DOCUMENT_SETTINGS, META_KEY, SCHEMA_VERSION
from schemarouter.index.settings import IndexSettings
from schemarouter.registry.bounds import UnreadableFile, load_json
from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["FORMAT", "check_meta", "collection_schema", "new_meta", "read_meta"]

FORMAT = "schemarouter-milvus-index"
_REBUILD = "rebuild it (`schemarouter index build --backend milvus --rebuild`)"


def collection_schema(
    pymilvus: Any, client: Any, *, dim: int, settings: IndexSettings
) -> tuple[Any, Any]:
    """``(schema, index_params)`` of a new collection (the table in the docstring)."""
    data_type = pymilvus.DataType
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    string = dict(datatype=data_type.VARCHAR, max_length=2048)
    schema.add_field("pk", is_primary=True, datatype=data_type.VARCHAR, max_length=128)
    schema.add_field("route_key", datatype=data_type.VARCHAR, max_length=64)
    schema.add_field("route_id", **string)
    schema.add_field("route_fp", datatype=data_type.VARCHAR, max_length=128)
    schema.add_field("kind", datatype=data_type.INT8)
    schema.add_field("field", **string)
    schema.add_field("provider", **string)
    schema.add_field("effect", datatype=data_type.VARCHAR, max_length=32)
    schema.add_field("access", datatype=data_type.VARCHAR, max_length=32)
    schema.add_field(
        "sources",
        datatype=data_type.ARRAY,
        element_type=data_type.VARCHAR,
        max_capacity=16,
        max_length=32,
    )
    schema.add_field(
        "text",
        datatype=data_type.VARCHAR,
        max_length=65_535,
        enable_analyzer=True,
        analyzer_params={"tokenizer": "standard"},
    )
    schema.add_field("sparse", datatype=data_type.SPARSE_FLOAT_VECTOR)
    schema.add_field("has_vector", datatype=data_type.BOOL)
    schema.add_field("vector", datatype=data_type.FLOAT_VECTOR, dim=dim)
    schema.add_function(
        pymilvus.Function(
            name="bm25",
            function_type=pymilvus.FunctionType.BM25,
            input_field_names=["text"],
            output_field_names=["sparse"],
        )
    )
    index_params = client.prepare_index_params()
    index_params.add_index(
        "sparse",
        index_type="SPARSE_INVERTED_INDEX",
        metric_type="BM25",
        params={"bm25_k1": settings.bm25.k1, "bm25_b": settings.bm25.b},
    )
    index_params.add_index("vector", index_type="AUTOINDEX", metric_type="IP")
    return schema, index_params


def new_meta(encoder: Encoder, settings: IndexSettings) -> dict[str, Any]:
    """The metadata of an empty collection."""
    from schemarouter._version import __version__

    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "schemarouter_version": __version__,
        "encoder": encoder.identity,
        "dim": int(encoder.dim),
        "settings": settings.as_dict(),
        "registry_fingerprint": RegistrySnapshot.build(0, {}, {}).fingerprint,
        "registry_version": 0,
        "routes": 0,
        "documents": 0,
        "state": "clean",
    }


def check_meta(
    meta: dict[str, Any],
    encoder: Encoder,
    settings: IndexSettings | None,
    name: str,
    *,
    where: str,
) -> IndexSettings:
    """The collection's own settings; :class:`StaleIndexError` when it was written with
    another row layout, another encoder, or (where ``settings`` are given) other document
    settings than these."""
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise StaleIndexError(
            f"collection {name!r} has row layout {meta.get('schema_version')!r}, "
            f"this version writes {SCHEMA_VERSION}",
            where=where,
            hint=f"Rebuild it with this version of SchemaRouter: {_REBUILD}",
        )
    if meta.get("encoder") != encoder.identity or meta.get("dim") != encoder.dim:
        raise StaleIndexError(
            f"collection {name!r} was embedded with {meta.get('encoder')!r}, "
            f"not {encoder.identity!r}",
            where=where,
            hint=f"Open it with the same encoder, or {_REBUILD} with this one",
        )
    stored = IndexSettings.from_dict(meta["settings"])
    if settings is not None:
        mine = settings.as_dict()
        differ = [k for k in DOCUMENT_SETTINGS if meta["settings"].get(k) != mine.get(k)]
        if differ:
            raise StaleIndexError(
                f"collection {name!r} was built with other document settings ({differ})",
                where=where,
                hint=f"Open it without settings= (it keeps its own), or {_REBUILD}",
            )
    return stored


def read_meta(properties: Mapping[str, Any], *, collection: str, where: str) -> dict[str, Any]:
    """SchemaRouter's metadata among a collection's ``properties``; :class:`CorruptIndexError`
    where there is none (a collection another program wrote, or altered metadata)."""
    raw = properties.get(META_KEY)
    try:
        meta = load_json(raw) if isinstance(raw, str | bytes) and raw else None
    except UnreadableFile:  # not JSON, or nested past the limit
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CorruptIndexError(
            f"collection {collection!r} exists but was not written by SchemaRouter",
            where=where,
            hint="Choose another collection name, or drop it and rebuild "
            "(`schemarouter index build --backend milvus --rebuild`)",
        )
    return meta
