"""The execution gate, effects and approvals, and credentials (looked up by name, placed per
the contract, and never shown in results, logs, errors or reprs)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Route
from schemarouter.errors import (
    ArgumentError,
    GateError,
    InvocationError,
    ParameterValidationError,
    PolicyError,
    SchemaRouterError,
)
from schemarouter.execution.credentials import (
    REDACTED,
    EnvironmentCredentials,
    MappingCredentials,
    Redactor,
    guard_logger,
)
from schemarouter.execution.drivers import execute
from schemarouter.execution.invokers import HttpTarget
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.planning.planner import Plan, PlanStep

from servers import catalogs
from servers.world import CREDS, MP, MP_KEY, OPTIMADE, PUBCHEM, Servers, fresh_router

FIELDS = ["material_id", "band_gap"]
FAST = ExecutionPolicy(backoff=0.01, failure_threshold=100)


@pytest.fixture
def router(served_router: SchemaRouter) -> SchemaRouter:
    return served_router


def _plan(router: SchemaRouter, route_id: str, fields: list[str], **arguments: Any) -> Plan:
    snapshot = router.snapshot()
    return catalogs.plan(snapshot, catalogs.step(snapshot, route_id, fields, arguments))


def _requests(servers: Servers) -> int:
    return sum(len(s.requests) for s in servers.all())


# -- the gate: nothing unregistered runs --------------------------------------------------------


def _forged(router: SchemaRouter, **update: Any) -> Plan:
    plan = _plan(router, OPTIMADE, ["id"])
    return plan.model_copy(update={"steps": (plan.steps[0].model_copy(update=update),)})


@pytest.mark.parametrize(
    ("update", "error", "message"),
    [
        ({"route_id": "optimade/v1/invented"}, GateError, "not registered"),
        ({"route_id": "../../etc/passwd"}, GateError, "not registered"),
        ({"fingerprint": "sha256:" + "0" * 64}, GateError, "stale fingerprint"),
        ({"fields": ("id", "password")}, GateError, "no output field 'password'"),
        ({"arguments": {"nope": 1}}, ParameterValidationError, r"\$\.nope"),
        ({"arguments": {"page_limit": "ten"}}, ParameterValidationError, r"\$\.page_limit"),
        ({"arguments": {"page_limit": -1}}, ParameterValidationError, r"\$\.page_limit"),
        ({"arguments": {"response_fields": 5}}, ParameterValidationError, r"\$\.response_fields"),
        ({"arguments": {"filter": float("nan")}}, ParameterValidationError, "not a JSON value"),
    ],
)
def test_the_gate_refuses_before_any_call(
    update: dict[str, Any],
    error: type[SchemaRouterError],
    message: str,
    router: SchemaRouter,
    servers: Servers,
) -> None:
    with pytest.raises(error, match=message):
        execute(router, _forged(router, **update))
    assert _requests(servers) == 0


def test_required_and_nested_arguments_are_located(router: SchemaRouter) -> None:
    with pytest.raises(ParameterValidationError, match=r"\$\.name") as caught:
        execute(
            router,
            _forged(
                router,
                route_id=PUBCHEM,
                fingerprint=router.snapshot().routes[PUBCHEM].fingerprint,
                fields=("CID",),
            ),
        )
    assert getattr(caught.value, "json_path", None) == "$.name"
    with pytest.raises(ParameterValidationError) as caught:
        execute(router, _plan(router, MP, ["material_id"], _limit=5000), credentials=CREDS)
    assert getattr(caught.value, "json_path", None) == "$._limit"


def test_a_bad_later_step_stops_the_whole_plan_first(
    router: SchemaRouter, servers: Servers
) -> None:
    good = _plan(router, OPTIMADE, ["id"]).steps[0]
    bad = good.model_copy(update={"arguments": {"page_limit": "x"}})
    plan = catalogs.plan(router.snapshot(), good, bad)
    with pytest.raises(ParameterValidationError, match="plan step 1"):
        execute(router, plan)
    assert _requests(servers) == 0


def test_arguments_that_are_not_a_mapping(router: SchemaRouter) -> None:
    step = PlanStep.model_construct(
        **{**_plan(router, OPTIMADE, ["id"]).steps[0].__dict__, "arguments": ["x"]}
    )
    plan = Plan.model_construct(**{**_plan(router, OPTIMADE, ["id"]).__dict__, "steps": (step,)})
    with pytest.raises(ParameterValidationError, match="mapping"):
        execute(router, plan)


def test_unbound_routes_do_not_run(servers: Servers, tmp_path: Path) -> None:
    router = SchemaRouter(abstention=None)
    router.add_catalog(catalogs.write_catalog(tmp_path / "c.json", servers.providers()))
    router.unbind(OPTIMADE)  # catalogs bind their HTTP routes at registration
    with pytest.raises(PolicyError, match="not bound"):
        execute(router, _plan(router, OPTIMADE, ["id"]))
    router.bind(OPTIMADE, HttpTarget("http://evil.example/v1"))
    with pytest.raises(PolicyError, match="another base URL"):
        execute(router, _plan(router, OPTIMADE, ["id"]))
    assert _requests(servers) == 0


# -- effects --------------------------------------------------------------------------------


class Approvals:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, route: Route, arguments: Mapping[str, Any]) -> bool:
        self.calls.append((route.route_id, dict(arguments)))
        with pytest.raises(TypeError):
            arguments["body"] = "changed"  # type: ignore[index]
        if isinstance(self.answer, Exception):
            raise self.answer
        return bool(self.answer) if self.answer in (True, False) else self.answer


def test_writes_need_permission_and_an_approval(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "faulty/rest/store", FIELDS, body={"formula": "Si", "note": "é"})
    with pytest.raises(PolicyError, match="does not allow"):
        execute(router, plan)
    with pytest.raises(PolicyError, match="needs an approval callback"):
        execute(router, plan, allow_effects={"read", "write"})
    no = Approvals(False)
    with pytest.raises(PolicyError, match="refused"):
        execute(router, plan, allow_effects={"read", "write"}, approve=no)
    assert no.calls == [("faulty/rest/store", {"body": {"formula": "Si", "note": "é"}})]
    with pytest.raises(PolicyError, match="callback failed"):
        execute(router, plan, allow_effects={"read", "write"}, approve=Approvals(RuntimeError("x")))
    with pytest.raises(PolicyError, match="refused"):
        execute(
            router, plan, allow_effects={"read", "write"}, approve=Approvals("yes")
        )  # only True

    async def asks(route: Any, arguments: Any) -> bool:  # an async prompt, never awaited
        return True

    with pytest.raises(ArgumentError, match="approve is an async function"):
        execute(router, plan, allow_effects={"read", "write"}, approve=asks)
    with pytest.raises(PolicyError, match="returned an awaitable"):  # a callable object
        execute(router, plan, allow_effects={"read", "write"}, approve=lambda r, a: asks(r, a))
    assert _requests(servers) == 0
    result = execute(router, plan, allow_effects={"read", "write"}, approve=Approvals(True))
    assert result.field("band_gap").value == [0.61]
    (request,) = servers.faulty.requests
    assert request.method == "POST" and request.headers["Content-Type"] == "application/json"
    assert json.loads(request.body) == {"formula": "Si", "note": "é"}


def test_destructive_needs_its_own_permission(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "faulty/rest/wipe", FIELDS)
    with pytest.raises(PolicyError, match="destructive"):
        execute(router, plan, allow_effects={"read", "write"}, approve=Approvals(True))
    assert _requests(servers) == 0
    execute(router, plan, allow_effects={"read", "destructive"}, approve=Approvals(True))
    assert [r.method for r in servers.faulty.requests] == ["DELETE"]


def test_refused_effects_stop_the_plan_before_reads_run(
    router: SchemaRouter, servers: Servers
) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, OPTIMADE, ["id"]),
        catalogs.step(snapshot, "faulty/rest/wipe", FIELDS),
    )
    with pytest.raises(PolicyError):
        execute(router, plan)
    assert _requests(servers) == 0


def test_the_hint_of_a_refused_effect_asks_approval_only_for_writes(
    router: SchemaRouter, servers: Servers
) -> None:
    """Trial M: with allow_effects=["write"] (as the write errors suggested) a plan's read
    step was refused with "Pass allow_effects including 'read' and an approve callback":
    a read needs no approval, and the write hint never said to keep 'read'."""
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, OPTIMADE, ["id"]),
        catalogs.step(snapshot, "faulty/rest/store", FIELDS, {"body": {"formula": "Si"}}),
    )
    with pytest.raises(PolicyError) as write:
        execute(router, plan)
    assert write.value.hint == (
        "Pass allow_effects=['read', 'write'] and an approve callback: keep 'read' in the "
        "list for the reads of the plan or call (allow_effects replaces the default ['read'])"
    )
    with pytest.raises(PolicyError) as read:
        execute(router, plan, allow_effects={"write"}, approve=Approvals(True))
    assert "has effect read" in read.value.what
    assert (
        read.value.hint == "Pass allow_effects including 'read' (a read needs no approve callback)"
    )
    with pytest.raises(PolicyError) as wipe:
        execute(router, _plan(router, "faulty/rest/wipe", FIELDS), allow_effects={"write"})
    assert (wipe.value.hint or "").startswith(
        "Pass allow_effects=['read', 'write', 'destructive'] and an approve callback"
    )
    assert _requests(servers) == 0


# -- credentials --------------------------------------------------------------------------------


def test_missing_credentials_are_named_and_nothing_is_sent(
    router: SchemaRouter, servers: Servers
) -> None:
    with pytest.raises(PolicyError, match="MP_API_KEY") as caught:
        execute(router, _plan(router, MP, ["material_id"]), credentials=MappingCredentials({}))
    assert "Set them in the environment" in str(caught.value)
    assert _requests(servers) == 0


class _Vault:
    """A credential provider as a vault client may be written: bytes back, or a failure."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def get(self, name: str) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (b"k-123", "gave bytes for MP_API_KEY, not text"),
        (123, "gave int for MP_API_KEY, not text"),
        (RuntimeError("vault down at 10.0.0.5"), "failed for MP_API_KEY: RuntimeError"),
    ],
)
def test_a_credential_provider_that_misbehaves_is_a_policy_error(
    router: SchemaRouter, servers: Servers, answer: Any, said: str
) -> None:
    """A bare TypeError from deep inside, or the provider's own exception (a user trial)."""
    with pytest.raises(PolicyError, match=said) as caught:
        execute(router, _plan(router, MP, ["material_id"]), credentials=_Vault(answer))
    assert "vault down" not in str(caught.value) and caught.value.__cause__ is None
    assert _requests(servers) == 0


