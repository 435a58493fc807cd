"""A conversion's sides and a number's unit, as ``plan`` fills them from the request (trial Y).

``plan("convert 30 USD to euros")`` on ``convert_price(amount, to: Currency)`` bound
``to="USD"``, the first currency named, the one the money is converted from, and left
``amount`` open while its warnings called 30 "a convert id". Enum values now bind to a
conversion's target or source only on the side the words give them, and a number binds
where it carries a unit the parameter's name ends with, or a conversion's code.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder


class Currency(StrEnum):
    USD = "USD"
    EUR = "EUR"
    GBP = "GBP"


RATES = {"USD": 1.0, "EUR": 0.9, "GBP": 0.8}


def convert_price(amount: float, to: Currency) -> float:
    """Convert a price in US dollars to another currency."""
    return round(amount * RATES[to.value], 2)


def exchange(amount: float, from_currency: Currency, to_currency: Currency) -> float:
    """Exchange money from one currency to another."""
    return round(amount / RATES[from_currency.value] * RATES[to_currency.value], 2)


def shipping_quote(weight_kg: float, country: str = "DE") -> float:
    """Quote the price of shipping a parcel abroad."""
    return 4.0 + 2.0 * weight_kg


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_callable([convert_price, exchange], provider="money")
    router.add_callable(shipping_quote, provider="post")
    return router


def _arguments(router: SchemaRouter, request: str, route: str) -> dict[str, Any]:
    plan = router.plan(PlanRequest(query=request, providers=(route.split("/")[0],)))
    (step,) = [s for s in plan.steps if s.route_id == route]
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("convert 30 USD to EUR", {"amount": 30, "to": "EUR"}),
        ("convert 12.5 USD into GBP", {"amount": 12.5, "to": "GBP"}),
        ("what is 30 USD in EUR", {"amount": 30, "to": "EUR"}),
        # "euros" is no enum value: the target stays open rather than take USD
        ("convert 30 USD to euros", {"amount": 30}),
    ],
)
def test_a_target_binds_only_to_what_the_request_converts_to(
    router: SchemaRouter, request_text: str, expected: dict[str, Any]
) -> None:
    assert _arguments(router, request_text, "money/python/convert_price") == expected


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("exchange 30 USD to EUR", {"amount": 30, "from_currency": "USD", "to_currency": "EUR"}),
        ("exchange 30 from GBP into EUR", {"from_currency": "GBP", "to_currency": "EUR"}),
        ("30 USD를 EUR로 환전", {"amount": 30, "from_currency": "USD", "to_currency": "EUR"}),
        ("exchange 30 EUR from USD", {"amount": 30, "from_currency": "USD"}),
        # two codes, no word for either side: both sides stay open
        ("exchange 30 USD EUR", {"amount": 30}),
    ],
)
def test_both_sides_bind_where_the_words_say_which(
    router: SchemaRouter, request_text: str, expected: dict[str, Any]
) -> None:
    assert _arguments(router, request_text, "money/python/exchange") == expected


def test_a_number_binds_where_its_unit_is_the_parameters(router: SchemaRouter) -> None:
    route = "post/python/shipping_quote"
    assert _arguments(router, "how much to ship a 3 kg parcel", route) == {"weight_kg": 3}
    assert _arguments(router, "ship 2.5kg to Germany", route) == {"weight_kg": 2.5}
    # two weights: which one is not the planner's to guess
    assert _arguments(router, "ship 3 kg and 4 kg", route) == {}
    assert _arguments(router, "ship parcel 3 to Germany", route) == {}


def test_the_plan_runs_the_conversion_asked_for_and_an_open_side_is_refused(
    router: SchemaRouter,
) -> None:
    done = router.execute(
        router.plan(PlanRequest(query="convert 30 USD to EUR", providers=("money",)))
    )
    assert done.steps[0].output == 27.0
    with pytest.raises(ParameterValidationError, match="'to' is a required property"):
        router.execute(
            router.plan(PlanRequest(query="convert 30 USD to euros", providers=("money",)))
        )


def test_a_number_with_thousands_separators_binds_whole(router: SchemaRouter) -> None:
    """Trial K: "ship a 1,500 kg pallet" bound ``weight_kg=500`` (the digits after the comma)
    and the plan ran with it; "12,000 km" read as 000. A number with thousands separators
    is read whole, and a decimal comma ("1,5 kg") binds nothing rather than 5."""
    route = "post/python/shipping_quote"
    assert _arguments(router, "ship a 1,500 kg pallet to Germany", route) == {"weight_kg": 1500}
    assert _arguments(router, "ship a 1,5 kg parcel to Germany", route) == {}
    plan = router.plan(PlanRequest(query="ship a 1,500 kg pallet", providers=("post",)))
    assert router.execute(plan).steps[0].output == 3004.0


def coupon_value(discount_krw: int, days: int = 30) -> dict[str, int]:
    """Price a discount coupon in won."""
    return {"discount_krw": discount_krw, "days": days}


@pytest.mark.parametrize(
    ("request_text", "route", "expected"),
    [
        ("2.5킬로그램 소포 배송비", "post/python/shipping_quote", {"weight_kg": 2.5}),
        ("1,500킬로그램 화물 배송비", "post/python/shipping_quote", {"weight_kg": 1500}),
        # the bare 킬로 is a kilogram or a kilometre: which is not the planner's to guess
        ("2.5킬로 소포 배송비", "post/python/shipping_quote", {}),
        ("50,000원짜리 쿠폰 가격", "shop/python/coupon_value", {"discount_krw": 50000}),
        ("5000원 쿠폰", "shop/python/coupon_value", {"discount_krw": 5000}),
        # Korean number words count: 3만원 is 30,000 won, never 3
        ("3만원 쿠폰", "shop/python/coupon_value", {"discount_krw": 30000}),
        ("2만 5천원 쿠폰", "shop/python/coupon_value", {"discount_krw": 25000}),
        ("5천원짜리 쿠폰", "shop/python/coupon_value", {"discount_krw": 5000}),
    ],
)
def test_a_number_binds_by_its_unit_written_in_korean(
    router: SchemaRouter, request_text: str, route: str, expected: dict[str, Any]
) -> None:
    """Trial K: a Korean team's "2.5킬로그램" and "50,000원" bound nothing (only "2.5 kg"
    did); each parameter stayed open though the request wrote its value with its unit."""
    router.add_callable(coupon_value, provider="shop", replace=True)
    assert _arguments(router, request_text, route) == expected
    if expected:
        plan = router.plan(PlanRequest(query=request_text, providers=(route.split("/")[0],)))
        assert router.execute(plan).steps[0].arguments == expected


@pytest.mark.parametrize("digits", ["9" * 400, "9" * 5000 + ".5", "12345678901234567890"])
def test_a_korean_amount_past_reason_plans_without_a_crash(
    router: SchemaRouter, digits: str
) -> None:
    """User trial X3: "주문 ORD-20240001 <400 nines>만원 환불해줘" crashed SchemaRouter.plan
    with OverflowError ('cannot convert float infinity to integer'): the Korean number
    words' reading made the digits a float, infinite, and int() of it raised. A number no
    float holds exactly is read as no amount."""
    router.add_callable(coupon_value, provider="shop", replace=True)
    assert _arguments(router, f"{digits}만원 쿠폰", "shop/python/coupon_value") == {}
    plan = router.plan(f"주문 ORD-20240001 {digits}만원 쿠폰 환불해줘")
    assert not [w for w in plan.warnings if "9999999999" in w]


def refund_quote(order_total_eur: float, days_since_delivery: int) -> dict[str, float]:
    """Work out how much of an order total can be refunded."""
    return {"refund_eur": order_total_eur}


def postage(price_usd: float) -> float:
    """Price a label for a parcel."""
    return price_usd


@pytest.mark.parametrize(
    ("request_text", "route", "expected"),
    [
        ("how much can we refund on an 89.90 EUR order", "desk/python/refund_quote", 89.9),
        ("refund quote for a 40 euro order", "desk/python/refund_quote", 40),
        ("refund quote for a 1,200 euros order", "desk/python/refund_quote", 1200),
        ("refund quote for a 25 € order", "desk/python/refund_quote", 25),
        ("postage label priced 12.5 USD", "desk/python/postage", 12.5),
        ("postage label priced 7 dollars", "desk/python/postage", 7),
    ],
)
def test_a_money_amount_binds_to_the_parameter_its_currency_ends(
    router: SchemaRouter, request_text: str, route: str, expected: float
) -> None:
    """Trial X3: "how much can we refund on an 89.90 EUR order" left ``order_total_eur``
    open while the plan's warnings said no step takes 89.90; "3 kg" bound ``weight_kg``,
    and "50,000원" ``discount_krw``, but no other currency a name ends with bound."""
    router.add_callable([refund_quote, postage], provider="desk", replace=True)
    name = "order_total_eur" if route.endswith("refund_quote") else "price_usd"
    assert _arguments(router, request_text, route) == {name: expected}


def test_a_money_amount_of_another_currency_binds_nothing(router: SchemaRouter) -> None:
    router.add_callable([refund_quote, postage], provider="desk", replace=True)
    assert _arguments(router, "refund on a 30 USD order", "desk/python/refund_quote") == {}
    assert _arguments(router, "postage label priced 12 EUR", "desk/python/postage") == {}
