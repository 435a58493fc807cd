""" "leave" keeps a value beside a change only where alone / untouched / as is ... follows it
in its clause ("delete all rooms; leave room R1 alone"). Each "leave" was once read by a look
ahead to its clause's end, so a request of 20,000 of them took 68.7 s to plan (trial Z1); it
is now read by bisection over the clause's stops, in 1.4 s (figures in the trial's report:
no test here is timed)."""

from __future__ import annotations

import re

from schemarouter.retrieval.clauses import Clauses


def _against(query: str, value: str) -> bool:
    match = re.search(re.escape(value), query)
    assert match is not None
    return Clauses(query).against(match)


def test_leave_keeps_only_with_alone_or_untouched_in_its_clause() -> None:
    assert _against("delete all rooms; leave room R1 alone", "R1")
    assert _against("delete all rooms, leaving room R1 untouched", "R1")
    assert not _against("delete room R1, leave the rest. Alone.", "R1")
    assert not _against("leave the lobby and delete room R1", "R1")
    assert not _against("leave room R1. Delete it alone", "R1")


def test_a_request_of_many_leaves_is_read_whole() -> None:
    many = "leave " * 20_000
    assert _against(f"delete all rooms; {many}room R1 alone", "R1")
    assert not _against(f"delete all rooms, {many}. Then delete room R1", "R1")
