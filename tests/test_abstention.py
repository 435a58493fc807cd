"""Abstention: the shipped model loads, the fit honours its false-abstention budget, and
the test split is never used to fit it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.abstention import ABSTENTION_FEATURES, AbstentionModel
from schemarouter.errors import ModelError
from schemarouter.index import HashingEncoder
from schemarouter.training.abstention import fit_abstention
from schemarouter.training.datasets.bundled import load_bundled_queries

from helpers import BUNDLED_CATALOG


def test_shipped_model_loads_and_documents_its_data() -> None:
    model = AbstentionModel.shipped()
    assert model is not None
    assert set(model.weights) <= set(ABSTENTION_FEATURES)
    assert 0.0 < model.threshold < 1.0
    assert "dev split" in model.card["training_data"]["positives"]
    assert model.card["dev"]["false_abstention"] <= model.card["max_false_abstention"]


def test_fit_respects_the_false_abstention_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import schemarouter.training.abstention as fitting

    splits: list[str | None] = []

    def recording(*args, **kwargs):
        splits.append(kwargs.get("split"))
        return load_bundled_queries(*args, **kwargs)

    monkeypatch.setattr(fitting, "load_bundled_queries", recording)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_catalog(BUNDLED_CATALOG)
    model = fit_abstention(router, max_false_abstention=0.05)
    assert splits == ["dev"]  # fitting never reads the test split
    assert model.card["dev"]["false_abstention"] <= 0.05
    dev_ids = {q.query for q in load_bundled_queries(split="dev")}
    test = load_bundled_queries(split="test")
    assert not dev_ids & {q.query for q in test}  # the split is by query


def test_unusable_model_files_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "abstention.json"
    bad.write_text(json.dumps({"weights": {"vibes": 1.0}, "bias": 0, "threshold": 0.5}))
    with pytest.raises(ModelError, match="unknown features"):
        AbstentionModel.load(bad)
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="cannot read"):
        AbstentionModel.load(bad)


def test_shipped_model_applies_only_to_its_catalog(tiny_catalog: Path) -> None:
    foreign = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    foreign.add_catalog(tiny_catalog)
    result = foreign.retrieve("book me a flight to Boston", k=3)
    assert not result.abstained  # not calibrated for this registry: off, and it says so
    assert any("no model calibrated for this registry" in w for w in result.warnings)
    bundled = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    bundled.add_catalog(BUNDLED_CATALOG)
    assert not any("abstention is off" in w for w in bundled.retrieve("band gap", k=3).warnings)
