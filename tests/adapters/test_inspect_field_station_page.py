"""inspect() / approve() on an HTML reference page of a weather-station and irrigation API
(user trial 17): a write's example call sends a JSON body, two tables sit side by side, a time
is typed ``string (date-time)`` and a field shown with a value comes null. Each call runs
against a loopback server."""

from __future__ import annotations

import json

from schemarouter import SchemaRouter
from schemarouter.adapters.inspect import inspect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

PAGE = """<html><body>
<h1>FieldNet API</h1>
<p>All endpoints live under the base URL <code>https://fieldnet.farm.local/api/v1</code>.</p>

<h3>List valves</h3>
<p><code>GET /valves</code></p>
<table>
<tr><th>Parameter</th><th>Type</th><th>Required</th><th>Description</th></tr>
<tr><td>field_id</td><td>string</td><td>no</td><td>Only valves of this field</td></tr>
</table>
<pre>[{"valve_id": "V-3", "status": "open", "closes_at": "2026-06-14T10:20:00Z"}]</pre>

<h3>Open a valve</h3>
<p><code>POST /valves/{valve_id}/open</code></p>
<p>Opens a valve for a fixed time.</p>
<table>
<tr><th>Parameter</th><th>Type</th><th>Unit</th><th>Required</th><th>Description</th></tr>
<tr><td>valve_id</td><td>string</td><td></td><td>yes</td><td>Valve id (path)</td></tr>
<tr><td>duration_min</td><td>integer</td><td>minutes</td><td>yes</td><td>How long to keep it open</td></tr>
<tr><td>flow_lpm</td><td>number</td><td>L/min</td><td>no</td><td>Target flow rate</td></tr>
</table>
<pre>curl -X POST https://fieldnet.farm.local/api/v1/valves/V-3/open -d '{"duration_min": 20}'</pre>
<pre>{"valve_id": "V-3", "status": "open"}</pre>

<h3>Soil moisture</h3>
<p><code>GET /stations/{station_id}/soil-moisture</code></p>
<table>
<tr><th>Parameter</th><th>Type</th><th>Unit</th><th>Required</th><th>Description</th></tr>
<tr><td>depth_cm</td><td>integer</td><td>cm</td><td>no</td><td>Probe depth</td></tr>
</table>
<table>
<tr><th>Field</th><th>Type</th><th>Unit</th><th>Description</th></tr>
<tr><td>vwc_pct</td><td>number</td><td>%</td><td>Volumetric water content</td></tr>
<tr><td>tension_kpa</td><td>number</td><td>kPa</td><td>Soil water tension</td></tr>
</table>

<h3>Create a schedule</h3>
<p><code>POST /schedules</code></p>
<p>Plans an irrigation of a field. JSON body:</p>
<table>
<tr><th>Field</th><th>Type</th><th>Unit</th><th>Required</th><th>Description</th></tr>
<tr><td>field_id</td><td>string</td><td></td><td>yes</td><td>Field to irrigate</td></tr>
<tr><td>start_time</td><td>string (date-time)</td><td></td><td>yes</td><td>When to start</td></tr>
<tr><td>depth_mm</td><td>number</td><td>mm</td><td>yes</td><td>Water depth to apply</td></tr>
</table>
<pre>curl -X POST https://fieldnet.farm.local/api/v1/schedules \\
  -d '{"field_id": "F-7", "start_time": "2026-06-15T06:00:00Z", "depth_mm": 12}'</pre>
<pre>{"schedule_id": "SCH-20", "field_id": "F-7", "status": "planned"}</pre>

<h3>Cancel a schedule</h3>
<p><code>DELETE /schedules/{schedule_id}</code></p>
<p>Cancels a planned irrigation.</p>
</body></html>
"""


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _api(request: Request) -> Response:
    body = json.loads(request.body) if request.body else {}
    if request.method == "POST" and request.path.endswith("/open"):
        if not isinstance(body.get("duration_min"), int):  # read from the body only
            return json_response({"error": "duration_min is required"}, 400)
        return json_response({"valve_id": "V-3", "status": "open"})
    if request.method == "POST" and request.path.endswith("/schedules"):
        return json_response({"schedule_id": "SCH-20", "field_id": "F-7", "status": "planned"})
    if request.method == "GET" and request.path.endswith("/valves"):
        return json_response([{"valve_id": "V-3", "status": "closed", "closes_at": None}])
    return json_response({"schedule_id": "SCH-19", "status": "cancelled"})


def _endpoint(method: str, path: str):  # type: ignore[no-untyped-def]
    return next(e for e in inspect(PAGE).endpoints if (e.method, e.path) == (method, path))