@pytest.mark.parametrize(
    ("auth", "header"),
    [
        (
            {
                "credentials": ["T_TOKEN"],
                "scheme": "bearer",
                "location": "header",
                "parameter": "Authorization",
            },
            "Bearer tok-123",
        ),
        ({"credentials": ["T_USERNAME", "T_PASSWORD"], "scheme": "basic"}, "Basic dXNlcjpwYXNz"),
        (
            {
                "credentials": ["T_API_KEY"],
                "scheme": "api_key",
                "location": "header",
                "parameter": "X-Key",
            },
            "key-9",
        ),
    ],
)
def test_credentials_are_placed_per_the_contract(
    auth: dict[str, Any], header: str, servers: Servers, tmp_path: Path
) -> None:
    servers.reset()
    echo = catalogs.endpoint(
        "echo",
        "/good",
        fields=[catalogs.fld("material_id", "data.*.material_id", {"type": "string"})],
    )
    router = fresh_router(
        servers, tmp_path, [catalogs.provider("t", servers.faulty.base_url, [echo], auth=auth)]
    )
    values = {
        "T_TOKEN": "tok-123",
        "T_USERNAME": "user",
        "T_PASSWORD": "pass",
        "T_API_KEY": "key-9",
    }
    result = execute(
        router,
        _plan(router, "t/rest/echo", ["material_id"]),
        credentials=MappingCredentials(values),
    )
    (request,) = servers.faulty.requests
    name = auth.get("parameter") or "Authorization"
    assert request.headers[name] == header
    assert not any(v in result.model_dump_json() for v in values.values())


