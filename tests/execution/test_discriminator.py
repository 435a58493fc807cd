"""A ``oneOf`` with an OpenAPI ``discriminator`` validates by the member its value names
(user trial M): on a real loopback server, answers and request bodies of a pet shop whose
``Dog`` and ``Cat`` inherit ``Pet`` through ``allOf``.

Before, the discriminator was read as an annotation only: a ``cat`` answer missing ``lives``
passed as a ``Dog``, a ``fish`` no mapping names passed, and a ``dog`` that carried an extra
``lives`` (valid: ``Dog`` is open) was refused as matching both members; an answer declared
as the base ``Pet`` (whose discriminator maps ``cat`` to ``Cat``) passed as any ``Pet``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import (
    DanglingReferenceError,
    OutputValidationError,
    ParameterValidationError,
)
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

WRITE = {"allow_effects": ["write"], "approve": lambda route, args: True}


class ShopApp:
    """Answers the order ``answer`` holds, and echoes a created order."""

    def __init__(self) -> None:
        self.answer: Any = None

    def __call__(self, request: Request) -> Response:
        if request.path.startswith("/pets/"):
            return json_response(self.answer["pet"])
        if request.method == "POST":
            return json_response(
                {"id": "A-2", "pet": {"petType": "dog", "name": "Rex", "bark": True}}, 201
            )
        return json_response(self.answer)


@pytest.fixture(scope="module")
def shop() -> Iterator[LoopbackServer]:
    with LoopbackServer(ShopApp()) as server:
        yield server


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _document(base_url: str, *, mapping: bool) -> dict[str, Any]:
    def kind(extra: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "allOf": [
                _ref("Pet"),
                {"type": "object", "required": [extra], "properties": {extra: schema}},
            ]
        }

    discriminator: dict[str, Any] = {"propertyName": "petType"}
    if mapping:  # explicit values; else the implicit mapping, the component names
        discriminator["mapping"] = {"dog": "#/components/schemas/Dog", "cat": "Cat"}
    order = {
        "type": "object",
        "required": ["id", "pet"],
        "properties": {"id": {"type": "string"}, "pet": _ref("AnyPet")},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": base_url}],
        "components": {
            "schemas": {
                "Pet": {
                    "type": "object",
                    "required": ["petType", "name"],
                    "properties": {"petType": {"type": "string"}, "name": {"type": "string"}},
                    **({"discriminator": discriminator} if mapping else {}),
                },
                "Dog": kind("bark", {"type": "boolean"}),
                "Cat": kind("lives", {"type": "integer", "maximum": 9}),
                "AnyPet": {"oneOf": [_ref("Dog"), _ref("Cat")], "discriminator": discriminator},
                "Order": order,
            }
        },
        "paths": {
            "/orders/{id}": {
                "get": {
                    "operationId": "getOrder",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "", **_json(_ref("Order"))}},
                }
            },
            "/pets/{id}": {
                "get": {
                    "operationId": "getPet",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "", **_json(_ref("Pet"))}},
                }
            },
            "/orders": {
                "post": {
                    "operationId": "createOrder",
                    "requestBody": {"required": True, **_json(order)},
                    "responses": {"201": {"description": "", **_json(_ref("Order"))}},
                }
            },
        },
    }


def _router(shop: LoopbackServer, *, mapping: bool = True) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(shop.base_url, mapping=mapping))
    return router


def _answer(router: SchemaRouter, shop: LoopbackServer, pet: dict[str, Any]) -> Any:
    shop.app.answer = {"id": "A-1", "pet": pet}  # type: ignore[attr-defined]
    return router.call("shop/rest/get_order", {"id": "A-1"}).output


@pytest.mark.parametrize("mapping", [True, False])
def test_an_answer_validates_by_the_member_its_discriminator_names(
    shop: LoopbackServer, mapping: bool
) -> None:
    router = _router(shop, mapping=mapping)
    dog = {"petType": "dog" if mapping else "Dog", "name": "Rex", "bark": True}
    assert _answer(router, shop, dog)["pet"] == dog
    # a Dog with a key Cat declares is still a Dog (Dog is open): not "valid under each"
    assert _answer(router, shop, {**dog, "lives": 3})["pet"]["lives"] == 3
    cat = "cat" if mapping else "Cat"
    bad = [
        {"petType": cat, "name": "Tom", "bark": True},  # a cat without lives, as a Dog
        {"petType": "fish", "name": "Nemo", "bark": False},  # a value nothing maps
    ]
    for pet in bad:
        with pytest.raises(OutputValidationError, match=r"\$\.pet"):
            _answer(router, shop, pet)


def test_the_component_name_still_names_its_member_beside_the_mapping(
    shop: LoopbackServer,
) -> None:
    router = _router(shop)
    cat = {"petType": "Cat", "name": "Tom", "lives": 7}
    assert _answer(router, shop, cat)["pet"] == cat


def test_a_request_body_is_held_to_the_member_its_discriminator_names(
    shop: LoopbackServer,
) -> None:
    router = _router(shop)
    dog = {"petType": "dog", "name": "Rex", "bark": True, "lives": 2}
    router.call("shop/rest/create_order", {"body": {"id": "x", "pet": dog}}, **WRITE)
    assert shop.requests[-1].method == "POST"
    sent = len(shop.requests)
    with pytest.raises(ParameterValidationError, match=r"\$\.body\.pet"):
        cat = {"petType": "cat", "name": "Tom", "bark": True}
        router.call("shop/rest/create_order", {"body": {"id": "x", "pet": cat}}, **WRITE)
    assert len(shop.requests) == sent  # refused before anything was sent


def test_an_answer_declared_as_the_base_is_held_to_the_subschema_its_value_maps() -> None:
    """``Pet`` (the base of ``Dog`` and ``Cat``, ``allOf``) with a discriminator ``mapping``:
    a ``cat`` answered where ``Pet`` is declared is a ``Cat`` (before: any ``Pet`` passed)."""
    with LoopbackServer(ShopApp()) as shop:
        router = _router(shop)
        get = "shop/rest/get_pet"
        cat = {"petType": "cat", "name": "Tom", "lives": 7}
        shop.app.answer = {"pet": cat}  # type: ignore[attr-defined]
        assert router.call(get, {"id": "1"}).output == cat
        for pet in [{**cat, "lives": 12}, {"petType": "cat", "name": "Tom"}]:
            shop.app.answer = {"pet": pet}  # type: ignore[attr-defined]
            with pytest.raises(OutputValidationError, match=r"\$\.lives"):
                router.call(get, {"id": "1"})
        dog = {"petType": "dog", "name": "Rex", "bark": True}
        shop.app.answer = {"pet": dog}  # type: ignore[attr-defined]
        assert router.call(get, {"id": "1"}).output == dog


def _hierarchy(base_url: str, kinds: int, *, tree: bool = False) -> dict[str, Any]:
    """``Base`` maps ``k0`` .. to ``S0`` .. (each ``allOf`` ``Base`` and an integer of its
    own, at most 9); ``Any`` is the ``oneOf`` of them all. ``tree``: ``Base`` also holds
    ``children``, a list of ``Base`` (a schema on a reference cycle)."""
    mapping = {f"k{i}": f"S{i}" for i in range(kinds)}
    base: dict[str, Any] = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string"}},
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    }
    if tree:
        base["properties"]["children"] = {"type": "array", "items": _ref("Base")}
    schemas: dict[str, Any] = {"Base": base}
    for i in range(kinds):
        own = {"type": "object", "required": [f"f{i}"]}
        own["properties"] = {f"f{i}": {"type": "integer", "maximum": 9}}
        schemas[f"S{i}"] = {"allOf": [_ref("Base"), own]}
    schemas["Any"] = {"oneOf": [_ref(f"S{i}") for i in range(kinds)]}
    schemas["Any"]["discriminator"] = {"propertyName": "kind", "mapping": mapping}
    paths = {
        f"/{name.lower()}": {
            "get": {
                "operationId": f"get{name}",
                "responses": {"200": {"description": "", **_json(_ref(name))}},
            }
        }
        for name in ("Any", "Base")
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Kinds", "version": "1"},
        "servers": [{"url": base_url}],
        "components": {"schemas": schemas},
        "paths": paths,
    }


@pytest.mark.parametrize(("kinds", "tree"), [(8, False), (60, False), (40, True)])
def test_a_base_mapping_many_subschemas_under_a_one_of_registers_and_validates(
    kinds: int, tree: bool
) -> None:
    """User trial X3: a ``oneOf`` of 8 subschemas whose base maps each of them was refused
    whole ('schema is nested too deeply to resolve'): past 10,000 nodes the schema takes the
    shared form, where a mapping (no ``$ref``, so no cycle seen) inlined its subschemas, each
    the base again, without end. Registered, answers still go by the member their value
    names, and nothing recurses when a call is checked."""
    with LoopbackServer(ShopApp()) as shop:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_hierarchy(shop.base_url, kinds, tree=tree))
        for route in ("kinds/rest/get_any", "kinds/rest/get_base"):
            good = {"kind": "k2", "f2": 3}
            shop.app.answer = good  # type: ignore[attr-defined]
            assert router.call(route, {}).output == good
        for bad in [{"kind": "k2", "f1": 3}, {"kind": "zz", "f2": 3}]:
            shop.app.answer = bad  # type: ignore[attr-defined]
            with pytest.raises(OutputValidationError):
                router.call("kinds/rest/get_any", {})


def test_a_member_written_as_an_alias_is_named_by_its_targets_mapping() -> None:
    """User trial X3: ``oneOf: [DogAlias, Cat]`` with ``DogAlias: {$ref: Dog}`` and the
    mapping ``dog -> Dog``: a valid ``dog`` was refused ('not valid under any'), the alias
    member being held to its own name only."""
    with LoopbackServer(ShopApp()) as shop:
        document = _document(shop.base_url, mapping=True)
        schemas = document["components"]["schemas"]
        schemas["DogAlias"] = _ref("Dog")
        schemas["AnyPet"]["oneOf"] = [_ref("DogAlias"), _ref("Cat")]
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(document)
        for pet in [
            {"petType": "dog", "name": "Rex", "bark": True},
            {"petType": "Dog", "name": "R", "bark": False},
        ]:
            assert _answer(router, shop, pet)["pet"] == pet
        with pytest.raises(OutputValidationError, match=r"\$\.pet"):
            _answer(router, shop, {"petType": "cat", "name": "Tom", "bark": True})


def test_a_mapping_to_another_file_is_refused_as_a_reference_to_bundle() -> None:
    """User trial X3: a mapping entry ``cat: pets.yaml#/Cat`` was read as a component named
    so: '$ref #/components/schemas/pets.yaml#/Cat points at nothing'."""
    document = _document("http://127.0.0.1:9", mapping=True)
    document["components"]["schemas"]["Pet"]["discriminator"]["mapping"]["cat"] = "pets.yaml#/Cat"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    with pytest.raises(DanglingReferenceError, match=r"'pets\.yaml#/Cat' is not a local") as raised:
        router.add_openapi(document)
    assert "Bundle the document" in str(raised.value)


def _implicit(base_url: str, *, swagger: bool) -> dict[str, Any]:
    """``Pet`` (the base of ``Cat`` and ``Dog`` through ``allOf``) told apart by ``petType``
    with no ``mapping``: Swagger 2's ``discriminator: petType``, or OpenAPI 3's
    ``{propertyName: petType}``; each subschema's own name is its value."""
    folder = "#/definitions/" if swagger else "#/components/schemas/"
    pet: dict[str, Any] = {
        "type": "object",
        "required": ["petType", "name"],
        "properties": {"petType": {"type": "string"}, "name": {"type": "string"}},
        "discriminator": "petType" if swagger else {"propertyName": "petType"},
    }

    def extends(key: str, schema: dict[str, Any]) -> dict[str, Any]:
        own = {"type": "object", "required": [key], "properties": {key: schema}}
        return {"allOf": [{"$ref": folder + "Pet"}, own]}

    schemas = {
        "Pet": pet,
        "Cat": extends("lives", {"type": "integer", "maximum": 9}),
        "Dog": extends("bark", {"type": "boolean"}),
    }
    path = {"name": "id", "in": "path", "required": True}
    answer = {"$ref": folder + "Pet"}
    if swagger:
        operation = {
            "operationId": "getPet",
            "parameters": [{**path, "type": "string"}],
            "responses": {"200": {"description": "", "schema": answer}},
        }
        host = base_url.split("://", 1)[1]
        return {
            "swagger": "2.0",
            "info": {"title": "Shop", "version": "1"},
            "host": host,
            "schemes": ["http"],
            "produces": ["application/json"],
            "definitions": schemas,
            "paths": {"/pets/{id}": {"get": operation}},
        }
    operation = {
        "operationId": "getPet",
        "parameters": [{**path, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "", **_json(answer)}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": base_url}],
        "components": {"schemas": schemas},
        "paths": {"/pets/{id}": {"get": operation}},
    }


@pytest.mark.parametrize("swagger", [True, False])
def test_a_base_without_a_mapping_is_held_to_the_subschema_its_name_gives(swagger: bool) -> None:
    """Trial M (low): a Swagger 2 ``discriminator: petType`` was not read, nor an OpenAPI 3
    one without ``mapping`` (the implicit mapping: a subschema's own name is its value), so a
    ``Cat`` answer missing ``lives`` passed as any ``Pet``."""
    with LoopbackServer(ShopApp()) as shop:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_implicit(shop.base_url, swagger=swagger), provider="shop")
        get = "shop/rest/get_pet"
        good = [
            {"petType": "Cat", "name": "Tom", "lives": 7},
            {"petType": "Dog", "name": "Rex", "bark": True},
            {"petType": "Fish", "name": "Nemo"},  # a name no subschema has: a Pet
        ]
        for pet in good:
            shop.app.answer = {"pet": pet}  # type: ignore[attr-defined]
            assert router.call(get, {"id": "1"}).output == pet
        bad = [
            ({"petType": "Cat", "name": "Tom"}, "'lives' is a required property"),
            ({"petType": "Cat", "name": "Tom", "lives": 12}, r"\$\.lives"),
            ({"petType": "Dog", "name": "Rex"}, "'bark' is a required property"),
        ]
        for pet, problem in bad:
            shop.app.answer = {"pet": pet}  # type: ignore[attr-defined]
            with pytest.raises(OutputValidationError, match=problem):
                router.call(get, {"id": "1"})
