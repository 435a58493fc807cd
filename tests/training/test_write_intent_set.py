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


def _gold_operations(spec: dict) -> set[tuple[str, str]]:
    """(home, operation) of every gold route, alternatives on other homes included."""
    found = set()
    for q in spec["queries"]:
        home = q.get("document") or q["server"]
        found.add((home, q.get("tool") or f"{q['method']} {q['path']}"))
        for other in q.get("also", ()):
            there, _, operation = other.rpartition("::")
            found.add((there or home, operation))
    return found


def _homes(spec: dict) -> set[str]:
    """Every document and server a set registers or asks about."""
    catalog = spec.get("catalog", {})
    asked = {home for home, _ in _gold_operations(spec)}
    return asked | set(catalog.get("documents", ())) | set(catalog.get("servers", ()))


@pytest.mark.parametrize(("which", "writes"), [("user1", 20), ("user2", 20), ("user3", 19)])
def test_the_user_checks_are_well_formed_reads_and_writes(which: str, writes: int) -> None:
    spec = json.loads(write_intent_path(which).read_text(encoding="utf-8"))
    queries = spec["queries"]
    assert len({q["id"] for q in queries}) == len({q["text"] for q in queries}) == 40
    assert Counter(q["intent"] for q in queries) == {"write": writes, "read": 40 - writes}
    assert Counter(q["lang"] for q in queries)["ko"] == 6
    # the documents and servers it shares with the write-intent sets are the ones it declares
    # (user3: four of the dev set's documents and one server), and none with the other checks
    dev, heldout = _spec(), json.loads(write_intent_path("heldout").read_text())
    declared = set(spec["shares"]["documents"]) | set(spec["shares"]["servers"])
    assert _homes(spec) & (_homes(dev) | _homes(heldout)) == declared
    for other in {"user1", "user2", "user3"} - {which}:
        assert not _homes(spec) & _homes(json.loads(write_intent_path(other).read_text()))


@pytest.mark.shared_data
@pytest.mark.parametrize("which, routes", [("user1", 341), ("user2", 681), ("user3", 662)])
def test_a_user_check_registers_its_whole_catalog_and_every_gold(
    shared_data: Path, which: str, routes: int
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=None)
    bench = load_write_intent(router, shared_data, queries=write_intent_path(which))
    assert len(router.snapshot().routes) == routes  # the catalog's distractors too
    assert len(bench.queries) == 40  # check_gold: every gold route is registered
    assert sum(len(q.gold) > 1 for q in bench.queries) >= 3  # alternatives, across servers too


def test_the_second_development_set_asks_about_nothing_another_set_asks_about() -> None:
    spec = json.loads(write_intent_path("dev2").read_text(encoding="utf-8"))
    queries = spec["queries"]
    assert len({q["id"] for q in queries}) == len({q["text"] for q in queries}) == 70
    assert Counter(q["intent"] for q in queries) == {"write": 48, "read": 22}
    assert Counter(q["lang"] for q in queries)["ko"] == 10
    others = [
        json.loads(write_intent_path(which).read_text(encoding="utf-8"))
        for which in ("dev", "heldout", "user1", "user2", "user3")
    ]
    # its documents are registered by no other set; its MCP servers are shared with the dev
    # set (no spare server has write tools), but no request's own tool is another set's gold
    # (one alternative is: kill_process beside force_terminate)
    documents = {q["document"] for q in queries if q["kind"] == "openapi"}
    assert len(documents) == 8 and not documents & set().union(*map(_homes, others))
    own = {(q["server"], q["tool"]) for q in queries if q["kind"] == "mcp"}
    assert len(own) == 18 and not own & set().union(*map(_gold_operations, others))


@pytest.mark.shared_data
def test_the_second_development_set_registers_its_gold_and_siblings(shared_data: Path) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=None)
    bench = load_write_intent(router, shared_data, queries=write_intent_path("dev2"))
    assert len(bench.queries) == 70  # check_gold: every gold route is registered
    assert len(router.snapshot().routes) == 258  # eight documents and four servers, whole
    routes = router.snapshot().routes
    pairs = list(sibling_pairs(bench))
    assert len({q.id for q, _, _ in pairs}) == 69
    for q, gold, sibling in pairs:
        assert gold in routes and sibling in routes and gold != sibling, q.id
