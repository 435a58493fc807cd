"""A Python value that is no JSON value, given as an argument, is named with its type and how
to pass it, and the argument is not also called missing.

Trial X3 (a lab app's own functions, called with ``router.call``): a ``date`` for a ``date``
parameter was refused as "argument 'since' is not a JSON value" with no hint, and a pydantic
model instance for a model parameter as "is not a JSON value; 'entry' is a required property":
the argument was given, and nothing said what to pass instead."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import BaseModel

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

CALLED: list[str] = []


class NewEntry(BaseModel):
    title: str
    project: str


def search_notebook(query: str, since: date | None = None) -> list[str]:
    """Search the lab notebook."""
    CALLED.append("search_notebook")
    return []


def create_entry(entry: NewEntry, tags: list[str] | None = None) -> str:
    """Write a new lab notebook entry."""
    CALLED.append("create_entry")
    return "E-2"


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([search_notebook, create_entry], provider="lab")
    return router


def test_a_date_argument_is_named_with_its_type_and_what_to_pass(router: SchemaRouter) -> None:
    with pytest.raises(ParameterValidationError) as refused:
        router.call("lab/python/search_notebook", {"query": "pcr", "since": date(2026, 11, 1)})
    said = str(refused.value)
    assert "argument 'since' is not a JSON value: it is a datetime.date" in said
    assert ".isoformat()" in said
    assert CALLED == []


def test_a_model_argument_is_not_also_called_missing(router: SchemaRouter) -> None:
    entry = NewEntry(title="western blot", project="apollo")
    with pytest.raises(ParameterValidationError) as refused:
        router.call("lab/python/create_entry", {"entry": entry})
    said = str(refused.value)
    assert f"it is a {NewEntry.__module__}.NewEntry" in said
    assert ".model_dump(mode='json')" in said
    assert "required" not in said
    nested = {"entry": {"title": "x", "project": "apollo"}, "tags": ["a", date(2026, 1, 1)]}
    with pytest.raises(
        ParameterValidationError, match=r"it holds a datetime\.date at \$\.tags\[1\]"
    ):
        router.call("lab/python/create_entry", nested)
    assert CALLED == []
    # its JSON form runs
    assert router.call("lab/python/create_entry", {"entry": entry.model_dump(mode="json")}).output
