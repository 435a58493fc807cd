"""Execution against a hostile loopback server (``tests/servers/hostile.py``): every call
stays bounded in bytes and time, never leaves its registered base path, never echoes a
credential, and hands back only values that validate and serialize. Each test is a row of
docs/faults.md (issue #15)."""

from __future__ import annotations

import json
import logging
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import (
    BudgetExceededError,
    GateError,
    InvocationError,
    OutputValidationError,
    ParameterValidationError,
    PolicyError,
)
from schemarouter.execution.credentials import MappingCredentials, Redactor
from schemarouter.execution.policy import Budget, ExecutionPolicy
from schemarouter.execution.results import ExecutionResult
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import Plan

from servers import catalogs
from servers.hostile import BOMB_BYTES, HOSTILE_KEY, HostileApp, bomb, hostile_provider
from servers.loopback import LoopbackServer

FIELDS = ["material_id", "band_gap"]
ONCE = ExecutionPolicy(max_attempts=1, timeout=5.0)
CREDS = MappingCredentials({"HOSTILE_API_KEY": HOSTILE_KEY})
MODES = pytest.mark.parametrize("mode", ["sync", "async"])


@pytest.fixture(scope="module")
def hostile() -> Iterator[LoopbackServer]:
    with LoopbackServer(HostileApp()) as server:
        yield server


@pytest.fixture
def router(hostile: LoopbackServer, tmp_path: Path) -> SchemaRouter:
    hostile.reset()
    app = hostile.app
    assert isinstance(app, HostileApp)
    app.hooks.clear()
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    catalogs.register(router, tmp_path / "hostile.json", [hostile_provider(hostile.base_url)])
    return router


def _plan(router: SchemaRouter, name: str, fields: list[str] = FIELDS, **arguments: Any) -> Plan:
    snapshot = router.snapshot()
    step = catalogs.step(snapshot, f"hostile/rest/{name}", fields, arguments, fallbacks=False)
    return catalogs.plan(snapshot, step)


def _run(mode: str, router: SchemaRouter, plan: Plan, **kwargs: Any) -> ExecutionResult:
    kwargs.setdefault("policy", ONCE)
    kwargs.setdefault("credentials", CREDS)
    result: ExecutionResult = catalogs.run(mode, router, plan, **kwargs)
    return result


def _paths(server: LoopbackServer) -> list[str]:
    return [r.path for r in server.requests]


# -- 1: decompression bombs ------------------------------------------------------------------


