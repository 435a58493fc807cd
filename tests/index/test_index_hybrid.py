"""HybridIndex: search modes, field roll-up, non-Latin queries, incremental updates, cache."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from schemarouter.contracts import Registration
from schemarouter.errors import StaleIndexError
from schemarouter.index import EmbeddingCache, HashingEncoder, HybridIndex, IndexSettings
from schemarouter.index.encoders.dense import VectorSet
from schemarouter.registry.registry import Registry

from index_helpers import base_routes, make_route, registry_with


@pytest.fixture
def registry() -> Registry:
    return registry_with(base_routes())


@pytest.fixture
def index(registry: Registry) -> HybridIndex:
    return HybridIndex.build(registry.snapshot(), encoder=HashingEncoder())


def top(index: HybridIndex, query: str, mode: str = "hybrid", k: int = 5) -> list[str]:
    return [h.route_id for h in index.search(query, k=k, mode=mode)]  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["hybrid", "lexical", "dense"])
def test_each_mode_finds_the_obvious_route(index: HybridIndex, mode: str) -> None:
    assert top(index, "weather forecast in Paris", mode)[0] == "weather/rest/forecast"
    assert top(index, "band gap of a material", mode)[0] == "matproj/rest/summary"
    assert top(index, "search movies by title", mode)[0] == "tmdb/rest/search_movie"


def test_hits_carry_both_scores_and_ranks(index: HybridIndex) -> None:
    hits = index.search("stock price of a ticker", k=3)
    assert 1 <= len(hits) <= 3
    best = hits[0]
    assert best.route_id == "stocks/rest/quote"
    assert best.lexical_rank == 1 and best.dense_rank == 1
    assert best.lexical_score > 0 and best.dense_score > 0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(index) == 6 and index.registry_version == 1


def test_field_hits_roll_up_to_matched_fields(index: HybridIndex) -> None:
    hit = index.search("dew point", k=1, mode="lexical")[0]
    assert hit.route_id == "weather/rest/forecast"
    assert hit.matched_fields == ("dew_point",)
    hit = index.search("relative humidity and air temperature", k=1)[0]
    assert hit.route_id == "weather/rest/forecast"
    assert {"humidity", "temperature"} <= set(hit.matched_fields)
    assert set(hit.matched_fields) <= {"temperature", "humidity", "dew_point"}


def test_korean_and_chinese_queries_find_their_routes(index: HybridIndex) -> None:
    # The catalog has the Korean word only as a provider alias.
    assert top(index, "오늘의 날씨", "lexical")[0] == "weather/rest/forecast"
    assert top(index, "오늘의 날씨")[0] == "weather/rest/forecast"
    assert index.search("오늘의 날씨", k=1)[0].lexical_rank == 1
    assert top(index, "서울 미세먼지 농도")[0] == "korea/rest/air_quality"
    assert top(index, "北京天气怎么样")[0] == "weather/rest/forecast"


def test_queries_without_known_words_match_nothing_lexically(index: HybridIndex) -> None:
    assert index.search("qwxz vbnm", mode="lexical") == []
    assert index.search("the of and", mode="lexical") == []
    assert index.search("", k=5) == [] and index.search("   ", k=5) == []
    assert index.search("weather", k=0) == []
    assert index.known_token_share("weather qwxz") == 0.5
    assert index.known_token_share("...") == 0.0
    with pytest.raises(ValueError, match="unknown search mode 'fuzzy'"):
        index.search("weather", mode="fuzzy")  # type: ignore[arg-type]


def test_incremental_add_replace_remove(registry: Registry, index: HybridIndex) -> None:
    registry.subscribe(index.apply)
    registry.register(
        Registration(
            source="new",
            routes=(
                make_route(
                    "astro",
                    "moons",
                    "List the moons of a planet",
                    {"orbital_period": "orbital period in days"},
                ),
            ),
        )
    )
    assert top(index, "moons of jupiter")[0] == "astro/rest/moons"
    assert index.registry_version == registry.version == 2
    registry.register(
        Registration(
            source="new",
            routes=(
                make_route(
                    "astro",
                    "moons",
                    "Natural satellites of a planet",
                    {"orbital_period": "orbital period in days"},
                ),
            ),
        ),
        replace=True,
    )
    assert top(index, "natural satellites")[0] == "astro/rest/moons"
    assert index.search("natural satellites", k=1)[0].lexical_rank == 1
    assert "astro/rest/moons" not in top(index, "list", "lexical")  # a word of the old text
    registry.remove(provider="weather")
    for query in ("weather forecast", "dew point", "날씨", "forecast", "humidity"):
        for mode in ("hybrid", "lexical", "dense"):
            assert "weather/rest/forecast" not in top(index, query, mode, k=50)
    assert "weather/rest/forecast" not in index
    assert index.registry_fingerprint == registry.snapshot().fingerprint


def test_apply_equals_a_fresh_build(registry: Registry, index: HybridIndex) -> None:
    registry.register(
        Registration(
            source="x",
            routes=(
                make_route(
                    "astro", "moons", "List the moons of a planet", {"radius": "mean radius"}
                ),
            ),
        )
    )
    registry.remove(provider="tmdb")
    index.apply(registry.snapshot())
    fresh = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder())
    for query in ("moons radius", "weather forecast", "stock price", "band gap"):
        for mode in ("lexical", "dense", "hybrid"):
            got = {
                h.route_id: (h.lexical_score, h.dense_score)
                for h in index.search(query, k=10, mode=mode)
            }  # type: ignore[arg-type]
            want = {
                h.route_id: (h.lexical_score, h.dense_score)
                for h in fresh.search(query, k=10, mode=mode)
            }  # type: ignore[arg-type]
            assert got.keys() == want.keys()
            for route, (lex, dense) in got.items():
                assert lex == pytest.approx(want[route][0], rel=1e-12)
                assert dense == pytest.approx(want[route][1], rel=1e-6)


def test_apply_without_changes_and_stale_check(registry: Registry, index: HybridIndex) -> None:
    stats = index.apply(registry.snapshot())
    assert stats.encoded == 0
    index.check_current(registry.snapshot())
    registry.remove(provider="tmdb")
    with pytest.raises(StaleIndexError, match=r"the snapshot has 1 route removed \(tmdb/"):
        index.check_current(registry.snapshot())


def test_cache_second_build_embeds_nothing_and_identical_texts_once(tmp_path: Path) -> None:
    shared = {"created_at": "creation time"}
    routes = [
        *base_routes(),
        make_route("a", "one", "first thing", shared),
        make_route("b", "two", "second thing", shared),
    ]
    snapshot = registry_with(routes).snapshot()
    encoder = HashingEncoder()
    first = HybridIndex.build(snapshot, encoder=encoder, cache=tmp_path / "cache")
    # 8 endpoint texts + 12 distinct field texts ("created_at" appears twice, embedded once).
    assert first.last_embed.encoded == encoder.texts_encoded == 8 + 12
    assert len(first._vectors[1]) == 12
    second = HybridIndex.build(snapshot, encoder=HashingEncoder(), cache=tmp_path / "cache")
    assert second.last_embed.encoded == 0 and second.last_embed.cached == 20
    assert top(first, "creation time", "dense", 2) == top(second, "creation time", "dense", 2)
    # An incremental update embeds only its new texts.
    registry = registry_with(routes)
    index = HybridIndex.build(
        registry.snapshot(), encoder=HashingEncoder(), cache=EmbeddingCache(tmp_path / "cache")
    )
    registry.register(
        Registration(source="c", routes=(make_route("c", "three", "third thing", shared),))
    )
    stats = index.apply(registry.snapshot(), cache=EmbeddingCache(tmp_path / "cache"))
    assert stats.encoded == 1  # the endpoint text; the shared field is stored already


def test_hnsw_path_masks_removed_vectors() -> None:
    settings = IndexSettings(hnsw_threshold=4)
    registry = registry_with(base_routes())
    index = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder(), settings=settings)
    assert index.describe()["endpoint_index"] == "hnsw"
    assert top(index, "weather forecast", "dense")[0] == "weather/rest/forecast"
    registry.remove(provider="weather")
    index.apply(registry.snapshot())
    assert all("weather" not in r for r in top(index, "weather forecast", "dense", 10))
    assert top(index, "stock price", "dense")[0] == "stocks/rest/quote"


def test_sq8_hnsw_finds_what_exact_search_finds() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(600, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sets = {c: VectorSet(32, hnsw_threshold=100, hnsw_codec=c) for c in ("flat", "sq8")}
    for vs in sets.values():
        vs.incref(vs.add([str(i) for i in range(600)], vectors))
    for q in vectors[:20]:
        truth = set(sets["flat"].exact_search(q, 10)[0].tolist())
        found = set(sets["sq8"].search(q, 10)[0].tolist())
        assert len(found & truth) >= 8
    assert sets["sq8"].kind == "hnsw" and len(sets["sq8"].faiss_bytes() or b"") < len(
        sets["flat"].faiss_bytes() or b""
    )
    with pytest.raises(ValueError, match="hnsw_codec"):
        VectorSet(4, hnsw_codec="pq")


def test_a_large_set_searches_with_twice_its_ef_search(monkeypatch: pytest.MonkeyPatch) -> None:
    import faiss

    from schemarouter.index.encoders import dense

    asked: list[int] = []
    real = faiss.SearchParametersHNSW

    def spy(**kwargs: object) -> object:
        asked.append(int(kwargs["efSearch"]))  # type: ignore[call-overload]
        return real(**kwargs)

    monkeypatch.setattr(faiss, "SearchParametersHNSW", spy)
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vs = VectorSet(16, hnsw_threshold=100, ef_search=40)
    vs.incref(vs.add([str(i) for i in range(300)], vectors))
    monkeypatch.setattr(dense, "EF_SEARCH_DOUBLES_AT", 301)
    vs.search(vectors[0], 5)
    monkeypatch.setattr(dense, "EF_SEARCH_DOUBLES_AT", 300)  # 300 live vectors: doubled
    vs.search(vectors[0], 5)
    assert asked == [40, 80]


def test_vector_set_compaction_remaps_rows() -> None:
    vs = VectorSet(4, hnsw_threshold=100)
    vectors = np.eye(4, dtype=np.float32)
    rows = vs.add(["a", "b", "c", "d"], vectors)
    vs.incref(rows)
    vs.incref(np.array([1, 2]), -1)
    assert sorted(vs.search(vectors[1], 4)[0].tolist()) == [0, 3]  # dead rows 1, 2 never found
    remap = vs.compact()
    assert remap is not None and remap.tolist() == [0, -1, -1, 1]
    assert vs.keys == ["a", "d"] and len(vs) == 2
    assert vs.search(vectors[3], 1)[0].tolist() == [1]


def test_settings_round_trip() -> None:
    settings = IndexSettings(lexical_field_weight=0.25, fusion="rrf")
    assert IndexSettings.from_dict(settings.as_dict()) == settings
    with pytest.raises(ValueError):
        IndexSettings.from_dict({"nonsense": 1})
    assert dataclasses.replace(settings, rrf_k=10.0).rrf_k == 10.0


def test_bare_field_names_get_no_vector_but_still_match_lexically() -> None:
    route = make_route("x", "ep", "an endpoint", {"status": "", "temperature": "air temperature"})
    routes = [route, *base_routes()]
    index = HybridIndex.build(registry_with(routes).snapshot(), encoder=HashingEncoder())
    # 11 described fields in base_routes; this "temperature" shares the weather one's vector.
    assert index.describe()["field_vectors"] == 11
    assert index.search("status", k=1, mode="lexical")[0].matched_fields == ("status",)


def test_dense_weight_drops_for_scripts_the_encoder_cannot_read(index: HybridIndex) -> None:
    class EnglishOnly(HashingEncoder):
        reads_cjk = False

    assert index._dense_weight("오늘의 날씨") == index.settings.dense_weight  # hashing reads it
    english = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=EnglishOnly())
    assert english._dense_weight("weather today") == english.settings.dense_weight
    assert english._dense_weight("오늘의 날씨") == 0.0
    assert 0 < english._dense_weight("실리콘 band gap") < english.settings.dense_weight
    assert english.search("오늘의 날씨", k=1)[0].route_id == "weather/rest/forecast"


def test_embedding_cache_merges_small_segments(tmp_path: Path) -> None:
    from schemarouter.index import cache as cache_module

    cache = EmbeddingCache(tmp_path)
    encoder = HashingEncoder(dim=8)
    for i in range(cache_module.MAX_SEGMENTS + 2):
        cache.put(encoder.identity, [f"text {i}"], encoder.encode([f"text {i}"]))
    assert len(list(tmp_path.glob("*/seg-*.npy"))) <= 2
    fresh = EmbeddingCache(tmp_path)
    vectors, found = fresh.get(encoder.identity, ["text 0", "text 5", "unknown"], 8)
    assert found.tolist() == [True, True, False]
    np.testing.assert_allclose(vectors[1], encoder.encode(["text 5"])[0])


def test_filters_act_inside_both_retrievers(tmp_path: Path) -> None:
    """A filter keeps only matching routes, and still fills k from deeper in the dense
    retriever (here 40 weather routes outrank the two allowed ones there)."""
    from schemarouter.index import RouteFilter

    routes = base_routes() + [
        make_route(f"wx{i}", "forecast", f"Weather forecast number {i}", {"temperature": "air"})
        for i in range(40)
    ]
    registry = registry_with(routes)
    settings = IndexSettings(candidate_depth=10, field_hit_depth=1)
    index = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder(), settings=settings)
    only = RouteFilter.of(providers=["stocks", "tmdb"])
    query = "weather forecast temperature, the price and a title"
    assert not {"stocks/rest/quote", "tmdb/rest/search_movie"} & set(top(index, query, "dense", 10))
    for mode in ("hybrid", "lexical", "dense"):
        kept = index.search(query, k=5, mode=mode, filters=only)  # type: ignore[arg-type]
        assert {h.route_id for h in kept} == {"stocks/rest/quote", "tmdb/rest/search_movie"}, mode
    assert index.search("weather", filters=RouteFilter.of(effects=["destructive"])) == []
    # a saved and loaded index filters the same way
    loaded = HybridIndex.load(index.save(tmp_path / "ix"), registry.snapshot())
    assert top(loaded, "price") == top(index, "price")
    assert [h.route_id for h in loaded.search("price title", filters=only)] == [
        h.route_id for h in index.search("price title", filters=only)
    ]


def test_router_opens_a_saved_index_given_as_path_or_string(tmp_path: Path) -> None:
    from schemarouter import SchemaRouter

    folder = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=HashingEncoder())
    saved = folder.save(tmp_path / "ix")
    for spec in (saved, str(saved)):
        router = SchemaRouter(
            registry=registry_with(base_routes()),
            encoder=HashingEncoder(),
            index=spec,
            abstention=None,
            reranker=None,
        )
        assert list(router.retrieve("weather forecast", k=1).route_ids) == ["weather/rest/forecast"]
        assert isinstance(router.index, HybridIndex)


def test_lexical_top_is_exact_where_only_documents_above_a_bound_are_rolled_up() -> None:
    """The lexical retriever rolls up only documents that can reach its top (a bound from a
    sample of endpoint scores); its routes, their order and the field hits equal a full
    roll-up of every document, ties and filters included, on a catalog large enough for
    the sample to be one row in many."""
    import random

    from schemarouter.index import RouteFilter
    from schemarouter.index.tokenize import tokenize

    rng = random.Random(7)
    words = [
        "weather",
        "price",
        "stock",
        "movie",
        "band",
        "gap",
        "city",
        "film",
        "rate",
        "air",
        "forecast",
        "quote",
    ]
    routes = [
        make_route(
            f"p{i % 40}",
            f"e{i}",
            " ".join(rng.choices(words, k=rng.randint(1, 4))),
            {f"f{j}": " ".join(rng.choices(words, k=2)) for j in range(rng.randint(0, 3))},
        )
        for i in range(3000)
    ]
    settings = IndexSettings(candidate_depth=20, field_hit_depth=5)
    snapshot = registry_with(routes).snapshot()
    index = HybridIndex.build(snapshot, encoder=HashingEncoder(), settings=settings)
    index.search("warm up", k=1)
    queries = ["weather forecast", "price", "band gap of the film city rate", "quote air"]
    for query, filters in [(q, None) for q in queries] + [
        ("price stock", RouteFilter.of(providers=["p3", "p7", "p11"]))
    ]:
        allowed = index._allowed(filters)
        raw = index._lexical.scores(tokenize(query, settings.tokenizer))
        weighted = raw * index._doc_weight
        best: dict[int, float] = {}
        for doc, route in enumerate(index._doc_route.tolist()):
            if raw[doc] != 0 and (allowed is None or allowed[route]):
                best[route] = max(best.get(route, -np.inf), weighted[doc])
        expected = sorted((r for r in best if best[r] > 0), key=lambda r: (-best[r], r))[:20]
        field_docs = [d for d in np.flatnonzero(index._field_doc) if raw[d] > 0]
        expected_fields = sorted(field_docs, key=lambda d: (-raw[d], d))[:5]
        fields: dict[int, int] = {}
        found, _ = index._lexical_routes(query, 20, fields, allowed)
        assert found.tolist() == expected, query
        assert sorted(fields, key=fields.__getitem__) == expected_fields, query
        assert len(set(best.values())) < len(best)  # ties are part of the check
        lexical = index._lexical_of(weighted, np.asarray(sorted(best), dtype=np.int64))
        assert lexical.tolist() == [best[r] for r in sorted(best)]
