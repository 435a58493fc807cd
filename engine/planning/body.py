"""The top-level properties of a route's JSON request body, read as parameters.

An OpenAPI JSON ``requestBody`` (a Swagger 2 ``body`` parameter) is one parameter holding the
whole payload (:mod:`schemarouter.adapters.openapi`: ``x-schemarouter-body`` style
``whole``). Where its schema is an object that declares ``properties``, each top-level
property is read here as a :class:`~schemarouter.contracts.Parameter` of its own
(:func:`body_fields`), so the planner fills it from the request by the rules it fills path and
query parameters by (:func:`schemarouter.planning.arguments.fill_arguments`), and a plan names
it ``body.<property>`` (:func:`body_key`) where it is missing or bound to an earlier step's
output (:mod:`.links`); execution sets a bound one inside the body (:func:`with_bound`) and
gates the whole body again before the call. Form bodies need none of this: each form field is
a parameter already.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from pydantic import ValidationError

from schemarouter.contracts import (
    SEMANTIC_ID_PATTERN,
    Effect,
    Parameter,
    ParameterLocation,
    Route,
    schema_validator,
)
from schemarouter.planning.numbers import NUMBER_WORDS
from schemarouter.registry.defs import attach_defs
from schemarouter.retrieval.actions import name_words, request_action
from schemarouter.retrieval.identifiers import is_plural
from schemarouter.retrieval.values import value_schema

__all__ = [
    "BodyFields",
    "acts_on_entry",
    "body_fields",
    "body_key",
    "body_property",
    "bound_parameter",
    "held_open",
    "holds",
    "partial_body",
    "pending_body",
    "says_more",
    "sent_empty",
    "with_bound",
    "without_required",
]

#: The input-schema annotation the OpenAPI adapter writes (``adapters.openapi.BODY_EXTENSION``).
_BODY_NOTE = "x-schemarouter-body"


class BodyFields(NamedTuple):
    """A route's JSON body parameter and its top-level properties as parameters."""

    parameter: Parameter
    properties: tuple[Parameter, ...]

    def property(self, name: str) -> Parameter | None:
        return next((p for p in self.properties if p.name == name), None)


def body_fields(route: Route) -> BodyFields | None:
    """The route's whole JSON body parameter, and each property its object schema declares
    at the top (required as the schema's ``required`` says; a ``readOnly`` one left out: the
    server sets it); ``None`` where the route has no such body (no body, a form, a body that
    is no object or declares no properties, or one the schema composes with
    ``allOf`` / ``oneOf``). A Python callable's or an MCP tool's one argument that is such an
    object (a pydantic model or a dataclass: ``create_deal(deal: NewDeal)``) is read as its
    body (user trial 20: "create a deal for Initech called 'Pilot extension', 8,000 EUR,
    closing 2027-01-15" left ``deal`` missing whole, none of its properties filled)."""
    declared = [p for p in route.endpoint.parameters if p.location is ParameterLocation.BODY]
    if not declared:
        declared = _model_argument(route)
    if len(declared) != 1:
        return None
    body = declared[0]
    note = route.endpoint.input_schema.get(_BODY_NOTE)
    note = note if isinstance(note, Mapping) else {}
    style = note.get("style") or ("whole" if body.name in ("body", "request_body") else None)
    if body.location is ParameterLocation.ARGUMENT:
        style = "whole"
    if style != "whole" or "json" not in str(note.get("media_type") or "application/json"):
        return None
    schema = value_schema(body.json_schema)
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping):
        return None
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    found: list[Parameter] = []
    for name, sub in properties.items():
        if not isinstance(name, str) or not isinstance(sub, Mapping) or sub.get("readOnly"):
            continue
        try:
            found.append(
                Parameter(
                    name=name,
                    location=ParameterLocation.BODY,
                    json_schema=attach_defs(dict(sub), schema.get("$defs")),
                    required=name in required,
                    description=str(sub.get("description") or ""),
                    **_semantic(sub),
                )
            )
        except ValidationError:  # a property no parameter could be named like: not filled
            continue
    return BodyFields(body, tuple(found)) if found else None


