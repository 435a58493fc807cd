"""Multi-intent coverage: splitting a request into parts, and each part's best route lifted
into the top k."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.intents import cover, part_bests_by_part, part_report, split_intents


def test_one_part_requests_are_left_whole() -> None:
    for query in (
        "band gap of GaN",
        "Young's modulus and band gap of GaN",  # one route serves both: one part
        "search for red and blue shoes",
        "e.g. the price of 3.5 kg of rice",
    ):
        assert split_intents(query) == [query]


def test_sentences_and_connectors_split() -> None:
    assert split_intents(
        "Find the cast of the movie Dune. Then list the other films of its director."
    ) == ["Find the cast of the movie Dune.", "Then list the other films of its director."]
    assert split_intents("translate this letter into German and then email it to my boss") == [
        "translate this letter into German",
        "email it to my boss",
    ]
    # a question ending in a formula's digit ends there too (trial O: the second was lost)
    assert split_intents("What is the band gap of SiO2? What is its Vickers hardness?") == [
        "What is the band gap of SiO2?",
        "What is its Vickers hardness?",
    ]
    # a stop after an id that ends in a digit ends a sentence before a capital; after a
    # number alone, or before a lower-case word, it does not
    assert split_intents("Delete customer C-1. If order O-1 is open, refund it.") == [
        "Delete customer C-1.",
        "If order O-1 is open, refund it.",
    ]
    assert split_intents("Delete customer C-1. Refund order O-1 first.") == [
        "Delete customer C-1.",
        "Refund order O-1 first.",
    ]
    assert split_intents("Open the chapter on step 2. Show the remaining ones") == [
        "Open the chapter on step 2. Show the remaining ones"
    ]
    # a condition's word in lower case after an id's stop starts a sentence, as planning's
    # conditions read it (review 17); another lower-case word does not
    assert split_intents("Delete customer C-1. if order O-1 is open, refund it.") == [
        "Delete customer C-1.",
        "if order O-1 is open, refund it.",
    ]
    assert split_intents("Delete customer C-1. please refund order O-1 too.") == [
        "Delete customer C-1. please refund order O-1 too."
    ]
    # ... though "and" between two changes, each with its verb and id, splits them
    assert split_intents("Delete customer C-1. and refund order O-1 too.") == [
        "Delete customer C-1.",
        "refund order O-1 too.",
    ]
    parts = split_intents(
        "I need the weather in Paris tomorrow, and I also want a table for two at a bistro"
    )
    assert parts == [
        "I need the weather in Paris tomorrow",
        "I also want a table for two at a bistro",
    ]


@pytest.mark.parametrize(
    "text",
    [
        # what a message says is not split into parts, wherever planning reads it to start:
        # "telling him" opened a message for planning (message_text) but not for retrieval
        "Text Bob telling him the nightly build of the app and the deploy of the api are done",
        "Notify customer CU-3 that card CD-1 is blocked and account AC-1 will be closed soon",
        "Email ops with the message the nightly build of the app and the deploy are done",
    ],
)
def test_what_a_message_says_is_one_part(text: str) -> None:
    assert split_intents(text) == [text]


def test_short_fragments_join_their_neighbour_and_parts_are_capped() -> None:
    assert split_intents("Hi. Convert 100 USD to EUR please.") == [
        "Hi. Convert 100 USD to EUR please."
    ]
    many = ". ".join(f"do task number {i} now" for i in range(8)) + "."
    parts = split_intents(many, max_parts=4)
    assert len(parts) == 4 and "task number 7" in parts[-1]


def test_cover_lifts_each_part_best_after_the_protected_head() -> None:
    order = ["a", "b", "c", "d", "e", "f", "g"]
    scores = [
        [0.9, 0.8, 0.1, 0.1, 0.1, 0.1, 0.1],  # part 1: a (already first)
        [0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.7],  # part 2: g, far down
    ]
    assert cover(order, scores, k=3) == ["a", "g", "b", "c", "d", "e", "f"]
    # nothing to lift: the order stands
    assert cover(order, [scores[0]], k=3) == order
    # a full head: nothing moves
    assert cover(order, scores, k=1) == order
    # a part whose best match is weak (cosine under the floor) lifts nothing
    cosine = [[0.9] * 7, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3]]
    assert cover(order, scores, k=3, similarity=cosine, min_similarity=0.45) == order
    cosine[1][6] = 0.6
    assert cover(order, scores, k=3, similarity=cosine, min_similarity=0.45)[1] == "g"


CATALOG = """\
schemarouter_catalog: 1
providers:
  - id: films
    display_name: Film database
    access:
      - id: api
        kind: http
        base_url: https://films.example.org
        endpoints:
""" + "".join(
    f"""          - id: {name}
            name: {name}
            operation: {{method: GET, path: /{name}}}
            description: "{text}"
            output_fields:
              - {{name: result, path: result, json_schema: {{type: string}}}}
"""
    for name, text in [
        ("movie_cast", "The cast of a movie: actors and roles in the movie"),
        ("movie_crew", "The crew of a movie: director, writers and producers of the movie"),
        ("movie_details", "Details of a movie: title, release date and runtime of the movie"),
        ("movie_reviews", "Reviews of a movie by critics: the movie's reviews"),
        ("movie_images", "Posters and images of a movie: the movie's stills"),
        ("movie_videos", "Trailers and videos of a movie: clips of the movie"),
        ("person_filmography", "Filmography of a person: every credit"),
    ]
)


def test_router_covers_both_parts_of_a_two_part_request(tmp_path) -> None:
    path = tmp_path / "films.yaml"
    path.write_text(CATALOG, encoding="utf-8")

    def top(multi: bool) -> list[str]:
        router = SchemaRouter(
            encoder=HashingEncoder(),
            embedding_cache=None,
            abstention=None,
            reranker=None,
            multi_intent=multi,
        )
        router.add_catalog(path)
        router.intent_min_similarity = 0.0  # the hashing encoder's cosines are not calibrated
        return [r.rsplit("/", 1)[-1] for r in router.retrieve(query, k=3).route_ids]

    query = (
        "Show the cast, the crew, the reviews, the images and the trailers of the movie Dune "
        "and its details. Then the filmography of its director."
    )
    without, with_cover = top(False), top(True)
    assert "person_filmography" not in without  # the long first part fills the top 3
    assert "person_filmography" in with_cover
    assert with_cover[0] == without[0]  # the whole request's best stays first


def test_the_part_report_says_why_a_part_gets_no_route() -> None:
    """Each part's best route, and why it gives none: under the cosine floor ("weak"), or
    the best of an earlier part already ("shared"); the rest as :func:`part_bests_by_part`."""
    order = ["a", "b", "c"]
    scores = [[0.9, 0.1, 0.2], [0.8, 0.3, 0.1], [0.1, 0.2, 0.7], [0.1, 0.9, 0.2]]
    cosine = [[0.6, 0.1, 0.1], [0.6, 0.1, 0.1], [0.1, 0.1, 0.3], [0.1, 0.5, 0.1]]
    report = part_report(order, scores, cosine, min_similarity=0.45)
    assert report == [(0, "a", ""), (1, "a", "shared"), (2, "c", "weak"), (3, "b", "")]
    kept = part_bests_by_part(order, scores, cosine, min_similarity=0.45)
    assert kept == [(p, r) for p, r, why in report if not why]


def test_long_runs_of_spaces_or_codes_cost_no_time() -> None:
    """Trial X3: the clause connectors (``,?\\s+ ... then``) tried every space of a run and read
    it to its end from each, and the arXiv pattern read "ORD-ORD-..." to its end from every
    boundary inside it: "refund 1" and 100,000 spaces, or 25,000 "ORD-", took over 20 s in
    ``retrieve`` and ``plan``. Each now starts where a match can only start (a comma, a run's
    first space; no letter or hyphen before an archive name): linear, the same splits."""
    import time

    from schemarouter.retrieval.analysis import find_values

    assert split_intents(
        "band gap of GaN ,  then the density of Si, and also the bulk modulus of Fe"
    ) == ["band gap of GaN", "the density of Si", "the bulk modulus of Fe"]
    spaces = "refund order 1" + " " * 100_000 + "x and then the weather in Paris"
    codes = "order " + "ORD-" * 25_000 + " see hep-th/9901001"
    started = time.process_time()  # CPU: other jobs' load is not ours
    parts = split_intents(spaces)
    values = find_values(codes)
    assert time.process_time() - started < 5.0
    assert parts[-1] == "the weather in Paris" and len(parts) == 2
    assert [v.value for v in values if v.kind == "identifier.arxiv_id"] == ["hep-th/9901001"]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "GaN의 밴드갭을 알려주고 GaN LED에 관한 최근 arXiv 논문도 찾아줘",
            ["GaN의 밴드갭을 알려주고", "GaN LED에 관한 최근 arXiv 논문도 찾아줘"],
        ),
        (
            "TiO2 형성 에너지를 찾고, 그 다음에 관련 arXiv 프리프린트를 찾아줘",
            ["TiO2 형성 에너지를 찾고", "관련 arXiv 프리프린트를 찾아줘"],
        ),
        (
            "새 이슈를 만들고 그런 다음 팀원에게 슬랙 메시지를 보내줘",
            ["새 이슈를 만들고", "팀원에게 슬랙 메시지를 보내줘"],
        ),
        # -고 싶다 ("want to") and -고 있다 ("is doing") end no clause
        ("GaN의 밴드갭 값을 알고 싶어요", ["GaN의 밴드갭 값을 알고 싶어요"]),
        (
            "관련 논문을 지금 찾고 있는데 결과를 보여줘",
            ["관련 논문을 지금 찾고 있는데 결과를 보여줘"],
        ),
        # nouns that end in 고 (stock, report) end no clause
        (
            "창고 A의 현재 재고 수량과 보고 일자를 알려줘",
            ["창고 A의 현재 재고 수량과 보고 일자를 알려줘"],
        ),
        # a freezer or fridge before the clause (trial X3: the cut after 냉동고 made a piece
        # of one word, and the request was read whole, its second part never planned)
        (
            "냉동고 F-1의 온도를 알려주고 샘플 S-12도 보여줘",
            ["냉동고 F-1의 온도를 알려주고", "샘플 S-12도 보여줘"],
        ),
        (
            "냉장고 안의 시약 목록을 보여주고 샘플 S-13도 옮겨줘",
            ["냉장고 안의 시약 목록을 보여주고", "샘플 S-13도 옮겨줘"],
        ),
        # a negated clause (-지 말고 / -지 않고: "do not ...") is no part to serve
        (
            "이 저장소의 이슈를 삭제하지 말고 보관 처리만 해줘",
            ["이 저장소의 이슈를 삭제하지 말고 보관 처리만 해줘"],
        ),
        (
            "보고서를 저장하지 않고 미리보기 화면만 보여줘",
            ["보고서를 저장하지 않고 미리보기 화면만 보여줘"],
        ),
        (
            "GaN 말고 AlN의 밴드갭 값을 알려줘",
            ["GaN 말고 AlN의 밴드갭 값을 알려줘"],
        ),
        # too few words on a side: one part, as in English
        ("재고 확인하고 주문 취소해줘", ["재고 확인하고 주문 취소해줘"]),
        ("AlN 밴드갭하고 형성 에너지 알려줘", ["AlN 밴드갭하고 형성 에너지 알려줘"]),
    ],
)
def test_korean_clauses_joined_by_go_split(text: str, parts: list[str]) -> None:
    """Before, a Korean request of two clauses joined by -고 (the way Korean writes "... and
    ...") was one part: on the bundled catalog "GaN의 밴드갭을 알려주고 ... arXiv 논문도
    찾아줘" read arXiv as the source of the whole request, every band gap route was filtered
    out and the plan was empty, where the English request splits."""
    assert split_intents(text) == parts


def test_a_long_run_of_hangul_is_read_once() -> None:
    import time

    started = time.process_time()  # CPU: other jobs' load is not ours
    parts = split_intents("가" * 200_000 + " 알려주고 " + "나" * 100_000 + " 관련 논문도 찾아줘")
    assert time.process_time() - started < 2.0
    assert len(parts) == 1  # two words before the cut: one part


def test_a_bridged_parts_cosines_read_on_the_encoders_scale() -> None:
    """A part the cross-lingual bridge reads (Korean) comes out shrunk by the bridge's
    agreement, as a whole request does; the whole request's cosines were put back on the
    encoder's scale (``similarity_scale``) but a part's were not, so "... arXiv 논문도
    찾아줘" fell under the part floor and was not planned where its English twin was."""
    import numpy as np

    from schemarouter.retrieval.intents import part_scores

    class Encoder:
        def similarity_scale(self, text: str) -> float:
            return 1.0 if text.isascii() else 1.5

    class Index:
        encoder = Encoder()

        def rescore_parts(self, text: str, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
            return np.array([0.2, 0.1]), np.array([0.4, 0.8])

    fused, cosines = part_scores(Index(), ["band gap of GaN", "관련 논문도 찾아줘"], ["a", "b"])
    assert [list(f) for f in fused] == [[0.2, 0.1], [0.2, 0.1]]
    assert [list(c) for c in cosines] == [[0.4, 0.8], [pytest.approx(0.6), 1.0]]
