"""A POST registered ``write`` by its method whose name deletes (AWS's ``DeleteTable``,
``PurgeQueue``, ``BatchDeleteImage``: every operation a POST) is named in the registration's
warnings, with the override that declares it destructive (user trial Y3). Before, nothing
said so: a gateway's ``allow.write`` on such a provider ran ``DeleteTable`` without the
approval ``allow.destructive`` stands for, while POSTs whose names read were warned of."""

from __future__ import annotations

from schemarouter import Effect, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import openapi_document


def _op(op_id: str, summary: str) -> dict[str, object]:
    return {"operationId": op_id, "summary": summary, "responses": {"200": {"description": "ok"}}}


# the AWS query protocol's shape: every operation a POST, the action in the path key
TABLES = openapi_document(
    "Tables",
    {
        "/#DescribeTable": {"post": _op("DescribeTable", "Describes a table")},
        "/#DeleteTable": {"post": _op("DeleteTable", "Deletes a table and all of its items")},
        "/#BatchDeleteItems": {"post": _op("BatchDeleteItems", "Deletes items in a batch")},
        "/#PurgeTable": {"post": _op("PurgeTable", "Removes every item of a table")},
        "/#PutItem": {"post": _op("PutItem", "Writes an item")},
        "/tables/{name}": {
            "delete": {
                **_op("DropTable", "Drops a table"),
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
            }
        },
    },
)


def _change(**overrides: str):  # type: ignore[no-untyped-def]
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    change = router.add_openapi(
        TABLES, provider="tables", effect_overrides={"Describe*": "read", **overrides}
    )
    effects = {r.endpoint.name: r.endpoint.effect for r in router.snapshot().routes.values()}
    return change, effects


def test_the_registration_warns_of_posts_whose_names_delete() -> None:
    change, effects = _change()
    assert effects["DeleteTable"] is Effect.WRITE  # the method's effect, as before
    note = next(w for w in change.warnings if "whose names delete" in w)
    assert "3 POST operations" in note
    assert all(name in note for name in ("delete_table", "batch_delete_items", "purge_table"))
    assert "put_item" not in note  # a write that deletes nothing
    assert "drop_table" not in note  # a DELETE: destructive by its method already
    assert "allow.write" in note and "destructive" in note
    assert "effect_overrides={'batch_delete_items': 'destructive', ...}" in note
    assert "{'Delete*': 'destructive'}" in note
    assert not any("whose name reads" in w or "whose names read" in w for w in change.warnings)


def test_posts_declared_by_the_caller_are_not_warned_of() -> None:
    change, effects = _change(**{"Delete*": "destructive", "*Delete*": "destructive"})
    assert effects["DeleteTable"] is Effect.DESTRUCTIVE
    note = next(w for w in change.warnings if "whose name deletes" in w)
    assert "1 POST operation " in note and "(purge_table)" in note
    # the caller's word, whatever it is, is not second-guessed
    change, effects = _change(PurgeTable="write", **{"*Delete*": "destructive"})
    assert effects["PurgeTable"] is Effect.WRITE
    assert not any("delete" in w for w in change.warnings), change.warnings
