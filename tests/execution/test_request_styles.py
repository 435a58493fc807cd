"""Arrays and objects travel as their parameter declares (trial J, finding 1): Swagger 2
``collectionFormat`` (``csv`` when none is given), OpenAPI 3 ``style`` / ``explode`` in the
query, path, header and cookie, and ``content``. A real loopback server records what it got;
the documents are real OpenAPI dicts."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote_plus

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Parameter, ParameterLocation, ParameterStyle
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder

from servers.loopback import OK_RESPONSES, LoopbackServer


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def _swagger(base_url: str) -> dict[str, Any]:
    array = {"type": "array", "items": {"type": "string"}}
    return {
        "swagger": "2.0",
        "info": {"title": "Sw", "version": "1"},
        "host": base_url.split("//")[1],
        "schemes": ["http"],
        "paths": {
            "/list/{csvpath}/{pipepath}": {
                "get": {
                    "operationId": "list",
                    "parameters": [
                        {"name": "csvpath", "in": "path", "required": True, **array},
                        {
                            "name": "pipepath",
                            "in": "path",
                            "required": True,
                            **array,
                            "collectionFormat": "pipes",
                        },
                        {"name": "ids", "in": "query", **array},  # csv: the spec's default
                        {"name": "tags", "in": "query", **array, "collectionFormat": "pipes"},
                        {"name": "words", "in": "query", **array, "collectionFormat": "ssv"},
                        {"name": "cols", "in": "query", **array, "collectionFormat": "tsv"},
                        {"name": "many", "in": "query", **array, "collectionFormat": "multi"},
                        {"name": "X-Ids", "in": "header", **array, "collectionFormat": "pipes"},
                        {"name": "one", "in": "query", "type": "string"},
                    ],
                    "responses": {"200": {"description": "ok", "schema": {"type": "object"}}},
                }
            },
            "/form": {
                "post": {
                    "operationId": "form",
                    "consumes": ["application/x-www-form-urlencoded"],
                    "parameters": [
                        {"name": "f", "in": "formData", **array},
                        {"name": "g", "in": "formData", **array, "collectionFormat": "multi"},
                    ],
                    "responses": {"200": {"description": "ok", "schema": {"type": "object"}}},
                }
            },
        },
    }


def test_swagger_2_collection_formats_reach_the_server(server: LoopbackServer) -> None:
    """Every array went out as repeated ``name=v`` pairs: ``ids=1&ids=2&ids=3`` where the
    spec's default ``csv`` says ``ids=1,2,3``, ``tags=a&tags=b`` for ``pipes``, ``X-Ids: p,q``
    for a header declared ``pipes``."""
    router = _router()
    router.add_openapi(_swagger(server.base_url), provider="sw")
    server.reset()
    router.call(
        "sw/rest/list",
        {
            "csvpath": ["1", "2"],
            "pipepath": ["a", "b"],
            "ids": ["1", "2", "3"],
            "tags": ["a", "b"],
            "words": ["x", "y"],
            "cols": ["c", "d"],
            "many": ["m", "n"],
            "X-Ids": ["p", "q"],
            "one": "plain",
        },
    )
    seen = server.requests[-1]
    assert seen.path == "/list/1,2/a%7Cb"
    assert seen.query == {
        "ids": ["1,2,3"],
        "tags": ["a|b"],
        "words": ["x y"],
        "cols": ["c\td"],
        "many": ["m", "n"],
        "one": ["plain"],
    }
    assert seen.headers["X-Ids"] == "p|q"
    arguments = {"f": ["1", "2"], "g": ["3", "4"]}
    router.call("sw/rest/form", arguments, allow_effects={"write"}, approve=lambda r, a: True)
    # a joined form list keeps its commas literal too (user trial W, low): f=1,2
    assert server.requests[-1].body == b"f=1,2&g=3&g=4"
    arguments = {"f": ["a,b", "c d&"], "g": ["3"]}
    router.call("sw/rest/form", arguments, allow_effects={"write"}, approve=lambda r, a: True)
    assert server.requests[-1].body == b"f=a%2Cb,c+d%26&g=3"


def _oas3(base_url: str) -> dict[str, Any]:
    ints = {"type": "array", "items": {"type": "integer"}}
    point = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "O3", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/find/{lab}/{mat}/{obj}/{one}": {
                "get": {
                    "operationId": "find",
                    "parameters": [
                        {"name": "lab", "in": "path", "required": True, "style": "label",
                         "schema": ints},
                        {"name": "mat", "in": "path", "required": True, "style": "matrix",
                         "explode": True, "schema": ints},
                        {"name": "obj", "in": "path", "required": True, "explode": True,
                         "schema": point},
                        {"name": "one", "in": "path", "required": True, "style": "matrix",
                         "schema": {"type": "string"}},
                        {"name": "ids", "in": "query", "explode": False, "schema": ints},
                        {"name": "sp", "in": "query", "style": "spaceDelimited",
                         "explode": False, "schema": ints},
                        {"name": "pp", "in": "query", "style": "pipeDelimited", "schema": ints},
                        {"name": "filter", "in": "query", "style": "deepObject", "explode": True,
                         "schema": {"type": "object", "properties": {
                             "status": {"type": "string"}, "owner": {"type": "string"}}}},
                        {"name": "point", "in": "query", "schema": point},
                        {"name": "rep", "in": "query", "schema": ints},
                        {"name": "q", "in": "query",
                         "content": {"application/json": {"schema": point}}},
                        {"name": "X-Obj", "in": "header", "schema": point},
                        {"name": "prefs", "in": "cookie", "explode": False, "schema": ints},
                    ],
                    "responses": OK_RESPONSES,
                }
            }
        },
    }  # fmt: skip


def test_openapi_3_styles_reach_the_server(server: LoopbackServer) -> None:
    """``explode: false`` went out as ``ids=1&ids=2``, ``spaceDelimited`` as ``sp=3&sp=4``,
    ``deepObject`` and a form object as JSON text (``filter=%7B...``, ``point={"x":1,...}``)."""
    router = _router()
    router.add_openapi(_oas3(server.base_url), provider="o3")
    server.reset()
    router.call(
        "o3/rest/find",
        {
            "lab": [1, 2],
            "mat": [3, 4],
            "obj": {"x": 5, "y": 6},
            "one": "v",
            "ids": [1, 2],
            "sp": [3, 4],
            "pp": [5, 6],
            "filter": {"status": "open", "owner": "me"},
            "point": {"x": 1, "y": 2},
            "rep": [7, 8],
            "q": {"x": 9, "y": 10},
            "X-Obj": {"x": 1, "y": 2},
            "prefs": [1, 2],
        },
    )
    seen = server.requests[-1]
    assert seen.path == "/find/.1,2/;mat=3;mat=4/x=5,y=6/;one=v"
    assert seen.query == {
        "ids": ["1,2"],
        "sp": ["3 4"],
        "pp": ["5|6"],
        "filter[status]": ["open"],
        "filter[owner]": ["me"],
        "x": ["1"],
        "y": ["2"],
        "rep": ["7", "8"],
        "q": [json.dumps({"x": 9, "y": 10}, separators=(",", ":"))],
    }
    assert seen.headers["X-Obj"] == "x,1,y,2"
    assert seen.headers["Cookie"] == "prefs=1,2"


def test_only_what_differs_from_the_default_enters_the_contract(server: LoopbackServer) -> None:
    """A parameter whose document says nothing beyond OpenAPI 3's default keeps the contract
    and fingerprint it had (no ``style`` key); Swagger 2's ``multi`` is that default, ``csv``
    is not."""
    assert set(Parameter(name="x").canonical()) == {
        "name", "location", "json_schema", "required", "description", "aliases", "semantic_id",
    }  # fmt: skip
    router = _router()
    router.add_openapi(_swagger(server.base_url), provider="sw")
    route = router.snapshot().route("sw/rest/list")
    declared = {p.name: (p.style, p.explode) for p in route.endpoint.parameters}
    assert declared == {
        "csvpath": (None, None),
        "pipepath": (ParameterStyle.PIPE_DELIMITED, None),
        "ids": (None, False),
        "tags": (ParameterStyle.PIPE_DELIMITED, None),
        "words": (ParameterStyle.SPACE_DELIMITED, None),
        "cols": (ParameterStyle.TAB_DELIMITED, None),
        "many": (None, None),
        "X-Ids": (ParameterStyle.PIPE_DELIMITED, None),
        "one": (None, None),
    }
    # an OpenAPI 3 document that spells the defaults out registers the same contract
    plain = _oas3(server.base_url)
    spelled = _oas3(server.base_url)
    for param in spelled["paths"]["/find/{lab}/{mat}/{obj}/{one}"]["get"]["parameters"]:
        if param["name"] == "rep":
            param.update(style="form", explode=True)
        if param["name"] == "X-Obj":
            param.update(style="simple", explode=False)
    fingerprints = []
    for document in (plain, spelled):
        other = _router()
        other.add_openapi(document, provider="o3")
        fingerprints.append(other.snapshot().route("o3/rest/find").fingerprint)
    assert fingerprints[0] == fingerprints[1]


def test_a_style_the_location_does_not_take(server: LoopbackServer) -> None:
    """Strict reading refuses it; the lenient one keeps the default and says so."""
    document = _oas3(server.base_url)
    params = document["paths"]["/find/{lab}/{mat}/{obj}/{one}"]["get"]["parameters"]
    params.append({"name": "X-Deep", "in": "header", "style": "deepObject", "schema": {}})
    with pytest.raises(DocumentError, match="style 'deepObject' does not apply to a header"):
        _router().add_openapi(document, provider="o3", strict=True)
    router = _router()
    change = router.add_openapi(document, provider="o3")
    assert any("style 'deepObject' does not apply" in w for w in change.warnings)
    assert router.snapshot().route("o3/rest/find").endpoint.parameter("X-Deep").style is None
    with pytest.raises(ValueError, match="does not apply in query"):
        Parameter(name="x", location=ParameterLocation.QUERY, style=ParameterStyle.LABEL)


def test_a_joined_query_list_keeps_its_commas_literal_and_encodes_its_items(
    server: LoopbackServer,
) -> None:
    """``explode: false`` (and Swagger 2's ``csv``) sent ``["a,b", "c"]`` as
    ``ids=a%2Cb%2Cc``, the delimiter encoded like the comma inside an item: a server read
    three ids, ``a``, ``b`` and ``c`` (user trial W). RFC 6570 and OpenAPI keep the
    delimiter literal and encode the items: ``ids=a%2Cb,c``."""
    router = _router()
    router.add_openapi(_oas3(server.base_url), provider="o3")
    router.add_openapi(_swagger(server.base_url), provider="sw")
    server.reset()
    path = {"lab": [1], "mat": [2], "obj": {"x": 1}, "one": "v"}
    router.call("o3/rest/find", {**path, "ids": [12, 3], "point": {"x": 1, "y": 2}})
    seen = server.requests[-1]
    assert seen.raw_path.partition("?")[2] == "ids=12,3&x=1&y=2"
    router.call("sw/rest/list", {"csvpath": ["1"], "pipepath": ["2"], "ids": ["a,b", "c d&"]})
    seen = server.requests[-1]
    assert seen.raw_path.partition("?")[2] == "ids=a%2Cb,c+d%26"
    items = seen.raw_path.partition("ids=")[2].split(",")
    assert [unquote_plus(item) for item in items] == ["a,b", "c d&"]


def test_a_multipart_file_field_travels_as_a_file_part(server: LoopbackServer) -> None:
    """A Swagger 2 ``type: file`` form field (``format: binary`` in OpenAPI 3.0, a
    ``contentMediaType`` in 3.1) went out as a plain text part, with no ``filename``: a
    server (Starlette's ``UploadFile``, Flask's ``request.files``) found no file (user trial
    W). It is a file part now, its media type declared; text fields stay text parts."""
    router = _router()
    upload = {
        "consumes": ["multipart/form-data"],
        "parameters": [
            {"name": "file", "in": "formData", "type": "file", "required": True},
            {"name": "caption", "in": "formData", "type": "string"},
        ],
        "responses": {"200": {"description": "ok", "schema": {"type": "object"}}},
    }
    swagger = {
        "swagger": "2.0",
        "info": {"title": "Up", "version": "1"},
        "host": server.base_url.split("//")[1],
        "schemes": ["http"],
        "paths": {"/upload": {"post": {"operationId": "upload", **upload}}},
    }
    part = {"type": "string", "contentMediaType": "image/png"}
    oas31 = {
        "openapi": "3.1.0",
        "info": {"title": "Up31", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": {
            "/photo": {
                "post": {
                    "operationId": "photo",
                    "requestBody": {
                        "content": {
                            "multipart/form-data": {
                                "schema": {"type": "object", "properties": {"image": part}}
                            }
                        }
                    },
                    "responses": OK_RESPONSES,
                }
            }
        },
    }
    router.add_openapi(swagger, provider="up")
    router.add_openapi(oas31, provider="up31")
    yes = {"allow_effects": {"write"}, "approve": lambda r, a: True}
    server.reset()
    router.call("up/rest/upload", {"file": "PNG-DATA", "caption": "front"}, **yes)
    body = server.requests[-1].body
    assert b'name="file"; filename="file"\r\nContent-Type: application/octet-stream' in body
    assert b"PNG-DATA" in body
    assert b'name="caption"\r\n\r\nfront' in body
    router.call("up31/rest/photo", {"image": "PNG-DATA"}, **yes)
    body = server.requests[-1].body
    assert b'name="image"; filename="image"\r\nContent-Type: image/png' in body


def test_a_body_sent_as_json_in_place_of_the_only_media_type_is_said(
    server: LoopbackServer,
) -> None:
    """``consumes: [application/xml]`` with an object body: the body went out as JSON,
    ``Content-Type: application/json``, and the registration said nothing (user trial M).
    A body whose schema is text travels as it is, in its own media type, and is not named."""
    thing = {"type": "object", "properties": {"n": {"type": "integer"}}}
    document = {
        "swagger": "2.0",
        "info": {"title": "Xml", "version": "1"},
        "host": server.base_url.split("://", 1)[1],
        "schemes": ["http"],
        "consumes": ["application/xml"],
        "paths": {
            "/things": {
                "post": {
                    "operationId": "addThing",
                    "parameters": [{"name": "body", "in": "body", "schema": thing}],
                    "responses": OK_RESPONSES,
                },
                "put": {
                    "operationId": "putNote",
                    "consumes": ["text/plain"],
                    "parameters": [{"name": "body", "in": "body", "schema": {"type": "string"}}],
                    "responses": OK_RESPONSES,
                },
            }
        },
    }
    router = _router()
    change = router.add_openapi(document)
    assert list(change.warnings) == [
        "paths: 1 operation takes a body as application/xml only (paths./things.post); "
        "SchemaRouter sends such a body as JSON (application/json), which the server may refuse"
    ]
    server.reset()
    write = {"allow_effects": {"write"}, "approve": lambda r, a: True}
    router.call("xml/rest/add_thing", {"body": {"n": 1}}, **write)
    router.call("xml/rest/put_note", {"body": "a note"}, **write)
    sent = [(r.headers["Content-Type"], r.body) for r in server.requests]
    assert sent == [("application/json", b'{"n":1}'), ("text/plain", b"a note")]
