"""A Python function's exception that quotes a secret the function holds itself (trial Y1).

A function that reads its API key from its own environment and raises ``ConnectionError(f"GET
{url} failed")`` with the key in the URL's query, or a ``PermissionError`` quoting the
``Authorization: Bearer`` header it sent, put the key in the error's text (what the agent and
the gateway's ``call_tool`` answer get), in ``error.raised`` and in the execution log: the run
never handed the key out, so the redactor did not know it. A value written as a secret (a URL
query setting, a password or a setting under a secret's name, a bearer token) is now
``[redacted]`` in all three."""

from __future__ import annotations

import logging
import os
import traceback

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError
from schemarouter.execution.credentials import text_secrets
from schemarouter.index import HashingEncoder

KEY = "sk-live-0123456789abcdefXYZ"


def weather_forecast(city: str) -> dict[str, float]:
    """Get the weather forecast for a city."""
    key = os.environ.get("Y1_WEATHER_API_KEY", KEY)
    if city == "Lisbon":
        raise ValueError(f"GET https://api.weather.example/v1?city={city}&api_key={key} failed")
    if city == "Porto":
        raise PermissionError(f"401 for Authorization: Bearer {key}")
    if city == "Faro":
        raise ValueError(f"refused: password={key}; token: {key}")
    raise ValueError(f"unknown city {city!r} (see https://weather.example/cities?page=2)")


@pytest.mark.parametrize("city", ["Lisbon", "Porto", "Faro"])
def test_a_secret_the_function_quotes_is_redacted_in_its_error_and_the_log(
    city: str, caplog: pytest.LogCaptureFixture
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(weather_forecast, provider="wx")
    with caplog.at_level(logging.DEBUG), pytest.raises(InvocationError) as caught:
        router.call("wx/python/weather_forecast", {"city": city})
    error = caught.value
    assert "[redacted]" in str(error) and KEY not in str(error)
    assert error.raised is not None
    assert KEY not in "".join(traceback.format_exception(error.raised))
    assert isinstance(error.raised, PermissionError if city == "Porto" else ValueError)
    assert KEY not in caplog.text


def test_a_message_without_a_secret_is_kept_as_it_is() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(weather_forecast, provider="wx")
    with pytest.raises(InvocationError) as caught:
        router.call("wx/python/weather_forecast", {"city": "Nowhere"})
    assert "unknown city 'Nowhere' (see https://weather.example/cities?page=2)" in str(caught.value)
    assert isinstance(caught.value.raised, ValueError)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("refused: password=hunter22; token: abcd1234", ["hunter22", "abcd1234"]),
        ("X-API-Key: abcdefgh", ["abcdefgh"]),
        ("Basic dXNlcjpwYXNz", ["dXNlcjpwYXNz"]),
        (
            "GitHub refused ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
        ),
        # an exception's own words name no secret
        ("KeyboardInterrupt: driver gave up", []),
        ("KeyError: 'token'", []),
        ("Basic authentication failed", []),
        ("Bearer token expired", []),
        ("primary_key=5, hotkey: ctrl", []),
    ],
)
def test_the_secrets_a_message_writes_are_read_strictly(text: str, found: list[str]) -> None:
    assert text_secrets(text) == found
