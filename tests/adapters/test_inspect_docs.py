"""inspect() / approve() on the kinds of internal API pages integrators have (user trial R):
each test reads real Markdown or HTML text, and where a call runs, against a loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.inspect import inspect
from schemarouter.contracts import Effect
from schemarouter.errors import DocumentError, OutputValidationError, PolicyError, SchemaRouterError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _ok(request: Request) -> Response:
    return json_response({"id": "N-2", "created_at": "2024-03-02T09:00:00Z"})


NOTES_DELETE = """## DELETE /customers/{customer_id}/notes/{note_id}

Delete a note.
"""


def test_a_lower_case_method_keeps_its_effect() -> None:
    endpoint = inspect(NOTES_DELETE).endpoints[0]
    edited = endpoint.model_copy(update={"method": "delete"})  # validators do not run here
    assert edited.effect is Effect.DESTRUCTIVE
    assert endpoint.model_validate({**endpoint.model_dump(), "method": " get "}).method == "GET"
    assert endpoint.model_copy(update={"method": "get", "changes_state": None}).effect is (
        Effect.READ
    )
    proposal = inspect(NOTES_DELETE).model_copy(update={"endpoints": (edited,)})
    router = _router()
    with LoopbackServer(_ok) as api:
        change = router.approve(proposal, base_url=api.base_url, provider="notes", allow_write=True)
        route = router.snapshot().route(change.added[0])
        assert route.endpoint.effect is Effect.DESTRUCTIVE
        with pytest.raises(PolicyError):  # a DELETE needs "destructive", not only "write"
            router.call(
                change.added[0],
                {"customer_id": "C-1", "note_id": "N-1"},
                allow_effects=["read", "write"],
                approve=lambda *a: True,
            )
        assert api.requests == []


def _body(request: Request) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(request.body)
    return loaded


LEGACY_CGI = """# Orders (legacy CGI)

## GET /delete_order.pl

Deletes the order permanently. There is no undo.

- order_id (string, required): the order to delete

## GET /orders/deleted

Returns the orders deleted this month.

## GET /rates

Lists the shipping rates.
"""


def test_a_get_whose_docs_say_it_deletes_is_not_a_read() -> None:
    mutating, listing, rates = inspect(LEGACY_CGI).endpoints
    assert mutating.effect is Effect.DESTRUCTIVE
    assert mutating.changes_state == "destructive"
    assert "Deletes the order" in mutating.changes_state_passage
    # a read that mentions deletions, and a collection named by a noun, stay reads
    assert listing.effect is Effect.READ and rates.effect is Effect.READ
    assert inspect("## POST /orders/{id}/cancel\n\nCancel it.\n").endpoints[0].effect is (
        Effect.WRITE
    )
    assert inspect("## GET /orders/{id}/cancel\n").endpoints[0].effect is Effect.WRITE
    router = _router()
    with LoopbackServer(_ok) as api:
        change = router.approve(inspect(LEGACY_CGI), base_url=api.base_url, provider="orders")
        assert set(change.added) == {"orders/docs/get_orders_deleted", "orders/docs/get_rates"}
        change = router.approve(
            inspect(LEGACY_CGI),
            base_url=api.base_url,
            provider="orders",
            allow_write=True,
            replace=True,
        )
        (route_id,) = [r for r in change.added if "delete_order" in r]
        assert router.snapshot().route(route_id).endpoint.effect is Effect.DESTRUCTIVE
        assert any("GET /delete_order.pl approved as destructive" in w for w in change.warnings)
        with pytest.raises(PolicyError):
            router.call(route_id, {"order_id": "991"})
        assert api.requests == []
        # the user, knowing better, says it only reads: then it is a read again
        read = mutating.model_copy(update={"changes_state": None})
        assert read.effect is Effect.READ


CUSTOMER_NOTES = """# Customer Notes API

## POST /customers/{customer_id}/notes

Add a note to a customer.

Request body (JSON):

