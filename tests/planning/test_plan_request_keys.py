"""A key ``PlanRequest`` does not have is refused naming the field meant (trial W1: the README
writes ``PlanRequest(parts=False)`` and ``PlanRequest(licenses=...)``, and ``router.plan(request)``
names its argument ``request``, so a user wrote ``PlanRequest(request="band gap of GaN")`` and
read only pydantic's "Extra inputs are not permitted")."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import openapi_document


def test_an_unknown_key_names_the_field_meant_and_the_fields() -> None:
    with pytest.raises(ValidationError) as refused:
        PlanRequest(request="daily weather forecast")  # type: ignore[call-arg]
    message = str(refused.value)
    assert "PlanRequest has no field 'request': did you mean 'query'? its fields are query, " in (
        message
    )
    with pytest.raises(ValidationError, match=r"has no field 'feilds': did you mean 'fields'\?"):
        PlanRequest(query="x", feilds=("weather.forecast",))  # type: ignore[call-arg]
    with pytest.raises(ValidationError) as refused:
        PlanRequest(query="x", max_calls=2)  # type: ignore[call-arg]
    assert "has no field 'max_calls': its fields are query" in str(refused.value)


def test_the_field_it_names_plans() -> None:
    ok = {"200": {"description": "the forecast"}}
    paths = {"/forecast": {"get": {"operationId": "getForecast", "responses": ok}}}
    router = SchemaRouter(encoder=HashingEncoder())
    router.add_openapi(openapi_document("Weather", paths), provider="weather")
    plan = router.plan(PlanRequest(query="daily weather forecast", parts=False))
    assert plan.route_ids == ("weather/rest/get_forecast",)
    # a plan still round-trips through its JSON (every model of the planner is so checked)
    assert type(plan).model_validate_json(plan.model_dump_json()) == plan
