"""One thing or many: a route and its plural twin in the order the request's number asks."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.number import agree_in_number, plural_twin

from helpers import openapi_document


def _op(op_id: str, summary: str) -> dict[str, object]:
    return {"operationId": op_id, "summary": summary, "responses": {"200": {"description": "ok"}}}


CRAWLERS = openapi_document(
    "Catalog",
    {
        "/crawler": {"post": _op("GetCrawler", "Retrieves metadata for a specified crawler")},
        "/crawlers": {"post": _op("GetCrawlers", "Retrieves metadata for all crawlers")},
        "/crawler/metrics": {"post": _op("GetCrawlerMetrics", "Metrics about crawlers")},
        "/budget": {"post": _op("DescribeBudget", "Get a single budget")},
        "/budgets": {"post": _op("DescribeBudgets", "Get all budgets for an account")},
        "/policy": {"post": _op("GetPolicy", "Get a policy")},
        "/policies": {"post": _op("GetPolicies", "Get all policies")},
    },
)


def _snapshot():  # type: ignore[no-untyped-def]
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(CRAWLERS, provider="catalog")
    return router.snapshot()


def _ranked(*names: str) -> list[Ranked]:
    return [Ranked(f"catalog/rest/{n}", 1.0 - i / 10, {}) for i, n in enumerate(names)]


def _names(ranked: list[Ranked]) -> list[str]:
    return [r.route_id.split("/")[-1] for r in ranked]


@pytest.mark.parametrize(
    "one, other, pair",
    [
        ("get_crawler", "get_crawlers", ("crawler", "crawlers")),
        ("DescribeBudgets", "DescribeBudget", ("budget", "budgets")),
        ("get_job_runs", "get_job_run", ("run", "runs")),
        ("get_policy", "get_policies", ("policy", "policies")),
        ("list_boxes", "list_box", ("box", "boxes")),
        ("get_crawler", "get_crawler_metrics", None),  # another word, not a plural
        ("get_crawler", "delete_crawlers", None),  # another verb
        ("crawler", "crawlers", None),  # a name of one word says nothing of its verb
    ],
)
def test_a_plural_twin_differs_only_by_its_last_words_plural(
    one: str, other: str, pair: tuple[str, str] | None
) -> None:
    assert plural_twin(one, other) == pair


def test_the_request_s_number_orders_a_route_and_its_plural_twin() -> None:
    snapshot = _snapshot()
    ranked = _ranked("get_crawler_metrics", "get_crawler", "get_crawlers", "describe_budgets")
    # many: the plural takes the singular's place; the others stay where they were
    out = agree_in_number("list all crawlers", ranked, snapshot)
    assert _names(out) == ["get_crawler_metrics", "get_crawlers", "get_crawler", "describe_budgets"]
    # one: the singular above (already)
    assert agree_in_number("when did crawler c-7 last run", ranked, snapshot) == ranked
    ranked = _ranked("describe_budgets", "describe_budget", "get_policies", "get_policy")
    out = agree_in_number("how much of the marketing-q3 budget has been spent", ranked, snapshot)
    assert _names(out)[:2] == ["describe_budget", "describe_budgets"]
    assert _names(out)[2:] == ["get_policies", "get_policy"]  # not named: left alone
    out = agree_in_number("show the policy p-1", ranked, snapshot)
    assert _names(out) == ["describe_budgets", "describe_budget", "get_policy", "get_policies"]


@pytest.mark.parametrize(
    "query",
    [
        "list every budget",  # a singular with a word of quantity asks for many: not for one
        "budgets, and the budget b-1",  # both forms: the request does not say
        "spending so far",  # neither
    ],
)
def test_a_request_that_does_not_say_its_number_changes_nothing(query: str) -> None:
    snapshot = _snapshot()
    ranked = _ranked("describe_budgets", "describe_budget")
    assert agree_in_number(query, ranked, snapshot) == ranked
    ranked = _ranked("describe_budget", "describe_budgets")
    assert agree_in_number(query, ranked, snapshot) == ranked


def test_the_router_orders_them_by_the_request_s_number() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
        reranker=None,
        ranking=None,
    )
    router.add_openapi(CRAWLERS, provider="catalog")
    many = router.retrieve("get all the crawlers", k=7).route_ids
    assert many.index("catalog/rest/get_crawlers") < many.index("catalog/rest/get_crawler")
    one = router.retrieve("get the crawler c-7", k=7).route_ids
    assert one.index("catalog/rest/get_crawler") < one.index("catalog/rest/get_crawlers")