- `text` (string, required): the note text, max 2000 characters
- `pinned` (boolean): pin the note to the top

```json
{"text": "Customer asked for a callback", "pinned": true, "tags": ["vip"]}
```

Response: `201 Created`

```json
{"id": "N-2", "created_at": "2024-03-02T09:00:00Z"}
```
"""

ORDERS_HTML = """<html><body>
<h2>POST /orders</h2>
<p>Create an order.</p>
<h3>Request body</h3>
<table>
<tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr>
<tr><td>sku</td><td>string</td><td>yes</td><td>product</td></tr>
<tr><td>qty</td><td>integer</td><td>yes</td><td>quantity</td></tr>
</table>
<h3>Response</h3>
<pre>{"order_id": "O-1"}</pre>
</body></html>"""


def test_a_request_body_is_sent_as_a_json_body() -> None:
    """Bullets and a JSON example under 'Request body' were query parameters and output
    fields: the note text went into the URL (user trial R §1)."""
    endpoint = inspect(CUSTOMER_NOTES).endpoints[0]
    params = {p.name: p for p in endpoint.parameters}
    assert {n: p.location for n, p in params.items()} == {
        "customer_id": "path",
        "text": "body",
        "pinned": "body",
        "tags": "body",  # only in the example: a body key, not required
    }
    assert params["text"].required and not params["tags"].required
    assert params["tags"].json_type == "array" and params["tags"].grounding < 0.9
    assert [f.name for f in endpoint.fields] == ["id", "created_at"]
    router = _router()
    with LoopbackServer(_ok) as api:
        proposal = inspect(CUSTOMER_NOTES)
        change = router.approve(proposal, base_url=api.base_url, provider="crm", allow_write=True)
        router.call(
            change.added[0],
            {"customer_id": "C-1042", "text": "call back", "pinned": True},
            allow_effects=["read", "write"],
            approve=lambda *a: True,
        )
        (request,) = api.requests
        assert (request.method, request.path, request.query) == (
            "POST",
            "/customers/C-1042/notes",
            {},
        )
        assert request.headers["Content-Type"] == "application/json"
        assert _body(request) == {"text": "call back", "pinned": True}


def test_a_request_body_table_names_body_parameters_not_output() -> None:
    """A 'Request body' table whose header says Field became output fields (trial R §2)."""
    endpoint = inspect(ORDERS_HTML).endpoints[0]
    assert [(p.name, p.location, p.required) for p in endpoint.parameters] == [
        ("sku", "body", True),
        ("qty", "body", True),
    ]
    assert [f.name for f in endpoint.fields] == ["order_id"]
    # with no heading at all, a Field table still lists the answer's fields
    plain = inspect("## GET /a\n\n| Field | Type |\n|---|---|\n| id | string |\n")
    assert [f.name for f in plain.endpoints[0].fields] == ["id"]


FLEET_DEPRECATED_FIRST = """# Fleet

## GET /v1/vehicle_position (deprecated)

Deprecated: use GET /v2/vehicles/{vehicle_id}/position instead.

## GET /v2/vehicles/{vehicle_id}/position

Current position.

Parameters:

- include_speed (boolean): also return the speed

Response fields:

- lat (number): latitude
- speed (number, unit: km/h): ground speed

## GET /v2/vehicles/{vehicle_id}/position

Also listed here (overview).

Returns:

