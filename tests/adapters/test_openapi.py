"""OpenAPI adapter: Swagger 2.0 / OpenAPI 3.0 / 3.1 documents (inline), malformed documents,
a mutation fuzz test, and the shared corpus of real documents."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemarouter.adapters._fields import FieldLimits
from schemarouter.adapters.openapi import BODY_EXTENSION, HTTP_METHODS, openapi_registration
from schemarouter.contracts import AvailabilityStatus, Effect, ParameterLocation, Registration
from schemarouter.errors import (
    DanglingReferenceError,
    DocumentError,
    ReferenceCycleError,
    SchemaError,
    SchemaRouterError,
)
from schemarouter.registry.registry import Registry

# -- inline documents ---------------------------------------------------------------------

SWAGGER2: dict[str, Any] = {
    "swagger": "2.0",
    "info": {
        "title": "Pet Store",
        "version": "1.0",
        "license": {"name": "Apache-2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"},
    },
    "host": "pets.example.org",
    "basePath": "/v2",
    "schemes": ["http", "https"],
    "consumes": ["application/json"],
    "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
    "security": [{"key": []}],
    "parameters": {"Limit": {"name": "limit", "in": "query", "type": "integer", "minimum": 1}},
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "summary": "List pets",
                "parameters": [
                    {"$ref": "#/parameters/Limit"},
                    {"name": "X-Api-Key", "in": "header", "type": "string"},
                    {"name": "tag", "in": "query", "type": "string", "x-nullable": True},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
                    },
                    "default": {"description": "error", "schema": {"type": "string"}},
                },
            },
            "post": {
                "operationId": "addPet",
                "parameters": [
                    {
                        "name": "pet",
                        "in": "body",
                        "required": True,
                        "schema": {"$ref": "#/definitions/Pet"},
                    }
                ],
                "responses": {"201": {"description": "created"}},
            },
        },
        "/pets/{petId}": {
            "parameters": [
                {"name": "petId", "in": "path", "required": True, "type": "integer"},
                {"name": "verbose", "in": "query", "type": "boolean"},
            ],
            "get": {
                "parameters": [
                    {"name": "verbose", "in": "query", "type": "string", "enum": ["a", "b"]}
                ],
                "responses": {
                    "200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}
                },
            },
            "delete": {"operationId": "deletePet", "responses": {"204": {"description": "gone"}}},
            "post": {
                "operationId": "uploadPhoto",
                "consumes": ["multipart/form-data"],
                "parameters": [
                    {"name": "file", "in": "formData", "type": "file", "required": True},
                    {"name": "caption", "in": "formData", "type": "string"},
                ],
                "responses": {"200": {"description": "ok"}},
            },
        },
    },
    "definitions": {
        "Pet": {
            "type": "object",
            "required": ["id", "name", "id"],
            "properties": {
                "id": {"type": "integer", "format": "int64"},
                "name": {"type": "string", "description": "The pet's name"},
                "category": {"$ref": "#/definitions/Category"},
                "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            },
        },
        "Category": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/definitions/Category"}},
            },
        },
    },
}

OAS30_YAML = """\
openapi: 3.0.3
info:
  title: Movies
  version: "3"
  license: {name: MIT}
servers:
  - url: https://{region}.movies.example.org/{version}
    variables:
      region: {default: eu}
      version: {default: v3}
security:
  - bearer: []
  - {}
paths:
  /movie/{movie_id}:
    parameters:
      - $ref: '#/components/parameters/MovieId'
    get:
      operationId: getMovie
      description: One movie.
      responses:
        '200':
          $ref: '#/components/responses/Movie'
        '404': {description: missing}
    put:
      operationId: updateMovie
      x-schemarouter-effect: destructive
      requestBody:
        required: true
        description: The new movie.
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Movie'}
      responses:
        '204': {description: done}
  /search:
    post:
      summary: Search by form
      x-schemarouter-effect: read
      security: []
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [query]
              properties:
                query: {type: string}
                page: {type: integer, nullable: true}
      responses:
        2XX:
          description: results
          content:
            application/json:
              schema:
                type: object
                properties:
                  results:
                    type: array
                    items: {$ref: '#/components/schemas/Movie'}
  /old:
    get:
      deprecated: true
      responses: {default: {description: x}}
