"""A Seoul shop's operations team's Korean requests to its own stdio MCP server (user trial 19,
tests/mcp_servers/shop_server.py, which logs every call it receives).

- "고객 C-305에게 문자로 '...' 보내줘" sent ``send_customer_notice`` with the ``channel``
  default, ``kakao``, though the request asks a text message and the parameter's description
  glosses each value ("kakao(카카오톡) 또는 sms(문자)"): a value named by its gloss is taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serving import logged_calls, serving_mcp

from schemarouter import SchemaRouter


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("shop") / "calls.jsonl"
    with serving_mcp("shop_server.py", "shop", "SHOP_LOG", log) as router:
        yield router, log


def _sent(shop: tuple[SchemaRouter, Path], query: str) -> list[tuple[str, dict[str, Any]]]:
    return logged_calls(*shop, query)


def _notice(channel: str, message: str) -> tuple[str, dict[str, Any]]:
    return (
        "send_customer_notice",
        {"customer_id": "C-305", "message": message, "channel": channel},
    )


@pytest.mark.parametrize(
    ("query", "channel"),
    [
        ("고객 C-305에게 문자로 '오늘 발송됩니다' 보내줘", "sms"),
        ("고객 C-305에게 카카오톡 말고 문자로 '오늘 발송됩니다' 보내줘", "sms"),
        ("고객 C-305에게 문자 말고 카카오톡으로 '오늘 발송됩니다' 보내줘", "kakao"),
        ("고객 C-305에게 '오늘 발송됩니다' 보내줘", "kakao"),  # the default: none named
        ("고객 C-305에게 '문자 확인 부탁드려요' 보내줘", "kakao"),  # 문자 of the message
    ],
)
def test_a_value_named_by_the_word_its_description_glosses_it_by(
    shop: tuple[SchemaRouter, Path], query: str, channel: str
) -> None:
    message = "문자 확인 부탁드려요" if "확인" in query else "오늘 발송됩니다"
    assert _sent(shop, query) == [_notice(channel, message)]


def test_the_gloss_is_read_in_the_part_of_a_korean_multi_part_request(
    shop: tuple[SchemaRouter, Path],
) -> None:
    query = "주문 O-1033 취소하고 고객 C-305에게 문자로 '주문이 취소되었습니다' 보내줘"
    assert _sent(shop, query) == [
        ("cancel_order", {"order_id": "O-1033"}),
        _notice("sms", "주문이 취소되었습니다"),
    ]
