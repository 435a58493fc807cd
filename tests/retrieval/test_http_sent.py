"""A request that sends an HTTP request names its change by the method it sends, not by its
verb: "send an HTTP POST to https://api.example.com/orders ..." asks for a POST (a tool named
``..._post``), not a mail (``send_email``). Issue #22's write-intent dev set: the POST tool
ranked 9th, below the catalog's send routes."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import read_request
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.ordering import apply_actions

TOOLS = [
    {"name": name, "description": text, "inputSchema": {"type": "object", "properties": {}}}
    for name, text in (
        ("http_get", "Perform an HTTP GET request"),
        ("http_post", "Perform an HTTP POST request"),
        ("http_put", "Perform an HTTP PUT request"),
        ("send_email", "Send an email"),
    )
]


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        (
            'send an HTTP POST to https://api.example.com/orders with body {"qty":2}',
            ("write", {"post"}),
        ),
        ("make an HTTP DELETE request to https://api.example.com/orders/7", ("write", {"delete"})),
        ("issue a PUT to https://api.example.com/orders/7", ("write", {"create"})),
        ("send a get request to https://api.example.com/orders", ("read", set())),
        # no HTTP request sent: the verb names the change as before
        ("make a post about the launch", ("write", {"create"})),
        ("send an email to bob@example.com", ("write", {"send"})),
    ],
)
def test_the_method_sent_names_the_change(text: str, reading: tuple[str, set[str]]) -> None:
    action, verbs = read_request(text)
    assert (action, set(verbs)) == reading


def test_the_tool_of_the_method_sent_gains_over_the_send_routes() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None, ranking=None
    )
    router.add_mcp_tools({"tools": TOOLS}, provider="web")
    snapshot = router.snapshot()
    ranked = [
        Ranked(f"web/mcp/{name}", score, {"fused": score})
        for name, score in (("send_email", 1.0), ("http_get", 0.99), ("http_post", 0.97))
    ]
    out = apply_actions("send an HTTP POST to https://api.example.com/orders", ranked, snapshot)
    assert [r.route_id.rsplit("/", 1)[-1] for r in out] == ["http_post", "send_email", "http_get"]
    assert "action" not in out[1].scores  # the mail is a write, but not the change asked
