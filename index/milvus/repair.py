"""Reading what an interrupted update left in a collection: how many rows it holds, and
which stored routes it cut off part way (a route's rows are written in order, its endpoint
document first, and may span two write requests)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Route
from schemarouter.index.documents import route_documents
from schemarouter.index.milvus.rows import IN_BATCH, in_expression, route_key
from schemarouter.index.settings import IndexSettings

__all__ = ["count_rows", "partial_routes"]


def count_rows(client: Any, collection: str) -> int:
    """How many rows the collection holds (deleted ones not counted)."""
    (row,) = client.query(collection, filter="", output_fields=["count(*)"])
    return int(row["count(*)"])


def partial_routes(
    client: Any,
    collection: str,
    routes: Mapping[str, Route],
    stored: Mapping[str, str],
    settings: IndexSettings,
) -> set[str]:
    """Route ids of ``routes`` stored under their fingerprint (``stored``: route id ->
    fingerprint, :func:`stored_routes`) without their last row: an update stopped while it
    wrote them. A route's rows are written in order (its endpoint document first) and may
    span two write requests, so the endpoint row alone does not say the route is whole."""
    last: dict[str, str] = {}  # the primary key of each route's last row -> route id
    for route_id, fp in stored.items():
        route = routes.get(route_id)
        if route is not None and route.fingerprint == fp:
            n = len(route_documents(route, settings.limits))
            last[f"{route_key(route_id, fp)}:{n - 1}"] = route_id
    keys, found = list(last), set[str]()
    for lo in range(0, len(keys), IN_BATCH):
        expr = in_expression("pk", keys[lo : lo + IN_BATCH])
        rows = client.query(collection, filter=expr, output_fields=["pk"])
        found.update(str(row["pk"]) for row in rows)
    return {route_id for pk, route_id in last.items() if pk not in found}
