"""``effect_overrides`` keys that are glob patterns (``"Describe*"``): an AWS document's
hundreds of ``POST`` reads declared at once, exact names first, a pattern matching nothing an
error, the same rule for MCP tools (trial X5: every AWS read had to be named)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import Effect, SchemaRouter
from schemarouter.errors import DocumentError, RegistrationError
from schemarouter.index import HashingEncoder

from helpers import openapi_document


def _op(op_id: str, summary: str) -> dict[str, object]:
    return {"operationId": op_id, "summary": summary, "responses": {"200": {"description": "ok"}}}


# the AWS query protocol's shape: every operation a POST
WAREHOUSE = openapi_document(
    "Warehouse",
    {
        "/#DescribeClusters": {"post": _op("DescribeClusters", "Describes warehouse clusters")},
        "/#DescribeSnapshots": {"post": _op("DescribeSnapshots", "Describes cluster snapshots")},
        "/#ListTags": {"post": _op("ListTags", "Lists the tags of a cluster")},
        "/#DeleteCluster": {"post": _op("DeleteCluster", "Deletes a warehouse cluster")},
    },
)


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _effects(router: SchemaRouter) -> dict[str, Effect]:
    return {r.endpoint.name: r.endpoint.effect for r in router.snapshot().routes.values()}


def test_patterns_declare_every_read_of_a_document_at_once() -> None:
    router = _router()
    router.add_openapi(
        WAREHOUSE, provider="warehouse", effect_overrides={"Describe*": "read", "List*": "read"}
    )
    assert _effects(router) == {
        "DescribeClusters": Effect.READ,
        "DescribeSnapshots": Effect.READ,
        "ListTags": Effect.READ,
        "DeleteCluster": Effect.WRITE,  # no pattern names it: its method's effect
    }
    found = router.retrieve_executable("describe my warehouse clusters", k=4)
    assert "warehouse/rest/describe_clusters" in found.route_ids
    assert "warehouse/rest/delete_cluster" not in found.route_ids  # still a write


def test_an_exact_name_wins_over_a_pattern_and_the_first_pattern_over_later_ones() -> None:
    router = _router()
    router.add_openapi(
        WAREHOUSE,
        provider="warehouse",
        effect_overrides={
            "Describe*": "read",
            "DescribeSnapshots": "destructive",  # exact, though written after the pattern
            "*": "write",  # later than Describe*: only what no earlier key took
            "list_*": "read",  # an endpoint id pattern matches as well
        },
    )
    effects = _effects(router)
    assert effects["DescribeClusters"] is Effect.READ
    assert effects["DescribeSnapshots"] is Effect.DESTRUCTIVE
    assert effects["ListTags"] is Effect.WRITE  # "*" came before "list_*"
    assert effects["DeleteCluster"] is Effect.WRITE


def test_a_name_that_names_no_operation_is_refused_a_pattern_matching_none_is_told() -> None:
    router = _router()
    with pytest.raises(DocumentError, match="DescibeClusters") as caught:
        router.add_openapi(
            WAREHOUSE, provider="warehouse", effect_overrides={"DescibeClusters": "read"}
        )
    assert "pattern" in (caught.value.hint or "")
    assert not router.snapshot().routes  # nothing half-registered
    # one set of patterns for a family of documents: Get* matches nothing here
    change = router.add_openapi(
        WAREHOUSE, provider="warehouse", effect_overrides={"Describe*": "read", "Get*": "read"}
    )
    assert "effect_overrides: the pattern 'Get*' matched nothing here" in change.warnings
    assert _effects(router)["DescribeClusters"] is Effect.READ


def test_the_registration_warning_names_a_pattern_and_keeps_quiet_once_it_is_given() -> None:
    router = _router()
    change = router.add_openapi(WAREHOUSE, provider="warehouse")
    note = next(w for w in change.warnings if "whose names read" in w)
    # a pattern for each read verb the names open with: the one for Describe* alone left
    # ListTags a write, and the warning came back (trial z1)
    assert "or by pattern: {'Describe*': 'read', 'List*': 'read'}" in note
    router = _router()
    change = router.add_openapi(
        WAREHOUSE, provider="warehouse", effect_overrides={"Describe*": "read", "List*": "read"}
    )
    assert not [w for w in change.warnings if "whose names read" in w]


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} of a note", "inputSchema": {"type": "object"}}


def test_mcp_tools_take_patterns_too() -> None:
    router = _router()
    router.add_mcp_tools(
        [_tool("get_note"), _tool("get_notes"), _tool("delete_note")],
        provider="notes",
        effect_overrides={"get_*": "read"},
    )
    assert _effects(router) == {
        "get_note": Effect.READ,
        "get_notes": Effect.READ,
        "delete_note": Effect.WRITE,  # an untrusted server's tool: write
    }
    change = _router().add_mcp_tools(
        [_tool("get_note")], provider="notes", effect_overrides={"find_*": "read"}
    )
    assert "effect_overrides: the pattern 'find_*' matched nothing here" in change.warnings
    with pytest.raises(RegistrationError, match="find_note"):
        _router().add_mcp_tools(
            [_tool("get_note")], provider="notes", effect_overrides={"find_note": "read"}
        )


def _on(op_id: str, summary: str, **extra: Any) -> dict[str, object]:
    parameter = {"name": "bucket", "in": "path", "required": True, "schema": {"type": "string"}}
    return {**_op(op_id, summary), "parameters": [parameter], **extra}


# names a document chose to be matched by the operator's family of patterns (trial Y1)
STORE = openapi_document(
    "Store",
    {
        "/b/{bucket}/list": {"post": _on("ListObjects", "Lists the objects of a bucket")},
        "/b/{bucket}/sweep": {
            "post": _on("ListAndSweep", "Sweeps a bucket", **{"x-schemarouter-effect": "write"})
        },
        "/b/{bucket}": {
            "delete": _on("ListAndPurgeBucket", "Deletes a bucket and every object in it"),
            "put": _on("GetOrCreateBucket", "Creates a bucket"),
            "patch": _on(
                "DescribeUpdate", "Updates a bucket", **{"x-schemarouter-effect": "destructive"}
            ),
        },
    },
)


def test_a_pattern_makes_no_delete_put_patch_or_claimed_destruction_laxer() -> None:
    router = _router()
    change = router.add_openapi(
        STORE,
        provider="store",
        effect_overrides={"List*": "read", "Get*": "read", "Describe*": "read"},
    )
    assert _effects(router) == {
        "ListObjects": Effect.READ,  # a POST: what the patterns are for
        "ListAndSweep": Effect.WRITE,  # a POST its document says writes
        "ListAndPurgeBucket": Effect.DESTRUCTIVE,
        "GetOrCreateBucket": Effect.WRITE,
        "DescribeUpdate": Effect.DESTRUCTIVE,
    }
    held = [w for w in change.warnings if "kept" in w and "pattern" in w]
    assert any("'List*'" in w and "'ListAndPurgeBucket'" in w for w in held), change.warnings
    assert len(held) == 4
    found = router.retrieve_executable("list and purge bucket logs", k=4)
    assert "store/rest/list_and_purge_bucket" not in found.route_ids
    # the caller's exact name is still its word for that one operation
    router = _router()
    router.add_openapi(STORE, provider="store", effect_overrides={"ListAndPurgeBucket": "read"})
    assert _effects(router)["ListAndPurgeBucket"] is Effect.READ


def test_a_pattern_makes_no_tool_its_server_says_destroys_laxer() -> None:
    router = _router()
    wipe = {**_tool("get_and_wipe_notes"), "annotations": {"destructiveHint": True}}
    change = router.add_mcp_tools(
        [_tool("get_note"), wipe], provider="notes", effect_overrides={"get_*": "read"}
    )
    assert _effects(router) == {"get_note": Effect.READ, "get_and_wipe_notes": Effect.DESTRUCTIVE}
    assert any("'get_and_wipe_notes'" in w and "kept destructive" in w for w in change.warnings)


def test_a_pattern_makes_no_tool_its_server_says_writes_a_read() -> None:
    router = _router()
    sends = {**_tool("get_and_send_notes"), "annotations": {"readOnlyHint": False}}
    change = router.add_mcp_tools(
        [_tool("get_note"), sends], provider="notes", effect_overrides={"get_*": "read"}
    )
    assert _effects(router) == {"get_note": Effect.READ, "get_and_send_notes": Effect.WRITE}
    assert any("'get_and_send_notes'" in w and "kept write" in w for w in change.warnings)


# the AWS query protocol again: every operation a POST, so only the name tells
JOINED = openapi_document(
    "Archive",
    {
        "/#ListObjects": {"post": _op("ListObjects", "Lists the objects of a bucket")},
        "/#ListUsersAndGroups": {"post": _op("ListUsersAndGroups", "Lists users and groups")},
        "/#DescribeDeletedItems": {"post": _op("DescribeDeletedItems", "Lists deleted items")},
        "/#ListAndPurgeBucket": {"post": _op("ListAndPurgeBucket", "Empties a bucket")},
        "/#GetOrCreateBucket": {"post": _op("GetOrCreateBucket", "Creates a bucket if none")},
    },
)


def test_a_pattern_makes_no_post_whose_name_joins_a_change_a_read() -> None:
    router = _router()
    change = router.add_openapi(
        JOINED, provider="archive", effect_overrides={"List*": "read", "Get*": "read", "D*": "read"}
    )
    assert _effects(router) == {
        "ListObjects": Effect.READ,
        "ListUsersAndGroups": Effect.READ,  # "and" joins two nouns
        "DescribeDeletedItems": Effect.READ,  # "deleted" describes the items
        "ListAndPurgeBucket": Effect.WRITE,
        "GetOrCreateBucket": Effect.WRITE,
    }
    held = [w for w in change.warnings if "joins a change" in w]
    assert len(held) == 2 and any("'ListAndPurgeBucket'" in w for w in held), change.warnings
    found = router.retrieve_executable("purge the bucket logs", k=5)
    assert "archive/rest/list_and_purge_bucket" not in found.route_ids
    # the exact name is still the caller's word, and a stricter pattern still applies
    router = _router()
    router.add_openapi(JOINED, provider="archive", effect_overrides={"ListAndPurgeBucket": "read"})
    assert _effects(router)["ListAndPurgeBucket"] is Effect.READ
    router = _router()
    router.add_openapi(JOINED, provider="archive", effect_overrides={"*Purge*": "destructive"})
    assert _effects(router)["ListAndPurgeBucket"] is Effect.DESTRUCTIVE


def test_a_pattern_makes_no_tool_whose_name_joins_a_change_a_read() -> None:
    router = _router()
    change = router.add_mcp_tools(
        [_tool("get_note"), _tool("get_and_send_notes")],
        provider="notes",
        effect_overrides={"get_*": "read"},
    )
    assert _effects(router) == {"get_note": Effect.READ, "get_and_send_notes": Effect.WRITE}
    assert any("'get_and_send_notes'" in w and "kept write" in w for w in change.warnings)


# trial Z2: the changes a name may join were 31 base verbs; any write verb retrieval knows
# joins one, and so does one a word such as "Also" or "Batch" stands before
JOINED_MORE = openapi_document(
    "Keys",
    {
        "/#ListKeysAndAliases": {"post": _op("ListKeysAndAliases", "Lists keys and aliases")},
        **{
            f"/#{name}": {"post": _op(name, "Does two things")}
            for name in (
                "ListAndRevokeTokens",
                "DescribeAndDeregisterTargets",
                "ListAndDisableUsers",
                "GetOrRotateSecret",
                "ListAndAlsoPurgeBucket",
                "ListAndBatchDeleteItems",
            )
        },
    },
)


# X-Ray's and ECR's shape: reads and a delete that open with the same word (Batch)
TRACES = openapi_document(
    "Traces",
    {
        "/#BatchGetTraces": {"post": _op("BatchGetTraces", "Gets traces by id")},
        "/#BatchDeleteTraces": {"post": _op("BatchDeleteTraces", "Deletes traces by id")},
        "/#GetServiceGraph": {"post": _op("GetServiceGraph", "Gets the service graph")},
        "/#GetTraceGraph": {"post": _op("GetTraceGraph", "Gets the graph of a trace")},
        "/#ReportTraceStatus": {"post": _op("ReportTraceStatus", "Reports a trace's status")},
    },
)


def test_a_pattern_makes_no_post_whose_name_joins_any_change_a_read() -> None:
    router = _router()
    change = router.add_openapi(
        JOINED_MORE,
        provider="keys",
        effect_overrides={"List*": "read", "Get*": "read", "Describe*": "read"},
    )
    effects = _effects(router)
    assert effects.pop("ListKeysAndAliases") is Effect.READ
    assert effects == dict.fromkeys(effects, Effect.WRITE) and len(effects) == 6
    assert len([w for w in change.warnings if "joins a change" in w]) == 6, change.warnings


def test_the_patterns_the_warning_names_declare_what_it_names_and_no_write() -> None:
    router = _router()
    change = router.add_openapi(TRACES, provider="traces")
    note = next(w for w in change.warnings if "whose names read" in w)
    # BatchGet*, not Batch*, which would declare BatchDeleteTraces a read too; a name that
    # opens with no read verb (ReportTraceStatus) is left to be named
    assert "or by pattern: {'BatchGet*': 'read', 'Get*': 'read'}" in note
    router = _router()
    change = router.add_openapi(
        TRACES, provider="traces", effect_overrides={"BatchGet*": "read", "Get*": "read"}
    )
    effects = _effects(router)
    assert effects["BatchGetTraces"] is effects["GetTraceGraph"] is Effect.READ
    assert effects["BatchDeleteTraces"] is Effect.WRITE
    note = next(w for w in change.warnings if "whose name reads" in w)
    assert "(report_trace_status)" in note and "pattern" not in note
