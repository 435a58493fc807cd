"""A user's own API, as a new user would bring it: an OpenAPI 3.1 document with no semantic
ids, no units in a catalog, nothing but its schemas, served for real on loopback.

``weather_openapi(base_url)`` is the document; ``weather_app`` answers it (and records the
alerts posted to it). The routes:

- ``GET /forecast`` (``getForecast``): ``city`` (required), ``units`` (enum), ``days``
  (integer 1..7) -> ``{"city", "units", "days": [{"date", "temp_max", "precip_mm"}]}``;
- ``GET /stations/{station_id}`` (``getStation``) -> ``{"id", "name", "elevation_m"}``;
- ``POST /alerts`` (``createAlert``): a JSON body -> ``{"id", "status"}`` (a write);
- ``GET /broken`` (``getBroken``): answers with a document that breaks its own schema.
"""

from __future__ import annotations

import json
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import Request, Response, json_response

WEATHER = "weather"
FORECAST = "weather/rest/get_forecast"
STATION = "weather/rest/get_station"
ALERT = "weather/rest/create_alert"
BROKEN = "weather/rest/get_broken"


def weather_openapi(base_url: str) -> dict[str, Any]:
    day = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date"},
            "temp_max": {"type": "number", "description": "Highest temperature of the day"},
            "precip_mm": {"type": "number", "description": "Precipitation in millimetres"},
        },
        "required": ["date", "temp_max"],
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Weather API", "version": "1.0"},
        "servers": [{"url": base_url}],
        "paths": {
            "/forecast": {
                "get": {
                    "operationId": "getForecast",
                    "summary": "Daily weather forecast for a city",
                    "parameters": [
                        {
                            "name": "city",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": "City name",
                        },
                        {
                            "name": "units",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["metric", "imperial"]},
                        },
                        {
                            "name": "days",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 7},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "The forecast",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "city": {"type": "string"},
                                            "units": {"type": "string"},
                                            "days": {"type": "array", "items": day},
                                        },
                                        "required": ["city", "days"],
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/stations/{station_id}": {
                "get": {
                    "operationId": "getStation",
                    "summary": "A weather station by its id",
                    "parameters": [
                        {
                            "name": "station_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string", "pattern": "^[A-Z]{4}$"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "The station",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "id": {"type": "string"},
                                            "name": {"type": "string"},
                                            "elevation_m": {"type": "number"},
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/alerts": {
                "post": {
                    "operationId": "createAlert",
                    "summary": "Create a weather alert for a city",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "city": {"type": "string"},
                                        "message": {"type": "string"},
                                    },
                                    "required": ["city", "message"],
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "Created",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "id": {"type": "integer"},
                                            "status": {"type": "string"},
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/broken": {
                "get": {
                    "operationId": "getBroken",
                    "summary": "Air quality index now",
                    "responses": {
                        "200": {
                            "description": "Index",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"aqi": {"type": "integer"}},
                                        "required": ["aqi"],
                                    }
                                }
                            },
                        }
                    },
                }
            },
        },
    }


def secured_weather_openapi(base_url: str) -> dict[str, Any]:
    """:func:`weather_openapi` whose station lookup needs an API key (``appid`` in the
    query): the credential ``WEATHER_API_KEY``."""
    document = weather_openapi(base_url)
    document["components"] = {
        "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "appid"}}
    }
    document["paths"]["/stations/{station_id}"]["get"]["security"] = [{"key": []}]
    return document


class WeatherApp:
    """Answers :func:`weather_openapi`; ``alerts`` lists the bodies posted to ``/alerts``."""

    def __init__(self) -> None:
        self.alerts: list[dict[str, Any]] = []

    def __call__(self, request: Request) -> Response:
        if request.path == "/forecast":
            city = request.arg("city") or ""
            days = int(request.arg("days") or "2")
            units = request.arg("units") or "metric"
            hot = 30.5 if units == "metric" else 86.9
            return json_response(
                {
                    "city": city,
                    "units": units,
                    "days": [
                        {"date": f"2025-06-0{i + 1}", "temp_max": hot - i, "precip_mm": 0.2 * i}
                        for i in range(days)
                    ],
                }
            )
        if request.path.startswith("/stations/"):
            station = request.path.rsplit("/", 1)[1]
            return json_response({"id": station, "name": "Paris Montsouris", "elevation_m": 75.0})
        if request.path == "/alerts" and request.method == "POST":
            body = json.loads(request.body or b"{}")
            self.alerts.append(body)
            return json_response({"id": len(self.alerts), "status": "created"}, status=201)
        if request.path == "/broken":
            return json_response({"aqi": "moderate"})
        return json_response({"error": "not found"}, status=404)


def weather_router(base_url: str) -> SchemaRouter:
    """A fast router (hashing encoder, no models) over :func:`weather_openapi` at ``base_url``."""
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(weather_openapi(base_url), provider=WEATHER)
    return router


SHOP_LIST = "shop/rest/list_products"


def shop_openapi(base_url: str) -> dict[str, Any]:
    """A listing with JSON:API and OData query parameters (``page[size]``, ``filter[name]``,
    ``$filter``) beside a plain ``filter``: names the Anthropic API refuses as property keys."""

    def query(name: str, kind: str, description: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "schema": {"type": kind}, "description": description}

    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/products": {
                "get": {
                    "operationId": "listProducts",
                    "summary": "List the shop's products",
                    "parameters": [
                        query("page[size]", "integer", "Products per page"),
                        query("filter[name]", "string", "Products whose name has this text"),
                        query("$filter", "string", "An OData filter expression"),
                        query("filter", "string", "A saved filter's name"),
                        query("sort", "string", "Field to sort by"),
                    ],
                    "responses": {
                        "200": {
                            "description": "The products",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "items": {"type": "array", "items": {"type": "string"}}
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }


def shop_app(request: Request) -> Response:
    """Answers :func:`shop_openapi` (the servers' ``requests`` record what it was sent)."""
    return json_response({"items": ["lamp", "desk"]})