def _model_argument(route: Route) -> list[Parameter]:
    """A callable's or a tool's one argument, where it is required and an object that
    declares properties (``[deal]`` of ``create_deal(deal: NewDeal)``); else none."""
    parameters = route.endpoint.parameters
    if len(parameters) != 1 or parameters[0].location is not ParameterLocation.ARGUMENT:
        return []
    schema = value_schema(parameters[0].json_schema)
    if not parameters[0].required or not isinstance(schema.get("properties"), Mapping):
        return []
    return [parameters[0]]


def _semantic(schema: Mapping[str, Any]) -> dict[str, str]:
    """A body property's ``x-semantic-id``, where it is one: its values bind by kind as a
    parameter's do (a formula into ``body.formula``); another is no id (the adapter said so
    where it read the document's parameters and fields)."""
    declared = schema.get("x-semantic-id")
    if (
        isinstance(declared, str)
        and len(declared) <= 128
        and re.fullmatch(SEMANTIC_ID_PATTERN, declared)
    ):
        return {"semantic_id": declared}
    return {}


#: What asks for less or other than an action's default: a word that qualifies it
#: ("partially", "half", "only the shipping", "일부"), an amount or a part in words ("twenty
#: euros", "a third", "이만원", "3분의 1": trial V3, each refunded in full), or a number left
#: once the ids ("O-5001", "ch_500") and a thing's number ("order number 10042") are read
#: out: "refund €20 on order O-5001".
_QUALIFIED = re.compile(
    r"\b(?:partial(?:ly)?|part|half|portion|percent|minus|except|up\s+to|(?<!my\s)(?<!the\s)only"
    r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen)"
    r"|(?:third|quarter|fifth|tenth)s?|euros?|dollars?|cents?|pounds?|bucks|yen"
    r"|eur|usd|gbp|jpy|krw"
    # a part named, or another way than the default (trial Y1: "refund order O-1's shipping
    # fee", "... to store credit" each refunded in full)
    r"|shipping|fees?|tax(?:es)?|credit|restocking|keep|without)\b"
    r"|%|일부|절반|부분|만큼|퍼센트|분의|달러|유로|엔화|배송비|수수료|세금|적립금|빼고|제외"
    r"|(?<![가-힣])[일이삼사오육칠팔구십백천만억]+\s?원",
    re.I,
)
_READ_OUT = re.compile(
    rf"\b[A-Za-z]+\s+{NUMBER_WORDS}\d[\w-]*|(?<![\w.])[A-Za-z][\w.@-]*\d[\w.@-]*"
)


def says_more(query: str) -> bool:
    """Whether ``query`` gives more than the action and its entry (:data:`_QUALIFIED`): a
    value no property took may be meant for the body, whose default would then do another
    thing than asked (a refund in full for "refund €20")."""
    return bool(_QUALIFIED.search(query) or re.search(r"\d", _READ_OUT.sub(" ", query)))


#: A verb that undoes, stops or refuses an action, and the Korean ones by the English word a
#: route's name would use: "Cancel the refund of order O-1", "주문 O-1 환불 취소해줘" ask another
#: change than the refund, whose default would be sent instead (trial Y1: a refund in full).
_UNDOES = re.compile(
    r"\b(cancel|stop|block|prevent|undo|reverse|revoke|void|halt|abort|reject|decline|deny"
    r"|dispute|freeze|suspend|pause)\w*|(취소|철회|중지|중단|막아|거절|거부|보류)",
    re.I,
)
_KO_UNDOES = {"취소": "cancel", "철회": "revoke", "중지": "stop", "중단": "stop", "막아": "block"}
_KO_UNDOES |= {"거절": "reject", "거부": "reject", "보류": "hold"}


def _undoes(route: Route, query: str) -> bool:
    """Whether ``query`` asks to undo or stop something (:data:`_UNDOES`) ``route`` is not
    named for (``cancel_order`` is the cancelling; ``refund_order`` is not)."""
    named = set(name_words(route.endpoint.name))
    return any(
        (m.group(1) or "").lower() not in named and _KO_UNDOES.get(m.group(2) or "") not in named
        for m in _UNDOES.finditer(query)
    )


