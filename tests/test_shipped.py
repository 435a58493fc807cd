"""Shipped models load once per process and are shared; a missing one is ``None``."""

from __future__ import annotations

import threading
import time

import pytest

from schemarouter import shipped
from schemarouter.index import OnnxEncoder
from schemarouter.retrieval.learned import RankingModel
from schemarouter.retrieval.rerank import Reranker


def test_load_once_loads_once_for_every_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "_LOADED", {})
    calls: list[int] = []

    def load() -> object:
        calls.append(1)
        time.sleep(0.05)  # the others arrive while the first loads
        return object()

    seen: list[object] = []
    threads = [
        threading.Thread(target=lambda: seen.append(shipped.load_once("k", load))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(seen) == 8 and all(s is seen[0] for s in seen)
    assert shipped.load_once("other", lambda: None) is None  # "no model" is remembered too
    assert "other" in shipped._LOADED


def test_a_folder_without_every_file_is_no_model() -> None:
    assert shipped.shipped_folder("no-such-model", ["card.json"]) is None
    assert shipped.shipped_folder("", ["__init__.py"]) is not None


@pytest.mark.parametrize("kind", [Reranker, RankingModel, OnnxEncoder])
def test_every_router_shares_the_shipped_model(kind: type) -> None:
    assert kind.shipped() is kind.shipped()  # type: ignore[attr-defined]


def test_router_model_is_the_given_one_or_the_shipped_one_unless_its_card_says_off() -> None:
    class Kind:
        why = ""

        @classmethod
        def shipped(cls) -> object:
            model = cls()
            model.off_by_default = cls.why  # type: ignore[attr-defined]
            return model

    assert shipped.router_model("x", Kind, str.upper, given=True) == ("X", "")
    model, why = shipped.router_model("ignored", Kind, str.upper, given=False)
    assert isinstance(model, Kind) and why == ""
    Kind.why = "the card says so"
    assert shipped.router_model(None, Kind, str.upper, given=False) == (None, "the card says so")
