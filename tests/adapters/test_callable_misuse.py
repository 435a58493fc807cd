"""A newcomer's slips with ``add_callable``: what was passed is not the callable meant, and
the refusal says which one to pass instead, before anything is registered."""

from __future__ import annotations

import dataclasses

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError


class Lab:
    """A lab client."""

    def __call__(self, sample_id: str) -> float:
        """Density of a sample."""
        return 2.33


def test_a_class_with_a_call_is_refused_with_pass_an_instance() -> None:
    """``add_callable(Lab)`` where ``Lab()`` was meant registered the constructor (input
    schema ``{}``) and failed only at call time ("not JSON data", trial W F4); it is refused
    at registration, naming the class and the instance to pass, and nothing is registered.
    The instance registers its typed ``__call__``."""
    router = SchemaRouter()
    with pytest.raises(DocumentError, match=r"Lab is a class") as info:
        router.add_callable(Lab, provider="lab")
    assert "Pass an instance, Lab()" in str(info.value)
    assert "test_callable_misuse.Lab" in str(info.value)  # where: the class named
    assert len(router.snapshot()) == 0
    change = router.add_callable(Lab(), provider="lab")
    endpoint = router.snapshot().route(change.added[0]).endpoint
    assert endpoint.input_schema["required"] == ["sample_id"]
    assert router.call(change.added[0], {"sample_id": "S1"}).output == 2.33


def test_a_class_with_no_call_still_registers_as_a_constructor() -> None:
    """A class that defines no ``__call__`` (a dataclass or model taking typed fields) is a
    legitimate factory: it registers with its constructor's parameters, as before."""

    @dataclasses.dataclass
    class Sample:
        """A sample record."""

        sample_id: str
        mass_g: float

    router = SchemaRouter()
    change = router.add_callable(Sample, provider="lab")
    endpoint = router.snapshot().route(change.added[0]).endpoint
    assert endpoint.input_schema["required"] == ["sample_id", "mass_g"]
    result = router.call(change.added[0], {"sample_id": "S1", "mass_g": 2.0})
    assert result.output == {"sample_id": "S1", "mass_g": 2.0}


class Balance:
    def density(self, sample_id: str) -> float:
        """Density of a sample in g/cm3."""
        return 2.33


def test_an_unbound_method_is_refused_as_one_not_for_self_s_type_hint() -> None:
    """``add_callable(Balance.density)`` was refused with "parameter 'self' has no type
    hint ... Annotate every parameter" (trial W F8): annotating self is the wrong fix. It is
    refused as an unbound method, with the instance's method to pass; that one registers."""
    router = SchemaRouter()
    with pytest.raises(DocumentError, match=r"Balance\.density is an unbound method") as info:
        router.add_callable(Balance.density, provider="lab")
    assert "Pass an instance's method, Balance().density" in str(info.value)
    assert "type hint" not in str(info.value)
    assert len(router.snapshot()) == 0
    change = router.add_callable(Balance().density, provider="lab")
    assert router.call(change.added[0], {"sample_id": "S1"}).output == 2.33
