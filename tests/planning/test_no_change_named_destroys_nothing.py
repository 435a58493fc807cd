"""A request that names no change plans no deletion ranked first (trial 22).

"lower the price of listing 77001 to 119 USD" on Reverb's document ("lower" is no verb the
tables know) ranked ``DELETE /sales/{sale_id}/listings`` ("Remove a listing from a sale")
first, and the plan was that deletion: only its missing ``sale_id`` kept it from being sent.
A deletion is planned where the request asks it by name; where it asks no change by any
reading, the destructive routes ranked first are passed over, with a warning."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder
from schemarouter.planning.mixed_verbs import no_unasked_destruction

from helpers import WRITES, ok, openapi_document, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}


def _op(operation_id: str, summary: str) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": summary,
        "responses": ok({"type": "object", "properties": {"id": _S}}),
    }


PATHS = {
    "/sales/{sale_id}/listings": {
        "parameters": path_id("sale_id"),
        "delete": _op("remove_sale_listing", "Remove a listing from a sale"),
    },
    "/listings/{listing_id}": {
        "parameters": path_id("listing_id"),
        "get": _op("get_listing", "Listing details"),
        "delete": _op("delete_listing", "Delete a draft listing"),
    },
    "/listings/{listing_id}/retirement": {
        "parameters": path_id("listing_id"),
        "delete": _op("retire_listing", "Retire a listing for good"),
    },
}
DELETE, READ = "shop/rest/remove_sale_listing", "shop/rest/get_listing"
RETIRE = "shop/rest/retire_listing"


@pytest.fixture(scope="module")
def snapshot() -> Any:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Shop", PATHS), provider="shop")
    return router.registry.snapshot()


@pytest.mark.parametrize(
    "query",
    [
        "lower the price of listing 77001 to 119 USD",
        "listing 77001 please",
        "the sale price of listing 77001",
    ],
)
def test_a_request_naming_no_change_passes_over_a_deletion(snapshot: Any, query: str) -> None:
    warnings: list[str] = []
    planned = no_unasked_destruction(query, snapshot, [DELETE, READ], warnings)
    assert planned == [READ]
    assert any("names no change" in w for w in warnings), warnings


@pytest.mark.parametrize(
    "query", ["remove listing 77001 from sale S-1", "delete listing 77001", "drop listing 77001"]
)
def test_a_deletion_asked_by_name_keeps_its_place(snapshot: Any, query: str) -> None:
    assert no_unasked_destruction(query, snapshot, [DELETE, READ], [])[0] == DELETE


def test_a_deletion_named_by_a_verb_only_its_route_knows_keeps_its_place(snapshot: Any) -> None:
    """Trial 21's "Decommission equipment B-2": no table knows the verb, its route's name does."""
    order = [RETIRE, READ]
    assert no_unasked_destruction("retire listing 77001", snapshot, order, []) == order


def test_only_deletions_leave_nothing_planned(snapshot: Any) -> None:
    assert no_unasked_destruction("listing 77001 please", snapshot, [DELETE], []) == []


def _app(request: Request) -> Response:
    return json_response({"id": "77001"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


REVERB = Path(os.environ.get("SCHEMAROUTER_SHARED_DATA", "../shared/data"))
REVERB = REVERB / "openapi-permissive" / "reverb.com__3.0.json"


@pytest.mark.skipif(not REVERB.is_file(), reason="the shared data's Reverb document is absent")
def test_reverbs_price_request_sends_no_deletion(server: LoopbackServer) -> None:
    """Reverb's own document, the shipped models, a real server recording what it gets."""
    router = SchemaRouter(embedding_cache=None)
    router.add_openapi(REVERB, provider="reverb", base_url=server.base_url)
    query = "lower the price of listing 77001 to 119 USD"
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES), max_calls=2)
    routes = router.registry.snapshot().routes
    assert all(routes[s.route_id].endpoint.effect.value != "destructive" for s in plan.steps)
    server.requests.clear()
    # a read the stub does not answer as its schema says is refused: nothing is written
    with contextlib.suppress(SchemaRouterError):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [r.method for r in server.requests if r.method != "GET"] == []
