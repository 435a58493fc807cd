"""The labelled query set of the bundled catalog (data/queries/materials.json).

It must load from the package, be large and varied enough for the paper's nine categories,
carry a fixed split stratified by category, and name only routes and fields that the
bundled catalog registers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.training.datasets.bundled import (
    CATEGORIES,
    LabelledQuery,
    bundled_queries_path,
    load_bundled_queries,
    validate_queries,
)

from helpers import BUNDLED_CATALOG, REPO

QUERY_FILE = REPO / "data" / "queries" / "materials.json"
BIG_CATEGORIES = {"single_property", "chemical_lookup", "provenance_sensitive", "literature"}


@pytest.fixture(scope="module")
def queries() -> list[LabelledQuery]:
    return load_bundled_queries()


def test_loads_the_packaged_file(queries: list[LabelledQuery]) -> None:
    assert Path(str(bundled_queries_path())).resolve() == QUERY_FILE.resolve()
    assert queries == load_bundled_queries(QUERY_FILE)
    doc = json.loads(QUERY_FILE.read_text(encoding="utf-8"))
    assert doc["format"] == 1
    assert set(doc["categories"]) == set(CATEGORIES)
    assert (REPO / doc["catalog"]).resolve() == BUNDLED_CATALOG.resolve()


def test_queries_folder_holds_only_data() -> None:
    assert {p.suffix for p in QUERY_FILE.parent.iterdir()} <= {".json"}


def test_size_categories_and_languages(queries: list[LabelledQuery]) -> None:
    assert len(queries) >= 160
    per_category = Counter(q.category for q in queries)
    assert set(per_category) == set(CATEGORIES)
    for category, count in per_category.items():
        assert count >= (10 if category in BIG_CATEGORIES else 8), category
    assert sum(q.lang == "ko" for q in queries) >= 25
    assert {q.lang for q in queries} == {"en", "ko"}


def test_ids_and_texts_are_unique(queries: list[LabelledQuery]) -> None:
    ids = [q.id for q in queries]
    assert len(ids) == len(set(ids))
    texts = [q.query.strip().lower() for q in queries]
    assert len(texts) == len(set(texts))


def test_split_is_stratified(queries: list[LabelledQuery]) -> None:
    for category in CATEGORIES:
        splits = [q.split for q in queries if q.category == category]
        assert set(splits) == {"dev", "test"}, category
        share = splits.count("dev") / len(splits)
        assert 0.25 <= share <= 0.55, (category, share)
    dev = load_bundled_queries(split="dev")
    test = load_bundled_queries(split="test")
    assert len(dev) + len(test) == len(queries)
    assert {q.split for q in dev} == {"dev"} and {q.split for q in test} == {"test"}


def test_gold_shape(queries: list[LabelledQuery]) -> None:
    for q in queries:
        assert tuple(q.gold_fields) == q.gold_routes, q.id
        if q.category == "negative":
            assert q.gold_routes == () and q.is_negative, q.id
        else:
            assert q.gold_routes and all(q.gold_fields.values()), q.id
        if q.category == "cross_source":
            assert q.needs_all_routes and len(q.gold_routes) >= 2, q.id


def test_every_gold_route_and_field_is_registered(queries: list[LabelledQuery]) -> None:
    snapshot = SchemaRouter.from_catalog(BUNDLED_CATALOG).snapshot()
    validate_queries(queries, snapshot)


def test_source_constraints_match_gold_provenance(queries: list[LabelledQuery]) -> None:
    snapshot = SchemaRouter.from_catalog(BUNDLED_CATALOG).snapshot()
    constrained = [q for q in queries if q.source_constraint]
    assert sum(q.category == "provenance_sensitive" for q in constrained) >= 10
    for q in constrained:
        for route_id, names in q.gold_fields.items():
            route = snapshot.routes[route_id]
            for name in names:
                source = route.field_source_type(route.endpoint.field(name))
                assert str(getattr(source, "value", source)) == q.source_constraint, (
                    q.id,
                    route_id,
                    name,
                )


def test_validate_queries_names_the_bad_query(queries: list[LabelledQuery]) -> None:
    snapshot = SchemaRouter.from_catalog(BUNDLED_CATALOG).snapshot()
    good = next(q for q in queries if q.gold_routes)
    route = good.gold_routes[0]
    bad_field = LabelledQuery(
        id="qbad1",
        split="dev",
        category=good.category,
        lang="en",
        query="x",
        gold_routes=(route,),
        gold_fields={route: ("no_such_field",)},
    )
    bad_route = LabelledQuery(
        id="qbad2",
        split="dev",
        category=good.category,
        lang="en",
        query="x",
        gold_routes=("nowhere/none/none",),
        gold_fields={"nowhere/none/none": ("x",)},
    )
    with pytest.raises(ValueError, match="qbad1"):
        validate_queries([good, bad_field], snapshot)
    with pytest.raises(ValueError, match="qbad2"):
        validate_queries([bad_route], snapshot)


def test_malformed_files_are_refused(tmp_path: Path) -> None:
    doc = json.loads(QUERY_FILE.read_text(encoding="utf-8"))
    first = doc["queries"][0]
    cases = {
        "dup": {**doc, "queries": [first, first]},
        "split": {**doc, "queries": [{**first, "split": "train"}]},
        "neg": {**doc, "queries": [{**first, "category": "negative"}]},
        "format": {**doc, "format": 99},
    }
    for name, bad in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(ValueError):
            load_bundled_queries(path)
    with pytest.raises(ValueError):
        load_bundled_queries(split="train")
