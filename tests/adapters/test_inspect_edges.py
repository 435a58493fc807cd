"""``inspect`` / ``approve`` on the smaller shapes of human docs (user trial R §18): units
written after a type, deprecated endpoints, ``curl`` with a full URL, paths that are not."""

from __future__ import annotations

import json
import re

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.inspect import approve, inspect
from schemarouter.contracts import AvailabilityStatus
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.integrations import tool_definitions

from servers.loopback import LoopbackServer, Request, Response, json_response


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def test_a_unit_after_the_type_is_read() -> None:
    """``- band_gap (number) (eV)`` and ``(number, kg)`` gave no unit; only ``unit: eV`` did."""
    doc = (
        "## GET /m\n\nResponse fields:\n\n"
        "- band_gap (number) (eV): the gap\n"
        "- mass (number, kg): the mass\n"
        "- temperature (number, in K): the temperature\n"
        "- ratio (number, %): the share\n"
        "- control (number, unit: GPa): spelled out\n"
        "- name (string, optional): no unit\n"
        "- celsius (number, C): 'C' is coulomb to pint, so not read\n"
        "- note (string) (see below): no unit either\n"
    )
    fields = {f.name: f for f in inspect(doc).endpoints[0].fields}
    assert {n: f.unit for n, f in fields.items()} == {
        "band_gap": "eV",
        "mass": "kg",
        "temperature": "K",
        "ratio": "%",
        "control": "GPa",
        "name": None,
        "celsius": None,
        "note": None,
    }
    assert fields["band_gap"].description == "the gap"
    assert fields["note"].description == "(see below): no unit either"


@pytest.mark.parametrize(
    "doc",
    [
        "## GET /v1/pos (deprecated)\n\nWhere a vehicle is.\n",
        "## GET /v1/pos\n\n**Deprecated**\n\nWhere a vehicle is.\n",
        "## GET /v1/pos\n\nDeprecated: use the v2 position instead.\n",
        "## GET /v1/pos\n\nWhere a vehicle is. This endpoint is deprecated.\n",
    ],
)
def test_a_deprecated_endpoint_is_registered_as_deprecated(doc: str) -> None:
    """``(DEPRECATED)`` / ``**Deprecated**`` endpoints were approved like any other."""
    proposal = inspect(doc)
    assert proposal.endpoints[0].deprecated
    router = _router()
    change = approve(router, proposal, base_url="http://127.0.0.1:9", provider="fleet")
    assert any("approved as deprecated" in w for w in change.warnings)
    endpoint = router.snapshot().routes[change.added[0]].endpoint
    assert endpoint.availability.status is AvailabilityStatus.DEPRECATED
    assert "deprecated by its docs" in endpoint.availability.note
    result = router.retrieve("where is the vehicle", k=1)
    (tool,) = tool_definitions(result, format="openai")
    assert "Deprecated by its provider" in json.dumps(tool)


def test_a_field_or_heading_named_deprecated_does_not_deprecate() -> None:
    doc = (
        "## GET /v2/pos\n\nWhere a vehicle is.\n\n### Deprecated fields\n\n"
        "- deprecated (boolean): whether the vehicle is retired\n"
        "- speed (number, unit: km/h): deprecated, use velocity\n"
    )
    assert inspect(doc).endpoints[0].deprecated == ""


def _created(request: Request) -> Response:
    return json_response({"id": "N-1"})


def test_a_curl_with_a_full_url_opens_its_endpoint() -> None:
    """``curl -X POST https://host/v1/notes`` (the most common form in internal docs) was not
    read as an endpoint; its JSON ``-d`` also marked the body form-encoded."""
    doc = (
        "# Notes API\n\n## Create a note\n\n"
        "```\ncurl -X POST https://api.example.com/v1/notes "
        '-H \'Content-Type: application/json\' -d \'{"text": "hi", "pinned": true}\'\n```\n\n'
        "## Read a note\n\n$ curl https://api.example.com/v1/notes/N-1\n"
    )
    proposal = inspect(doc)
    assert proposal.base_url == "https://api.example.com"
    create, read = proposal.endpoints
    assert (create.method, create.path, create.summary) == ("POST", "/v1/notes", "Create a note")
    assert {p.name: p.location for p in create.parameters} == {"text": "body", "pinned": "body"}
    assert create.body_media_type is None  # JSON, not a form
    assert (read.method, read.path) == ("GET", "/v1/notes/N-1")
    router = _router()
    with LoopbackServer(_created) as api:
        change = approve(
            router, proposal, base_url=api.base_url, provider="notes", allow_write=True
        )
        route = next(r for r in change.added if r.endswith("post_v1_notes"))
        router.call(route, {"text": "hi"}, allow_effects=["read", "write"], approve=lambda *a: True)
        (request,) = api.requests
        assert (request.method, request.path) == ("POST", "/v1/notes")
        assert json.loads(request.body) == {"text": "hi"}


def test_a_curl_example_of_a_documented_endpoint_opens_no_other() -> None:
    doc = (
        "Base URL: https://api.example.com/v1\n\n## GET /orders/{order_id}\n\nOne order.\n\n"
        "```\ncurl https://api.example.com/v1/orders/O-17?expand=true\n```\n"
    )
    (endpoint,) = inspect(doc).endpoints
    assert endpoint.path == "/orders/{order_id}"
    assert {p.name for p in endpoint.parameters} == {"order_id", "expand"}


def test_paths_that_are_not_paths_are_refused() -> None:
    """``GET //evil.example.net/steal`` was proposed and approved; a 100,000-character path
    was refused as "at most 256 characters (at ... (name))", a field no proposal has."""
    assert (
        inspect("Base URL: https://api.example.com\n\n## GET //evil.example.net/x\n").endpoints
        == ()
    )
    good = inspect("## GET /ok\n\nFine.\n")
    for path, says in [
        ("//evil.example.net/x", "starts with '//'"),
        ("ok", "does not start with '/'"),
        ("/" + "a" * 5000, "is 5001 characters long (at most 240)"),
    ]:
        edited = good.model_copy(
            update={"endpoints": (good.endpoints[0].model_copy(update={"path": path}),)}
        )
        with pytest.raises(DocumentError, match=re.escape(says)) as caught:
            approve(_router(), edited, base_url="http://127.0.0.1:9", provider="p")
        assert caught.value.where == "<docs proposal>: endpoints[0].path"


def test_a_long_line_of_answer_words_is_read_in_linear_time() -> None:
    """A page's line with 12,500 "It returns" and no period (a minified HTML page is one line):
    the words saying the answer is not JSON were sought from each "returns" to the line's end
    (110,000 characters: 28 s, naming no kind of answer: each "returns" read to the end in
    vain); the child must answer within 20 s (it takes milliseconds)."""
    from forking import in_child

    page = "# Things API\n\n## GET /things\n\nList things. " + "It returns " * 12_500 + "\n"

    def job() -> tuple[list[tuple[str, str]], str]:
        (endpoint,) = inspect(page).endpoints
        return [(endpoint.method, endpoint.path)], endpoint.answer_not_json

    answer, result = in_child(job, wait=20.0)
    assert answer == "ok", (answer, result)
    endpoints, not_json = result  # type: ignore[misc]
    assert endpoints == [("GET", "/things")]
    assert not_json == ""  # no kind of answer named