def test_optional_credentials_may_be_absent(servers: Servers, tmp_path: Path) -> None:
    servers.reset()
    echo = catalogs.endpoint(
        "echo",
        "/good",
        fields=[catalogs.fld("material_id", "data.*.material_id", {"type": "string"})],
    )
    auth = {"credentials": ["T_TOKEN"], "scheme": "bearer", "optional": True}
    router = fresh_router(
        servers, tmp_path, [catalogs.provider("t", servers.faulty.base_url, [echo], auth=auth)]
    )
    execute(
        router, _plan(router, "t/rest/echo", ["material_id"]), credentials=MappingCredentials({})
    )
    assert "Authorization" not in servers.faulty.requests[0].headers


SECRET = "sk-LIVE-0123456789abcdef"


def _scan(*texts: str) -> None:
    for text in texts:
        assert SECRET not in text
        assert "sk-LIVE" not in text


def test_credential_values_never_leak(
    router: SchemaRouter, servers: Servers, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    creds = MappingCredentials({"KEYED_API_KEY": SECRET, "MP_API_KEY": MP_KEY})
    good = _plan(router, "keyed/rest/good", ["band_gap"])
    result = execute(router, good, credentials=creds)
    assert servers.faulty.requests[0].query["api_key"] == [SECRET]  # it did travel
    # a server that echoes the request (query string included) back into the data
    echoed = execute(
        router,
        _plan(router, "keyed/rest/echo", ["band_gap", "seen"], material="x"),
        credentials=creds,
    )
    assert echoed.field("seen").value == [f"/echo/x?api_key={REDACTED}"]
    # a failing call: the error, the attempts and the partial result
    snapshot = router.snapshot()
    failing = catalogs.plan(
        snapshot, catalogs.step(snapshot, "keyed/rest/error500", ["band_gap"], fallbacks=False)
    )
    with pytest.raises(InvocationError) as caught:
        execute(router, failing, credentials=creds, policy=FAST)
    partial = execute(router, failing, credentials=creds, policy=FAST, partial=True)
    # a missing header key that the server rejects (MP answers 401 with its message)
    wrong = MappingCredentials({"MP_API_KEY": SECRET})
    with pytest.raises(InvocationError, match="HTTP 401") as rejected:
        execute(router, _plan(router, MP, ["material_id"]), credentials=wrong)
    # trial S2 §7: a 401 did not say which credential the server refused
    assert "The server refused the credentials sent (MP_API_KEY)" in str(rejected.value)
    _scan(
        result.model_dump_json(),
        echoed.model_dump_json(),
        partial.model_dump_json(),
        str(caught.value),
        repr(caught.value),
        str(rejected.value),
        caplog.text,
        repr(creds),
        good.model_dump_json(),
        repr(good),
    )
    assert REDACTED in caplog.text  # httpx's own request log line, redacted
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_redactor_covers_encoded_forms() -> None:
    redactor = Redactor(["a b/c"])
    assert redactor("x=a+b%2Fc y=a%20b%2Fc z=a b/c") == f"x={REDACTED} y={REDACTED} z={REDACTED}"
    assert redactor.scrub({"k": ["a b/c", 1]}) == {"k": [REDACTED, 1]}
    assert "a b/c" not in repr(redactor)


def test_a_document_cannot_name_schemarouters_own_variables_as_its_credential(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Credential names come from a document's title and scheme names: one titled
    "SchemaRouter" with a bearer scheme "serve" was sent the gateway's own token,
    $SCHEMAROUTER_SERVE_TOKEN (a user trial)."""
    monkeypatch.setenv("SCHEMAROUTER_SERVE_TOKEN", "gateway-secret")
    monkeypatch.setenv("APP_SCHEMAROUTER_X", "also-reserved")
    monkeypatch.setenv("WEATHER_TOKEN", "w-1")
    assert EnvironmentCredentials().get("SCHEMAROUTER_SERVE_TOKEN") is None
    assert EnvironmentCredentials().get("schemarouter_serve_token") is None
    assert EnvironmentCredentials(prefix="SCHEMAROUTER_").get("SERVE_TOKEN") is None
    assert EnvironmentCredentials().get("WEATHER_TOKEN") == "w-1"
    assert EnvironmentCredentials(prefix="APP_").get("SCHEMAROUTER_X") == "also-reserved"


def test_httpcores_own_loggers_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    """httpcore logs response headers at DEBUG under child loggers a filter on "httpcore"
    does not see: an echoed key showed there (a user trial)."""
    redactor = Redactor(["sk_live_51Hx9Q2"])
    guard_logger("httpcore")
    with caplog.at_level(logging.DEBUG, logger="httpcore.http11"):
        logging.getLogger("httpcore.http11").debug("headers=[(b'x-echo', b'sk_live_51Hx9Q2')]")
    assert "sk_live" not in caplog.text and REDACTED in caplog.text
    del redactor


def test_a_short_credential_is_redacted_only_where_it_stands_alone() -> None:
    """A basic-auth user ``name`` renamed every ``name`` field of the output, and a one-letter
    value turned ``path`` into ``p[redacted]th`` (a user trial): a value under SHORT_VALUE
    characters is replaced where no letter or digit stands beside it, never inside a word or
    a key; a long one wherever it appears."""
    redactor = Redactor(["name", "a", "sk_live_51Hx9Q2"])
    output = {"name": "widget", "path": "/a/b", "note": "user name, key sk_live_51Hx9Q2abc"}
    assert redactor.scrub(output) == {
        "name": "widget",
        "path": f"/{REDACTED}/b",
        "note": f"user {REDACTED}, key {REDACTED}abc",
    }
    assert redactor.scrub({"sk_live_51Hx9Q2": 1}) == {REDACTED: 1}  # a long one, even as a key
    assert redactor("q=a&x=a1") == f"q={REDACTED}&x=a1"
