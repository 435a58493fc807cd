"""Helpers shared by tests (importable: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BUNDLED_CATALOG = REPO / "data" / "catalogs" / "materials"


def openapi_document(title: str, paths: dict[str, Any]) -> dict[str, Any]:
    """A minimal OpenAPI 3.0.3 document whose server is a closed loopback port."""
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    }


def shared_data_dir() -> Path | None:
    """``$SCHEMAROUTER_SHARED_DATA`` or ``../shared/data`` beside the repository."""
    env = os.environ.get("SCHEMAROUTER_SHARED_DATA")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


TINY_CATALOG = """\
schemarouter_catalog: 1
field_groups:
  - {id: identity}
  - {id: electronic}
  - {id: mechanical}
intents:
  - {id: property_lookup, field_groups: [identity, electronic, mechanical]}
providers:
  - id: matproj
    display_name: Materials Project
    aliases: [MP]
    license: CC-BY-4.0
    source_type: calculated
    access:
      - id: rest
        kind: http
        base_url: https://api.materialsproject.org
        auth: {credentials: [MP_API_KEY], scheme: api_key, location: header, parameter: X-API-KEY}
        endpoints:
          - id: summary
            name: search_summary
            operation: {method: GET, path: /materials/summary/}
            description: Summary properties of materials.
            intents: [property_lookup]
            parameters:
              - {name: formula, location: query, json_schema: {type: string}, semantic_id: chemical.formula}
            output_fields:
              - {name: material_id, path: "data.*.material_id", json_schema: {type: string}, identifier: true, group: identity}
              - {name: band_gap, path: "data.*.band_gap", json_schema: {type: number}, semantic_id: electronic.band_gap, unit: eV, dimension: energy, group: electronic, qualifiers: {functional: PBE}}
              - {name: k_vrh, path: "data.*.k_vrh", json_schema: {type: number}, semantic_id: mechanical.bulk_modulus, unit: GPa, dimension: pressure, group: mechanical, normalization: {source_unit: GPa, canonical_unit: Pa, dimension: pressure, scale: 1.0e9}}
  - id: cod
    display_name: Crystallography Open Database
    license: CC0-1.0
    source_type: experimental
    access:
      - id: rest
        kind: http
        base_url: https://www.crystallography.net
        endpoints:
          - id: result
            name: GET /cod/result
            operation: {method: GET, path: /cod/result}
            parameters:
              - {name: formula, location: query, json_schema: {type: string}}
            output_fields:
              - {name: file, path: "*.file", json_schema: {type: string}, identifier: true, group: identity}
              - {name: cellvol, path: "*.cellvol", json_schema: {type: number}, unit: "Å^3", dimension: volume, semantic_id: structure.cell_volume, group: mechanical}
"""


def write_beir(root: Path) -> Path:
    """A tiny BEIR-format tool set (corpus, queries, qrels) under ``root``."""
    root.mkdir()
    corpus = [
        {"_id": "d1", "title": "weather_forecast", "text": "Daily weather forecast for a city"},
        {"_id": "d2", "title": "stock_quote", "text": "Last traded price of a ticker"},
        {"_id": "d3", "title": "stock_quote", "text": "Quote of a stock in another market"},
        {"_id": "d4", "title": "", "text": "Translate text between languages"},
    ]
    queries = [
        {"_id": "q1", "text": "will it rain in Paris"},
        {"_id": "q2", "text": "price of AAPL"},
        {"_id": "q3", "text": "no relevant document"},
    ]
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus) + "\n")
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq2\td2\t2\nq3\td4\t0\n"
    )
    return root


def delete_room(room: str) -> dict[str, bool]:
    """Delete a hotel room and its bookings."""
    return {"deleted": True}


def planned_room(request: str, router: Any = None) -> str | None:
    """The room the plan of ``request`` deletes (``None``: left open, or no deletion
    planned: a condition withholds it), writes allowed, on ``router`` or on one holding only
    :func:`delete_room` (provider ``hotel``)."""
    from schemarouter import Effect, PlanRequest, SchemaRouter
    from schemarouter.index import HashingEncoder

    if router is None:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_callable(delete_room, provider="hotel", effect="destructive")
    steps = router.plan(PlanRequest(query=request, allowed_effects=set(Effect))).steps
    if not steps:
        return None
    (step,) = steps
    room = dict(step.arguments).get("room")
    return None if room is None else str(room)


#: The effects a test plan of a change allows.
WRITES = ("read", "write", "destructive")


def ok(schema: dict[str, Any]) -> dict[str, Any]:
    """An operation's ``responses``: 200 with a JSON body of ``schema``."""
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def page(item: dict[str, Any]) -> dict[str, Any]:
    """An operation's ``responses``: 200 with ``{"items": [item, ...]}``."""
    return ok({"type": "object", "properties": {"items": {"type": "array", "items": item}}})


