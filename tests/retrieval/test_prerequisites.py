"""Routes that need an identifier and the routes that produce it, read from a user's own
OpenAPI document (a small library catalog written here), and the router lifting the
producer in after the route that needs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.ordering import lift_prerequisites
from schemarouter.retrieval.prerequisites import needs, producers, stem

from servers.library import AUTHOR, BOOK, get, library_openapi, listing, path_parameter, search

LIBRARY = library_openapi()


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "library.json"
    path.write_text(json.dumps(LIBRARY))
    return path


def _router(library: Path, **kwargs: Any) -> SchemaRouter:
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None, **kwargs)
    router.add_openapi(library, provider="library")
    return router


def _ids(router: SchemaRouter, operations: list[str]) -> list[str]:
    by_op = {r.endpoint.name: r.route_id for r in router.registry.snapshot().routes.values()}
    return [by_op[op] for op in operations]


def test_needs_and_producers_are_read_from_the_contracts(library: Path) -> None:
    router = _router(library)
    snapshot = router.registry.snapshot()
    by_op = {route.endpoint.name: route for route in snapshot.routes.values()}
    assert needs(by_op["authorBooks"]) == ("author",)
    assert needs(by_op["getBook"]) == ("book",)  # ``{id}`` after ``/books``
    assert needs(by_op["searchAuthors"]) == () and needs(by_op["genres"]) == ()
    table = producers(snapshot)
    search, popular = _ids(router, ["searchAuthors", "popularAuthors"])
    # the lookup first; the write route (POST /author), the routes that need an author id
    # themselves and the genre list (its ids are genres') produce no author ids
    assert table["author"] == (search, popular)
    assert table[stem("genres")] == tuple(_ids(router, ["genres"]))
    assert stem("genre") == stem("genres") and stem("category") == stem("categories")
    assert "book" not in table  # no registered read route lists books without an author


def test_the_producer_is_lifted_after_the_route_that_needs_it(library: Path) -> None:
    query = "list the books written by Ursula K. Le Guin"
    plain = _router(library, prerequisites=False).retrieve(query, k=3)
    lifted = _router(library).retrieve(query, k=3)  # on by default
    books, search = _ids(_router(library), ["authorBooks", "searchAuthors"])
    assert plain.candidates[0].route_id == books
    assert "prerequisite" not in {key for c in plain.candidates for key in c.scores}
    top = [c.route_id for c in lifted.candidates]
    assert top[:2] == [books, search]
    assert lifted.candidates[1].scores["prerequisite"] == 1.0
    # nothing else moved up; the rest keep their order
    rest = [c.route_id for c in plain.candidates if c.route_id != search]
    assert top[2:] == rest[1 : len(top) - 1]


def test_a_producer_already_above_is_enough_and_lifts_are_bounded(library: Path) -> None:
    router = _router(library)
    snapshot = router.registry.snapshot()
    books, awards, search, popular = _ids(
        router, ["authorBooks", "authorAwards", "searchAuthors", "popularAuthors"]
    )
    asked: list[list[str]] = []

    def score(ids: list[str]) -> tuple[list[float], list[float]]:
        asked.append(ids)
        return [0.1 * (i + 1) for i in range(len(ids))], [0.5] * len(ids)

    ranked = [Ranked(search, 1.0), Ranked(books, 0.9), Ranked(awards, 0.8)]
    assert [r.route_id for r in lift_prerequisites(ranked, snapshot, 3, score)] == [
        search,
        books,
        awards,
    ]
    assert asked == []  # the search above serves both
    ranked = [Ranked(books, 1.0), Ranked(awards, 0.9)]
    out = lift_prerequisites(ranked, snapshot, 3, score, max_lifts=1)
    # one lift, the lookup (the only one) whatever the scores say of the others
    assert [r.route_id for r in out] == [books, search, awards]
    assert out[1].scores == {"fused": 0.1, "dense": 0.5, "prerequisite": 1.0}
    assert asked == [[search]]
    assert popular not in [r.route_id for r in out]


def test_an_identifier_the_request_carries_is_not_needed(library: Path) -> None:
    """A parameter whose declared kind the query analysis found in the request (here a
    DOI) needs no producer."""
    document = json.loads(library.read_text())
    document["paths"]["/work/{work_id}"] = get(
        "workById", "A scholarly work by its DOI", listing(BOOK), [path_parameter("work_id")]
    )
    document["paths"]["/search/work"] = search("searchWorks", "Search works by title", BOOK)
    library.write_text(json.dumps(document))
    router = _router(library)
    route = next(
        r for r in router.registry.snapshot().routes.values() if r.endpoint.name == "workById"
    )
    doi = route.model_copy(
        update={
            "endpoint": route.endpoint.model_copy(
                update={
                    "parameters": tuple(
                        p.model_copy(update={"semantic_id": "identifier.doi"})
                        for p in route.endpoint.parameters
                    )
                }
            )
        }
    )
    assert needs(doi) == ("work",)
    assert needs(doi, given=frozenset({"identifier.doi"})) == ()
    assert needs(doi, given=frozenset({"identifier.isbn"})) == ("work",)


def test_an_identifier_written_after_its_thing_is_bound_and_lifts_nothing(
    library: Path,
) -> None:
    """ "author 7": the request gives the author's identifier, so the route needing it gets
    it bound and no author lookup is lifted in; a name instead of an identifier still lifts."""
    router = _router(library)
    books, search = _ids(router, ["authorBooks", "searchAuthors"])
    given = router.retrieve("list the books of author 7", k=3)
    assert given.candidates[0].route_id == books
    assert given.candidates[0].bound_parameters == {"author_id": 7}
    assert given.candidates[0].identifier_sources == {}
    assert "prerequisite" not in {key for c in given.candidates for key in c.scores}
    named = router.retrieve("list the books of author Ursula Le Guin", k=3)
    assert [c.route_id for c in named.candidates[:2]] == [books, search]
    assert named.candidates[0].bound_parameters == {}
    # an identifier that breaks the parameter's schema (an integer) is not bound
    assert router.retrieve("list the books of author a-7", k=1).candidates[0].bound_parameters == {}


def test_a_registry_change_reads_only_the_changed_routes_again(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import schemarouter.retrieval.prerequisites as module

    router = _router(library)
    old = router.registry.snapshot()
    before = producers(old)
    read: list[str] = []
    original = module._produces

    def counted(route: Any) -> Any:
        read.append(route.endpoint.name)
        return original(route)

    monkeypatch.setattr(module, "_produces", counted)
    document = json.loads(library.read_text())
    document["paths"]["/search/publisher"] = search(
        "searchPublishers", "Search publishers by name", AUTHOR
    )
    library.write_text(json.dumps(document))
    router.add_openapi(library, provider="library", replace=True)
    after = producers(router.registry.snapshot())
    assert read == ["searchPublishers"]
    assert after[stem("publisher")] == tuple(_ids(router, ["searchPublishers"]))
    assert after["author"] == before["author"]
    # another router's snapshot in between (the last few are kept): nothing is read again
    assert producers(old) is before and read == ["searchPublishers"]


def test_compound_names_headers_and_words_ending_in_id(tmp_path: Path) -> None:
    """``file_version_id`` names one thing, as the ``/file_versions`` segment does; a required
    header (``X-Request-Id``) is transport, and ``valid`` or ``paid`` are no identifiers."""
    header = {
        "name": "X-Request-Id",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
    }
    flag = {"name": "valid", "in": "query", "required": True, "schema": {"type": "boolean"}}
    document = library_openapi()
    document["paths"] = {
        "/file_versions/{file_version_id}": get(
            "getFileVersion",
            "One version of a file",
            listing(BOOK),
            [path_parameter("file_version_id")],
        ),
        "/file_versions": get("listFileVersions", "Every file version", listing(BOOK), []),
        "/reports": get("reports", "Payment reports", listing(BOOK), [header, flag]),
    }
    path = tmp_path / "files.json"
    path.write_text(json.dumps(document))
    router = _router(path)
    by_op = {r.endpoint.name: r for r in router.registry.snapshot().routes.values()}
    assert needs(by_op["getFileVersion"]) == ("fileversion",)
    assert needs(by_op["reports"]) == ()
    table = producers(router.registry.snapshot())
    assert table["fileversion"] == (by_op["listFileVersions"].route_id,)
    plan = router.plan("show one version of a file", max_calls=2)
    assert plan.route_ids == (by_op["listFileVersions"].route_id, by_op["getFileVersion"].route_id)
    assert plan.steps[1].bindings["file_version_id"].path == "results.*.id"
