"""Switches in the environment: ``SCHEMAROUTER_BACKGROUND`` takes the usual spellings."""

from __future__ import annotations

import pytest

from schemarouter.errors import ArgumentError
from schemarouter.index.workers import background, cores


@pytest.mark.parametrize("value", ["0", "false", "False", "no", "OFF", " off "])
def test_background_work_is_turned_off_by_any_usual_false(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """Only the exact value 0 turned it off; false, off and no left it on (a user trial)."""
    monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", value)
    assert background() is False


@pytest.mark.parametrize("value", ["1", "true", "Yes", "on", ""])
def test_background_work_stays_on_where_there_are_cores(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", value)
    assert background() is (cores() > 1)


@pytest.mark.parametrize("value", ["2", "flase", "disabled"])
def test_any_other_value_is_refused_with_the_spellings(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", value)
    with pytest.raises(ArgumentError, match=f"SCHEMAROUTER_BACKGROUND='{value}' is not") as caught:
        background()
    assert "0, false, no or off" in str(caught.value.hint)
