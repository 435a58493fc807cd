"""The LLM analyzer: parsed defensively, gated, and replaced by rules when it fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemarouter.contracts import SourceType
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot
from schemarouter.retrieval.analysis import gate_analysis
from schemarouter.retrieval.llm_analyzer import OpenAICompatibleAnalyzer
from tests.servers.loopback import LoopbackServer, Request, Response, json_response


@pytest.fixture
def snapshot(tiny_catalog: Path) -> RegistrySnapshot:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    return registry.snapshot()


def _analyzer(
    answer: Any, seen: list[dict[str, Any]] | None = None, status: int = 200
) -> OpenAICompatibleAnalyzer:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(json.loads(request.content))
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return httpx.Response(status, json={"choices": [{"message": {"content": content}}]})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return OpenAICompatibleAnalyzer(
        base_url="http://llm.test/v1", model="m", client=client, api_key_env=None
    )


def test_answer_is_parsed_and_gated(snapshot: RegistrySnapshot) -> None:
    seen: list[dict[str, Any]] = []
    analyzer = _analyzer(
        {
            "named_providers": ["matproj", "skynet"],
            "source_constraints": ["calculated", "vibes"],
            "values": [
                {"kind": "chemical.formula", "value": "GaN"},
                {"kind": "chemical.formula", "value": "Unobtainium"},
            ],
        },
        seen,
    )
    query = "DFT band gap of GaN from Materials Project"
    analysis = analyzer.analyze(query, snapshot)
    gated = gate_analysis(analysis, snapshot)
    assert gated.named_providers == ("matproj",)
    assert gated.source_constraints == (SourceType.CALCULATED,)
    assert [v.value for v in gated.values] == ["GaN"]
    assert set(gated.rejected) >= {"source:vibes", "provider:skynet"}
    assert any(r.startswith("value:") for r in gated.rejected)
    # the routing prompt names providers, never the catalog's schemas
    prompt = seen[0]["messages"][0]["content"]
    assert "matproj" in prompt and "band_gap" not in prompt


@pytest.mark.parametrize("answer", ["not json", "[1, 2]", '{"named_providers": "cod"}'])
def test_garbage_answers_fall_back_or_are_rejected(snapshot: RegistrySnapshot, answer: str) -> None:
    analysis = _analyzer(answer).analyze("band gap of GaN", snapshot)
    assert analysis.named_providers == ()
    assert analysis.analyzer in {"rules (llm failed)", "llm"}


def test_http_errors_fall_back_to_rules(snapshot: RegistrySnapshot) -> None:
    analysis = _analyzer({}, status=500).analyze("measured cellvol of NaCl", snapshot)
    assert analysis.analyzer == "rules (llm failed)"
    assert analysis.source_constraints == (SourceType.EXPERIMENTAL,)
    assert [v.value for v in analysis.values] == ["NaCl"]


@pytest.mark.parametrize("where", ["content", "body"])
def test_an_answer_nested_past_the_parser_falls_back_to_rules(
    snapshot: RegistrySnapshot, where: str
) -> None:
    """Trial trialv2: a model (or a proxy in front of it) answering with JSON nested 100,000
    deep made json.loads raise RecursionError, which escaped analyze() and so retrieve()."""
    deep = "[" * 100_000 + "]" * 100_000

    def app(request: Request) -> Response:
        if where == "body":
            return Response(200, deep.encode(), {"Content-Type": "application/json"})
        return json_response({"choices": [{"message": {"content": deep}}]})

    with LoopbackServer(app) as running:
        analyzer = OpenAICompatibleAnalyzer(
            base_url=f"{running.base_url}/v1", model="m", api_key_env=None
        )
        analysis = analyzer.analyze("measured cellvol of NaCl", snapshot)
        assert len(running.requests) == 1
    assert analysis.analyzer == "rules (llm failed)"
    assert analysis.named_providers == ()
    assert [v.value for v in analysis.values] == ["NaCl"]


def test_a_provider_the_request_does_not_name_is_not_kept(snapshot: RegistrySnapshot) -> None:
    """Trial V2 (medium): the LLM analyzer kept any registered provider the model named,
    though the request named none: a careless or steered model lifted that provider's routes
    to the top (a write among them). Only providers the request's words name are kept."""
    analyzer = _analyzer({"named_providers": ["cod", "matproj"]})
    analysis = gate_analysis(analyzer.analyze("band gap of GaN from MP", snapshot), snapshot)
    assert analysis.named_providers == ("matproj",)  # "MP" is its alias
    assert "provider:cod (not named in the request)" in analysis.rejected
    none = gate_analysis(analyzer.analyze("band gap of GaN", snapshot), snapshot)
    assert none.named_providers == ()


@pytest.mark.parametrize(
    ("query", "value", "bound"),
    [
        ("remove paper 10.1000/xyz1234 from the library", "10.1000/xyz123", []),
        ("remove paper 10.1000/xyz123/v2 from the library", "10.1000/xyz123", []),
        ("band gap of GaNAs", "GaN", []),
        ("remove paper 10.1000/xyz123 from the library", "10.1000/xyz123", ["10.1000/xyz123"]),
        ("논문 10.1000/xyz123을 삭제", "10.1000/xyz123", ["10.1000/xyz123"]),
        ("band gap of GaN.", "GaN", ["GaN"]),
    ],
)
def test_a_value_the_request_writes_only_inside_a_longer_one_is_invented(
    snapshot: RegistrySnapshot, query: str, value: str, bound: list[str]
) -> None:
    """Trial X1 (high): a model that answered "10.1000/xyz123" for a request naming
    "10.1000/xyz1234" had it bound (it is "in" the request), and the plan removed another
    paper than the one asked for; a value must be written whole."""
    kind = "chemical.formula" if value == "GaN" else "identifier.doi"
    analysis = _analyzer({"values": [{"kind": kind, "value": value}]}).analyze(query, snapshot)
    assert [v.value for v in analysis.values] == bound
    assert [v.start for v in analysis.values] == [query.index(b) for b in bound]
    if not bound:
        assert any(r.startswith("value:") for r in analysis.rejected)
