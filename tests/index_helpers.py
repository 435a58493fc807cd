"""Routes and registries shared by the index tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemarouter.contracts import (
    AccessKind,
    AccessPath,
    Endpoint,
    Operation,
    OutputField,
    Provider,
    Registration,
    Route,
)
from schemarouter.registry.registry import Registry

if TYPE_CHECKING:
    from schemarouter import SchemaRouter


def make_route(
    provider: str,
    endpoint: str,
    description: str,
    fields: dict[str, str] | None = None,
    *,
    display: str | None = None,
    aliases: tuple[str, ...] = (),
) -> Route:
    return Route.build(
        Provider(id=provider, display_name=display or provider.title(), aliases=aliases),
        AccessPath(id="rest", kind=AccessKind.HTTP, base_url="https://example.org"),
        Endpoint(
            id=endpoint,
            name=endpoint,
            operation=Operation(method="GET", path=f"/{endpoint}"),
            description=description,
            output_fields=tuple(
                OutputField(name=n, description=d) for n, d in (fields or {}).items()
            ),
        ),
    )


def base_routes() -> list[Route]:
    return [
        make_route(
            "weather",
            "forecast",
            "Daily weather forecast for a city",
            {
                "temperature": "air temperature",
                "humidity": "relative humidity",
                "dew_point": "dew point of the air",
            },
            display="Weather Co",
            aliases=("날씨", "天气"),
        ),
        make_route(
            "matproj",
            "summary",
            "Material properties by chemical formula",
            {"band_gap": "electronic band gap", "elastic_modulus": "Young's modulus"},
            display="Materials Project",
        ),
        make_route(
            "tmdb",
            "search_movie",
            "Search movies by title",
            {"title": "movie title", "release_date": "date of release"},
        ),
        make_route(
            "stocks",
            "quote",
            "Stock price for a ticker symbol",
            {"price": "last traded price", "currency": "ISO currency code"},
        ),
        make_route(
            "translate",
            "translate_text",
            "Translate text between languages",
            {"translation": "translated text"},
        ),
        make_route(
            "korea",
            "air_quality",
            "서울의 대기질과 미세먼지 농도를 알려주는 도구",
            {"pm10": "미세먼지 농도"},
            display="에어코리아",
        ),
    ]


def base_router(index: object = None, **options: Any) -> SchemaRouter:
    """A router over :func:`base_routes` with a 64-wide hashing encoder, no abstention,
    reranker or embedding cache, on ``index`` (a ``milvus://`` URI, an index object)."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    settings: dict[str, Any] = {
        "encoder": HashingEncoder(64),
        "abstention": None,
        "reranker": None,
        "embedding_cache": None,
        **options,
    }
    if index is not None:
        settings["index"] = index
    return SchemaRouter(registry=registry_with(base_routes()), **settings)


def registry_with(routes: list[Route]) -> Registry:
    registry = Registry()
    registry.register(Registration(source="test", routes=tuple(routes)))
    return registry


#: A child process that opens the Milvus Lite file ``argv[1]`` (``argv[2]``: the tests folder,
#: for this module) over the base routes and prints ``OK <first route>`` or ``ERROR <type>
#: <message> | hint: <hint>``; with ``argv[3] == "hold"`` it keeps the file open until its
#: stdin closes (a second process on the same file).
LITE_OPEN = """
import sys
sys.path.insert(0, sys.argv[2])
from index_helpers import base_routes, registry_with
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder, MilvusIndex
snapshot = registry_with(base_routes()).snapshot()
try:
    index = MilvusIndex(sys.argv[1], collection="routes", encoder=HashingEncoder(64))
    index.open(snapshot)
    print("OK", index.search("weather forecast", k=1)[0].route_id, flush=True)
    if sys.argv[3:] == ["hold"]:
        sys.stdin.read()  # hold the file open until the parent closes stdin
except SchemaRouterError as exc:
    print("ERROR", type(exc).__name__, exc, "| hint:", exc.hint, flush=True)
"""
