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
