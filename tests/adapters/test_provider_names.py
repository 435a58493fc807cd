"""Every adapter makes its provider the same way (registry.compile.named_provider): a name's
slug is the id, a title (or the name) the display name, and a blank or non-text name is one
DocumentError at the source, with nothing registered."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import Provider, SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder

from helpers import openapi_document

TOOL = {"name": "get_note", "description": "Read one note", "inputSchema": {"type": "object"}}


def get_forecast(city: str) -> dict[str, Any]:
    """The forecast for a city."""
    return {"city": city}


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _document() -> dict[str, Any]:
    return openapi_document(
        "Weather Service",
        {"/forecast": {"get": {"operationId": "getForecast", "responses": {"200": {}}}}},
    )


REGISTRATIONS = {
    "openapi": lambda router, provider: router.add_openapi(_document(), provider=provider),
    "mcp": lambda router, provider: router.add_mcp_tools([TOOL], provider=provider),
    "python": lambda router, provider: router.add_callable(get_forecast, provider=provider),
}


@pytest.mark.parametrize("kind", sorted(REGISTRATIONS))
def test_a_name_becomes_a_provider_with_its_slug_as_id(kind: str) -> None:
    router = _router()
    REGISTRATIONS[kind](router, "  Acme Tools ")
    (provider,) = {route.provider for route in router.snapshot()}
    assert provider.id == "acme_tools"
    assert provider.display_name == ("Weather Service" if kind == "openapi" else "Acme Tools")


@pytest.mark.parametrize("kind", sorted(REGISTRATIONS))
def test_a_provider_object_is_taken_as_given(kind: str) -> None:
    router = _router()
    given = Provider(id="acme", display_name="ACME Inc.", license="MIT")
    REGISTRATIONS[kind](router, given)
    assert {route.provider for route in router.snapshot()} == {given}


@pytest.mark.parametrize("kind", sorted(REGISTRATIONS))
@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_name_is_one_clear_refusal(kind: str, blank: str) -> None:
    router = _router()
    with pytest.raises(DocumentError, match="provider must be a non-empty string or a Provider"):
        REGISTRATIONS[kind](router, blank)
    assert len(router.snapshot()) == 0


@pytest.mark.parametrize("kind", sorted(REGISTRATIONS))
def test_names_with_no_ascii_letter_get_ids_of_their_own(kind: str) -> None:
    """'재고' and '배송' both became the id 'x' (user trial R): the second was refused as
    'already registered with other metadata', and with replace=True it removed the first's
    routes. Such names now get p_ and eight hex digits of their SHA-256 (stable)."""
    router = _router()
    REGISTRATIONS[kind](router, "재고")
    REGISTRATIONS[kind](router, "배송")  # no clash: nothing refused
    ids = {route.provider.id for route in router.snapshot()}
    assert ids == {"p_6e1b9aec", "p_9c5a604d"}


def test_a_mixed_or_accented_name_keeps_its_ascii_words() -> None:
    from schemarouter.registry.compile import provider_id

    assert provider_id("八字_mcp") == "mcp_8fac0448" != provider_id("四柱_mcp")
    assert provider_id("  Müller Daten ") == "muller_daten"
    assert provider_id("Acme Tools") == "acme_tools"


def test_approve_under_a_korean_provider_never_removes_another() -> None:
    router = _router()
    items = router.inspect("## GET /items\n\nList items.\n")
    shipments = router.inspect("## GET /shipments\n\nList shipments.\n")
    router.approve(items, base_url="http://127.0.0.1:9", provider="재고")
    change = router.approve(shipments, base_url="http://127.0.0.1:9", provider="배송")
    assert change.added == ("p_9c5a604d/docs/get_shipments",)
    change = router.approve(shipments, base_url="http://127.0.0.1:9", provider="배송", replace=True)
    assert change.removed == ()
    assert "p_6e1b9aec/docs/get_items" in router.snapshot().route_ids()


WEATHER = openapi_document(
    "Weather API",
    {
        "/forecast": {
            "get": {
                "operationId": "getForecast",
                "summary": "Daily weather forecast for a city",
                "parameters": [
                    {"name": "city", "in": "query", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/alerts": {
            "post": {
                "operationId": "createAlert",
                "summary": "Create a weather alert",
                "responses": {"201": {"description": "created"}},
            }
        },
    },
)


@pytest.mark.parametrize("first", [{}, {"provider": "weather"}])
def test_one_document_from_its_file_then_as_a_dict_is_registered_once(
    first: dict[str, Any], tmp_path: Any
) -> None:
    """``add_openapi('weather.yaml')`` then ``add_openapi(yaml.safe_load(text))`` (the same
    content) registered it again as ``weather_2`` beside ``weather``, its duplicates crowding
    retrieval (trial W F5). Routes equal to those an id holds are the same document: refused
    as already registered, with the replace=True advice the same path twice gets; a different
    document titled alike still gets ``weather_2``."""
    import json

    from schemarouter.errors import DuplicateRouteError

    path = tmp_path / "weather.json"
    path.write_text(json.dumps(WEATHER), encoding="utf-8")
    router = _router()
    assert router.add_openapi(path, **first).added == (
        "weather/rest/create_alert",
        "weather/rest/get_forecast",
    )
    with pytest.raises(DuplicateRouteError, match="already registered") as info:
        router.add_openapi(json.loads(path.read_text()))
    assert "Pass replace=True" in str(info.value)
    assert "another document" not in str(info.value)
    assert router.add_openapi(dict(WEATHER), replace=True).empty  # the same routes: no change
    assert set(router.snapshot().providers) == {"weather"}
    other = {**WEATHER, "paths": {"/history": WEATHER["paths"]["/forecast"]}}
    assert router.add_openapi(other).added == ("weather_2/rest/get_forecast",)


def test_a_numbered_provider_id_is_said_to_follow_registration_order(tmp_path: Any) -> None:
    """Trial X2: in a folder of documents changed daily, ``globex_amazon_simple_2`` was the
    email service one day and, a queue service's document added before it, the storage
    service the next; an allow list naming it followed, without a word. The registration
    that takes a numbered id now says why, and how to give it a name that lasts."""
    import json

    def document(name: str, title: str) -> Any:
        path = tmp_path / f"{name}.json"
        paths = {f"/{name}": {"get": {"operationId": f"get_{name}", "responses": {"200": {}}}}}
        path.write_text(json.dumps(openapi_document(title, paths)), encoding="utf-8")
        return path

    storage = document("storage", "Globex Amazon Simple Storage Service")
    email = document("email", "Globex Amazon Simple Email Service")
    router = _router()
    first = router.add_openapi(storage)
    assert first.added == ("globex_amazon_simple/rest/get_storage",)
    assert not [w for w in first.warnings if "provider id" in w]
    second = router.add_openapi(email)
    assert second.added == ("globex_amazon_simple_2/rest/get_email",)
    (said,) = [w for w in second.warnings if "provider id" in w]
    assert said.startswith(
        "provider id 'globex_amazon_simple_2': 'globex_amazon_simple', from the title "
        f"'Globex Amazon Simple Email Service', is held by {storage};"
    )
    assert "follows the order documents are registered in" in said
    assert "provider=, or PROVIDER=FILE" in said
    named = router.add_openapi(document("queue", "Globex Amazon Simple Queue"), provider="q")
    assert not [w for w in named.warnings if "provider id" in w]
