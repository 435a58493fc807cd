""" "text", "message", "email" after "this", "my", "the" ... are the thing sent, not a
sending: "convert this text to speech" asks no ``send`` (trial z1: the request's verbs held
``send``, read from "text", and a send route gained the verb bonus); "text Bob", "email the
report" and "send the email" still send, and "forward" sends."""

from __future__ import annotations

import pytest

from schemarouter.retrieval.actions import read_request


@pytest.mark.parametrize(
    ("text", "verbs"),
    [
        ("convert this text to speech", set()),
        ("translate my message to French", set()),
        ("Synthesize the text into speech", set()),
        ("text Bob the address", {"send"}),
        ("email the report to Ann", {"send"}),
        ("send the email to Ann", {"send"}),
        ("forward the message to Ann", {"send"}),
    ],
)
def test_a_way_of_sending_after_a_determiner_is_the_thing_sent(text: str, verbs: set[str]) -> None:
    assert set(read_request(text)[1]) == verbs
