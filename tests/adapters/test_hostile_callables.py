"""Callables with hostile signatures register in bounded time or are refused whole (the
fourteenth security review)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from forking import in_child

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder


class Evil:
    """A generic whose subscription raises: evaluating ``Evil[int]`` runs its code."""

    def __class_getitem__(cls, item: Any) -> Any:
        raise RuntimeError("boom")


#: 100,000 values of an enum (module level: the annotations are text, read in the module).
Choices = Literal[tuple(f"v{i}" for i in range(100_000))]  # type: ignore[valid-type]


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_an_annotation_that_raises_is_refused_and_nothing_is_registered() -> None:
    """Before: the annotation's RuntimeError('boom') came out of ``add_callable`` as it was,
    no SchemaRouter error naming the function."""

    def good(x: int) -> int:
        """Double a number."""
        return 2 * x

    def take(x: Evil[int]) -> int:  # type: ignore[type-arg]
        """Take a thing."""
        return 1

    router = _router()
    with pytest.raises(DocumentError) as caught:
        router.add_callable([good, take], provider="p")
    message = str(caught.value)
    assert "take" in message and "RuntimeError: boom" in message
    assert len(router.registry) == 0  # the good one of the batch is not registered either


def test_a_huge_literal_and_docstring_register_in_bounded_time() -> None:
    """Held: 100,000 enum values and a 10 MB docstring register in about a second."""

    def pick(choice: Choices) -> str:  # type: ignore[valid-type]
        return str(choice)

    pick.__doc__ = "Pick a value. " + "word " * 2_000_000

    def job() -> int:
        router = _router()
        router.add_callable(pick, provider="p")
        return len(router.registry)

    assert in_child(job, wait=20.0) == ("ok", 1)


def test_a_docstring_with_long_blank_runs_registers_in_bounded_time() -> None:
    """A section header or an argument's line followed by a run of blanks (``"Args" + " " *
    200_000 + "x"``) was read back and forth by the section patterns' two ``\\s*`` (a follow-up
    of the review): no answer in 20 s before (7.6 s at 50,000 blanks). The sections read as
    before."""

    def get_order(order_id: str, limit: int = 10) -> dict[str, Any]:
        return {}

    blanks = " " * 200_000
    get_order.__doc__ = "\n".join(
        [
            "Look up an order.",
            "",
            f"Args{blanks}x",  # no section header: lines of the description
            f"Returns{blanks}x",
            "Args:",
            f"    order_id{blanks}: The order's id.",
            f"    limit{blanks}(int){blanks}: How many.",
            f"Returns{blanks}",
            "    What it holds.",
        ]
    )

    def job() -> tuple[str, dict[str, Any]]:
        router = _router()
        router.add_callable(get_order, provider="shop")
        endpoint = router.snapshot().route("shop/python/get_order").endpoint
        return endpoint.description, {p.name: p.description for p in endpoint.parameters}

    described = {"order_id": "The order's id.", "limit": "How many."}
    assert in_child(job, wait=20.0) == ("ok", ("Look up an order. Args x Returns x", described))