def sent_empty(route: Route, fields: BodyFields, query: str = "") -> bool:
    """Whether ``route``'s required JSON body goes as ``{}`` where the request fills none of
    its properties: where the schema requires none of them and the route is an action on an
    entry it names in its path (``POST /orders/{order_id}/refund`` with an optional
    ``amount``: the server's default, a refund in full; the approval sees the ``{}``). An
    update's body (PATCH, PUT) is the change itself, and an empty one would change nothing
    and report success; a create (``POST /projects``) would make an entry the request gave
    nothing of: both stay missing, for the caller to give (``Plan.with_arguments``). So does
    one whose ``query`` :func:`says_more` than the action ("refund €20", "partially refund"):
    a value no property took must not become the server's default, and one whose ``query``
    does not ask for a change (``request_action`` is not ``"write"``): "refund status of
    order O-1", "Can I refund order O-1?", "주문 O-1 환불됐어?" ask about the refund (trial Y1:
    each sent one in full where the refund ranked first), nor one that asks to undo or stop
    what the route does ("Cancel the refund of order O-1": :data:`_UNDOES`), or ends as a
    question ("주문 O-1 환불할까?")."""
    return (
        fields.parameter.required
        and not any(p.required for p in fields.properties)
        and acts_on_entry(route)
        and not says_more(query)
        and request_action(query) == "write"
        and not _undoes(route, query)
        # a question asks whether, why, or leave to ("주문 O-1 환불할까?", "Why refund order
        # O-1?": trial Y1), not for the change: the caller gives the body
        and not re.search(r"[?？]\W*$", query)
    )


def held_open(route: Route, fields: BodyFields, query: str, taken: Iterable[Any] = ()) -> bool:
    """Whether ``route``'s optional JSON body, which requires properties, is held open (sent
    as no call until they are given) where the request fills none of them: a change whose
    ``query`` :func:`says_more` than the action. Trial 22's "mark order 88123 as shipped, UPS
    1Z999AA10123456784" sent ``POST /my/orders/selling/88123/ship`` with no body (its
    ``provider``, ``tracking_number`` and ``send_notification`` required, the body itself not
    marked required, as Swagger 2 documents often leave it): the order marked shipped with no
    tracking, the carrier and number dropped. "Refund payment P-301" and "Mark order 88123 as
    shipped" still go with no body, the server's default asked for: the values other
    parameters took (``taken``, the order's 88123) are no more than the action."""
    for value in taken:
        if isinstance(value, str | int) and not isinstance(value, bool):
            query = re.sub(rf"(?<![\w.-]){re.escape(str(value))}(?![\w-])", " ", query)
    return (
        not fields.parameter.required
        and any(p.required for p in fields.properties)
        and route.endpoint.effect is not Effect.READ
        and says_more(query)
    )


def acts_on_entry(route: Route) -> bool:
    """Whether ``route`` is a ``POST`` change that acts on an entry its path names
    (``/orders/{order_id}/refund``): not the entry itself, nor a collection of it (``POST
    /projects/{project_id}/tickets`` creates a ticket)."""
    last = (route.endpoint.operation.path or "").rstrip("/").rpartition("/")[2]
    return (
        (route.endpoint.operation.method or "").upper() == "POST"
        and route.endpoint.effect is not Effect.READ
        and any(p.location is ParameterLocation.PATH for p in route.endpoint.parameters)
        and not last.startswith("{")
        and not is_plural(last)
    )


def body_key(body: Parameter, name: str) -> str:
    """How a plan names property ``name`` of the body parameter ``body``: ``body.charge_id``."""
    return f"{body.name}.{name}"


def body_property(route: Route, key: str) -> tuple[BodyFields, Parameter] | None:
    """The body and its property that ``key`` (``body.charge_id``) names on ``route``;
    ``None`` where ``key`` is a parameter of the route, or names no declared property."""
    if any(p.name == key for p in route.endpoint.parameters):
        return None
    fields = body_fields(route)
    if fields is None or not key.startswith(fields.parameter.name + "."):
        return None
    found = fields.property(key[len(fields.parameter.name) + 1 :])
    return (fields, found) if found is not None else None


def without_required(schema: Mapping[str, Any], names: frozenset[str]) -> dict[str, Any]:
    """``schema`` (a body's object schema) no longer requiring ``names``."""
    required = schema.get("required")
    if not isinstance(required, list):
        return dict(schema)
    return {**schema, "required": [n for n in required if n not in names]}


