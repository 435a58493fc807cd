"""A Seoul shop's operations team's Korean requests to its own stdio MCP server (user trial 19,
tests/mcp_servers/shop_server.py, which logs every call it receives).

- "고객 C-305에게 문자로 '...' 보내줘" sent ``send_customer_notice`` with the ``channel``
  default, ``kakao``, though the request asks a text message and the parameter's description
  glosses each value ("kakao(카카오톡) 또는 sms(문자)"): a value named by its gloss is taken.
- "SKU-77 재고 20개 추가" (and "Add 20 units to stock of SKU-77") planned ``create_shipment``,
  a create of a thing the request does not name, taking none of its ids, before
  ``adjust_stock`` (its 추가, "add", read as a create), and "SKU-12 재고 5개 빼줘" planned
  ``get_stock`` (its 빼 read as a delete): a route that takes a signed count the request adds
  or takes away does that change, and sends it signed (20, -5).
- "11월 매출 리포트 보여줘 2026-11-01 ~ 2026-11-30" sent the report twice, for (11-01, 11-01)
  and (11-30, 11-01); "2026-12-01부터 2026-12-04까지" and a coupon's "2026-12-31까지" read no
  date (the particle on it), and "내일까지 유효한 10% 쿠폰" left ``expires_on`` open.
- "O-1030 refund 해줘 ₩15000" left ``amount_krw`` open (only "15,000원", the unit after the
  number, was read), so the partial refund asked was not sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from forking import in_child
from mcp_serving import logged_calls, serving_mcp

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.planning.date_ranges import date_range


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


@pytest.mark.parametrize(
    ("query", "sku", "delta"),
    [
        ("SKU-77 재고 20개 추가", "SKU-77", 20),
        ("SKU-77 재고 20개 추가해줘", "SKU-77", 20),
        ("Add 20 units to stock of SKU-77", "SKU-77", 20),
        ("SKU-12 재고 5개 빼줘", "SKU-12", -5),
        ("SKU-12 재고 5개 줄여줘", "SKU-12", -5),
        ("SKU-77 재고 20개 늘려줘", "SKU-77", 20),
        ("Remove 5 units from SKU-12 stock", "SKU-12", -5),
    ],
)
def test_a_count_added_or_taken_away_adjusts_the_stock_signed(
    shop: tuple[SchemaRouter, Path], query: str, sku: str, delta: int
) -> None:
    assert _sent(shop, query) == [("adjust_stock", {"sku": sku, "quantity_delta": delta})]


@pytest.mark.parametrize(
    "query",
    [
        "SKU-77 재고 20개 추가",
        "Add 20 units to stock of SKU-77",
        "SKU-12 재고 5개 빼줘",
        "SKU-77 재고 추가해줘",  # no count: the update of SKU-77, its change left missing
    ],
)
def test_no_create_of_another_thing_is_planned_for_a_count_added(
    shop: tuple[SchemaRouter, Path], query: str
) -> None:
    router, _ = shop
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=1)
    assert plan.route_ids == ("shop/mcp/adjust_stock",)


@pytest.mark.parametrize(
    "query",
    [
        "SKU-77 재고 20개 추가하지 마",
        "SKU-12 재고 5개 빼지 마",
        "SKU-77 재고 20개 추가할까?",
        "SKU-77 재고 20개랑 30개 중에 뭐가 나아?",
        "SKU-77 재고 추가해줘",  # no count: the change is left for the caller
    ],
)
def test_no_count_is_sent_where_none_is_asked_or_it_is_unclear(
    shop: tuple[SchemaRouter, Path], query: str
) -> None:
    assert not [call for call in _sent(shop, query) if call[0] == "adjust_stock"]


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("11월 매출 리포트 보여줘 2026-11-01 ~ 2026-11-30", "2026-11-01", "2026-11-30"),
        ("sales report 2026-12-01부터 2026-12-04까지 보여줘", "2026-12-01", "2026-12-04"),
        ("매출 리포트 2026-12-01에서 2026-12-03까지", "2026-12-01", "2026-12-03"),
        ("Show the sales report from 2026-12-01 to 2026-12-04", "2026-12-01", "2026-12-04"),
    ],
)
def test_a_range_of_dates_fills_its_start_and_its_end(
    shop: tuple[SchemaRouter, Path], query: str, start: str, end: str
) -> None:
    assert _sent(shop, query) == [
        ("get_sales_report", {"start_date": start, "end_date": end}),
    ]


@pytest.mark.parametrize(
    "query",
    [
        "매출 리포트 2026-12-04 ~ 2026-12-01",  # its end before its start
        "매출 리포트 2026-12-01, 2026-12-03, 2026-12-05",
    ],
)
def test_dates_that_are_no_range_are_left_open(shop: tuple[SchemaRouter, Path], query: str) -> None:
    assert _sent(shop, query) == []


def _coupon(expires_on: str, percent: int | None, krw: int | None) -> tuple[str, dict[str, Any]]:
    return (
        "create_coupon",
        {"expires_on": expires_on, "discount_percent": percent, "discount_krw": krw},
    )


def test_a_date_with_a_korean_particle_on_it_is_read(shop: tuple[SchemaRouter, Path]) -> None:
    query = "5,000원 할인 쿠폰 만들어줘, 2026-12-31까지"
    assert _sent(shop, query) == [_coupon("2026-12-31", None, 5000)]


@pytest.mark.parametrize(
    "query",
    [
        "내일까지 유효한 10% 쿠폰 만들어줘",
        "오늘 말고 내일까지 유효한 10% 쿠폰 만들어줘",
        "Create a 10% coupon valid until tomorrow",
    ],
)
def test_a_changes_one_date_takes_the_day_its_day_word_names(
    shop: tuple[SchemaRouter, Path], query: str
) -> None:
    before = date.today()
    sent = _sent(shop, query)
    days = {(day + timedelta(days=1)).isoformat() for day in (before, date.today())}
    assert len(sent) == 1 and sent[0][0] == "create_coupon"
    assert sent[0][1]["expires_on"] in days and sent[0][1]["discount_percent"] == 10


def test_two_day_words_name_no_date(shop: tuple[SchemaRouter, Path]) -> None:
    assert _sent(shop, "오늘이나 내일까지 유효한 10% 쿠폰 만들어줘") == []


@pytest.mark.parametrize(
    ("query", "order", "amount"),
    [
        ("O-1030 refund 해줘 ₩15000", "O-1030", 15000),
        ("주문 O-1024 ₩15,000 환불해줘", "O-1024", 15000),
        ("Refund order O-1031 KRW 20000", "O-1031", 20000),
        ("주문 O-1024 환불해줘 15,000원", "O-1024", 15000),
        ("주문 O-1027 1만5천원 부분 환불해줘", "O-1027", 15000),
    ],
)
def test_a_sum_in_the_currency_an_amount_is_named_for_is_read_either_side(
    shop: tuple[SchemaRouter, Path], query: str, order: str, amount: int
) -> None:
    assert _sent(shop, query) == [("refund_order", {"order_id": order, "amount_krw": amount})]


def test_a_sum_in_another_currency_fills_no_amount(shop: tuple[SchemaRouter, Path]) -> None:
    assert _sent(shop, "Refund $20 of order O-1031") == []


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        (
            "SKU-55 재고 12개 추가하고 고객 C-305에게 문자로 '재입고 되었습니다' 보내줘",
            [
                ("adjust_stock", {"sku": "SKU-55", "quantity_delta": 12}),
                _notice("sms", "재입고 되었습니다"),
            ],
        ),
        (
            "고객 C-305에게 '확인하고 연락 주세요' 보내고 주문 O-1033 취소해줘",
            [_notice("kakao", "확인하고 연락 주세요"), ("cancel_order", {"order_id": "O-1033"})],
        ),
    ],
)
def test_a_korean_and_inside_a_quote_joins_no_parts(
    shop: tuple[SchemaRouter, Path], query: str, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    assert _sent(shop, query) == sent


@pytest.mark.parametrize(
    "query",
    [
        "결제 완료된 주문 알려줘",
        "paid 주문만 보여줘",
        "Show me the paid orders",
        "결제 완료된 주문만 보여줘",  # ranked the list above the get here already
    ],
)
def test_a_list_by_what_the_request_states_before_a_get_it_gives_no_id_for(
    shop: tuple[SchemaRouter, Path], query: str
) -> None:
    assert _sent(shop, query) == [("list_orders", {"status": "paid"})]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("O-1024 주문 상세 알려줘", [("get_order", {"order_id": "O-1024"})]),
        ("주문 상세 알려줘", []),  # states nothing the list takes: the get, its id missing
    ],
)
def test_a_get_stays_where_the_request_gives_its_id_or_states_nothing(
    shop: tuple[SchemaRouter, Path], query: str, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    assert _sent(shop, query) == sent


def test_blanks_between_two_dates_are_read_once(shop: tuple[SchemaRouter, Path]) -> None:
    """What joins two dates was read back and forth over the blanks between them (as first
    written, 6,000 blanks and a word took 191 s); a generous bound catches a blow-up."""
    router, _ = shop
    route = router.registry.snapshot().routes["shop/mcp/get_sales_report"]
    query = "매출 리포트 2026-11-01" + " " * 60_000 + "x 2026-11-30"
    answer, result = in_child(lambda: date_range(route, query))
    assert (answer, result) == ("ok", {"start_date": None, "end_date": None})


@pytest.mark.parametrize(
    "query",
    [
        "내일까지 유효한 120% 쿠폰 만들어줘",
        "Create a 95% coupon valid until 2026-12-31",
        "2026-12-31까지 유효한 0.5% 쿠폰 만들어줘",
        "₩-5000 할인 쿠폰 만들어줘, 2026-12-31까지",
    ],
)
def test_a_discount_its_schema_refuses_creates_no_coupon_without_it(
    shop: tuple[SchemaRouter, Path], query: str
) -> None:
    """The nineteenth security review: the discount (``ge=1, le=90``; ``gt=0``) dropped out
    and the coupon was created with ``expires_on`` alone, a coupon of no discount."""
    router, _ = shop
    assert _sent(shop, query) == []
    plan = router.plan(PlanRequest(query=query, allowed_effects=[Effect.READ, Effect.WRITE]))
    assert any("the change is not sent without it" in w for w in plan.warnings), plan.warnings
