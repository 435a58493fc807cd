"""Requests of several parts composed from single requests (training and the composed dev set)."""

from __future__ import annotations

import random

from schemarouter.training.datasets.composed import (
    COMPOSED_SOURCE,
    compose_requests,
    join_parts,
)
from schemarouter.training.datasets.tooltrain import TrainRecord


def _record(source: str, i: int, text: str, tool: str | None = None) -> TrainRecord:
    tool = tool or f"{source}:tool{i}"
    return TrainRecord(
        query=text,
        source=source,
        split_key=tool,
        positives=(tool,),
        positive_keys=(tool,),
        split="val",
    )


def _pool() -> dict[str, list[TrainRecord]]:
    return {
        "seal_tools": [_record("seal_tools", i, f"Find flights to city {i}.") for i in range(20)],
        "tldr": [_record("tldr", i, f"List the files in folder {i}") for i in range(20)],
        "sgd": [
            _record("sgd", 0, "Yes, book that one for me.", tool="sgd:book"),
            _record("sgd", 1, "I need a hotel room in Paris for two nights.", tool="sgd:hotel"),
            _record("sgd", 2, "A hotel there would be nice.", tool="sgd:hotel2"),
        ],
        "tau_bench": [_record("tau_bench", 0, "You are Ann. You want to return a lamp.")],
    }


def test_each_composed_request_needs_the_tools_of_its_parts_and_no_tool_twice() -> None:
    composed = compose_requests(_pool(), n=12, seed=3, split="val")
    assert len(composed) == 12
    for record, parts in composed:
        assert record.source == COMPOSED_SOURCE and record.split == "val"
        assert 2 <= len(parts) <= 3
        tools = [p for part in parts for p in part.positives]
        assert len(tools) == len(set(tools)), "a tool served two parts"
        assert record.positives == tuple(tools)
        for part in parts:  # each part's words are in the request
            assert part.query.rstrip(".").split()[-1].rstrip(".") in record.query


def test_parts_that_lean_on_an_earlier_turn_or_read_as_a_task_are_left_out() -> None:
    used = {
        part.query
        for _, parts in compose_requests(_pool(), n=50, seed=0, split="val")
        for part in parts
    }
    assert "I need a hotel room in Paris for two nights." in used
    assert "Yes, book that one for me." not in used  # a dialogue turn leaning on context
    assert "A hotel there would be nice." not in used
    assert not any(q.startswith("You are Ann") for q in used)  # tau-bench personas


def test_the_same_seed_composes_the_same_requests_and_each_record_is_used_once() -> None:
    first = compose_requests(_pool(), n=15, seed=7)
    again = compose_requests(_pool(), n=15, seed=7)
    assert [r.query for r, _ in first] == [r.query for r, _ in again]
    parts = [id(p) for _, used in first for p in used]
    assert len(parts) == len(set(parts))
    other = compose_requests(_pool(), n=15, seed=8)
    assert [r.query for r, _ in first] != [r.query for r, _ in other]


def test_parts_are_joined_as_people_write_them() -> None:
    text = join_parts(["Find flights to Denver.", "Book a table for four"], random.Random(1))
    assert text.startswith("Find flights to Denver")
    assert text.endswith(".")
    # the second clause keeps its words, lower-cased after a comma joiner
    assert "ook a table for four" in text
    assert "Denver.." not in text and ". ." not in text
    assert join_parts(["What is the weather?", "what time is it?"], random.Random(0)).endswith("?")
    # an acronym keeps its capitals
    assert "NASA" in join_parts(["Open the door", "NASA news today"], random.Random(2))
