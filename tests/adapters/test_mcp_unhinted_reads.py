"""A trusted server's tools named as reads that say no ``readOnlyHint`` are writes, as
documented, and the registration now says so (user trial 14).

The fintech team's ``get_statement`` and ``list_transfers`` carried no annotation; trusted,
they became writes (``default_effect``), and "Get the statement for account ACC-1002"
planned ``get_account`` in their place, the reads-first rule passing them over. Nothing
said why. The server is real: tests/mcp_servers/ledger_server.py over stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

SERVER = Path(__file__).parents[1] / "mcp_servers" / "ledger_server.py"


def _registered(tmp_path: Path, **options: Any) -> tuple[list[str], dict[str, Effect]]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        change = router.add_mcp_server(
            [sys.executable, str(SERVER)],
            provider="ledger",
            env={"LEDGER_LOG": str(tmp_path / "calls.jsonl")},
            timeout=60,
            **options,
        )
        routes = router.snapshot().routes
        effects = {r.endpoint.name: r.endpoint.effect for r in routes.values()}
        return list(change.warnings), effects
    finally:
        router.close()


def test_reads_with_no_hint_are_writes_and_the_registration_names_them(tmp_path: Path) -> None:
    warnings, effects = _registered(tmp_path, trusted=True)
    assert effects["get_statement"] is Effect.WRITE
    assert effects["list_transfers"] is Effect.WRITE
    named = [w for w in warnings if "no readOnlyHint" in w]
    assert len(named) == 1, warnings
    assert "(list_transfers, get_statement)" in named[0]
    assert "registered as write" in named[0]
    assert "effect_overrides" in named[0]


@pytest.mark.parametrize(
    "options",
    [
        {"trusted": True, "effect_overrides": {"get_*": "read", "list_*": "read"}},
        {"trusted": True, "default_effect": "read"},
        {"trusted": False},  # every tool a write: the held-back warning says why
    ],
)
def test_no_warning_where_the_effect_is_declared_or_the_server_untrusted(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    warnings, _ = _registered(tmp_path, **options)
    assert not [w for w in warnings if "no readOnlyHint" in w]
