"""One OpenAPI schema, two uses: ``readOnly`` / ``writeOnly`` read per request and response, and
an output schema that accepts what any of an operation's 2xx responses documents.

Trial J (findings 2 and 3): a create without the server-assigned ``id`` was refused (the shared
``User`` required it, ``readOnly`` or not), its answer without the ``writeOnly`` password failed
output validation after the write ran, and a PUT documented with 200 (JSON) and 204 (no
content) that answered 204 failed too: only the first 2xx response was kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from azure_network import azure_network_document

from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Endpoint, schema_validator
from schemarouter.errors import DanglingReferenceError

USER = {
    "type": "object",
    "required": ["id", "name", "password"],
    "properties": {
        "id": {"type": "integer", "readOnly": True},
        "name": {"type": "string"},
        "password": {"type": "string", "writeOnly": True},
    },
}
#: ``User`` at every depth and in every combinator a document uses it.
GROUP = {
    "type": "object",
    "required": ["id", "owner", "members"],
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "owner": {"$ref": "#/components/schemas/User"},
        "members": {"type": "array", "items": {"$ref": "#/components/schemas/User"}},
        "deputy": {"anyOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]},
        "admin": {
            # not mergeable (minProperties): the allOf stays, its members read together
            "allOf": [
                {"$ref": "#/components/schemas/User"},
                {"minProperties": 1, "required": ["id", "level"]},
            ]
        },
        "by_name": {
            "type": "object",
            "additionalProperties": {"$ref": "#/components/schemas/User"},
        },
    },
}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _users_document(version: str = "3.0.3") -> dict[str, Any]:
    group = {"$ref": "#/components/schemas/Group"}
    return {
        "openapi": version,
        "info": {"title": "Users", "version": "1"},
        "servers": [{"url": "https://users.example.org"}],
        "components": {"schemas": {"User": USER, "Group": GROUP}},
        "paths": {
            "/groups": {
                "post": {
                    "operationId": "createGroup",
                    "requestBody": {"required": True, **_json(group)},
                    "responses": {"201": {"description": "created", **_json(group)}},
                }
            }
        },
    }


def _endpoint(document: dict[str, Any], route_id: str) -> Endpoint:
    routes = {r.route_id: r for r in openapi_registration(document).routes}
    return routes[route_id].endpoint


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object schema with properties inside ``schema`` (``$defs`` included)."""
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                yield node
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)


def _marked(schema: Any, flag: str) -> set[str]:
    return {
        name
        for node in _objects(schema)
        for name, sub in node["properties"].items()
        if isinstance(sub, dict) and sub.get(flag) is True
    }


def _required(schema: Any) -> set[str]:
    found: set[str] = set()
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if isinstance(node.get("required"), list):
                found.update(node["required"])
            todo.extend(v for k, v in node.items() if k != "required")
        elif isinstance(node, list):
            todo.extend(node)
    return found


def test_a_shared_component_is_read_per_use_at_every_depth() -> None:
    endpoint = _endpoint(_users_document(), "users/rest/create_group")
    body = endpoint.input_schema["properties"]["body"]
    # request: no readOnly property offered, none required, at any depth or combinator
    assert _marked(body, "readOnly") == set() and "id" not in _required(body)
    assert "password" in _required(body)  # writeOnly: the request is where it travels
    user = body["properties"]["owner"]
    assert set(user["properties"]) == {"name", "password"}
    assert user["required"] == ["name", "password"]
    assert set(body["properties"]["members"]["items"]["properties"]) == {"name", "password"}
    assert set(body["properties"]["by_name"]["additionalProperties"]["properties"]) == {
        "name",
        "password",
    }
    admin = body["properties"]["admin"]["allOf"]
    assert admin[1]["required"] == ["level"]  # 'id' is marked in the sibling member
    create = schema_validator(body)
    member = {"name": "ann", "password": "pw"}
    group = {
        "owner": member,
        "members": [member],
        "deputy": member,
        "admin": {"level": 1, **member},
    }
    assert create.is_valid(group)
    # response: writeOnly properties kept but not required; readOnly ones required as written
    output = endpoint.output_schema
    assert output is not None
    assert "password" not in _required(output) and "id" in _required(output)
    assert _marked(output, "writeOnly") == {"password"} and "id" in _marked(output, "readOnly")
    read = schema_validator(output)
    member = {"id": 7, "name": "ann"}
    admin_out = {**member, "level": 2}
    assert read.is_valid(
        {"id": "g", "owner": member, "members": [member], "deputy": member, "admin": admin_out}
    )
    assert not read.is_valid({"id": "g", "owner": {"name": "ann"}, "members": []})  # id stays
    # the output fields leave the writeOnly ones out, at every depth and in combinators
    names = {f.name for f in endpoint.output_fields}
    assert {"owner.name", "members.name", "admin.name"} <= names
    assert not [name for name in names if name.endswith("password")]