def partial_body(route: Route, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """``arguments`` as the registry gate checks a plan's step, and what is wrong with a body
    the request filled in part (``""``: nothing). Such a body lacks required properties the
    caller or an earlier step gives later, so it is taken out of the arguments and checked
    here against the body's schema without those properties required."""
    fields = body_fields(route)
    given = arguments.get(fields.parameter.name) if fields is not None else None
    if fields is None or not isinstance(given, Mapping):
        return dict(arguments), ""
    open_ = frozenset(p.name for p in fields.properties if p.required and p.name not in given)
    if not open_:
        return dict(arguments), ""
    rest = {k: v for k, v in arguments.items() if k != fields.parameter.name}
    schema = without_required(value_schema(fields.parameter.json_schema), open_)
    error = next(iter(schema_validator(schema).iter_errors(dict(given))), None)
    return rest, "" if error is None else f"{fields.parameter.name}: {error.message}"


def bound_parameter(route: Route, name: str) -> Parameter | None:
    """What a binding named ``name`` fills: the route's parameter of that name, or the
    property of its JSON body that ``name`` names (``body.customer_id``); ``None``: neither."""
    own = next((p for p in route.endpoint.parameters if p.name == name), None)
    if own is not None:
        return own
    hit = body_property(route, name)
    return hit[1] if hit is not None else None


def holds(route: Route, arguments: Mapping[str, Any], name: str) -> bool:
    """Whether ``arguments`` give what ``name`` names on ``route``: a parameter, or a property
    inside the JSON body given."""
    hit = body_property(route, name)
    if hit is None:
        return name in arguments
    body = arguments.get(hit[0].parameter.name)
    return isinstance(body, Mapping) and hit[1].name in body


def pending_body(route: Route, names: Iterable[str]) -> tuple[str, frozenset[str]] | None:
    """The body parameter's name and its properties among ``names`` (a step's bindings,
    filled at execution: absent until then); ``None`` where none is a body property."""
    found = [hit for name in names if (hit := body_property(route, name)) is not None]
    if not found:
        return None
    return found[0][0].parameter.name, frozenset(item.name for _, item in found)


def with_bound(
    route: Route, arguments: Mapping[str, Any], values: Mapping[str, Any]
) -> dict[str, Any]:
    """``arguments`` with each of ``values`` (binding name -> value) set: at its parameter,
    or at its property inside the JSON body (the body made where the arguments hold none)."""
    out = dict(arguments)
    for name, value in values.items():
        hit = body_property(route, name)
        if hit is None:
            out[name] = value
            continue
        key = hit[0].parameter.name
        body = out.get(key)
        out[key] = {**(body if isinstance(body, Mapping) else {}), hit[1].name: value}
    return out


def given_arguments(route: Route, arguments: Mapping[str, Any]) -> dict[str, tuple[Parameter, Any]]:
    """``key -> (parameter, value)`` of what ``arguments`` give ``route``'s parameters and
    its JSON body's properties (keyed ``body.name``, :func:`body_key`)."""
    fields = body_fields(route)
    body = fields.parameter if fields is not None else None
    out = {
        p.name: (p, arguments[p.name])
        for p in route.endpoint.parameters
        if p != body and p.name in arguments
    }
    held = arguments.get(body.name) if body is not None else None
    if fields is not None and body is not None and isinstance(held, Mapping):
        out.update(
            {body_key(body, p.name): (p, held[p.name]) for p in fields.properties if p.name in held}
        )
    return out


def held_back(step: Any, keys: Iterable[str]) -> Any:
    """``step`` (a plan step) without the arguments ``keys`` name (a body's property keyed
    ``body.name``), each listed missing: ``execute`` sends nothing until it is given."""
    keys = list(keys)
    arguments = dict(step.arguments)
    for key in keys:
        head, _, tail = key.partition(".")
        if tail and isinstance(arguments.get(head), Mapping):
            arguments[head] = {k: v for k, v in arguments[head].items() if k != tail}
        else:
            arguments.pop(key, None)
    missing = (*step.missing_parameters, *keys)
    return step.model_copy(update={"arguments": arguments, "missing_parameters": missing})
