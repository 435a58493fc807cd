"""A returned model holding a value its own type refuses (set after validation, as a plain
assignment does) is an output validation error at that value's place.

Trial X3 (a lab app's own functions): ``reagent.location = "garage"`` on a model whose
``location`` is an Enum, returned from ``-> Reagent``, made pydantic warn while the router
dumped it, and where warnings are errors (``-W error``, pytest's ``filterwarnings =
error``) the call said "the callable returned a value that is not JSON data: Reagent at $",
which it is, instead of naming the value the output schema refuses."""

from __future__ import annotations

import warnings
from enum import StrEnum

import pytest
from pydantic import BaseModel

from schemarouter import SchemaRouter
from schemarouter.errors import OutputValidationError
from schemarouter.index import HashingEncoder


class Location(StrEnum):
    SHELF = "shelf"
    FREEZER = "freezer"


class Reagent(BaseModel):
    reagent_id: str
    location: Location


def get_reagent(reagent_id: str) -> Reagent:
    """Look up one reagent of the inventory."""
    reagent = Reagent(reagent_id=reagent_id, location=Location.SHELF)
    reagent.location = "garage"  # type: ignore[assignment]  # no validate_assignment
    return reagent


def test_a_model_holding_a_refused_value_is_an_output_error_at_its_place() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(get_reagent, provider="lab")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OutputValidationError, match=r"'garage' is not one of") as refused:
            router.call("lab/python/get_reagent", {"reagent_id": "R-1"})
    assert "$.location" in str(refused.value)
