"""A read's enum filter takes the state a Korean word describes its entries by (trial Y2:
"열려 있는 티켓 목록 보여줘" listed every ticket, closed ones too; English "open tickets" names
the value itself)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter.planning.arguments import fill_arguments

from helpers import hashing_router, page

_STATUS = {"type": "string", "enum": ["open", "closed", "cancelled", "refunded"]}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Desk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "parameters": [{"name": "status", "in": "query", "schema": _STATUS}],
                "responses": page({"type": "object", "properties": {"id": {"type": "string"}}}),
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("열려 있는 티켓 목록 보여줘", {"status": "open"}),
        ("열린 티켓 보여줘", {"status": "open"}),
        ("닫힌 티켓 보여줘", {"status": "closed"}),
        ("취소된 건 목록", {"status": "cancelled"}),
        ("환불된 것만 보여줘", {"status": "refunded"}),
        # refused, or two states: left open
        ("닫힌 티켓 말고 다 보여줘", {}),
        ("열린 티켓이랑 닫힌 티켓 보여줘", {}),
        ("티켓 목록 보여줘", {}),
    ],
)
def test_a_korean_state_word_fills_a_reads_enum(
    request_text: str, arguments: dict[str, str]
) -> None:
    route = hashing_router(DOCUMENT, provider="d").snapshot().routes["d/rest/list_tickets"]
    assert fill_arguments(route, request_text, ()) == arguments
