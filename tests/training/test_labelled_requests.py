"""A user's own catalog and labelled requests as training input (``--requests FILE`` with the
catalog options): the file's checks, the held-out split, each trainer's rows built from it
over a real OpenAPI document, and the reranker's int8 agreement never reported on too few
groups (trial U, findings 1 and 5)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from schemarouter.errors import ArgumentError, DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.router import SchemaRouter
from schemarouter.training.requests import (
    HELDOUT_FILE,
    check_routes,
    load_requests,
    split_requests,
    write_heldout,
)

from helpers import openapi_document


def _op(op_id: str, summary: str, description: str) -> dict:
    return {
        "operationId": op_id,
        "summary": summary,
        "description": description,
        "responses": {"200": {"description": "ok"}},
    }


QUEUES = openapi_document(
    "Queues",
    {
        "/queues": {
            "get": _op("list_queues", "List queues", "Every queue of the account."),
            "post": _op("create_queue", "Create a queue", "Make a new message queue."),
        },
        "/queues/{name}/messages": {
            "parameters": [{"name": "name", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "post": _op("send_message", "Send a message", "Push one message onto a queue."),
            "get": _op("receive_message", "Receive messages", "Pull waiting messages."),
            "delete": _op("purge_queue", "Purge a queue", "Delete every message of a queue."),
        },
    },
)  # fmt: skip

ROUTES = {
    name: f"queues/rest/{name}"
    for name in ("list_queues", "create_queue", "send_message", "receive_message", "purge_queue")
}

REQUESTS = [
    ("show me all my queues", ["list_queues"]),
    ("make a new queue called orders", ["create_queue"]),
    ("push a message onto the billing queue", ["send_message"]),
    ("pull the next waiting messages", ["receive_message"]),
    ("empty the test queue", ["purge_queue"]),
    ("enqueue a job for the worker", ["send_message"]),
    ("set up a queue for invoices", ["create_queue"]),
    ("read messages from the queue", ["receive_message"]),
    ("clear out the backlog", ["purge_queue"]),
    ("which queues exist", ["list_queues"]),
]


def _write(path: Path, rows: list) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def openapi_file(tmp_path: Path) -> Path:
    path = tmp_path / "queues.json"
    path.write_text(json.dumps(QUEUES), encoding="utf-8")
    return path


@pytest.fixture
def requests_file(tmp_path: Path) -> Path:
    rows = []
    for i, (text, names) in enumerate(REQUESTS):
        row = {"request": text, "routes": [ROUTES[n] for n in names], "id": f"r{i}"}
        if i % 3 == 2:
            row["split"] = "heldout"
        rows.append(row)
    return _write(tmp_path / "requests.jsonl", rows)


@pytest.fixture
def router(openapi_file: Path) -> SchemaRouter:
    r = SchemaRouter(encoder=HashingEncoder(), abstention=None, reranker=None, embedding_cache=None)
    r.add_openapi(openapi_file)
    return r


# -- the file's checks ---------------------------------------------------------------------------


def test_the_catalog_registers_the_route_ids_the_requests_name(router: SchemaRouter) -> None:
    assert set(ROUTES.values()) <= set(router.snapshot().routes)


def test_an_empty_requests_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"SR101.*requests file is empty"):
        load_requests(_write(tmp_path / "r.jsonl", []))


def test_a_malformed_line_is_named_by_its_number(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", [{"request": "a", "routes": ["x/y/z"]}, "{not json"])
    with pytest.raises(DocumentError, match=r"r\.jsonl:2"):
        load_requests(path)
    path = _write(tmp_path / "r.jsonl", [{"request": "a", "routes": ["x/y/z"]}, {"query": "b"}])
    with pytest.raises(DocumentError, match=r"missing request, routes.*r\.jsonl:2"):
        load_requests(path)
    path = _write(tmp_path / "r.jsonl", [{"request": "a", "routes": []}])
    with pytest.raises(DocumentError, match=r"names no route.*r\.jsonl:1 routes"):
        load_requests(path)
    path = _write(tmp_path / "r.jsonl", [{"request": "a", "routes": ["x"], "split": "test"}])
    with pytest.raises(DocumentError, match=r"split must be one of train, heldout"):
        load_requests(path)


def test_a_requests_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Notepad and Excel save "UTF-8" with a BOM in front: the file is read as written."""
    path = tmp_path / "r.jsonl"
    rows = [
        {"request": "고객 정보를 조회해줘", "routes": ["x/y/z"]},
        {"request": "b", "routes": ["x/y/w"]},
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert [r.text for r in load_requests(path).requests] == ["고객 정보를 조회해줘", "b"]


def test_a_line_separator_inside_a_request_does_not_split_its_line(tmp_path: Path) -> None:
    """json.dumps(..., ensure_ascii=False) writes U+2028, U+0085 and form feeds in strings as
    they are: the lines of JSON lines are the newlines only."""
    path = tmp_path / "r.jsonl"
    texts = ["take a payment\u2028of $120", "next\x85line", "form\x0cfeed"]
    rows = [{"request": t, "routes": ["x/y/z"]} for t in texts]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    assert [r.text for r in load_requests(path).requests] == texts


@pytest.mark.parametrize(
    "lines",
    [[], ["{not json"], ["[1, 2]"], ['{"request": "a", "routes": "x/y/z"}'], None],
    ids=["empty", "no-json", "no-object", "routes-a-string", "missing-file"],
)
def test_a_wrong_requests_file_says_how_to_write_one(
    tmp_path: Path, lines: list[str] | None
) -> None:
    """Trial U3: an empty, unreadable or malformed requests file (which the user writes by
    hand) was answered "Pass a requests file written by this version of SchemaRouter, or
    build it anew", though no SchemaRouter command writes one. The hint says what a line
    holds, where that is documented and which command lists the route ids."""
    path = tmp_path / "r.jsonl"
    if lines is not None:  # None: no file at all
        _write(path, lines)
    with pytest.raises(DocumentError) as caught:
        load_requests(path)
    hint = caught.value.hint or ""
    assert "written by this version of SchemaRouter" not in hint
    assert '{"request": "...", "routes": ["PROVIDER/ACCESS/ENDPOINT", ...]}' in hint
    assert "docs/training.md" in hint and "`schemarouter routes SOURCES`" in hint


def test_unknown_route_ids_are_named_with_their_lines_and_close_matches(
    router: SchemaRouter, tmp_path: Path
) -> None:
    path = _write(
        tmp_path / "r.jsonl",
        [
            {"request": "push a message", "routes": ["queues/rest/send_mesage"]},
            {"request": "list them", "routes": ["queues/rest/list_queues"]},
            {"request": "no such thing", "routes": ["acme/python/nothing"]},
        ],
    )
    with pytest.raises(DocumentError) as caught:
        check_routes(load_requests(path), router.snapshot().routes)
    text = str(caught.value)
    assert "2 route id(s) the catalog does not register" in text
    assert "'queues/rest/send_mesage' (line 1; closest: 'queues/rest/send_message'" in text
    assert "'acme/python/nothing' (line 3)" in text
    assert "list_queues' (line" not in text


def test_repeated_requests_are_warned_and_read_once_and_ids_are_unique(tmp_path: Path) -> None:
    rows = [
        {"request": "Push a message", "routes": ["q/rest/send"]},
        {"request": "push  a message", "routes": ["q/rest/other"], "split": "heldout"},
        {"request": "list queues", "routes": ["q/rest/list"]},
        # punctuation makes no other request (trial U3: "... right now?" held out was the
        # "... right now" it trained on)
        {"request": "List queues?", "routes": ["q/rest/list"], "split": "heldout"},
    ]
    found = load_requests(_write(tmp_path / "r.jsonl", rows))
    assert [r.text for r in found.requests] == ["Push a message", "list queues"]
    assert found.duplicates == 2
    assert found.requests[1].split == "heldout"
    note, punctuated = found.warnings
    assert "line 2 repeats the request of line 1" in note and "differ" in note
    assert "line 4 repeats the request of line 3" in punctuated
    # the repeat marked held out holds the request out: it is never trained on
    assert found.requests[0].split == "heldout"
    rows = [
        {"request": "a", "routes": ["x"], "id": "7"},
        {"request": "b", "routes": ["x"], "id": "7"},
    ]
    with pytest.raises(DocumentError, match=r"id '7' is used twice \(lines 1 and 2\)"):
        load_requests(_write(tmp_path / "r.jsonl", rows))


def test_held_out_requests_are_the_marked_ones_and_a_seeded_share(tmp_path: Path) -> None:
    rows = [{"request": f"request {i}", "routes": ["x/y/z"]} for i in range(20)]
    rows[0]["split"] = "heldout"
    rows[1]["split"] = "train"
    found = load_requests(_write(tmp_path / "r.jsonl", rows))
    train, held, how = split_requests(found, 0.25, seed=3)
    assert len(held) == 1 + round(0.25 * 18) and len(train) == 20 - len(held)
    assert {r.id for r in train}.isdisjoint({r.id for r in held})
    assert found.requests[0] in held and found.requests[1] in train
    assert "1 marked heldout" in how and "--holdout 0.25, seed 3" in how
    again = split_requests(load_requests(tmp_path / "r.jsonl"), 0.25, seed=3)[1]
    assert [r.id for r in again] == [r.id for r in held]  # the same draw on every run
    assert [r.id for r in split_requests(found, 0.0)[1]] == [found.requests[0].id]
    everything = [{"request": "a", "routes": ["x"], "split": "heldout"}]
    with pytest.raises(ArgumentError, match="nothing to train on"):
        split_requests(load_requests(_write(tmp_path / "h.jsonl", everything)))


def test_the_held_out_requests_are_written_beside_the_model(tmp_path: Path, requests_file) -> None:
    _, held, _ = split_requests(load_requests(requests_file))
    path = write_heldout(tmp_path / "model", held)
    assert path == tmp_path / "model" / HELDOUT_FILE
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["r2", "r5", "r8"]
    assert rows[0] == {
        "id": "r2",
        "request": "push a message onto the billing queue",
        "routes": ["queues/rest/send_message"],
        "split": "heldout",
    }


# -- rows for each trainer -----------------------------------------------------------------------


def test_reranker_groups_come_from_the_training_requests_with_mined_negatives(
    router: SchemaRouter, requests_file: Path
) -> None:
    from schemarouter.retrieval.rerank import route_text
    from schemarouter.training.requests_rows import request_groups

    train, held, _ = split_requests(load_requests(requests_file))
    groups = request_groups(router, train, negatives=3)
    assert len(groups) == len(train)
    assert {g.query for g in groups} == {r.text for r in train}
    assert not {g.query for g in groups} & {r.text for r in held}
    routes = router.snapshot().routes
    for g, r in zip(groups, train, strict=True):
        assert g.positive_id == r.routes[0] and g.source == "requests"
        assert g.positive.startswith(route_text(routes[g.positive_id])[:20])
        assert 1 <= len(g.negatives) <= 3 and g.positive not in g.negatives


def test_mining_the_requests_negatives_shows_progress(
    router: SchemaRouter, requests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial U3: `train-reranker --requests` and `train-encoder --requests` mined each
    training request's negatives with no bar (15.6 ms a request on a 40-route catalog: a
    silent minute per few thousand requests, more on a large catalog), while the built-in
    sets' mining and train-ranking's windows show one. Both show a bar unless told not to."""
    from schemarouter.training.requests_rows import request_groups, request_triplets

    train, _, _ = split_requests(load_requests(requests_file))
    capsys.readouterr()
    groups = request_groups(router, train, negatives=3, progress=True)
    triplets, _ = request_triplets(router, train, progress=True)
    said = capsys.readouterr().err
    assert said.count("mining negatives") >= 2 and f"{len(train)}/{len(train)}" in said
    assert request_groups(router, train, negatives=3) == groups  # no bar: the same groups
    assert request_triplets(router, train)[0] == triplets
    assert "mining negatives" not in capsys.readouterr().err


def test_encoder_triplets_and_held_out_dense_recall(
    router: SchemaRouter, requests_file: Path
) -> None:
    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.requests_rows import dense_recall, request_triplets

    train, held, _ = split_requests(load_requests(requests_file))
    triplets, missing = request_triplets(router, train)
    routes = router.snapshot().routes
    # a request whose other routes all score within the margin of its own gets none
    # ("which queues exist": each other route ties or beats list_queues on hashed words)
    assert missing == 1 and len(triplets) == len(train) - 1
    for t, r in zip(triplets, [r for r in train if r.text != "which queues exist"], strict=True):
        assert t.query == r.text and t.positive == endpoint_texts(routes[r.routes[0]])[1]
        assert t.negative != t.positive and t.source == "requests"
    encoder = HashingEncoder()
    figures = dense_recall(encoder.encode, router, held)
    assert figures["requests"] == 3 and figures["routes"] == len(routes)
    assert 0.0 <= figures["recall@1"] <= figures["recall@5"] <= 1.0


# -- the reranker's checks (finding 5) -----------------------------------------------------------


def test_int8_agreement_on_too_few_groups_is_not_measured() -> None:
    from schemarouter.training.export import MIN_AGREEMENT_GROUPS, agreement, agreement_line

    none = agreement([], [])
    assert none["pairs"] == 0 and none["groups"] == 0 and none["measured"] is False
    assert none["spearman"] is None and none["top1_agreement"] is None
    assert agreement_line(none) == f"not measured: 0 group(s), fewer than {MIN_AGREEMENT_GROUPS}"
    rng = np.random.default_rng(0)
    a = [rng.normal(size=5) for _ in range(MIN_AGREEMENT_GROUPS)]
    b = [x + 0.01 for x in a]
    some = agreement(a, b)
    assert some["measured"] and some["groups"] == MIN_AGREEMENT_GROUPS and some["pairs"] == 25
    assert some["top1_agreement"] == 1.0 and some["spearman"] > 0.99
    assert agreement_line(some).endswith(f"({MIN_AGREEMENT_GROUPS} groups, 25 pairs)")


def test_groups_without_negatives_repeats_and_unknown_ids_are_counted() -> None:
    from schemarouter.training.pairs import PairGroup, check_groups

    groups = [
        PairGroup("q one", "p", ["n1"], "s", positive_id="a/b/c"),
        PairGroup("Q  one", "p", ["n1"], "s", positive_id="a/b/c"),  # a repeat
        PairGroup("q two", "p", [], "s", positive_id="a/b/c"),  # no negatives
        PairGroup("q three", "p", ["n2"], "s", positive_id="no/such/route"),
    ]
    kept, check = check_groups(groups, {"a/b/c"})
    assert [g.query for g in kept] == ["q one", "q three"]
    assert (check.given, check.without_negatives, check.duplicates) == (4, 1, 1)
    assert check.unknown_ids == ["no/such/route"]
    said = check.warnings()
    assert any("1 of 4 groups have no negatives" in w for w in said)
    assert any("1 groups repeat" in w for w in said)
    assert any("'no/such/route'" in w for w in said)


def _quiet() -> warnings.catch_warnings:
    caught = warnings.catch_warnings()
    caught.__enter__()
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\..*")
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"(torch|transformers)\..*")
    return caught


@pytest.mark.slow  # trains and exports a one-layer model (about a minute on 2 cores)
def test_train_reranker_on_labelled_requests_end_to_end(
    tmp_path: Path, openapi_file: Path, requests_file: Path
) -> None:
    pytest.importorskip("torch")
    from schemarouter.retrieval.rerank import Reranker
    from schemarouter.training.train import train_main

    out, lines = tmp_path / "model", []
    argv = ["--out", str(out), "--work", str(tmp_path / "work"), "--requests", str(requests_file),
            "--openapi", str(openapi_file), "--encoder", "hashing", "--layers", "1",
            "--epochs", "1", "--batch-groups", "2", "--negatives", "2", "--max-length", "48",
            "--no-progress", "--threads", "1"]  # fmt: skip
    caught = _quiet()
    try:
        from schemarouter.training.command import run_command
        from schemarouter.training.train import add_train_arguments, run_train_command

        assert run_command("train-reranker", "", add_train_arguments, run_train_command, argv,
                           out=lines.append) == 0  # fmt: skip
    finally:
        caught.__exit__(None, None, None)
    assert sorted(p.name for p in out.iterdir()) == [
        "card.json", HELDOUT_FILE, "model.onnx", "tokenizer.json"
    ]  # fmt: skip
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    about = card["data"]["requests"]
    assert (about["requests"], about["train"], about["heldout"]) == (10, 7, 3)
    assert about["sha256"] == __import__("hashlib").sha256(requests_file.read_bytes()).hexdigest()
    assert card["data"]["training_groups"] + card["data"]["validation_groups"] == 7
    q = card["quantization"]["int8_vs_torch"]
    assert q["measured"] and q["groups"] >= 5  # topped up from training groups
    assert any("validation group(s)" in line and "warning" in line for line in lines)
    Reranker(out)  # loads
    assert train_main is not None


# -- train-encoder: validation skippable, a stopped run never looks finished (finding 6) --------


def test_train_encoder_takes_no_validate_and_requests() -> None:
    from schemarouter.training.encoder import add_arguments

    parser = add_arguments(__import__("argparse").ArgumentParser())
    args = parser.parse_args(["--out", "m", "--no-validate", "--requests", "r.jsonl",
                              "--openapi", "a.json", "--holdout", "0.3"])  # fmt: skip
    assert args.validate is False and args.requests == "r.jsonl" and args.holdout == 0.3
    assert args.openapi == ["a.json"]
    assert parser.parse_args(["--out", "m"]).validate is True


def test_a_skipped_validation_reads_no_tooltrain_and_the_card_says_so() -> None:
    from argparse import Namespace

    from schemarouter.training.encoder import _validation

    skipped = _validation(Namespace(validate=False), None, None, None, None, None, None, [])  # type: ignore[arg-type]
    assert skipped == {"skipped": "--no-validate"}
    none_left = Namespace(validate=True, validate_per_source=0)
    assert _validation(none_left, None, None, None, None, None, None, []) == {  # type: ignore[arg-type]
        "skipped": "--validate-per-source 0"
    }
    no_held = _validation(none_left, None, None, None, None, None, object(), [])  # type: ignore[arg-type]
    assert "holds no request out" in no_held["skipped"]


def test_an_incomplete_encoder_card_is_never_up_to_date(tmp_path: Path) -> None:
    from schemarouter.training.command import file_sha256, write_card
    from schemarouter.training.encoder import _up_to_date

    (tmp_path / "model.onnx").write_bytes(b"onnx")
    card = {"run_digest": "d", "model_sha256": file_sha256(tmp_path / "model.onnx"),
            "validation": {"skipped": "--no-validate"}}  # fmt: skip
    write_card(tmp_path, {**card, "incomplete": "the checks after training did not finish"})
    assert not _up_to_date(tmp_path, "d")
    write_card(tmp_path, card)
    assert _up_to_date(tmp_path, "d")


def test_a_new_encoder_drops_the_old_bridge_and_says_how_to_fit_one(tmp_path: Path) -> None:
    """train-encoder writes a new model into a folder: a bridge fitted for the model it
    replaced maps into another space (the router would refuse the folder), so it goes, and
    where the requests are Korean, Chinese or Japanese the run says how to fit one."""
    from schemarouter.training.bridge import bridge_after_training

    (tmp_path / "bridge.npz").write_bytes(b"old")
    (tmp_path / "bridge.json").write_text("{}", encoding="utf-8")
    said = bridge_after_training(tmp_path, ["고객 정보를 조회해줘", "list my queues"])
    assert not (tmp_path / "bridge.npz").exists() and not (tmp_path / "bridge.json").exists()
    assert "removed the cross-lingual bridge" in said[0]
    assert "1 of the 2 requests" in said[1]
    assert (
        f"python -m schemarouter.training.bridge --encoder {tmp_path} --out {tmp_path}" in said[1]
    )
    assert bridge_after_training(tmp_path, ["list my queues"]) == []  # English: nothing to say


@pytest.mark.slow  # fine-tunes a one-layer MiniLM for a few steps (minutes on 2 cores)
def test_train_encoder_on_labelled_requests_validates_on_the_held_out_ones(
    tmp_path: Path, openapi_file: Path, requests_file: Path
) -> None:
    pytest.importorskip("sentence_transformers")
    from schemarouter.index import OnnxEncoder
    from schemarouter.training.encoder import encoder_main

    out = tmp_path / "model"
    argv = ["--out", str(out), "--work", str(tmp_path / "work"), "--requests", str(requests_file),
            "--openapi", str(openapi_file), "--mining-encoder", "hashing", "--batch-size", "4",
            "--layers", "1", "--no-bf16", "--no-progress"]  # fmt: skip
    assert encoder_main(argv) == 0
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert "incomplete" not in card and "attribution" not in card["data"]
    assert card["data"]["requests"]["heldout"] == 3
    v = card["validation"]
    assert v["trained_int8_onnx"]["requests"] == 3 and v["trained_int8_onnx"]["routes"] == 5
    assert card["quantization"]["int8_onnx_vs_torch"]["mean_cosine"] > 0.9
    assert (out / HELDOUT_FILE).exists()
    assert OnnxEncoder(out).encode(["list my queues"]).shape == (1, 384)


# -- train-ranking and eval on the user's requests ----------------------------------------------


def test_ranking_rows_of_labelled_requests_keep_the_held_out_apart(
    openapi_file: Path, requests_file: Path
) -> None:
    from argparse import Namespace

    from schemarouter.training.requests_rows import request_rows

    args = Namespace(requests=str(requests_file), holdout=0.0, seed=0, catalog=None,
                     openapi=[str(openapi_file)], mcp_tools=[], config=None, progress=False)  # fmt: skip
    said: list[str] = []
    rows, measured, held, about = request_rows(args, 5, said.append)
    assert len(rows.needs) == 7 and len(measured.needs) == 3 and len(held) == 3
    assert {n.split(":")[0] for n in rows.names} == {"requests"}
    assert {n.split(":", 1)[1] for n in measured.names} == {"r2", "r5", "r8"}
    assert not {n.split(":", 1)[1] for n in rows.names} & {"r2", "r5", "r8"}
    assert rows.y.sum() >= 1 and about["routes"] == 5 and about["heldout"] == 3
    assert any("7 to train on, 3 held out" in line for line in said)


def test_eval_measures_the_held_out_requests_over_the_users_catalog(
    tmp_path: Path, openapi_file: Path, requests_file: Path
) -> None:
    from schemarouter.training.evaluate import eval_main

    argv = ["--suite", "requests", "--requests", str(requests_file), "--openapi",
            str(openapi_file), "--out", str(tmp_path / "ev"), "--encoder", "hashing",
            "--compare-encoder", "", "--reranker", "none", "--ranking", "none",
            "--scaling", "", "--no-plans", "--no-abstention", "--no-plots", "--no-progress",
            "--resamples", "10", "--cache", "none"]  # fmt: skip
    assert eval_main(argv) == 0
    results = json.loads((tmp_path / "ev" / "results.json").read_text(encoding="utf-8"))
    suite = results["suites"]["requests"]
    assert suite["catalog"]["routes"] == 5 and suite["catalog"]["queries"] == 3
    assert suite["catalog"]["requests"]["heldout"] == 3
    hybrid = suite["routers"]["hybrid"]["metrics"]
    assert hybrid["r@5"]["n"] == 3 and 0 <= hybrid["r@1"]["mean"] <= hybrid["r@5"]["mean"] <= 1
    with pytest.raises(ArgumentError, match="needs --requests FILE and its catalog"):
        eval_main([*argv[:4], "--out", str(tmp_path / "ev2")])


def test_a_rerun_after_unfinished_checks_runs_the_checks_only(tmp_path: Path) -> None:
    from schemarouter.training.command import file_sha256, write_card
    from schemarouter.training.encoder import _unchecked

    target, work = tmp_path / "model", tmp_path / "work"
    target.mkdir()
    (work / "final").mkdir(parents=True)
    (work / "model.fp32.onnx").write_bytes(b"fp32")
    (target / "model.onnx").write_bytes(b"int8")
    card = {"run_digest": "d", "model_sha256": file_sha256(target / "model.onnx")}
    write_card(target, {**card, "incomplete": "the checks after training did not finish"})
    assert _unchecked(target, "d", work) is not None
    assert _unchecked(target, "other data or settings", work) is None
    (target / "model.onnx").write_bytes(b"another model")
    assert _unchecked(target, "d", work) is None
    (target / "model.onnx").write_bytes(b"int8")
    write_card(target, card)  # finished: nothing to check again
    assert _unchecked(target, "d", work) is None


def test_eval_says_which_measured_requests_a_model_trained_on(
    tmp_path: Path, openapi_file: Path, requests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial Z: a ranking stage trained on the file, measured on its training requests, was
    reported as "out of domain" with "no card"; now the report and results.json say how many
    of the measured requests are not among the model's held-out ones, and stderr warns."""
    from schemarouter.training.evaluate import eval_main
    from schemarouter.training.ranking import ranking_main

    model = tmp_path / "our-ranking"
    assert ranking_main(["--out", str(model), "--work", str(tmp_path / "w"), "--requests",
                         str(requests_file), "--openapi", str(openapi_file), "--per-source",
                         "0", "--composed", "0", "--synthetic", "0", "--dev", "--max-iter", "5",
                         "--min-samples-leaf", "1", "--no-progress"]) == 0  # fmt: skip
    argv = ["--suite", "requests", "--openapi", str(openapi_file), "--encoder", "hashing",
            "--compare-encoder", "", "--reranker", "none", "--ranking", str(model),
            "--scaling", "", "--no-plans", "--no-abstention", "--no-plots", "--no-progress",
            "--resamples", "10", "--cache", "none"]  # fmt: skip

    def run(*extra: str) -> tuple[dict, str, str]:
        out = tmp_path / f"ev{len(extra)}"
        capsys.readouterr()
        assert eval_main([*argv, "--out", str(out), *extra]) == 0
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        return results, (out / "report.md").read_text(encoding="utf-8"), capsys.readouterr().err

    results, report, err = run("--requests", str(requests_file), "--requests-split", "train")
    entry = results["suites"]["requests"]["catalog"]["trained_models"]["ranking"]
    assert entry["measured"] == 7 and entry["measured_not_held_out"] == 7
    assert "7 of the 7 measured requests are not among its held-out ones" in err
    assert "7 of the 7 measured requests are not among its held-out requests" in report
    assert results["exposure"]["ranking"]["requests"]["train"] == 7
    assert "trained on your labelled requests: 7 of" in report
    assert "out of domain for it" not in report.split("## requests")[0].split("- ranking")[-1]

    results, report, err = run("--requests", str(model / HELDOUT_FILE))
    entry = results["suites"]["requests"]["catalog"]["trained_models"]["ranking"]
    assert entry["measured"] == 3 and entry["measured_not_held_out"] == 0
    assert "warning" not in err
    assert "all 3 measured requests are among its held-out requests" in report


def test_training_requests_measured_are_never_called_the_held_out_test_half(
    tmp_path: Path, openapi_file: Path, requests_file: Path
) -> None:
    """Trial Z: ``--requests-split train`` labelled the unmarked training requests "test", so
    report.md said "Recall@5 on the held-out test half: ... (n=7)" of training requests."""
    from schemarouter.training.evaluate import eval_main

    out = tmp_path / "ev"
    argv = ["--suite", "requests", "--requests", str(requests_file), "--requests-split",
            "train", "--openapi", str(openapi_file), "--out", str(out), "--encoder", "hashing",
            "--compare-encoder", "", "--reranker", "none", "--ranking", "none",
            "--scaling", "", "--no-plans", "--no-abstention", "--no-plots", "--no-progress",
            "--resamples", "10", "--cache", "none"]  # fmt: skip
    assert eval_main(argv) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    splits = results["suites"]["requests"]["routers"]["hybrid"]["splits"]
    assert splits["test"] == {}  # none of the 7 is a held-out ("test") request
    assert results["suites"]["requests"]["routers"]["hybrid"]["metrics"]["r@5"]["n"] == 7
    assert "held-out test half" not in (out / "report.md").read_text(encoding="utf-8")


def test_a_card_names_the_catalog_the_requests_were_read_over(
    openapi_file: Path, requests_file: Path
) -> None:
    """Trial U3: the cards of models trained on `--requests` recorded the requests file's
    hash and counts, and of the catalog only the command line ("--openapi harbor.json", a
    relative path): a model could not be tied to the catalog it learned, nor told from one
    trained on an edited document. The card's requests block names each source with its
    sha256, the routes registered and the registry fingerprint."""
    import hashlib
    from argparse import Namespace

    from schemarouter.training.requests_rows import request_rows

    args = Namespace(requests=str(requests_file), holdout=0.0, seed=0, catalog=None,
                     openapi=[f"queues={openapi_file}"], mcp_tools=[], config=None,
                     progress=False)  # fmt: skip
    _, _, _, about = request_rows(args, 5, lambda line: None)
    catalog = about["catalog"]
    assert catalog["sources"] == [
        {
            "option": "--openapi",
            "given": f"queues={openapi_file}",
            "sha256": hashlib.sha256(openapi_file.read_bytes()).hexdigest(),
        }
    ]
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, reranker=None)
    router.add_openapi(openapi_file, provider="queues")
    assert catalog["routes"] == 5
    assert catalog["registry_fingerprint"] == router.snapshot().fingerprint