def test_a_write_only_property_is_no_output_field() -> None:
    """A ``writeOnly`` property (``tax_id``: "VAT number; never returned") stayed an output
    field of the GET: retrieval matched it, the plan asked for it and the step came back
    ``ok`` with it missing (trial N §7). It stays in the request body."""
    customer = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "readOnly": True},
            "email": {"type": "string"},
            "tax_id": {"type": "string", "writeOnly": True, "description": "VAT number"},
        },
    }
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Billing", "version": "1"},
        "servers": [{"url": "https://billing.example.org"}],
        "components": {"schemas": {"Customer": customer}},
        "paths": {
            "/customers": {
                "post": {
                    "operationId": "createCustomer",
                    "requestBody": _json({"$ref": "#/components/schemas/Customer"}),
                    "responses": {"201": _json({"$ref": "#/components/schemas/Customer"})},
                }
            },
            "/customers/{id}": {
                "get": {
                    "operationId": "getCustomer",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": _json({"$ref": "#/components/schemas/Customer"})},
                }
            },
        },
    }
    get = _endpoint(document, "billing/rest/get_customer")
    assert [f.name for f in get.output_fields] == ["id", "email"]
    create = _endpoint(document, "billing/rest/create_customer")
    assert [f.name for f in create.output_fields] == ["id", "email"]
    assert set(create.input_schema["properties"]["body"]["properties"]) == {"email", "tax_id"}


def test_openapi_3_1_reads_them_too() -> None:
    endpoint = _endpoint(_users_document("3.1.0"), "users/rest/create_group")
    assert "id" not in _required(endpoint.input_schema)
    assert "password" not in _required(endpoint.output_schema)


def test_swagger_2_reads_read_only_in_bodies_and_has_no_write_only() -> None:
    document = {
        "swagger": "2.0",
        "info": {"title": "Users", "version": "1"},
        "host": "users.example.org",
        "definitions": {"User": USER},
        "paths": {
            "/users": {
                "post": {
                    "operationId": "createUser",
                    "parameters": [
                        {
                            "in": "body",
                            "name": "user",
                            "required": True,
                            "schema": {"$ref": "#/definitions/User"},
                        }
                    ],
                    "responses": {
                        "201": {"description": "", "schema": {"$ref": "#/definitions/User"}}
                    },
                }
            }
        },
    }
    endpoint = _endpoint(document, "users/rest/create_user")
    body = endpoint.input_schema["properties"]["user"]
    assert set(body["properties"]) == {"name", "password"} and body["required"] == [
        "name",
        "password",
    ]
    assert endpoint.output_schema is not None
    assert endpoint.output_schema["required"] == ["id", "name", "password"]  # no writeOnly in 2.0


def test_form_fields_that_are_read_only_are_no_parameters() -> None:
    document = _users_document()
    form = {"content": {"application/x-www-form-urlencoded": {"schema": USER}}}
    document["paths"]["/users"] = {
        "post": {
            "operationId": "createUser",
            "requestBody": form,
            "responses": {"204": {"description": ""}},
        }
    }
    endpoint = _endpoint(document, "users/rest/create_user")
    assert [(p.name, p.required) for p in endpoint.parameters] == [
        ("name", True),
        ("password", True),
    ]