def test_a_write_whose_example_sends_a_json_body_takes_its_parameters_there() -> None:
    # before: duration_min and flow_lpm were query parameters, and the server, which reads
    # the body, refused the opening (HTTP 400)
    opening = {p.name: p.location for p in _endpoint("POST", "/valves/{valve_id}/open").parameters}
    assert opening == {"valve_id": "path", "duration_min": "body", "flow_lpm": "body"}
    router = _router()
    with LoopbackServer(_api) as api:
        change = router.approve(
            inspect(PAGE), base_url=api.base_url, provider="f", allow_write=True
        )
        route_id = next(r for r in change.added if r.endswith("_open"))
        router.call(
            route_id,
            {"valve_id": "V-3", "duration_min": 20},
            allow_effects=["read", "write"],
            approve=lambda *a: True,
        )
        (sent,) = api.requests
        assert sent.query == {}
        assert json.loads(sent.body) == {"duration_min": 20}


def test_the_answer_after_an_example_call_is_no_body() -> None:
    # before: the answer's schedule_id and status were body parameters of the create
    create = _endpoint("POST", "/schedules")
    assert [p.name for p in create.parameters] == ["field_id", "start_time", "depth_mm"]
    assert {f.name for f in create.fields} == {"schedule_id", "field_id", "status"}


def test_a_table_right_after_another_is_read_by_its_own_header() -> None:
    # before: the fields table was read on as more rows of the parameters table
    soil = _endpoint("GET", "/stations/{station_id}/soil-moisture")
    assert [p.name for p in soil.parameters] == ["station_id", "depth_cm"]
    assert {(f.name, f.unit) for f in soil.fields} == {("vwc_pct", "%"), ("tension_kpa", "kPa")}


def test_a_date_time_type_is_the_parameters_format() -> None:
    start = next(p for p in _endpoint("POST", "/schedules").parameters if p.name == "start_time")
    assert (start.json_type, start.json_format) == ("string", "date-time")
    router = _router()
    with LoopbackServer(_api) as api:
        change = router.approve(
            inspect(PAGE), base_url=api.base_url, provider="f", allow_write=True
        )
        route = router.snapshot().route(
            next(r for r in change.added if r == "f/docs/post_schedules")
        )
        schema = route.endpoint.input_schema["properties"]["start_time"]
        assert schema == {"type": "string", "format": "date-time"}


def test_a_field_shown_with_a_value_may_come_null() -> None:
    # before: a closed valve's closes_at (null) refused the whole list (OutputValidationError)
    router = _router()
    with LoopbackServer(_api) as api:
        change = router.approve(inspect(PAGE), base_url=api.base_url, provider="f")
        assert "f/docs/get_valves" in change.added
        result = router.call("f/docs/get_valves", {}, fields=["status", "closes_at"])
        assert api.paths() == ["/valves"]
        assert result.fields["status"].raw_value == ["closed"]
        assert result.fields["closes_at"].raw_value == [None]


READINGS = """<h3>Station readings</h3>
<p><code>GET /stations/{station_id}/readings</code></p>
<p>Fields of each reading:</p>
<table>
<tr><th>Field</th><th>Type</th><th>Unit</th><th>Description</th></tr>
<tr><td>rain_mm</td><td>number</td><td>mm</td><td>Rainfall in the hour</td></tr>
<tr><td>air_temp_c</td><td>number</td><td>&deg;C</td><td>Air temperature</td></tr>
</table>
<pre>{"station_id": "ST-2", "readings": [{"rain_mm": 0, "air_temp_c": 14.2}]}</pre>
"""


def test_a_field_a_table_names_bare_is_where_the_example_shows_it() -> None:
    # before: rain_mm (mm) and air_temp_c (°C) at the top of the answer, where a reading has
    # none, and readings.*.rain_mm, readings.*.air_temp_c beside them with no unit
    fields = {f.path: (f.json_type, f.unit) for f in inspect(READINGS).endpoints[0].fields}
    assert fields == {
        "station_id": ("string", None),
        "readings.*.rain_mm": ("number", "mm"),
        "readings.*.air_temp_c": ("number", "°C"),
    }

    def app(request: Request) -> Response:
        return json_response({"station_id": "ST-2", "readings": [{"rain_mm": 0.4}]})

    router = _router()
    with LoopbackServer(app) as api:
        router.approve(inspect(READINGS), base_url=api.base_url, provider="f")
        result = router.call(
            "f/docs/get_stations_station_id_readings",
            {"station_id": "ST-2"},
            fields=["readings.rain_mm"],
        )
        assert api.paths() == ["/stations/ST-2/readings"]
        rain = result.fields["readings.rain_mm"]
        assert (rain.raw_value, rain.unit) == ([0.4], "mm")