- heading (number): degrees
"""


def test_a_mention_in_prose_opens_no_endpoint_and_copies_merge() -> None:
    """A sentence naming another endpoint opened it (trial R §11: the GET lost its summary
    and parameters to a PATCH; §3: a deprecated section's 'use GET /v2/... instead' made an
    empty copy that approve kept, silently dropping the real one)."""
    order = inspect(
        "## GET /orders/{order_id}\n\nGet one order. To change it, send PATCH "
        "/orders/{order_id} with the new fields.\n\nParameters:\n\n"
        "- expand (boolean): include line items\n"
    )
    (get,) = order.endpoints
    assert get.method == "GET" and get.summary.startswith("Get one order")
    assert [p.name for p in get.parameters] == ["order_id", "expand"]
    # a label before the endpoint, and an HTML heading, still open one
    assert len(inspect("Endpoint: `POST /notes`\n\n- text (string)\n").endpoints) == 1
    assert len(inspect("<h2>Get one (GET /a/{id})</h2><p>One.</p>").endpoints) == 1
    old, current = inspect(FLEET_DEPRECATED_FIRST).endpoints
    assert old.path == "/v1/vehicle_position"
    assert [p.name for p in current.parameters] == ["vehicle_id", "include_speed"]
    assert [f.name for f in current.fields] == ["lat", "speed", "heading"]
    assert current.summary == "Current position."


def test_approve_refuses_two_endpoints_with_one_route_id() -> None:
    endpoint = inspect("## GET /aB\n\nOne.\n").endpoints[0]
    twin = endpoint.model_copy(update={"path": "/a_b", "summary": "Other."})
    proposal = inspect("").model_copy(update={"endpoints": (endpoint, twin)})
    router = _router()
    with pytest.raises(DocumentError, match=r"endpoints\[0\] \(GET /aB\) and endpoints\[1\]"):
        router.approve(proposal, base_url="http://127.0.0.1:9", provider="p")
    assert len(router.snapshot()) == 0


def test_not_required_is_read_as_not_required() -> None:
    """'Not required', 'optional; required when ...' and 'required: no' were all proposed
    as required, so the approved route refused every call without them (trial R §10)."""
    doc = """## GET /a

- x (string, Not required): foo
- y (string, optional; required when z is set): bar
- w (string, required: no): baz
- v (string, Required): qux
"""
    params = {p.name: p.required for p in inspect(doc).endpoints[0].parameters}
    assert params == {"x": False, "y": False, "w": False, "v": True}


def test_a_sentence_saying_returns_does_not_end_the_parameters() -> None:
    """'Returns 404 if none match.' between bullets turned the rest into output fields
    (trial R §12); a short label ('Returns', 'Response fields') still does."""
    doc = """## GET /orders

List orders.

Parameters:

- status (string): filter by status
Returns 404 if none match.
- page (integer): page number
- per_page (integer): page size

Response fields

- total (integer): how many
"""
    endpoint = inspect(doc).endpoints[0]
    assert [p.name for p in endpoint.parameters] == ["status", "page", "per_page"]
    assert [f.name for f in endpoint.fields] == ["total"]


def test_a_null_in_an_example_gives_no_type() -> None:
    """{"range_km": null} typed the field 'null', so every real value failed output
    validation (trial R §14)."""
    doc = """## GET /v2/vehicles/{vehicle_id}/fuel

Fuel level.

Response:

```json
{"level": 55.0, "range_km": null}
```
"""
    fields = {f.name: f.json_type for f in inspect(doc).endpoints[0].fields}
    assert fields == {"level": "number", "range_km": None}
    router = _router()
    with LoopbackServer(lambda request: json_response({"level": 55.0, "range_km": 410})) as api:
        change = router.approve(inspect(doc), base_url=api.base_url, provider="fleet")
        result = router.call(change.added[0], {"vehicle_id": "V-3"}, fields=["range_km"])
        assert result.output == {"range_km": 410}


def test_a_deep_json_example_is_skipped_not_a_crash(caplog: pytest.LogCaptureFixture) -> None:
    """A 5000-deep example raised a bare RecursionError from inspect (trial R §15)."""
    deep = "[" * 5000 + "]" * 5000
    doc = f"## GET /a\n\nOne.\n\nResponse:\n\n```json\n{deep}\n```\n\n- ok (string): kept\n"
    with caplog.at_level("WARNING", logger="schemarouter.adapters.inspect"):
        endpoint = inspect(doc).endpoints[0]
    assert [f.name for f in endpoint.fields] == ["ok"]
    assert "nests deeper than 32 levels" in caplog.text
    middling = '{"a":' * 100 + "1" + "}" * 100  # parses, but no answer nests so deep
    assert inspect(f"## GET /a\n\n```\n{middling}\n```\n").endpoints[0].fields == ()


SHIPPING_HTML = """<html><body>
<h2>GET /rates</h2>
<p>Returns a list of carrier quotes for a parcel.</p>
<h3>Response fields</h3>
<table>
<tr><th>Field</th><th>Type</th><th>Unit</th><th>Description</th></tr>
<tr><td>quotes.carrier</td><td>string</td><td></td><td>Carrier name</td></tr>
<tr><td>quotes.price</td><td>number</td><td>USD</td><td>Total price</td></tr>
<tr><td>quotes.transit_time</td><td>integer</td><td>day</td><td>Business days</td></tr>
</table>
<pre>{"quotes": [{"carrier": "UPS", "price": 12.4, "transit_time": 3, "currency": "USD"}]}</pre>
</body></html>"""


def test_a_table_path_through_an_array_gets_its_star() -> None:
    """Table rows 'quotes.price' kept that path although the example shows quotes is an
    array, so the documented answer failed with SR603 (trial R §7)."""
    fields = {f.name: f for f in inspect(SHIPPING_HTML).endpoints[0].fields}
    assert fields["quotes.price"].path == "quotes.*.price"
    assert fields["quotes.price"].unit == "USD"
    assert fields["quotes.currency"].path == "quotes.*.currency"
    bracket = inspect("## GET /a\n\nResponse:\n\n- items[].id (string): id\n").endpoints[0]
    assert bracket.fields[0].path == "items.*.id"
    answer = {"quotes": [{"carrier": "UPS", "price": 12.4, "transit_time": 3, "currency": "USD"}]}
    router = _router()
    with LoopbackServer(lambda request: json_response(answer)) as api:
        change = router.approve(inspect(SHIPPING_HTML), base_url=api.base_url, provider="ship")
        result = router.call(change.added[0], {})
        assert result.ok, result.issues
        result = router.call(change.added[0], {}, fields=["quotes.price"])
        assert result.ok and "12.4" in str(result.output), result.issues


def test_nothing_to_approve_says_why() -> None:
    """A page with no API, approved with allow_write=True, was told "Write operations need
    allow_write=True" (trial R §16): an empty proposal now says it has no endpoint; a
    proposal of writes alone, approved without allow_write, still names that."""
    router = _router()
    empty = router.inspect("<h1>Team lunch menu</h1><p>Tuesday: bibimbap</p>")
    assert empty.endpoints == ()
    with pytest.raises(DocumentError, match="the proposal has no endpoint") as nothing:
        router.approve(empty, base_url="http://127.0.0.1:9", provider="lunch", allow_write=True)
    assert "allow_write" not in str(nothing.value)
    writes = router.inspect("## POST /notes\nCreate a note.\n\n- `text` (string, required)")
    assert [e.method for e in writes.endpoints] == ["POST"]
    with pytest.raises(PolicyError, match="every endpoint of the proposal writes") as refused:
        router.approve(writes, base_url="http://127.0.0.1:9", provider="notes")
    assert refused.value.hint == "Pass allow_write=True to approve the writes"
    assert len(router.snapshot()) == 0


POSITION = """## GET /vehicles/{vehicle_id}/position

Where a vehicle is.

Response fields:

- lat (number): latitude
- fix (integer): satellites in the fix
- quotes[].price (number): a price
"""


def test_a_whole_output_call_checks_the_types_the_docs_gave() -> None:
    """A plain call() of an approved route checked nothing of the answer (trial R §17): an
    OpenAPI route's answer meets its response schema, an approved route had none. The
    approved fields' types now make one: a value of another type is refused, a field the
    answer leaves out is not (the docs name what they name)."""
    answers = [
        {"lat": 37.5, "fix": 7, "quotes": [{"price": 1.5}], "heading": 90},
        {"lat": 37.5, "fix": "seven"},
        {"lat": 37.5, "quotes": [{"price": "cheap"}]},
    ]

    def app(request: Request) -> Response:
        return json_response(answers.pop(0))

    router = _router()
    with LoopbackServer(app) as api:
        router.approve(router.inspect(POSITION), base_url=api.base_url, provider="fleet")
        (route_id,) = router.snapshot().routes
        assert router.call(route_id, {"vehicle_id": "V"}).output["heading"] == 90
        with pytest.raises(OutputValidationError, match=r"'seven' is not of type 'integer'"):
            router.call(route_id, {"vehicle_id": "V"})
        with pytest.raises(OutputValidationError, match=r"'cheap' is not of type 'number'"):
            router.call(route_id, {"vehicle_id": "V"})


RATES = """## GET /rates

Carrier quotes for a parcel.

| Name | Type | Unit | Required | Description |
|---|---|---|---|---|
| weight | number | kg | yes | Parcel weight |
| length | number | m | no | Longest side of the parcel |
| girth | number | cm | no | Girth in cm |