components:
  parameters:
    MovieId: {name: movie_id, in: path, required: true, schema: {type: integer}}
  responses:
    Movie:
      description: a movie
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Movie'}
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  schemas:
    Base:
      type: object
      required: [id]
      properties:
        id: {type: integer}
    Movie:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          properties:
            title: {type: string, description: Movie title}
            tagline: {type: string, nullable: true}
            rating: {type: number, minimum: 0, maximum: 10}
            media:
              oneOf:
                - {type: object, properties: {video: {type: string}}}
                - {type: object, properties: {poster: {type: string}}}
"""

OAS31: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "Crystals",
        "version": "1",
        "license": {"name": "CC BY 4.0", "identifier": "CC-BY-4.0"},
    },
    "servers": [{"url": "/api/v1"}],
    "paths": {
        "/structures": {
            "get": {
                "operationId": "list_structures",
                "parameters": [
                    {
                        "name": "filter",
                        "in": "query",
                        "schema": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                    {"name": "api_key", "in": "cookie", "schema": {"type": "string"}},
                ],
                "security": [{"cookie": []}],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/vnd.api+json": {
                                "schema": {"$ref": "#/components/schemas/StructureResponse"}
                            }
                        },
                    }
                },
            }
        }
    },
    "components": {
        "securitySchemes": {"cookie": {"type": "apiKey", "in": "cookie", "name": "api_key"}},
        "schemas": {
            "StructureResponse": {
                "type": "object",
                "properties": {
                    "data": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": {"type": "string"},
                                "attributes": {
                                    "$ref": "#/components/schemas/Attributes",
                                    "description": "Structure attributes",
                                },
                            },
                        },
                    },
                    "meta": {"type": ["object", "null"], "additionalProperties": True},
                },
            },
            "Attributes": {
                "type": "object",
                "properties": {
                    "chemical_formula_reduced": {"type": ["string", "null"]},
                    "nsites": {"type": "integer", "exclusiveMinimum": 0},
                    "lattice_vectors": {
                        "type": "array",
                        "items": {"type": "array", "items": {"type": "number"}},
                    },
                },
            },
        },
    },
}


def _register(document: Any = None, **kwargs: Any) -> Registration:
    kwargs.setdefault("provider", "pets")
    return openapi_registration(copy.deepcopy(SWAGGER2) if document is None else document, **kwargs)


def _by_name(registration: Registration) -> dict[str, Any]:
    return {route.endpoint.name: route for route in registration.routes}


# -- Swagger 2.0 ----------------------------------------------------------------------------


def test_swagger2_operations_names_ids_and_effects() -> None:
    routes = _by_name(_register())
    assert set(routes) == {"listPets", "addPet", "GET /pets/{petId}", "deletePet", "uploadPhoto"}
    assert routes["listPets"].route_id == "pets/rest/list_pets"
    assert routes["GET /pets/{petId}"].endpoint.id == "get_pets_pet_id"
    get = routes["GET /pets/{petId}"].endpoint.operation
    assert (get.method, get.path) == ("GET", "/pets/{petId}")
    effects = {name: r.endpoint.effect for name, r in routes.items()}
    assert effects == {
        "listPets": Effect.READ,
        "addPet": Effect.WRITE,
        "GET /pets/{petId}": Effect.READ,
        "deletePet": Effect.DESTRUCTIVE,
        "uploadPhoto": Effect.WRITE,
    }


def test_swagger2_provider_base_url_and_auth() -> None:
    registration = _register()
    (provider,) = registration.providers
    assert (provider.id, provider.display_name, provider.license) == (
        "pets",
        "Pet Store",
        "Apache-2.0",
    )
    route = _by_name(registration)["listPets"]
    assert route.access.base_url == "https://pets.example.org/v2"  # https preferred
    auth = route.access.auth
    assert auth.credentials == ("PETS_API_KEY",)
    assert (auth.scheme, auth.location, auth.parameter) == (
        "api_key",
        ParameterLocation.HEADER,
        "X-Api-Key",
    )
    # the header carrying the key is a credential, never a route parameter
    assert [p.name for p in route.endpoint.parameters] == ["limit", "tag"]
    assert route.access.document_hash and route.access.document_hash.startswith("sha256:")


def test_swagger2_parameters_refs_nullable_and_path_level_override() -> None:
    routes = _by_name(_register())
    limit, tag = routes["listPets"].endpoint.parameters
    assert limit.json_schema == {"type": "integer", "minimum": 1}
    assert tag.json_schema == {"type": ["string", "null"]}
    get = routes["GET /pets/{petId}"].endpoint
    assert [(p.name, p.location, p.required) for p in get.parameters] == [
        ("petId", ParameterLocation.PATH, True),
        ("verbose", ParameterLocation.QUERY, False),
    ]
    assert get.parameter("verbose").json_schema["enum"] == ["a", "b"]  # operation wins
    assert get.input_schema["required"] == ["petId"]


def test_swagger2_body_form_and_consumes() -> None:
    routes = _by_name(_register())
    add = routes["addPet"].endpoint
    (pet,) = add.parameters
    assert (pet.name, pet.location, pet.required) == ("pet", ParameterLocation.BODY, True)
    assert pet.json_schema["required"] == ["id", "name"]  # duplicates dropped
    assert pet.json_schema["properties"]["price"] == {"type": "number", "exclusiveMinimum": 0}
    assert add.input_schema[BODY_EXTENSION] == {"media_type": "application/json", "style": "whole"}
    upload = routes["uploadPhoto"].endpoint
    assert [(p.name, p.location) for p in upload.parameters][2:] == [
        ("file", ParameterLocation.BODY),
        ("caption", ParameterLocation.BODY),
    ]
    assert upload.parameter("file").json_schema == {"type": "string", "format": "binary"}
    assert upload.input_schema[BODY_EXTENSION] == {
        "media_type": "multipart/form-data",
        "style": "form",
    }


def test_recursive_schema_is_cut_with_a_marker() -> None:
    endpoint = _by_name(_register())["GET /pets/{petId}"].endpoint
    category = endpoint.output_schema["properties"]["category"]
    children = category["properties"]["children"]["items"]
    assert children == {"$comment": "recursive ref #/definitions/Category"}
    paths = [f.path for f in endpoint.output_fields]
    assert paths == ["id", "name", "price", "category.name", "category.children"]
    listed = _by_name(_register())["listPets"].endpoint
    assert [f.path for f in listed.output_fields][:3] == ["*.id", "*.name", "*.price"]
    assert listed.output_fields[0].name == "id"


def test_name_fallback_and_deterministic_id_suffixes() -> None:
    doc = copy.deepcopy(SWAGGER2)
    doc["paths"]["/pets"]["get"]["operationId"] = "get pets/{petId}"  # slug clashes below
    first = _by_name(_register(doc))
    second = _by_name(_register(copy.deepcopy(doc)))
    assert first["get pets/{petId}"].endpoint.id == "get_pets_pet_id"
    assert first["GET /pets/{petId}"].endpoint.id == "get_pets_pet_id_2"
    assert {k: v.fingerprint for k, v in first.items()} == {
        k: v.fingerprint for k, v in second.items()
    }


# -- OpenAPI 3.0 (YAML) ---------------------------------------------------------------------


@pytest.fixture
def oas30_file(tmp_path: Path) -> Path:
    path = tmp_path / "movies.yaml"
    path.write_text(OAS30_YAML, encoding="utf-8")
    return path


def test_oas30_yaml_servers_security_and_effects(oas30_file: Path) -> None:
    registration = openapi_registration(oas30_file, provider="Movies DB", trusted=True)
    routes = _by_name(registration)
    assert set(routes) == {"getMovie", "updateMovie", "POST /search", "GET /old"}
    get = routes["getMovie"]
    assert get.route_id == "movies_db/rest/get_movie"
    assert get.access.base_url == "https://eu.movies.example.org/v3"
    assert get.access.auth.credentials == ("MOVIES_DB_TOKEN",)
    assert (get.access.auth.scheme, get.access.auth.optional) == ("bearer", True)
    assert routes["POST /search"].access.auth.credentials == ()  # security: [] on the op
    assert routes["updateMovie"].endpoint.effect is Effect.DESTRUCTIVE  # x- extension
    assert routes["POST /search"].endpoint.effect is Effect.READ
    assert routes["GET /old"].endpoint.availability.status is AvailabilityStatus.DEPRECATED
    assert registration.providers[0].license == "MIT"


def test_oas30_allof_merge_oneof_fields_and_nullable(oas30_file: Path) -> None:
    get = _by_name(openapi_registration(oas30_file, provider="movies"))["getMovie"].endpoint
    schema = get.output_schema
    assert "allOf" not in schema  # structural allOf merged
    assert schema["required"] == ["id"]
    assert schema["properties"]["tagline"]["type"] == ["string", "null"]
    fields = {f.name: f for f in get.output_fields}
    assert list(fields) == ["id", "title", "tagline", "rating", "media.video", "media.poster"]
    assert fields["title"].description == "Movie title"
    assert get.parameters[0].name == "movie_id"  # path-level $ref parameter


def test_oas30_request_bodies(oas30_file: Path) -> None:
    routes = _by_name(openapi_registration(oas30_file, provider="movies"))
    update = routes["updateMovie"].endpoint
    body = update.parameter("body")
    assert (body.location, body.required, body.description) == (
        ParameterLocation.BODY,
        True,
        "The new movie.",
    )
    assert body.json_schema["properties"]["title"]["type"] == "string"
    assert update.input_schema[BODY_EXTENSION]["style"] == "whole"
    search = routes["POST /search"].endpoint
    assert [(p.name, p.required) for p in search.parameters] == [("query", True), ("page", False)]
    assert search.parameter("page").json_schema == {"type": ["integer", "null"]}
    assert search.input_schema[BODY_EXTENSION] == {
        "media_type": "application/x-www-form-urlencoded",
        "style": "form",
    }
    assert [f.path for f in search.output_fields][:2] == ["results.*.id", "results.*.title"]


def test_yaml_and_json_forms_register_identically(oas30_file: Path, tmp_path: Path) -> None:
    as_json = tmp_path / "movies.json"
    as_json.write_text(json.dumps(yaml.safe_load(OAS30_YAML)), encoding="utf-8")
    a = openapi_registration(oas30_file, provider="movies", source="movies")
    b = openapi_registration(as_json, provider="movies", source="movies")
    assert [r.fingerprint for r in a.routes] == [r.fingerprint for r in b.routes]


# -- OpenAPI 3.1, URLs, base URLs -----------------------------------------------------------


def _serving(document: Any, *, status: int = 200) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=document)

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_oas31_from_url_relative_server_and_refs_with_siblings() -> None:
    with _serving(OAS31) as client:
        registration = openapi_registration(
            "https://crystals.example.org/openapi.json", provider="crystals", client=client
        )
    (route,) = registration.routes
    assert route.access.base_url == "https://crystals.example.org/api/v1"
    assert route.access.document == "https://crystals.example.org/openapi.json"
    assert registration.providers[0].license == "CC-BY-4.0"
    endpoint = route.endpoint
    assert [p.name for p in endpoint.parameters] == ["filter"]  # the cookie carries the key
    assert route.access.auth.location is ParameterLocation.COOKIE
    attributes = endpoint.output_schema["properties"]["data"]["items"]["properties"]["attributes"]
    assert attributes["description"] == "Structure attributes"  # 3.1: sibling kept
    fields = {f.path: f for f in endpoint.output_fields}
    assert list(fields) == [
        "meta",
        "data.*.id",
        "data.*.attributes.chemical_formula_reduced",
        "data.*.attributes.nsites",
        "data.*.attributes.lattice_vectors",
    ]
    assert fields["data.*.attributes.nsites"].json_schema == {
        "type": "integer",
        "exclusiveMinimum": 0,
    }
    assert fields["data.*.attributes.lattice_vectors"].name == "data.attributes.lattice_vectors"


def test_url_failures_are_document_errors() -> None:
    with _serving({}, status=404) as client, pytest.raises(DocumentError) as error:
        openapi_registration("https://x.example.org/spec.json", provider="x", client=client)
    assert "HTTP 404" in str(error.value)

    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with httpx.Client(transport=httpx.MockTransport(boom)) as client, pytest.raises(DocumentError):
        openapi_registration("http://x.example.org/spec.yaml", provider="x", client=client)


def test_base_url_argument_and_unbindable_documents() -> None:
    doc = copy.deepcopy(OAS31)
    (route,) = openapi_registration(doc, provider="c").routes
    assert route.access.base_url is None  # relative server, no document URL
    (route,) = openapi_registration(doc, provider="c", base_url="https://a.example/v1/").routes
    assert route.access.base_url == "https://a.example/v1"
    with pytest.raises(DocumentError, match="base_url"):
        openapi_registration(doc, provider="c", base_url="ftp://nope")


def test_effect_overrides_from_a_trusted_caller() -> None:
    routes = _by_name(
        _register(effect_overrides={"addPet": "read", "get_pets_pet_id": Effect.WRITE})
    )
    assert routes["addPet"].endpoint.effect is Effect.READ
    assert routes["GET /pets/{petId}"].endpoint.effect is Effect.WRITE
    with pytest.raises(DocumentError, match="nosuch"):
        _register(effect_overrides={"nosuch": "read"})
    with pytest.raises(DocumentError, match="effect override"):
        _register(effect_overrides={"addPet": "harmless"})


def test_output_field_limits() -> None:
    routes = _by_name(_register(limits=FieldLimits(max_depth=1, max_fields=3)))
    fields = routes["GET /pets/{petId}"].endpoint.output_fields
    assert [f.path for f in fields] == ["id", "name", "category"]
    assert fields[2].json_schema["type"] == "object"
    assert "properties" not in fields[2].json_schema  # cut containers stay shallow


# -- malformed documents ---------------------------------------------------------------------


def _oas(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}


def _get(**operation: Any) -> dict[str, Any]:
    return {"/things": {"get": {"responses": {"200": {"description": "ok"}}, **operation}}}


def _ok(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


MALFORMED: list[tuple[str, Any, type[SchemaRouterError], str]] = [
    ("no version", {"info": {}, "paths": {}}, DocumentError, "<document>"),
    ("unknown version", {**_oas({}), "openapi": "2.5"}, DocumentError, ": openapi"),
    ("paths not an object", _oas([]), DocumentError, ": paths"),  # type: ignore[arg-type]
    ("path without slash", _oas({"things": {}}), DocumentError, "paths.things"),
    (
        "parameter location",
        _oas(_get(parameters=[{"name": "q", "in": "body"}])),
        DocumentError,
        "paths./things.get.parameters[0].in",
    ),
    (
        "parameter without name",
        _oas(_get(parameters=[{"in": "query"}])),
        DocumentError,
        "paths./things.get.parameters[0]",
    ),
    (
        "dangling ref",
        _oas(_get(responses=_ok({"$ref": "#/components/schemas/Missing"}))),
        DanglingReferenceError,
        "paths./things.get.responses.200.content.application/json.schema",
    ),
    (
        "ref chain cycle",
        _oas(
            _get(responses=_ok({"$ref": "#/components/schemas/A"})),
            components={
                "schemas": {
                    "A": {"$ref": "#/components/schemas/B"},
                    "B": {"$ref": "#/components/schemas/A"},
                }
            },
        ),
        ReferenceCycleError,
        "components.schemas.B",
    ),
    (
        "external ref",
        _oas(_get(responses=_ok({"$ref": "other.yaml#/Pet"}))),
        DanglingReferenceError,
        "paths./things.get.responses.200",
    ),
    (
        "invalid schema type",
        _oas(_get(parameters=[{"name": "q", "in": "query", "schema": {"type": "text"}}])),
        SchemaError,
        "paths./things.get",
    ),
    (
        "schema not an object",
        _oas(_get(responses=_ok({"properties": {"a": "string"}}))),
        SchemaError,
        "schema.properties.a",
    ),
    (
        "undeclared security scheme",
        _oas(_get(security=[{"oauth": []}])),
        DanglingReferenceError,
        "paths./things.get.security[0].oauth",
    ),
    (
        "api key without location",
        _oas(
            _get(),
            components={"securitySchemes": {"k": {"type": "apiKey", "name": "k"}}},
            security=[{"k": []}],
        ),
        DocumentError,
        "components.securitySchemes.k.in",
    ),
    (
        "path variable without parameter",
        _oas({"/things/{id}": {"get": {"responses": {}}}}),
        DanglingReferenceError,
        "paths./things/{id}.get.operation.path",
    ),
    (
        "optional path parameter",
        _oas(
            {
                "/t/{id}": {
                    "get": {
                        "parameters": [{"name": "id", "in": "path", "schema": {}}],
                        "responses": {},
                    }
                }
            }
        ),
        DocumentError,
        "paths./t/{id}.get.parameters",
    ),
    (
        "operationId not text",
        _oas(_get(operationId=7)),
        DocumentError,
        "paths./things.get.operationId",
    ),
    (
        "bad effect extension",
        _oas(_get(**{"x-schemarouter-effect": "harmless"})),
        DocumentError,
        "paths./things.get.x-schemarouter-effect",
    ),
    (
        "responses not an object",
        _oas(_get(responses=[1])),
        DocumentError,
        "paths./things.get.responses",
    ),
]


@pytest.mark.parametrize(
    ("document", "error", "where"),
    [pytest.param(d, e, w, id=name) for name, d, e, w in MALFORMED],
)
def test_malformed_documents_raise_located_errors(
    document: Any, error: type[SchemaRouterError], where: str
) -> None:
    with pytest.raises(error) as raised:
        openapi_registration(document, provider="bad", source="bad.yaml", strict=True)
    assert type(raised.value) is error
    assert raised.value.where is not None
    assert raised.value.where.startswith("bad.yaml")
    assert where in raised.value.where
    assert raised.value.hint


def test_a_node_of_the_wrong_kind_is_named_with_the_kind_found() -> None:
    with pytest.raises(DocumentError, match="expected an object, got list") as raised:
        openapi_registration(_oas([]), provider="bad", strict=True)  # type: ignore[arg-type]
    assert raised.value.where == "<dict>: paths"
    with pytest.raises(DocumentError, match="expected a list, got dict") as raised:
        openapi_registration(_oas(_get(parameters={"q": {}})), provider="bad", strict=True)
    assert raised.value.where == "<dict>: paths./things.get.parameters"
    assert raised.value.hint == "See the OpenAPI specification for this object's shape"
    with pytest.raises(DocumentError, match="'summary' must be a string, got int") as raised:
        openapi_registration(_oas(_get(summary=7)), provider="bad", strict=True)
    assert raised.value.where == "<dict>: paths./things.get.summary"
    assert raised.value.hint == "Write it as text"


def test_dangling_ref_error_names_the_pointer() -> None:
    with pytest.raises(DanglingReferenceError, match="#/components/schemas/Missing"):
        openapi_registration(MALFORMED[6][1], provider="bad")


@pytest.mark.parametrize(
    ("text", "suffix", "where"),
    [
        ("openapi: 3.0.0\npaths: {\n", ".yaml", "spec.yaml:3:1"),
        ('{"openapi": "3.0.0",', ".json", "spec.json:1:"),
        ("- just\n- a list\n", ".yaml", "spec.yaml"),
    ],
)
def test_unparsable_files(tmp_path: Path, text: str, suffix: str, where: str) -> None:
    path = tmp_path / f"spec{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DocumentError) as raised:
        openapi_registration(path, provider="bad")
    assert where in (raised.value.where or "")


def test_missing_file_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="cannot read"):
        openapi_registration(tmp_path / "nope.yaml", provider="bad")


# -- fuzz: mutated documents raise only SchemaRouterError and change nothing ---------------------

_BASES = [SWAGGER2, yaml.safe_load(OAS30_YAML), OAS31]
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.text(max_size=8),
    st.sampled_from(
        ["#/definitions/Pet", "#/components/schemas/Movie", "#/nope", "#", "x.yaml#/a"]
    ).map(lambda ref: {"$ref": ref}),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(
        st.sampled_from(["type", "in", "name", "$ref", "items"]), st.text(max_size=5), max_size=2
    ),
)


def _slots(node: Any, trail: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [trail]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_slots(value, (*trail, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out.extend(_slots(value, (*trail, index)))
    return out


def _mutate(doc: Any, data: st.DataObject) -> Any:
    for _ in range(data.draw(st.integers(1, 3))):
        slots = _slots(doc)
        trail = data.draw(st.sampled_from(slots[1:] or slots))
        if not trail:
            return data.draw(_JUNK)
        parent = doc
        for step in trail[:-1]:
            parent = parent[step]
        action = data.draw(st.sampled_from(["delete", "replace", "ref-cycle"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[trail[-1]]
        elif action == "ref-cycle" and isinstance(parent, dict):
            parent[trail[-1]] = {"$ref": "#/" + "/".join(str(s).replace("/", "~1") for s in trail)}
        else:
            parent[trail[-1]] = data.draw(_JUNK)
    return doc


_BASELINE = openapi_registration(copy.deepcopy(OAS31), provider="baseline")


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data(), base=st.sampled_from(range(len(_BASES))))
def test_mutated_documents_raise_only_schemarouter_errors(data: st.DataObject, base: int) -> None:
    registry = Registry()
    registry.register(_BASELINE)
    before = registry.snapshot()
    document = _mutate(copy.deepcopy(_BASES[base]), data)
    try:
        registry.register(openapi_registration(document, provider="fuzz"))
    except SchemaRouterError:
        assert registry.snapshot() is before
    else:
        assert registry.version == before.version + 1


# -- real documents ----------------------------------------------------------------------------


def _operation_count(path: Path) -> int:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return sum(
        1 for item in doc.get("paths", {}).values() for method in item if method in HTTP_METHODS
    )


def _register_all(paths: list[Path]) -> tuple[int, int, int, float]:
    registry = Registry()
    started = time.perf_counter()
    routes = fields = 0
    for path in paths:
        registration = openapi_registration(path, provider=path.stem)
        assert len(registration.routes) == _operation_count(path), path.name
        registry.register(registration)
        routes += len(registration.routes)
        fields += sum(len(r.endpoint.output_fields) for r in registration.routes)
    return len(paths), routes, fields, time.perf_counter() - started


@pytest.mark.shared_data
def test_real_openapi_3_documents(shared_data: Path) -> None:
    paths = [
        shared_data / "restbench" / "tmdb_oas.json",
        shared_data / "optimade" / "openapi.json",
        shared_data / "optimade" / "index_openapi.json",
    ]
    documents, routes, fields, seconds = _register_all(paths)
    print(
        f"\nOpenAPI 3.x: {documents} documents, {routes} routes, {fields} fields, {seconds:.1f} s"
    )
    assert routes == 54 + 10 + 3
    tmdb = openapi_registration(paths[0], provider="tmdb")
    search = next(r for r in tmdb.routes if r.endpoint.operation.path == "/search/movie")
    assert search.access.base_url == "https://api.themoviedb.org/3"
    assert search.access.auth.credentials == ("TMDB_API_KEY",)
    assert "results.title" in {f.name for f in search.endpoint.output_fields}


@pytest.mark.shared_data
@pytest.mark.slow
def test_real_openapi_permissive_corpus(shared_data: Path) -> None:
    paths = sorted((shared_data / "openapi-permissive").glob("*.json"))
    assert len(paths) == 124
    documents, routes, fields, seconds = _register_all(paths)
    print(
        f"\nopenapi-permissive: {documents} documents, {routes} routes, {fields} fields, {seconds:.1f} s"
    )
    assert routes == 4172


@pytest.mark.shared_data
def test_real_openapi_permissive_sample(shared_data: Path) -> None:
    """A fast slice of the corpus for the default run: its 24 smallest documents."""
    folder = shared_data / "openapi-permissive"
    paths = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_size)[:24]
    documents, routes, fields, seconds = _register_all(paths)
    print(
        f"\nopenapi-permissive sample: {documents} documents, {routes} routes, {fields} fields, {seconds:.1f} s"
    )
    assert routes > 0
