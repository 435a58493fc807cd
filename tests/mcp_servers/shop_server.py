"""A small real MCP server (stdio) of a Seoul online shop's operations, for the planning tests
of Korean requests (user trial 19): orders (list, get, refund in KRW, cancel), shipments
(create by weight in kg, track), stock (get, adjust by a signed quantity), coupons (create,
a percent or a KRW amount off until a date), customer notices (KakaoTalk or SMS) and a sales
report for a date range. Three descriptions are in Korean, as the team wrote them. Every call
is appended to ``$SHOP_LOG`` as one JSON line ``{"tool": ..., "arguments": {...}}``; nothing
is stored.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("shop")
READ = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True)

OrderId = Annotated[str, Field(description="Order id, e.g. O-1024", pattern=r"^O-\d+$")]
CustomerId = Annotated[str, Field(description="Customer id, e.g. C-301", pattern=r"^C-\d+$")]
Sku = Annotated[str, Field(description="Stock keeping unit, e.g. SKU-77", pattern=r"^SKU-\d+$")]


def _log(tool: str, **arguments: object) -> dict[str, object]:
    with open(os.environ["SHOP_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}, default=str) + "\n")
    return {"ok": True, "tool": tool}


@server.tool(title="List orders", annotations=READ)
def list_orders(
    status: Annotated[
        Literal["paid", "shipped", "cancelled", "refunded"] | None,
        Field(description="Only orders in this status"),
    ] = None,
) -> dict[str, object]:
    """List the shop's orders, optionally in one status."""
    return _log("list_orders", status=status)


@server.tool(title="Get an order", annotations=READ)
def get_order(order_id: OrderId) -> dict[str, object]:
    """One order by its id: items, paid amount in KRW, status, refunds and shipment."""
    return _log("get_order", order_id=order_id)


@server.tool(title="Refund an order", annotations=WRITE)
def refund_order(
    order_id: OrderId,
    amount_krw: Annotated[
        int | None,
        Field(description="Amount to refund in KRW (won); omit for a full refund", gt=0),
    ] = None,
) -> dict[str, object]:
    """Refund a paid order to the customer's card, fully or partly (amount in KRW)."""
    return _log("refund_order", order_id=order_id, amount_krw=amount_krw)


@server.tool(title="Cancel an order", annotations=DESTROY)
def cancel_order(order_id: OrderId) -> dict[str, object]:
    """Cancel an order that has not shipped yet. The payment is voided."""
    return _log("cancel_order", order_id=order_id)


@server.tool(title="Create a shipment", annotations=WRITE)
def create_shipment(
    order_id: OrderId,
    weight_kg: Annotated[float, Field(description="Parcel weight in kg", gt=0)],
) -> dict[str, object]:
    """Book a courier pickup (parcel shipment) for an order; returns the shipment id."""
    return _log("create_shipment", order_id=order_id, weight_kg=weight_kg)


@server.tool(title="Get stock of a SKU", annotations=READ)
def get_stock(sku: Sku) -> dict[str, object]:
    """How many units of a SKU are in stock."""
    return _log("get_stock", sku=sku)


@server.tool(title="재고 조정", annotations=WRITE)
def adjust_stock(
    sku: Sku,
    quantity_delta: Annotated[int, Field(description="더할 수량 (+), 뺄 수량은 음수 (-)")],
) -> dict[str, object]:
    """SKU 재고 수량을 늘리거나 줄입니다 (+/- 수량)."""
    return _log("adjust_stock", sku=sku, quantity_delta=quantity_delta)


@server.tool(title="Create a coupon", annotations=WRITE)
def create_coupon(
    expires_on: Annotated[dt.date, Field(description="Last day the coupon is valid")],
    discount_percent: Annotated[int | None, Field(description="Percent off", ge=1, le=90)] = None,
    discount_krw: Annotated[int | None, Field(description="Fixed amount off in KRW", gt=0)] = None,
) -> dict[str, object]:
    """Create a discount coupon: a percent or a fixed KRW amount off, valid until a date."""
    return _log(
        "create_coupon",
        expires_on=expires_on,
        discount_percent=discount_percent,
        discount_krw=discount_krw,
    )


@server.tool(title="고객 알림 보내기", annotations=WRITE)
def send_customer_notice(
    customer_id: CustomerId,
    message: Annotated[str, Field(description="보낼 메시지 내용")],
    channel: Annotated[
        Literal["kakao", "sms"], Field(description="kakao(카카오톡) 또는 sms(문자)")
    ] = "kakao",
) -> dict[str, object]:
    """고객에게 카카오톡 알림톡 또는 SMS 문자를 보냅니다."""
    return _log("send_customer_notice", customer_id=customer_id, message=message, channel=channel)


@server.tool(title="매출 리포트", annotations=READ)
def get_sales_report(
    start_date: Annotated[dt.date, Field(description="시작일 (YYYY-MM-DD)")],
    end_date: Annotated[dt.date, Field(description="종료일 (YYYY-MM-DD)")],
) -> dict[str, object]:
    """기간별 매출 리포트: 주문 수, 매출액(원), 환불액(원)."""
    return _log("get_sales_report", start_date=start_date, end_date=end_date)


if __name__ == "__main__":
    server.run()