- `height` (number, unit: cm): height of the parcel
"""


def test_a_parameters_unit_reaches_its_description() -> None:
    """The Unit column of a parameter table (and a bullet's unit) was dropped: an agent
    read "Parcel weight" and could not tell kg from lb (trial R §8). A parameter has no unit
    of its own, so its description says it, once."""
    (endpoint,) = inspect(RATES).endpoints
    described = {p.name: p.description for p in endpoint.parameters}
    assert described == {
        "weight": "Parcel weight (unit: kg)",
        "length": "Longest side of the parcel (unit: m)",
        "girth": "Girth in cm",
        "height": "height of the parcel (unit: cm)",
    }


KOREAN = """# 재고 조회 API

기본 URL: https://inventory.example.kr/api

## GET /warehouses/{warehouse_id}/items

창고의 품목 목록을 조회합니다.

요청 매개변수:

| 이름 | 타입 | 단위 | 필수 | 설명 |
|------|------|------|------|------|
| warehouse_id | string | | 예 | 창고 ID |
| min_weight | number | kg | 아니오 | 최소 무게 |

응답:

- item_id (string): 품목 ID
- quantity (integer): 재고 수량
"""


def test_korean_labels_and_table_headers_are_read() -> None:
    """Korean docs (trial R §9): the bullets under '응답:' were read as query parameters of
    the GET, the table headed 이름 / 타입 / 필수 was skipped, and '기본 URL:' not read."""
    proposal = inspect(KOREAN)
    assert proposal.base_url == "https://inventory.example.kr/api"
    (endpoint,) = proposal.endpoints
    params = {p.name: (p.location, p.json_type, p.required) for p in endpoint.parameters}
    assert params == {
        "warehouse_id": ("path", "string", True),
        "min_weight": ("query", "number", False),
    }
    assert dict((p.name, p.description) for p in endpoint.parameters)["min_weight"] == (
        "최소 무게 (unit: kg)"
    )
    assert [(f.name, f.json_type) for f in endpoint.fields] == [
        ("item_id", "string"),
        ("quantity", "integer"),
    ]


LEGACY = """<h1>Stock service (legacy)</h1>
<p>Requests are form-encoded (<code>application/x-www-form-urlencoded</code>).</p>
<h2>POST /adjust.pl</h2>
<p>Adjust the stock of one item.</p>
<p>Form fields:</p>
<dl><dt>sku</dt><dd>the item's code</dd><dt>delta</dt><dd>signed change in units</dd></dl>
<pre>curl -X POST -d "sku=AB-1&amp;delta=-2&amp;reason=damaged" https://stock.example.com/adjust.pl</pre>
<p>Returns <code>OK</code> as plain text.</p>
<h2>POST /notes</h2>
<p>Create a note.</p>
<p>Request body:</p>
<ul><li>text (string): the note</li></ul>
"""


def test_a_form_encoded_body_is_sent_as_a_form_and_a_text_answer_is_said() -> None:
    """A legacy form-encoded POST (trial R §13): its definition list and its curl -d example
    were lost or read as query parameters, the write was sent as JSON, and nothing said its
    answer was plain text. The page's "form-encoded" makes each body parameter a form field;
    the answer's format is said when the write is approved."""
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return Response(200, b"OK", {"Content-Type": "text/plain", "Content-Length": "2"})

    proposal = inspect(LEGACY)
    adjust, notes = proposal.endpoints
    assert [(p.name, p.location) for p in adjust.parameters] == [
        ("sku", "body"),
        ("delta", "body"),
        ("reason", "body"),
    ]
    assert adjust.body_media_type == "application/x-www-form-urlencoded"
    assert "plain text" in adjust.answer_not_json
    assert notes.body_media_type == "application/x-www-form-urlencoded"  # the page says so
    router = _router()
    with LoopbackServer(app) as api:
        change = router.approve(proposal, base_url=api.base_url, provider="stock", allow_write=True)
        (said,) = [w for w in change.warnings if "not JSON" in w]
        assert said.startswith("POST /adjust.pl") and "the server acts" in said
        with pytest.raises(SchemaRouterError, match="not valid JSON"):
            router.call(
                "stock/docs/post_adjust.pl",
                {"sku": "AB-1", "delta": -2},
                allow_effects=["read", "write"],
                approve=lambda *_: True,
            )
    (request,) = seen
    assert request.headers["Content-Type"].startswith("application/x-www-form-urlencoded")
    assert request.body == b"sku=AB-1&delta=-2" and request.query == {}


POINTS_KO = """<html><body>
<h1>마켓온 적립금 API</h1>
<h2>적립금 잔액 조회</h2>
<p><code>GET /v1/points</code></p>
<p>고객의 적립금 잔액(원)을 조회합니다.</p>
<table><tr><th>이름</th><th>타입</th><th>필수</th><th>설명</th></tr>
<tr><td>customer_id</td><td>string</td><td>예</td><td>고객 번호</td></tr></table>
<h2>적립금 지급</h2>
<p><code>POST /v1/points</code></p>
<p>고객에게 적립금을 지급합니다.</p>
<table><tr><th>이름</th><th>타입</th><th>필수</th><th>설명</th></tr>
<tr><td>customer_id</td><td>string</td><td>예</td><td>고객 번호</td></tr>
<tr><td>amount</td><td>integer</td><td>예</td><td>지급할 금액 (원)</td></tr></table>
</body></html>"""


def test_a_write_left_out_of_an_approval_is_named_in_its_warnings(tmp_path: Path) -> None:
    """Trial K: a Korean page documenting a read and a write, approved without
    ``allow_write``, registered the read alone with ``warnings=()``: the write was left out
    with only a log record (the library's logger has no handler unless the host adds one),
    so the change looked complete. Its warnings name what was left out and how to add it."""
    page = tmp_path / "points.html"
    page.write_text(POINTS_KO, encoding="utf-8")
    proposal = inspect(page.read_text(encoding="utf-8"))
    assert [(e.method, e.path) for e in proposal.endpoints] == [
        ("GET", "/v1/points"),
        ("POST", "/v1/points"),
    ]
    router = _router()
    with LoopbackServer(lambda request: json_response({"points": 4200})) as api:
        change = router.approve(proposal, base_url=api.base_url, provider="points")
        assert change.added == ("points/docs/get_v1_points",)
        (warning,) = change.warnings
        assert warning.startswith("POST /v1/points left out: its effect is write")
        assert "allow_write=True" in warning
        assert router.call(change.added[0], {"customer_id": "C-1001"}).output == {"points": 4200}
        assert [(r.method, r.path) for r in api.requests] == [("GET", "/v1/points")]
