"""``error.raised`` (what a Python function raised, kept for its developer: trial X3) loses
the credentials the run handed out, as the error's own text does.

Trial V3: a plan that fetched a rate with ``FX_API_KEY`` and then called a function that
raised ``RuntimeError("upstream refused key sk-live-...")`` answered ``[SR602] the callable
raised RuntimeError: upstream refused key [redacted]``, while ``error.raised`` held the key
itself: a developer who logged it (``traceback.print_exception(error.raised)``, what it is
for) wrote the key into the log."""

from __future__ import annotations

import traceback
from collections.abc import Iterator

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import InvocationError
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanStep
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

KEY = "sk-live-9f8e7d6c5b4a3f2e1d0c"


def _app(request: Request) -> Response:
    return json_response({"rate": 1.1})


def _fails(amount: float) -> float:
    raise RuntimeError(f"upstream refused key {KEY}")


def convert_amount(amount: float) -> float:
    """Convert an amount of euros to dollars."""
    return _fails(amount)


def _document(url: str) -> dict[str, object]:
    number = {"type": "object", "properties": {"rate": {"type": "number"}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "FX", "version": "1"},
        "servers": [{"url": url}],
        "components": {
            "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}
        },
        "security": [{"k": []}],
        "paths": {
            "/rate": {
                "get": {
                    "operationId": "get_exchange_rate",
                    "summary": "Get the EUR USD exchange rate",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": number}},
                        }
                    },
                }
            }
        },
    }


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def test_a_credential_in_what_a_function_raised_is_redacted_there_too(
    server: LoopbackServer,
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(server.base_url), provider="fx")
    router.add_callable(convert_amount, provider="conv")
    plan = router.plan(PlanRequest(query="get the exchange rate"))
    assert [s.route_id for s in plan.steps] == ["fx/rest/get_exchange_rate"]
    route = router.snapshot().routes["conv/python/convert_amount"]
    step = PlanStep(
        route_id=route.route_id,
        fingerprint=route.fingerprint,
        provider=route.provider.id,
        endpoint="convert_amount",
        fields=(),
        covers=(),
        arguments={"amount": 2.0},
        whole_output=True,
    )
    plan = plan.model_copy(update={"steps": (*plan.steps, step)})
    with pytest.raises(InvocationError) as failed:
        router.execute(plan, credentials=MappingCredentials({"FX_API_KEY": KEY}))
    assert "upstream refused key [redacted]" in str(failed.value)
    raised = failed.value.raised  # type: ignore[attr-defined]
    assert isinstance(raised, RuntimeError)
    shown = "".join(traceback.format_exception(raised))
    assert "upstream refused key [redacted]" in shown
    assert KEY not in shown and KEY not in repr(raised.args)
    # still the function's own frames, for its developer
    frames = [frame.name for frame in traceback.extract_tb(raised.__traceback__)]
    assert frames[-2:] == ["convert_amount", "_fails"]