def test_shared_cyclic_definitions_are_read_per_use() -> None:
    # Azure's network API: the PUT body and its response share cyclic definitions ($defs form)
    routes = {
        r.route_id: r
        for r in openapi_registration(azure_network_document(), provider="azure").routes
    }
    endpoint = routes["azure/rest/network_interfaces_create_or_update"].endpoint
    body = endpoint.input_schema["properties"]["parameters"]
    assert "$defs" in endpoint.input_schema or "$defs" in body
    assert _marked(endpoint.input_schema, "readOnly") == set()
    assert endpoint.output_schema is not None and "$defs" in endpoint.output_schema
    assert {"name", "type", "ipConfiguration"} <= _marked(endpoint.output_schema, "readOnly")


# -- several 2xx responses -------------------------------------------------------------------


def _put(responses: dict[str, Any]) -> Endpoint:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Items", "version": "1"},
        "servers": [{"url": "https://items.example.org"}],
        "paths": {"/items": {"put": {"operationId": "putItem", "responses": responses}}},
    }
    return _endpoint(document, "items/rest/put_item")


ITEM = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


def test_another_2xx_without_content_accepts_an_empty_body() -> None:
    alone = _put({"200": {"description": "", **_json(ITEM)}})
    both = _put({"200": {"description": "", **_json(ITEM)}, "204": {"description": "nothing"}})
    assert both.output_schema is not None
    valid = schema_validator(both.output_schema)
    assert valid.is_valid(None) and valid.is_valid({"id": "a"})
    assert not valid.is_valid({"name": "a"}) and not valid.is_valid("a")
    assert both.output_fields == alone.output_fields  # the fields of the first, as before
    assert alone.output_schema is not None and not schema_validator(alone.output_schema).is_valid(
        None
    )


def test_several_2xx_schemas_accept_any_of_them() -> None:
    other = {"type": "object", "required": ["job"], "properties": {"job": {"type": "integer"}}}
    endpoint = _put(
        {
            "200": {"description": "", **_json(ITEM)},
            "202": {"description": "", **_json(other)},
            "204": {"description": ""},
            "2XX": {"description": "", **_json(ITEM)},
        }
    )
    assert endpoint.output_schema is not None
    valid = schema_validator(endpoint.output_schema)
    assert valid.is_valid({"id": "a"}) and valid.is_valid({"job": 3}) and valid.is_valid(None)
    assert not valid.is_valid({"job": "x"})
    assert [f.name for f in endpoint.output_fields] == ["id"]
    # a 2xx whose body has no schema: any body is documented
    loose = _put(
        {"200": {"description": "", **_json(ITEM)}, "202": {"description": "", **_json({})}}
    )
    assert loose.output_schema is not None
    assert schema_validator(loose.output_schema).is_valid(["anything"])
    # the same schema under several codes changes nothing
    same = _put(
        {"200": {"description": "", **_json(ITEM)}, "201": {"description": "", **_json(ITEM)}}
    )
    assert same.output_schema == ITEM


def test_a_first_2xx_without_content_still_declares_no_output() -> None:
    endpoint = _put({"200": {"description": ""}, "201": {"description": "", **_json(ITEM)}})
    assert endpoint.output_schema is None and endpoint.output_fields == ()


def test_another_2xx_that_does_not_resolve_is_left_out_with_a_warning() -> None:
    responses = {
        "200": {"description": "", **_json(ITEM)},
        "201": {"description": "", **_json({"$ref": "#/components/schemas/Nowhere"})},
        "202": "accepted",
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Items", "version": "1"},
        "servers": [{"url": "https://items.example.org"}],
        "paths": {"/items": {"put": {"operationId": "putItem", "responses": responses}}},
    }
    registration = openapi_registration(document)
    assert registration.routes[0].endpoint.output_schema == ITEM  # as before: the first's
    left = [w for w in registration.warnings if "left out of the output schema" in w]
    assert [w.split(":")[0] for w in left] == [
        "paths./items.put.responses.201",
        "paths./items.put.responses.202",
    ]
    with pytest.raises(DanglingReferenceError):
        openapi_registration(document, strict=True)
