"""A tool that says it only reads, from a server not marked trusted, is registered as a write,
and the registration says so (trial X3).

A support team connected its own stdio server with ``add_mcp_server`` and no ``trusted=True``;
its ``search_help_articles`` (``readOnlyHint: true``) became a write with no word: the
approval callback was asked about a search, and ``plan`` passed the tool over for a worse
read. The rule stays (an untrusted server's hints never make a tool a read); the change's
warnings name such tools and the two ways to say they read."""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


def _tool(name: str, **annotations: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": name,
        "description": f"{name} of the help centre",
        "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
    }
    if annotations:
        tool["annotations"] = annotations
    return tool


LISTING = {
    "tools": [
        _tool("search_help_articles", readOnlyHint=True),
        _tool("list_macros", readOnlyHint=True),
        _tool("send_customer_email", readOnlyHint=False),
        _tool("escalate"),
    ]
}


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_an_untrusted_servers_read_only_tools_are_named_in_the_warnings() -> None:
    router = _router()
    change = router.add_mcp_tools(LISTING, provider="helpdesk")
    effects = {r.endpoint.name: r.endpoint.effect.value for r in router.snapshot()}
    assert effects["search_help_articles"] == "write"  # the rule holds
    (warning,) = [w for w in change.warnings if "readOnlyHint" in w]
    assert "search_help_articles, list_macros" in warning
    assert "send_customer_email" not in warning and "escalate" not in warning
    assert "trusted=True" in warning and "effect_overrides" in warning


def test_a_trusted_server_or_an_override_says_nothing() -> None:
    trusted = _router().add_mcp_tools(LISTING, provider="helpdesk", trusted=True)
    assert not [w for w in trusted.warnings if "readOnlyHint" in w]
    overridden = _router().add_mcp_tools(
        LISTING,
        provider="helpdesk",
        effect_overrides={"search_help_articles": "read", "list_macros": "write"},
    )
    assert not [w for w in overridden.warnings if "readOnlyHint" in w]
