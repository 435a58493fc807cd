"""A Python tool whose return model names its fields by alias (``order_id: str =
Field(alias="orderId")``, as a camelCase API's models do): the route's output schema and
output fields use the aliases, so the value it returns is read by them too."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from pydantic import BaseModel, Field, computed_field

from schemarouter import SchemaRouter
from schemarouter.errors import SchemaRouterError


class Line(BaseModel):
    sku_code: str = Field(alias="skuCode")
    quantity: int


class Order(BaseModel):
    order_id: str = Field(alias="orderId")
    total_eur: float = Field(alias="totalEur")
    lines: list[Line] = []


def get_order(order_id: str) -> Order:
    """Look up one order of the shop."""
    return Order(orderId=order_id, totalEur=42.5, lines=[Line(skuCode="MUG-1", quantity=2)])


def list_orders() -> list[Order]:
    """List the open orders of the shop."""
    return [Order(orderId="O-1", totalEur=1.0), Order(orderId="O-2", totalEur=2.0)]


def test_a_returned_model_with_aliases_is_read_by_its_aliases() -> None:
    """The output schema required ``orderId`` and ``totalEur`` while the returned model was
    dumped by field name (``order_id``, ``total_eur``): every call of the tool failed
    "the raw output breaks the declared output schema: 'orderId' is a required property"."""
    router = SchemaRouter()
    router.add_callable([get_order, list_orders], provider="shop")
    route = router.snapshot().route("shop/python/get_order")
    assert route.endpoint.output_schema is not None
    assert route.endpoint.output_schema["required"] == ["orderId", "totalEur"]

    result = router.call("shop/python/get_order", {"order_id": "O-7"})
    assert result.output == {
        "orderId": "O-7",
        "totalEur": 42.5,
        "lines": [{"skuCode": "MUG-1", "quantity": 2}],
    }
    projected = router.call(
        "shop/python/get_order", {"order_id": "O-7"}, fields=["orderId", "totalEur"]
    )
    assert projected.output == {"orderId": "O-7", "totalEur": 42.5}
    assert projected.fields["orderId"].value == "O-7"
    assert projected.fields["totalEur"].value == 42.5

    listed = router.call("shop/python/list_orders", {})
    assert [o["orderId"] for o in listed.output] == ["O-1", "O-2"]


class Invoice(BaseModel):
    invoice_id: str = Field(serialization_alias="invoiceRef")
    net: float
    vat: float
    internal_note: str = Field(default="", exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def gross(self) -> float:
        return self.net + self.vat


def get_invoice(invoice_id: str) -> Invoice:
    """Look up one invoice of the shop."""
    return Invoice(invoice_id=invoice_id, net=100.0, vat=19.0, internal_note="call back")


def test_a_returned_model_is_described_as_it_is_serialized() -> None:
    """The output schema was pydantic's validation schema of the return model, while the
    value is its serialization: a field with ``exclude=True`` was a required output field the
    value never has, a ``serialization_alias`` was required under the field's own name, and
    a ``computed_field`` was no output field: every call of such a tool failed ("'invoice_id'
    is a required property"). The output schema is now the model's serialization schema."""
    router = SchemaRouter()
    router.add_callable(get_invoice, provider="shop")
    endpoint = router.snapshot().route("shop/python/get_invoice").endpoint
    assert [f.name for f in endpoint.output_fields] == ["invoiceRef", "net", "vat", "gross"]
    result = router.call("shop/python/get_invoice", {"invoice_id": "I-1"})
    assert result.output == {"invoiceRef": "I-1", "net": 100.0, "vat": 19.0, "gross": 119.0}
    gross = router.call("shop/python/get_invoice", {"invoice_id": "I-1"}, fields=["gross"])
    assert gross.fields["gross"].value == 119.0


class Price(BaseModel):
    unit_price: float = Field(alias="unitPrice")


class PriceRow(Price):
    internal_token: str = "tok-123"


def test_a_returned_subclass_gives_the_declared_models_fields_only() -> None:
    """Trial T5: a function declared ``-> Price`` that returned a subclass carrying a field
    of its own (an internal token) sent that field out with the answer, a field no output
    schema or field of the route declares: ``{'unitPrice': 9.5, 'internal_token':
    'tok-123'}``. The value is dumped as the declared type, as pydantic does."""

    def price(sku: str) -> Price:
        """The unit price of a product."""
        return PriceRow(unitPrice=9.5)

    router = SchemaRouter()
    router.add_callable(price, provider="shop")
    assert router.call("shop/python/price", {"sku": "A"}).output == {"unitPrice": 9.5}
    assert asyncio.run(router.acall("shop/python/price", {"sku": "A"})).output == {"unitPrice": 9.5}


class PublicUser(BaseModel):
    name: str
    plan: str = "free"


def test_a_returned_dict_gives_the_declared_models_fields_only() -> None:
    """Trial U1 (medium): a function declared ``-> PublicUser`` that returned a dict (as
    many do) sent every key of it out, ``password_hash`` among them, a field neither the
    output schema nor the output fields of the route declare (the subclass case was fixed,
    the dict was dumped as its own type). A dict that is the declared model gives its
    declared fields; one that is not is dumped and checked as before."""

    def get_user(user_id: str) -> PublicUser:
        """A user's public profile."""
        return {"name": "ann", "password_hash": "$2b$12$secret"}  # type: ignore[return-value]

    def get_users(team: str) -> list[PublicUser]:
        """The public profiles of a team."""
        return [{"name": "ann", "plan": "pro", "api_key": "sk-1"}]  # type: ignore[list-item]

    def get_broken(user_id: str) -> PublicUser:
        """A profile the function gets wrong."""
        return {"name": 5}  # type: ignore[return-value]

    router = SchemaRouter()
    router.add_callable([get_user, get_users, get_broken], provider="crm")
    user = router.call("crm/python/get_user", {"user_id": "u1"})
    assert user.output == {"name": "ann", "plan": "free"}
    users = asyncio.run(router.acall("crm/python/get_users", {"team": "t"}))
    assert users.output == [{"name": "ann", "plan": "pro"}]
    with pytest.raises(SchemaRouterError, match="name"):
        router.call("crm/python/get_broken", {"user_id": "u1"})


class Profile(BaseModel):
    id: int
    name: str
    joined: datetime.datetime


class Team(BaseModel):
    lead: Profile
    members: list[Profile] = []


def test_a_returned_dict_not_strictly_the_model_still_gives_its_declared_fields_only() -> None:
    """Trial V1 (high): the U1 fix kept a returned dict to the declared model's fields only
    where the dict was strictly that model. A row as JSON or a database gives it (its date
    as text "2026-01-01T00:00:00", which the output schema accepts) is not, and went out
    whole: ``password_hash`` and all; so did a dict the output schema refused, under the
    ``partial=True`` its refusal asks for, and nested models and lists of them."""
    row = {"id": 7, "name": "ann", "joined": "2026-01-01T00:00:00", "password_hash": "$2b$x"}

    def get_profile(user_id: str) -> Profile:
        """A user's public profile."""
        return row  # type: ignore[return-value]

    def get_raw_profile(user_id: str) -> Profile:
        """A user's public profile, its id as the database's text."""
        return {**row, "id": "7"}  # type: ignore[return-value]

    def get_team(team: str) -> Team | None:
        """A team's lead and members."""
        return {"lead": row, "members": [row], "budget": 9}  # type: ignore[return-value]

    router = SchemaRouter()
    router.add_callable([get_profile, get_raw_profile, get_team], provider="crm")
    public = {"id": 7, "name": "ann", "joined": "2026-01-01T00:00:00"}
    assert router.call("crm/python/get_profile", {"user_id": "u1"}).output == public
    raw = router.call("crm/python/get_raw_profile", {"user_id": "u1"}, partial=True)
    assert raw.output == {**public, "id": "7"}
    team = asyncio.run(router.acall("crm/python/get_team", {"team": "t"}))
    assert team.output == {"lead": public, "members": [public]}
