"""A Python function's parameter gives its meaning and other names as an OpenAPI parameter
does: ``Annotated[str, Field(json_schema_extra={"x-semantic-id": ..., "x-aliases": [...]})]``.

Trial X3 (a lab inventory app of typed functions): ``reagent_id`` declared
``"x-aliases": ["시약"]`` and the route's parameter had no aliases (an OpenAPI or MCP
parameter's are read), so "시약 R-4 정보를 보여줘" left ``reagent_id`` open, and the plan
took another route in place of ``get_reagent`` "which needs reagent_id the request does not
give"."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError, UnitError
from schemarouter.index import HashingEncoder


def get_reagent(
    reagent_id: Annotated[
        str,
        Field(json_schema_extra={"x-semantic-id": "identifier.reagent", "x-aliases": ["시약"]}),
    ],
) -> float:
    """Stock of one reagent of the inventory, by its id.

    Args:
        reagent_id: The reagent's id, e.g. "R-2".
    """
    return 500.0


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_a_parameters_x_semantic_id_and_x_aliases_are_read() -> None:
    router = _router()
    router.add_callable(get_reagent, provider="lab")
    (parameter,) = router.snapshot().routes["lab/python/get_reagent"].endpoint.parameters
    assert (parameter.semantic_id, parameter.aliases) == ("identifier.reagent", ("시약",))
    found = router.retrieve("시약 R-4 정보를 보여줘", k=1)
    assert dict(found.candidates[0].bound_parameters) == {"reagent_id": "R-4"}


def test_a_parameters_x_aliases_that_are_no_names_are_refused() -> None:
    def odd(reagent_id: Annotated[str, Field(json_schema_extra={"x-aliases": [1, 2]})]) -> float:
        """Stock of a reagent."""
        return 1.0

    with pytest.raises(DocumentError, match=r"x-aliases .* is no list of names"):
        _router().add_callable(odd, provider="lab")


def test_a_parameters_x_unit_that_cannot_be_read_is_refused() -> None:
    """Trial X3: ``x-unit: "bananas"`` on a parameter registered with no word, while the same
    on a return model's field is a ``UnitError``; the parameter's unit is what a bound the
    request writes ("above 2 eV") is filled in, and one that cannot be read was skipped."""

    def odd(temp_min: Annotated[float, Field(json_schema_extra={"x-unit": "bananas"})]) -> float:
        """Samples stored above a temperature."""
        return 1.0

    with pytest.raises(UnitError, match=r"x-unit 'bananas' cannot be read.*parameter 'temp_min'"):
        _router().add_callable(odd, provider="lab")

    def fine(
        temp_min: Annotated[float, Field(json_schema_extra={"x-unit": "°C"})],
        volume_ml: Annotated[float | None, Field(json_schema_extra={"x-unit": "mL"})] = None,
    ) -> float:
        """Samples stored above a temperature."""
        return 1.0

    assert _router().add_callable(fine, provider="lab").added == ("lab/python/fine",)