@MODES
@pytest.mark.parametrize("limit", ["budget", "cap"])
def test_a_stacked_gzip_bomb_stops_at_the_byte_limit(
    mode: str, limit: str, router: SchemaRouter
) -> None:
    """``gzip, gzip`` over 8 MB of zeros (about 1 kB on the wire) against a 64 KiB limit:
    refused with a typed error, and no more than a few hundred kB is ever held (httpx's
    own decoder expands a whole layer at once: 8 MB here, 512 MB in the review's case)."""
    small = 64 * 1024
    kwargs: dict[str, Any]
    if limit == "budget":
        kwargs, expected = {"budget": Budget(max_bytes=small)}, BudgetExceededError
    else:
        kwargs = {"policy": ExecutionPolicy(max_attempts=1, max_response_bytes=small)}
        expected = InvocationError
    bomb()  # made once, before memory is traced
    # once untraced: what the first call of a process builds once (the HTTP client, its TLS
    # context, validators) is no part of decoding; traced, it read 3.3 MB on a busy worker
    with pytest.raises(expected):
        _run(mode, router, _plan(router, "bomb"), **kwargs)
    tracemalloc.start()
    try:
        with pytest.raises(expected, match=r"byte budget|larger than the cap"):
            _run(mode, router, _plan(router, "bomb"), **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < BOMB_BYTES / 4, f"held {peak} bytes decoding the bomb"


# -- 3: one deadline for the whole exchange --------------------------------------------------


@MODES
@pytest.mark.parametrize("attack", ["drip-headers", "continue"])
def test_headers_that_never_finish_stop_at_the_deadline(
    mode: str, attack: str, router: SchemaRouter, hostile: LoopbackServer
) -> None:
    """A status line and headers sent a byte every 20 ms (about a minute in all), or ``100
    Continue`` every 20 ms: each read is quick, so only one deadline for the whole exchange
    stops them, at the per-call timeout or at ``Budget(max_seconds)`` (0.4 s; the bounds
    are far from both that and the minute)."""
    plan = _plan(router, attack.replace("-", "_"))
    started = time.monotonic()
    with pytest.raises(InvocationError, match=r"timed out after 0\.4 s"):
        _run(mode, router, plan, policy=ExecutionPolicy(max_attempts=1, timeout=0.4))
    assert time.monotonic() - started < 20
    started = time.monotonic()
    with pytest.raises(BudgetExceededError, match="time budget"):
        _run(mode, router, plan, budget=Budget(max_seconds=0.4))
    assert time.monotonic() - started < 20
    assert _paths(hostile) == [f"/api/{attack}"] * 2


# -- 6 and 8: redirects ----------------------------------------------------------------------


@MODES
def test_a_redirect_to_a_javascript_url_is_a_typed_refusal(
    mode: str, router: SchemaRouter, hostile: LoopbackServer
) -> None:
    with pytest.raises(InvocationError, match=r"invalid URL|another origin"):
        _run(mode, router, _plan(router, "js_redirect"))
    assert _paths(hostile) == ["/api/js-redirect"]


def _approve(route: Any, arguments: Any) -> bool:
    return True


@MODES
@pytest.mark.parametrize(
    ("name", "effects", "arguments"),
    [
        ("store_307", {"read", "write"}, {"body": {"wipe": True}}),
        ("wipe_302", {"read", "destructive"}, {}),
        ("escape_307", {"read"}, {}),
        ("escape_slash_307", {"read"}, {}),
    ],
)
def test_a_redirect_never_leaves_the_registered_base_path(
    mode: str,
    name: str,
    effects: set[str],
    arguments: dict[str, Any],
    router: SchemaRouter,
    hostile: LoopbackServer,
) -> None:
    """A write answered ``307 -> /admin/delete-everything`` on the same origin (outside the
    registered ``/api``), a DELETE answered 302, a read sent to ``/api/%2e%2e/admin/...`` or
    ``/api/..%2Fadmin/...``: refused; the target never sees a request, a body or the key."""
    plan = _plan(router, name, **arguments)
    with pytest.raises(InvocationError, match=r"outside the registered base path|re-send"):
        _run(mode, router, plan, allow_effects=effects, approve=_approve)
    assert not any("admin" in path for path in _paths(hostile))
    assert len(hostile.requests) == 1


def test_a_read_post_redirected_inside_its_base_path_is_followed(
    router: SchemaRouter, hostile: LoopbackServer
) -> None:
    result = _run("sync", router, _plan(router, "search_307", body={"q": "Si"}))
    assert result.field("band_gap").value == [0.61]
    first, second = hostile.requests
    assert (first.path, second.path) == ("/api/search-307", "/api/good")
    assert second.method == "POST" and second.body == b'{"q":"Si"}'  # 307 keeps both


# -- 5: an echoed key is redacted everywhere -------------------------------------------------


def _forms(key: str) -> list[str]:
    """How a key shows up escaped: as it is, JSON-escaped as PHP does (``\\/``), URL-encoded,
    and cut short (a message truncated in the middle of it)."""
    return [key, key.replace("/", "\\/"), quote(key, safe=""), key[:8]]


def _assert_clean(text: str) -> None:
    for form in _forms(HOSTILE_KEY):
        assert form not in text, f"{form!r} leaked into {text[:300]!r}"


def test_an_echoed_key_is_redacted_in_values_issues_and_paths(
    router: SchemaRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """The server echoes the key as a value (breaking the field's schema), as an object
    key (so it is part of a JSON path) and outside the declared output schema: with
    ``partial=True`` every value, issue message and path, and the step's issues, carry
    ``[redacted]`` instead; strict, the error and its ``json_path`` do."""
    caplog.set_level(logging.INFO)
    plan = _plan(router, "echo", [*FIELDS, "extra"])
    result = _run("sync", router, plan, partial=True)
    step = result.steps[0]
    assert step.status == "partial"
    gap = step.fields["band_gap"]
    assert gap.status == "invalid" and gap.raw_value == ["[redacted]"]
    (extra_issue,) = step.fields["extra"].issues
    assert extra_issue.path == "$.data[0].extra['[redacted]']"  # the key was a JSON key
    (issue,) = step.issues  # the key is a property the output schema does not allow
    assert issue.path == "$.data[0]" and "'[redacted]' was unexpected" in issue.message
    _assert_clean(result.model_dump_json())
    with pytest.raises(OutputValidationError) as caught:
        _run("sync", router, plan)
    _assert_clean(str(caught.value))
    _assert_clean(str(getattr(caught.value, "json_path", "")))
    _assert_clean("\n".join(r.getMessage() for r in caplog.records))


@MODES
def test_an_escaped_echo_in_an_error_body_is_redacted(
    mode: str, router: SchemaRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """A 400 whose body holds the key JSON-escaped (``sk\\/live...``): the error message
    quotes the body, redacted before it is cut, and so do the INFO logs."""
    caplog.set_level(logging.INFO)
    with pytest.raises(InvocationError, match="HTTP 400") as caught:
        _run(mode, router, _plan(router, "echo_error"))
    assert "[redacted]" in str(caught.value)
    _assert_clean(str(caught.value))
    _assert_clean("\n".join(r.getMessage() for r in caplog.records))


# -- 15 and 16: values that validate and serialize --------------------------------------------


def test_nan_fails_output_validation(router: SchemaRouter) -> None:
    """``NaN`` for a field with ``minimum: 0, maximum: 100`` (every comparison with NaN is
    false, so JSON Schema alone accepts it)."""
    with pytest.raises(OutputValidationError, match="not a JSON number") as caught:
        _run("sync", router, _plan(router, "nan"))
    assert getattr(caught.value, "json_path", None) == "$.data[0].band_gap"
    result = _run("sync", router, _plan(router, "nan"), partial=True)
    gap = result.field("band_gap")
    assert gap.status == "partial" and gap.value == [None, 1.5]
    assert [(i.kind, i.path) for i in gap.issues] == [("invalid", "$.data[0].band_gap")]
    json.loads(result.model_dump_json())


def test_a_deeply_nested_output_is_refused_and_the_result_serializes(
    router: SchemaRouter,
) -> None:
    """700 levels of nested lists in a field: refused at validation (strict), or the step
    failed with the field missing (partial); either way the result serializes."""
    with pytest.raises(OutputValidationError, match="nested deeper than 100 levels"):
        _run("sync", router, _plan(router, "deep"))
    result = _run("sync", router, _plan(router, "deep"), partial=True)
    step = result.steps[0]
    assert step.status == "failed" and step.fields["band_gap"].status == "missing"
    assert step.error is not None and step.error.code == "SR603"
    json.loads(result.model_dump_json())


def test_a_lone_surrogate_in_an_output_is_refused_and_the_result_serializes(
    router: SchemaRouter,
) -> None:
    """A server's ``"mp-\\ud800"`` (valid JSON, not Unicode): the call returned it as ``ok``
    and the result's ``model_dump_json()`` raised an untyped ``PydanticSerializationError``
    (a gateway could not answer it). Refused at its path (strict), or the step failed
    (partial); either way the result serializes."""
    with pytest.raises(OutputValidationError, match="lone surrogate") as caught:
        _run("sync", router, _plan(router, "surrogate"))
    assert getattr(caught.value, "json_path", None) == "$.data[0].material_id"
    result = _run("sync", router, _plan(router, "surrogate"), partial=True)
    step = result.steps[0]
    assert step.status == "failed" and step.error is not None and step.error.code == "SR603"
    json.loads(result.model_dump_json())
    called = router.call("hostile/rest/surrogate", {}, credentials=CREDS, partial=True)
    json.loads(called.model_dump_json())


def test_an_empty_body_is_said_to_be_empty(router: SchemaRouter) -> None:
    """Trial X: a 200 with no body against a declared object was reported as "None is not of
    type 'object'", a Python value the server never sent."""
    result = router.call("hostile/rest/empty", {}, credentials=CREDS, partial=True)
    assert [i.message for i in result.issues] == [
        "output schema: the output is empty (an empty body, or null) where type 'object' is "
        "declared"
    ]
    assert [i.path for i in result.issues] == ["$"]


# -- 10: bindings are checked again before each step -----------------------------------------


@pytest.mark.parametrize("change", ["unbind", "remove"])
def test_a_route_unbound_or_removed_while_an_earlier_step_runs_does_not_run(
    change: str, router: SchemaRouter, hostile: LoopbackServer
) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, "hostile/rest/good", FIELDS, fallbacks=False),
        catalogs.step(snapshot, "hostile/rest/nan", FIELDS, fallbacks=False),
    )
    app = hostile.app
    assert isinstance(app, HostileApp)
    if change == "unbind":
        app.hooks["/api/good"] = lambda: router.unbind("hostile/rest/nan")
        expected: type[Exception] = PolicyError
    else:
        app.hooks["/api/good"] = lambda: router.remove_provider("hostile")
        expected = GateError
    with pytest.raises(expected, match="while the plan ran"):
        _run("sync", router, plan, partial=True)
    assert _paths(hostile) == ["/api/good"]


def test_arguments_nested_past_the_limit_are_refused_before_any_call(
    router: SchemaRouter, hostile: LoopbackServer
) -> None:
    """The same bound on the way in: a body nested 300 levels would be sent, and echoed
    in ``StepResult.arguments``, which then could not be serialized."""
    deep: Any = {}
    for _ in range(300):
        deep = {"a": deep}
    with pytest.raises(ParameterValidationError, match="not a JSON value"):
        _run("sync", router, _plan(router, "search_307", body=deep))
    assert hostile.requests == []


def test_the_redactor_knows_the_escaped_forms_of_a_key() -> None:
    """A query-string key may hold any character: JSON escapes it (``\\u00e9``, ``\\/``),
    Python's repr and ``unicode_escape`` differently, URL-encoding in either hex case."""
    key = "kéy/1+2"
    redactor = Redactor([key])
    for form in (
        json.dumps(key)[1:-1],  # k\u00e9y/1+2
        json.dumps(key)[1:-1].replace("/", "\\/"),
        key.encode("unicode_escape").decode(),  # k\xe9y/1+2
        quote(key, safe="").lower(),
        quote(key),
    ):
        assert redactor(f"before {form} after") == "before [redacted] after", form


@MODES
def test_an_argument_that_is_the_key_is_redacted_in_its_refusal(
    mode: str, router: SchemaRouter, hostile: LoopbackServer
) -> None:
    """The gate refuses an argument before any credential is handed out, and its message
    quotes the argument: where that is the route's own key (an agent pasting it), the
    refusal says ``[redacted]`` (a user trial saw the key verbatim)."""
    plan = _plan(router, "search_307", body=HOSTILE_KEY)
    with pytest.raises(ParameterValidationError, match="is not of type 'object'") as caught:
        _run(mode, router, plan)
    _assert_clean(str(caught.value))
    assert "[redacted]" in str(caught.value)
    with pytest.raises(ParameterValidationError) as called:
        router.call("hostile/rest/search_307", {"body": HOSTILE_KEY}, credentials=CREDS)
    _assert_clean(str(called.value))
    assert _paths(hostile) == []