def path_id(name: str) -> list[dict[str, Any]]:
    """An operation's ``parameters``: one required string path parameter ``name``."""
    return [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}]


def hashing_router(document: dict[str, Any], provider: str) -> Any:
    """A router over ``document`` with the hashing encoder, no cache and no abstention."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider=provider)
    return router


def served_router(document: dict[str, Any], server: Any, provider: str) -> Any:
    """A router (hashing encoder, no cache, no abstention) over ``document`` pointed at
    ``server`` (a loopback server, whose record of requests is cleared)."""
    import copy

    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    server.requests.clear()
    document = copy.deepcopy(document)
    document["servers"] = [{"url": server.base_url}]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider=provider)
    return router


def planned_change(router: Any, text: str, route_id: str, max_calls: int = 2) -> tuple[Any, Any]:
    """The plan of ``text`` with writes allowed, and its step on ``route_id`` (asserted)."""
    from schemarouter import PlanRequest

    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=max_calls)
    steps = [s for s in plan.steps if s.route_id == route_id]
    assert steps, plan.route_ids
    return plan, steps[0]


def desk_paths(op: Any) -> dict[str, Any]:
    """A support desk's orders (get, refund) and customers (get, delete), each operation
    ``op(operation_id, summary)``: the paths the planning tests of order and refusal share."""
    return {
        "/orders/{order_id}": {
            "parameters": path_id("order_id"),
            "get": op("get_order", "Get an order"),
        },
        "/orders/{order_id}/refund": {
            "parameters": path_id("order_id"),
            "post": op("refund_order", "Refund an order"),
        },
        "/customers/{customer_id}": {
            "parameters": path_id("customer_id"),
            "get": op("get_customer", "Get a customer"),
            "delete": op("delete_customer", "Delete a customer"),
        },
    }


def playlist_paths(op: Any) -> dict[str, Any]:
    """Playlists (list, create, update, delete), each operation ``op(operation_id, summary,
    body=...)``, a body for the create and the update."""
    return {
        "/playlists": {
            "get": op("list_playlists", "List playlists"),
            "post": op("create_playlist", "Create a playlist", body=True),
        },
        "/playlists/{playlist_id}": {
            "parameters": path_id("playlist_id"),
            "patch": op("update_playlist", "Update a playlist", body=True),
            "delete": op("delete_playlist", "Delete a playlist"),
        },
    }


def sms_document(base_url: str) -> dict[str, Any]:
    """A texting API at ``base_url``: ``POST /sms`` (``sendSms``) whose required body takes a
    ``phone`` and a ``message`` (the phone and quote tests of trial 13)."""
    text = {"type": "string"}
    body = {
        "type": "object",
        "required": ["phone", "message"],
        "properties": {"phone": text, "message": text},
    }
    send = {
        "operationId": "sendSms",
        "summary": "Send an SMS text message to a phone number",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": ok({"type": "object"}),
    }
    return {**openapi_document("Texts", {"/sms": {"post": send}}), "servers": [{"url": base_url}]}


def sent_bodies(router: Any, server: Any, text: str, max_calls: int = 1) -> list[tuple[str, Any]]:
    """The path and JSON body of each request the loopback ``server`` gets once the plan of
    ``text`` runs, every write allowed and approved; nothing where ``execute`` refuses the
    plan for an argument missing or refused (the unit tests' runner)."""
    import contextlib

    from schemarouter import PlanRequest
    from schemarouter.errors import ParameterValidationError

    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=max_calls)
    with contextlib.suppress(ParameterValidationError):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.path, json.loads(r.body)) for r in server.requests]


def ran_plan(router: Any, text: str, max_calls: int = 1) -> Any:
    """The plan of ``text``, executed with every effect allowed and approved; a plan that
    ``execute`` refuses must say what it misses (nothing is sent then). The runner of the
    typed-function tests, whose functions record their own calls."""
    from schemarouter import PlanRequest
    from schemarouter.contracts import Effect
    from schemarouter.errors import ParameterValidationError

    plan = router.plan(
        PlanRequest(query=text, allowed_effects=frozenset(Effect)), max_calls=max_calls
    )
    try:
        router.execute(plan, allow_effects=list(Effect), approve=lambda *_: True)
    except ParameterValidationError:
        assert plan.missing_arguments
    return plan