def test_eval_measures_the_models_a_gateway_config_names(
    tmp_path: Path, openapi_file: Path, requests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial U3: `eval --suite requests --config gw.yaml`, whose config serves my trained
    models (`models: {encoder: ..., reranker: ..., ranking: ...}`), registered the config's
    sources but measured the shipped models, and said nothing of it: the "trained" figures
    were the shipped ones. The config's models are measured where no flag names one, and
    eval says so; a flag still wins."""
    from schemarouter.training.evaluate import eval_main

    from helpers import REPO

    ranking = REPO / "models" / "ranking"
    if not (ranking / "card.json").is_file():
        pytest.skip("no shipped ranking model in this checkout")
    config = tmp_path / "gw.yaml"
    config.write_text(
        f"openapi:\n  - {{source: {openapi_file.name}}}\n"
        f"models: {{ranking: {ranking}, reranker: none}}\n",
        encoding="utf-8",
    )
    argv = ["--suite", "requests", "--requests", str(requests_file), "--config", str(config),
            "--encoder", "hashing", "--compare-encoder", "", "--scaling", "", "--no-plans",
            "--no-abstention", "--no-plots", "--no-progress", "--resamples", "10",
            "--cache", "none"]  # fmt: skip
    assert eval_main([*argv, "--out", str(tmp_path / "ev")]) == 0
    said = capsys.readouterr().out
    assert f"--ranking {ranking} (the ranking of {config}; a flag wins over it)" in said
    results = json.loads((tmp_path / "ev" / "results.json").read_text(encoding="utf-8"))
    assert results["config"]["ranking"] == str(ranking)
    assert results["config"]["reranker"] == "none" and results["config"]["encoder"] == "hashing"
    assert "hybrid+ranking" in results["suites"]["requests"]["routers"]
    assert eval_main([*argv, "--ranking", "none", "--out", str(tmp_path / "ev2")]) == 0
    assert "--ranking" not in capsys.readouterr().out.split("requests (")[0]
    results = json.loads((tmp_path / "ev2" / "results.json").read_text(encoding="utf-8"))
    assert results["config"]["ranking"] == "none"
    assert "hybrid+ranking" not in results["suites"]["requests"]["routers"]


def test_a_model_whose_held_out_list_is_gone_is_checked_by_its_cards_hash(
    tmp_path: Path, openapi_file: Path, requests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial U3: with the heldout_requests.jsonl beside my reranker deleted, eval on its
    held-out requests warned "40 of the 40 measured requests are not among its held-out
    ones (models/rr/heldout_requests.jsonl)", though they were exactly those its card's
    heldout_ids_sha256 names, and named a file that is not there. The card's hash decides
    where the list is gone; where it does not match, the warning says the list is missing."""
    import shutil

    from schemarouter.training.evaluate import eval_main
    from schemarouter.training.ranking import ranking_main

    model = tmp_path / "our-ranking"
    assert ranking_main(["--out", str(model), "--work", str(tmp_path / "w"), "--requests",
                         str(requests_file), "--openapi", str(openapi_file), "--per-source",
                         "0", "--composed", "0", "--synthetic", "0", "--dev", "--max-iter", "5",
                         "--min-samples-leaf", "1", "--no-progress"]) == 0  # fmt: skip
    held = tmp_path / "held.jsonl"
    shutil.move(model / HELDOUT_FILE, held)
    argv = ["--suite", "requests", "--openapi", str(openapi_file), "--encoder", "hashing",
            "--compare-encoder", "", "--reranker", "none", "--ranking", str(model),
            "--scaling", "", "--no-plans", "--no-abstention", "--no-plots", "--no-progress",
            "--resamples", "10", "--cache", "none"]  # fmt: skip
    for measured, out in ((held, "ev1"), (requests_file, "ev2")):
        capsys.readouterr()
        split = [] if measured == held else ["--requests-split", "all"]
        assert (
            eval_main([*argv, "--requests", str(measured), *split, "--out", str(tmp_path / out)])
            == 0
        )
        results = json.loads((tmp_path / out / "results.json").read_text(encoding="utf-8"))
        entry = results["suites"]["requests"]["catalog"]["trained_models"]["ranking"]
        err = capsys.readouterr().err
        if measured == held:
            assert entry["measured"] == 3 and entry["measured_not_held_out"] == 0
            assert "warning" not in err
        else:
            assert entry["measured_not_held_out"] == 10
            assert f"its {model}/heldout_requests.jsonl is missing" in err
            assert "not among its held-out ones" not in err
