"""What a Python tool returns that is not JSON data: the error names the value's type and
where in the returned value it is, so the developer knows what to convert."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import decimal
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError


class Reading:
    """An instrument driver's own reading type (as numpy's ``int64`` is to pydantic)."""

    def __init__(self, value: float) -> None:
        self.value = value


def balance_readings(samples: int) -> dict[str, Any]:
    """Readings of the lab balance."""
    return {
        "unit": "g",
        "at": datetime.date(2026, 3, 1),
        "tare": decimal.Decimal("0.10"),
        "series": [1.5, Reading(1.6)],
    }


def test_a_value_that_is_not_json_names_its_type_and_path() -> None:
    """A lab balance's driver returned its own reading objects (numpy's ``int64`` does the
    same): the error said only "the callable returned a value that is not JSON data
    (PydanticSerializationError)", with no word of which value or what type it was."""
    router = SchemaRouter()
    router.add_callable(balance_readings, provider="lab")
    with pytest.raises(InvocationError) as caught:
        router.call("lab/python/balance_readings", {"samples": 2})
    message = str(caught.value)
    assert "test_callable_outputs.Reading" in message, message
    assert "$.series[1]" in message, message
    assert "int(), float(), str()" in message, message


def monthly_report(args: str) -> str:
    """Run the legacy monthly report command line with its arguments."""
    parser = argparse.ArgumentParser(prog="report")
    parser.add_argument("--month", type=int, required=True)
    return f"report {parser.parse_args(args.split()).month}"


async def monthly_report_async(args: str) -> str:
    """Run the legacy monthly report command line (async)."""
    return monthly_report(args)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["call", "acall"])
@pytest.mark.parametrize("tool", [monthly_report, monthly_report_async], ids=["sync", "async"])
def test_a_tool_that_exits_is_an_invocation_error_not_the_end_of_the_host(
    tool: Any, asynchronous: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool wrapping a command line whose argparse refuses its arguments calls
    ``sys.exit(2)``: the ``SystemExit`` went through ``router.call`` and ``acall`` (and out
    of the host's event loop), ending an agent loop or a service on a tool's bad input. It
    is the tool's failure, as any exception it raises."""
    router = SchemaRouter()
    router.add_callable(tool, provider="legacy")
    route = f"legacy/python/{tool.__name__}"
    with pytest.raises(InvocationError, match=r"the callable raised SystemExit: 2"):
        if asynchronous:
            asyncio.run(router.acall(route, {"args": "--month x"}))
        else:
            router.call(route, {"args": "--month x"})
    assert "invalid int value" in capsys.readouterr().err  # argparse said why, on stderr
    assert router.call(route, {"args": "--month 3"}).output == "report 3"


class Unprintable(Exception):
    """An exception whose message cannot be made (a driver's error type with a broken
    ``__str__``)."""

    def __str__(self) -> str:
        raise RuntimeError("broken __str__")


def read_thermocouple(channel: int) -> float:
    """Read a thermocouple channel of the furnace."""
    raise Unprintable(channel)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_an_exception_whose_message_cannot_be_read_is_still_an_invocation_error(
    asynchronous: bool,
) -> None:
    """Trial T1 (low): ``router.call`` raised the ``RuntimeError`` of the exception's own
    ``__str__``, not the ``InvocationError`` every failed call is."""
    from schemarouter.index import HashingEncoder

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(read_thermocouple, provider="lab")
    route = "lab/python/read_thermocouple"
    with pytest.raises(InvocationError, match=r"raised Unprintable: <its message could not"):
        if asynchronous:
            asyncio.run(router.acall(route, {"channel": 3}))
        else:
            router.call(route, {"channel": 3})


def create_note(text: str) -> dict[str, str]:
    """Write a note to the lab notebook."""
    return {"id": "N-1"}


def note_count(day: str) -> int:
    """How many notes the lab notebook holds for a day."""
    return 3


def test_a_function_named_as_a_change_but_registered_as_a_read_is_warned_of() -> None:
    """Trial T7 (low): ``create_note`` registered without ``effect`` is a read (the documented
    default), so a plan or ``router.call`` ran it with no approval, and registration said
    nothing. It still registers as a read (the caller's choice), with a warning that says how
    to declare the write; a read's name, an ``effect`` given or a ``@capability`` say nothing."""
    from schemarouter.adapters.python import capability
    from schemarouter.index import HashingEncoder

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_callable([create_note, note_count], provider="lab")
    (warning,) = change.warnings
    assert "create_note: registered as a read" in warning and "effect='write'" in warning
    assert router.snapshot().routes["lab/python/create_note"].endpoint.effect.value == "read"
    quiet = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    assert quiet.add_callable(create_note, provider="lab", effect="write").warnings == ()

    @capability(effect="read")
    def create_preview(text: str) -> dict[str, str]:
        """Render a preview of a note without saving it."""
        return {"preview": text}

    assert quiet.add_callable(create_preview, provider="lab2").warnings == ()


def test_more_change_verbs_are_warned_of() -> None:
    """Trial U1 (low): the warning missed revoke, terminate, kill, wipe, erase, disable and
    deploy: ``revoke_token`` registered as a read ran with no approval, silently."""
    from schemarouter.index import HashingEncoder

    def revoke_token(token_id: str) -> dict[str, bool]:
        """Revoke an API token."""
        return {"ok": True}

    def terminateInstance(instance_id: str) -> dict[str, bool]:
        """Terminate a VM."""
        return {"ok": True}

    def wipe_disk(disk: str) -> dict[str, bool]:
        """Erase a disk."""
        return {"ok": True}

    def deploy(service: str) -> dict[str, bool]:
        """Deploy a service."""
        return {"ok": True}

    def disk_usage(disk: str) -> dict[str, int]:
        """Bytes used on a disk."""
        return {"used": 1}

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_callable(
        [revoke_token, terminateInstance, wipe_disk, deploy, disk_usage], provider="ops"
    )
    warned = sorted(
        w.split(": registered as a read")[0].rsplit(".", 1)[-1] for w in change.warnings
    )
    assert warned == ["deploy", "revoke_token", "terminateInstance", "wipe_disk"], change.warnings
