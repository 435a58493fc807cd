"""A POST registered ``write`` by its method whose name reads: ``retrieve_executable`` says so,
and points to ``effect_overrides`` before it points to allowing writes."""

from __future__ import annotations

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.state import READ_BY_NAME, ExecutionState

from helpers import openapi_document


def _op(op_id: str, summary: str) -> dict[str, object]:
    return {"operationId": op_id, "summary": summary, "responses": {"200": {"description": "ok"}}}


# the AWS query protocol's shape: every operation a POST, the action in the path key
WAREHOUSE = openapi_document(
    "Warehouse",
    {
        "/#DescribeClusters": {"post": _op("DescribeClusters", "Describes warehouse clusters")},
        "/#RebootCluster": {"post": _op("RebootCluster", "Reboots a warehouse cluster")},
    },
)


def _router(**overrides: str) -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(WAREHOUSE, provider="warehouse", effect_overrides=overrides or None)
    return router


def test_a_post_whose_name_reads_is_named_with_the_override_that_lists_it() -> None:
    found = _router().retrieve_executable("describe my warehouse clusters", k=2)
    assert found.route_ids == ()  # both registered write: nothing runs under read only
    details = {e.route_id: e.detail for e in found.exclusions}
    assert READ_BY_NAME in details["warehouse/rest/describe_clusters"]
    assert READ_BY_NAME not in details["warehouse/rest/reboot_cluster"]  # a write by name too
    assert "effect_overrides={'describe_clusters': 'read'}" in found.blocked
    assert found.blocked.index("effect_overrides") < found.blocked.index("allowed_effects")
    # the override it names lists the route; the write stays out
    found = _router(describe_clusters="read").retrieve_executable("describe clusters", k=2)
    assert found.route_ids == ("warehouse/rest/describe_clusters",)


def test_a_post_that_writes_by_name_keeps_the_plain_hint() -> None:
    found = _router().retrieve_executable("reboot the warehouse cluster", k=1)
    reboot = next(e for e in found.exclusions if e.route_id.endswith("reboot_cluster"))
    assert READ_BY_NAME not in reboot.detail
    # where writes are allowed, nothing is left out for its effect
    state = ExecutionState(allowed_effects=frozenset({"read", "write"}))
    found = _router().retrieve_executable("reboot the warehouse cluster", k=1, state=state)
    assert found.route_ids == ("warehouse/rest/reboot_cluster",)


def test_the_registration_warns_of_posts_whose_names_read() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    change = router.add_openapi(WAREHOUSE, provider="warehouse")
    note = next(w for w in change.warnings if "whose name reads" in w)
    assert "1 POST operation" in note and "(describe_clusters)" in note
    assert "reboot_cluster" not in note  # a write by its name too: nothing to say
    assert "effect_overrides={'describe_clusters': 'read', ...}" in note
    # declared, by operationId or endpoint id: nothing left to warn of
    for key in ("DescribeClusters", "describe_clusters"):
        change = _router_change(key)
        assert not any("whose name" in w for w in change.warnings), change.warnings


def _router_change(key: str):  # type: ignore[no-untyped-def]
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    return router.add_openapi(WAREHOUSE, provider="warehouse", effect_overrides={key: "read"})
