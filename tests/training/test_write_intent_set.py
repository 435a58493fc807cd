"""The write-intent development set: its file, and its gold routes on the shared documents."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.training.datasets.write_intent import (
    load_write_intent,
    sibling_pairs,
    write_intent_path,
)


def _spec() -> dict:
    return json.loads(write_intent_path().read_text(encoding="utf-8"))


def test_the_set_is_well_formed_and_mostly_write_requests() -> None:
    queries = _spec()["queries"]
    assert len({q["id"] for q in queries}) == len(queries)
    assert len({q["text"] for q in queries}) == len(queries)
    intents = Counter(q["intent"] for q in queries)
    assert set(intents) == {"write", "read"} and intents["write"] >= 100
    assert Counter(q["lang"] for q in queries)["ko"] >= 20
    for q in queries:
        if q["kind"] == "openapi":
            assert q["method"] in {"GET", "POST", "PUT", "PATCH", "DELETE"} and q["path"]
        else:
            assert q["kind"] == "mcp" and q["server"] and q["tool"]


@pytest.mark.slow
@pytest.mark.shared_data
def test_every_gold_operation_registers_from_the_shared_documents(shared_data: Path) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=None)
    bench = load_write_intent(router, shared_data)  # check_gold: every gold route is registered
    assert len(bench.queries) == len(_spec()["queries"])
    splits = Counter(q.split for q in bench.queries)
    assert splits["dev"] and splits["test"]
    routes = router.snapshot().routes
    for q, gold, sibling in sibling_pairs(bench):
        assert gold in routes and sibling in routes and gold != sibling, q.id


@pytest.mark.shared_data
def test_the_held_out_set_uses_other_documents_and_registers_its_gold(shared_data: Path) -> None:
    heldout = json.loads(write_intent_path("heldout").read_text(encoding="utf-8"))["queries"]
    dev_documents = {q["document"] for q in _spec()["queries"] if q["kind"] == "openapi"}
    assert not {q["document"] for q in heldout} & dev_documents  # nothing chosen on these APIs
    assert len({q["text"] for q in heldout}) == len(heldout) >= 30
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=None)
    bench = load_write_intent(router, shared_data, queries=write_intent_path("heldout"))
    assert len(bench.queries) == len(heldout)  # check_gold: every gold route is registered
    with pytest.raises(ValueError, match="unknown write-intent set"):
        write_intent_path("test")
