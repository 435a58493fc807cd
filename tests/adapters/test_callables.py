"""Typed Python callables become routes: schemas from hints, descriptions from docstrings."""

from __future__ import annotations

import enum
import functools
import hashlib
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from schemarouter import SchemaRouter, capability
from schemarouter.contracts import Effect, ParameterLocation
from schemarouter.errors import (
    ArgumentError,
    DocumentError,
    DuplicateRouteError,
    ParameterValidationError,
    SchemaRouterError,
    UnitError,
)


class Hardness(BaseModel):
    material_id: str
    vickers: float = Field(description="Vickers hardness")
    temperature_c: float


@capability(
    effect="read",
    intents=(),
    fields={
        "vickers": {
            "unit": "GPa",
            "dimension": "pressure",
            "semantic_id": "mechanical.hardness",
            "normalization": {
                "source_unit": "GPa",
                "canonical_unit": "Pa",
                "dimension": "pressure",
                "scale": 1e9,
            },
        },
        "temperature_c": {"unit": "°C", "dimension": "temperature"},
        "material_id": {"identifier": True},
    },
)
def measure_hardness(
    material_id: str, *, load_n: float = 9.8, method: Literal["vickers", "knoop"] = "vickers"
) -> Hardness:
    """Measure the hardness of a sample in the lab.

    Args:
        material_id: The lab's sample id, e.g. "MAT-7".
        load_n: Indenter load in newtons.
        method: Indentation method.

    Returns:
        The measurement.
    """
    return Hardness(material_id=material_id, vickers=9.5, temperature_c=21.0)


class Row(TypedDict):
    name: str
    count: int


def list_rows(prefix: str) -> list[Row]:
    """List rows."""
    return []


def delete_sample(material_id: str) -> bool:
    """Delete a sample record."""
    return True


def test_schemas_and_descriptions_from_hints_and_docstring() -> None:
    router = SchemaRouter()
    router.add_callable(
        measure_hardness, provider="Lab", license="internal", source_type="experimental"
    )
    route = router.snapshot().route("lab/python/measure_hardness")
    endpoint = route.endpoint
    assert endpoint.description == "Measure the hardness of a sample in the lab."
    assert endpoint.input_schema["required"] == ["material_id"]
    assert endpoint.input_schema["additionalProperties"] is False
    props = endpoint.input_schema["properties"]
    assert props["method"] == {
        "enum": ["vickers", "knoop"],
        "type": "string",
        "default": "vickers",
        "description": "Indentation method.",
    }
    assert props["load_n"]["type"] == "number" and props["load_n"]["default"] == 9.8
    material = endpoint.parameter("material_id")
    assert material.required and material.location is ParameterLocation.ARGUMENT
    assert material.description == 'The lab\'s sample id, e.g. "MAT-7".'
    fields = {f.name: f for f in endpoint.output_fields}
    assert set(fields) == {"material_id", "vickers", "temperature_c"}
    assert fields["vickers"].semantic_id == "mechanical.hardness"
    assert fields["vickers"].normalization is not None
    assert fields["material_id"].identifier
    assert route.field_source_type(fields["vickers"]).value == "experimental"
    assert router.is_bound(route.route_id)


class AlertLevel(enum.Enum):
    """How severe an alert is."""

    GREEN = 1
    AMBER = 2
    RED = 3


def test_an_enum_of_numbers_keeps_its_names_in_the_schema() -> None:
    """Trial Y §7: ``AlertLevel`` (GREEN = 1 ... RED = 3) became ``{"enum": [1, 2, 3]}``, and
    nothing told a model that "red" is 3. Its description now names each value; an Enum of
    text values is left as it was."""

    def alerts(min_level: AlertLevel, levels: list[AlertLevel] | None = None) -> int:
        """Count the weather alerts at or above a level."""
        return min_level.value

    router = SchemaRouter()
    router.add_callable(alerts, provider="weather")
    route = router.snapshot().route("weather/python/alerts")
    schema = route.endpoint.input_schema
    level = schema["properties"]["min_level"]
    level = schema.get("$defs", {}).get("AlertLevel", level) if "$ref" in level else level
    assert level["enum"] == [1, 2, 3]
    assert level["description"] == (
        "How severe an alert is. (values: 1 = GREEN, 2 = AMBER, 3 = RED)"
    )
    assert router.call("weather/python/alerts", {"min_level": 3}).output == 3


def test_plain_return_types_and_effects() -> None:
    router = SchemaRouter()
    router.add_callable([list_rows, delete_sample], provider="store", effect="destructive")
    snap = router.snapshot()
    rows = snap.route("store/python/list_rows").endpoint
    assert rows.effect is Effect.DESTRUCTIVE
    # a list of TypedDicts: one field per leaf of an item, as MCP structured output reads
    assert [(f.name, f.path) for f in rows.output_fields] == [
        ("name", "*.name"),
        ("count", "*.count"),
    ]
    assert rows.field("count").json_schema["type"] == "integer"

    def scores(prefix: str) -> list[float]:
        """Scores."""
        return []

    router.add_callable(scores, provider="plain")
    (result,) = router.snapshot().route("plain/python/scores").endpoint.output_fields
    assert result.name == "result" and result.json_schema["type"] == "array"  # scalars: whole
    assert snap.route("store/python/delete_sample").endpoint.output_fields[0].json_schema == {
        "type": "boolean"
    }


class BatteryStatus(TypedDict):
    battery_id: str
    capacity_kwh: float


@capability(fields={"capacity_kwh": {"unit": "kWh", "dimension": "energy"}})
def battery(battery_id: str) -> BatteryStatus:
    """Home battery status."""
    return {"battery_id": battery_id, "capacity_kwh": 13.5}


def test_a_typeddict_return_type_becomes_one_field_per_key() -> None:
    """Trial M: on Python 3.11 a ``typing_extensions.TypedDict`` return type (the only kind
    pydantic takes there) gave one opaque ``result`` field, and a unit declared on a key was
    refused ("not an output field"): ``typing.is_typeddict`` misses it before 3.12."""
    router = SchemaRouter()
    router.add_callable(battery, provider="energy")
    endpoint = router.snapshot().route("energy/python/battery").endpoint
    assert [(f.name, f.path) for f in endpoint.output_fields] == [
        ("battery_id", "battery_id"),
        ("capacity_kwh", "capacity_kwh"),
    ]
    assert endpoint.field("capacity_kwh").unit == "kWh"
    result = router.call("energy/python/battery", {"battery_id": "pw"})
    assert result.output == {"battery_id": "pw", "capacity_kwh": 13.5}


def test_untyped_parameter_is_refused() -> None:
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    router = SchemaRouter()
    with pytest.raises(DocumentError, match="parameter 'x' has no type hint"):
        router.add_callable(untyped, provider="p")
    assert len(router.snapshot()) == 0


def test_bad_declared_unit_registers_nothing() -> None:
    @capability(fields={"result": {"unit": "GPa", "dimension": "length"}})
    def modulus(formula: str) -> float:
        return 1.0

    router = SchemaRouter()
    with pytest.raises(UnitError, match="field 'result'") as refused:
        router.add_callable([list_rows, modulus], provider="p")
    assert len(router.snapshot()) == 0 and router.registry.version == 0
    # the place names the function, not its position in the list (it read "callable[1]")
    assert "modulus" in str(refused.value.where), refused.value.where


def test_rebinding_after_fingerprint_change() -> None:
    router = SchemaRouter()
    router.add_callable(list_rows, provider="store")
    assert router.is_bound("store/python/list_rows")
    router.add_callable(list_rows, provider="store", effect="write", replace=True)
    # re-registered with the invoker: bound to the new fingerprint
    assert router.is_bound("store/python/list_rows")
    router.remove_provider("store")
    assert not router.is_bound("store/python/list_rows")


def test_field_metadata_must_name_an_output_field() -> None:
    """A typo in ``capability(fields=...)`` (or ``result`` on a list of models, whose fields
    are its item leaves) is refused with the fields there are; nothing is registered."""

    @capability(fields={"vicker": {"unit": "GPa"}})
    def hardness(material_id: str) -> Hardness:
        """Hardness."""
        return Hardness(material_id=material_id, vickers=9.5, temperature_c=21.0)

    @capability(fields={"result": {"unit": "GPa"}})
    def rows(prefix: str) -> list[Row]:
        """Rows."""
        return []

    router = SchemaRouter()
    with pytest.raises(DocumentError, match=r"names 'vicker'.*material_id, vickers"):
        router.add_callable(hardness, provider="Lab")
    with pytest.raises(DocumentError, match=r"names 'result'.*\(its fields: name, count\)"):
        router.add_callable(rows, provider="Lab")
    assert len(router.snapshot().routes) == 0


def office_sensor(room: str) -> float:
    """Temperature in a room."""
    return 21.5


def road_distance(origin: str, destination: str) -> float:
    """Driving distance between two cities."""
    return 465.0


def test_replacing_one_callable_keeps_its_siblings() -> None:
    """Callables added by separate calls share their provider's access path ``python``;
    ``replace=True`` (what the duplicate error's hint says to pass) replaces that callable's
    route only, and says so: its siblings stay registered and bound."""
    router = SchemaRouter()
    router.add_callable(office_sensor, provider="myco")
    router.add_callable(road_distance, provider="myco")
    with pytest.raises(DuplicateRouteError, match="replace just this route") as refused:
        router.add_callable(office_sensor, provider="myco")
    assert "other routes stay registered" in str(refused.value.hint)

    def office_sensor_v2(room: str) -> float:
        """Temperature in a room, in degrees Celsius."""
        return 22.0

    office_sensor_v2.__name__ = "office_sensor"  # a new version of the same function
    change = router.add_callable(office_sensor_v2, provider="myco", replace=True)
    assert (change.added, change.replaced, change.removed) == (
        (),
        ("myco/python/office_sensor",),
        (),
    )
    assert router.snapshot().route_ids() == (
        "myco/python/office_sensor",
        "myco/python/road_distance",
    )
    assert router.binding("myco/python/office_sensor") is office_sensor_v2
    assert router.binding("myco/python/road_distance") is road_distance
    result = router.call("myco/python/road_distance", {"origin": "Oslo", "destination": "Bergen"})
    assert result.output == 465.0


@pytest.mark.parametrize(
    ("metadata", "error", "match", "hint"),
    [
        (
            {"fields": {"result": {"unit": "km", "semantic": "geo.distance"}}},
            DocumentError,
            r"unknown key 'semantic' \(did you mean 'semantic_id'\?\)",
            "semantic_id",
        ),
        ({"effect": "delete"}, ArgumentError, "effect must be one of", "'destructive'"),
        ({"fields": {"result": {"unit": 5}}}, UnitError, "invalid unit 5", "'km'"),
    ],
)
def test_capability_mistakes_are_refused_at_decoration(
    metadata: dict[str, Any], error: type[SchemaRouterError], match: str, hint: str
) -> None:
    """A typo in a field key, an unknown effect or a unit that is no string is a coded error
    naming the function and the field (or argument), with what is allowed; not a pydantic
    ``ValidationError`` or a ``ValueError`` from the enum."""
    with pytest.raises(error, match=match) as refused:

        @capability(**metadata)
        def road_distance(origin: str, destination: str) -> float:
            """Driving distance between two cities."""
            return 465.0

    assert "road_distance" in str(refused.value.where)
    assert f"capability({next(iter(metadata))}=" in str(refused.value.where)
    assert hint in str(refused.value.hint)
    if "fields" in metadata:
        assert "output field 'result'" in refused.value.what


def tag_sample(tags: list[str] = []) -> int:  # noqa: B006 - the classic mutable default
    """Tag a sample."""
    tags.append("seen")
    return len(tags)


def test_a_mutable_default_is_copied_into_the_contract() -> None:
    """The schema held the function's own default list: after two calls the registered
    contract read ``default: ['seen', 'seen']`` and no longer matched its fingerprint. The
    default is copied (as JSON data) at registration; the function keeps its own object."""
    own = tag_sample.__defaults__[0]  # type: ignore[index]
    router = SchemaRouter()
    (route_id,) = router.add_callable(tag_sample, provider="lab").added
    route = router.snapshot().route(route_id)
    assert route.endpoint.input_schema["properties"]["tags"]["default"] == []
    assert router.call(route_id, {}).output == 1
    assert router.call(route_id, {}).output == 2  # the function's own default, as Python has it
    assert tag_sample.__defaults__[0] is own and own == ["seen", "seen"]  # type: ignore[index]
    assert route.endpoint.input_schema["properties"]["tags"]["default"] == []
    assert route.endpoint.content_fingerprint() == route.endpoint_fingerprint
    own.clear()


def scale_length(meters: float, factor: float) -> float:
    """Scale a length given in meters."""
    return meters * factor


class Thermometer:
    """A room thermometer."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def __call__(self, room: str, *, unit: Literal["C", "F"] = "C") -> float:
        """Temperature in a room.

        Args:
            room: The room's name.
        """
        return 21.0 + self.offset if unit == "C" else 69.8


def test_partials_and_callable_objects_register_and_run() -> None:
    """``functools.partial`` and objects with a typed ``__call__`` were refused ("is not a
    module, class, method, or function"): their hints now come from the partial's function
    and from ``__call__``, their signature from ``inspect.signature`` (the bound arguments
    and ``self`` left out)."""
    to_cm = functools.partial(scale_length, factor=100.0)
    router = SchemaRouter()
    router.add_callable(to_cm, provider="units")
    router.add_callable(Thermometer(0.5), provider="rooms")
    scaled = router.snapshot().route("units/python/scale_length").endpoint
    assert scaled.input_schema["required"] == ["meters"]
    assert "factor" not in scaled.input_schema["properties"]  # bound by the partial
    assert scaled.description == "Scale a length given in meters."
    assert router.call("units/python/scale_length", {"meters": 2}).output == 200.0
    room = router.snapshot().route("rooms/python/thermometer").endpoint
    assert sorted(room.input_schema["properties"]) == ["room", "unit"]
    assert room.parameter("room").description == "The room's name."
    assert room.operation.qualname == f"{__name__}.Thermometer"
    assert router.call("rooms/python/thermometer", {"room": "lab"}).output == 21.5


class _Tenants:
    """A client object a partial binds (no JSON Schema: a call can never pass one)."""

    def orders(self, tenant_id: str) -> list[str]:
        return [f"{tenant_id}-order-1"]


def tenant_orders(client: _Tenants, tenant_id: str, status: str = "open") -> list[str]:
    """List a tenant's orders."""
    return client.orders(tenant_id)


def test_a_partials_keyword_arguments_are_fixed_not_offered() -> None:
    """``functools.partial(tenant_orders, client=..., tenant_id="acme")`` offered
    ``tenant_id`` as an optional parameter with the default ``"acme"`` (shown to every
    model), so a call with ``{"tenant_id": "other"}`` ran for another tenant; a client bound
    by keyword was refused ("has no JSON Schema"). A partial's keyword arguments are now left
    out of the route: the gate refuses a value for one, naming the parameters it has."""
    fixed = functools.partial(tenant_orders, client=_Tenants(), tenant_id="acme")
    router = SchemaRouter()
    router.add_callable(fixed, provider="shop")
    endpoint = router.snapshot().route("shop/python/tenant_orders").endpoint
    assert sorted(endpoint.input_schema["properties"]) == ["status"]
    assert "acme" not in str(endpoint.input_schema)
    assert router.call("shop/python/tenant_orders", {}).output == ["acme-order-1"]
    with pytest.raises(ParameterValidationError, match="no parameter 'tenant_id'"):
        router.call("shop/python/tenant_orders", {"tenant_id": "other"})
    # a partial of a partial: both keyword sets are fixed
    nested = functools.partial(functools.partial(tenant_orders, client=_Tenants()), status="x")
    router.add_callable(nested, provider="shop2")
    inner = router.snapshot().route("shop2/python/tenant_orders").endpoint
    assert sorted(inner.input_schema["properties"]) == ["tenant_id"]


_UNSET: Any = object()


def test_a_default_the_hint_refuses_is_a_document_error() -> None:
    """``def f(x: int = "a")`` registered with ``default: "a"`` under ``type: integer`` and
    failed only at call time. A default is checked against its parameter's schema at
    registration; ``None`` passes (``x: str = None``), and a sentinel that is not JSON data
    stays out of the schema, as before."""

    def wrong(x: int = "a") -> int:  # type: ignore[assignment]
        """Wrong default."""
        return x

    def wrong_item(xs: list[int] = [1, "b"]) -> int:  # type: ignore[list-item]  # noqa: B006
        """Wrong item in the default."""
        return len(xs)

    router = SchemaRouter()
    for fn, name in ((wrong, "x"), (wrong_item, "xs")):
        with pytest.raises(DocumentError, match=f"parameter '{name}' has the default") as refused:
            router.add_callable(fn, provider="lab")
        assert f"parameter '{name}'" in str(refused.value.where)
    assert router.snapshot().route_ids() == ()

    def loose(x: str = None, y: int = _UNSET, z: float = 1) -> str:  # type: ignore[assignment]  # noqa: RUF013
        """Loose defaults."""
        return repr((x, y is _UNSET, z))

    router.add_callable(loose, provider="lab")
    props = router.snapshot().route("lab/python/loose").endpoint.input_schema["properties"]
    assert props["x"]["default"] is None and "default" not in props["y"]
    assert props["z"]["default"] == 1
    assert router.call("lab/python/loose", {}).output == "(None, True, 1)"


def 온도(zone: str) -> float:
    """실내 온도: indoor temperature of a zone."""
    return 21.0


def 습도(zone: str) -> float:
    """실내 습도: indoor humidity of a zone."""
    return 45.0


def getPrice(region: str) -> float:
    """Electricity price (a camelCase name)."""
    return 1.0


def get_price(region: str) -> float:
    """Gas price (a snake_case name)."""
    return 2.0


def test_function_names_give_distinct_ids_and_a_clash_names_both_functions() -> None:
    """Trial M: ``온도`` and ``습도`` both slugged to ``x``; the second was refused with an
    error naming neither function, and its hint (replace=True) removed the first. A name
    with no ASCII letter gets a stable ``fn_`` hash; a clash of two functions names both and
    suggests ``@capability(name=...)``; ASCII slugs are unchanged."""
    router = SchemaRouter()
    ids = [router.add_callable(f, provider="home").added[0] for f in (온도, 습도)]
    assert ids == [
        f"home/python/fn_{hashlib.sha256(n.encode()).hexdigest()[:8]}" for n in ("온도", "습도")
    ]
    assert router.snapshot().route(ids[0]).endpoint.name == "온도"
    assert router.call(ids[0], {"zone": "living"}).output == 21.0
    assert router.call(ids[1], {"zone": "living"}).output == 45.0

    def température_intérieure(zone: str) -> float:
        """Température intérieure."""
        return 21.0

    (kept,) = router.add_callable(température_intérieure, provider="home").added
    assert kept == "home/python/temp_rature_int_rieure"  # an existing id stays as it was

    mod = __name__
    with pytest.raises(DuplicateRouteError) as twice:
        router.add_callable([getPrice, get_price], provider="shop")
    assert str(twice.value).startswith(
        f"[SR104] route 'shop/python/get_price' is declared twice: by callable {mod}.getPrice "
        f"and by callable {mod}.get_price"
    )
    assert "@capability(name=...)" in (twice.value.hint or "")
    router.add_callable(getPrice, provider="shop")
    with pytest.raises(DuplicateRouteError) as held:
        router.add_callable(get_price, provider="shop")
    message, hint = str(held.value), held.value.hint or ""
    assert f"callable {mod}.getPrice holds it, callable {mod}.get_price would take it" in message
    assert "comes from its function's name" in hint and "@capability(name=...)" in hint
    assert f"replace=True would remove the route of {mod}.getPrice" in hint
    # following the hint keeps both functions
    router.add_callable(capability(get_price, name="gas_price"), provider="shop")
    assert router.call("shop/python/get_price", {"region": "ES"}).output == 1.0
    assert router.call("shop/python/gas_price", {"region": "ES"}).output == 2.0


def search_hotels(city: str, *rooms: int, **filters: str) -> list[str]:
    """Search hotels in a city."""
    return [city]


def find_appliances(**filters: str) -> list[str]:
    """Find smart appliances matching filters."""
    return [str(filters)]


def test_args_and_kwargs_left_out_are_named_in_the_warnings() -> None:
    """Trial M: ``**filters`` was left out of the route without a word (the change's
    warnings were empty), and a ``**filters``-only function registered taking nothing."""
    router = SchemaRouter()
    change = router.add_callable([search_hotels, find_appliances], provider="home")
    mod = __name__
    assert change.warnings == (
        f"callable {mod}.search_hotels: *rooms and **filters are left out of the route: a call "
        "passes nothing to *args or **kwargs; declare each value the function takes as a "
        "named parameter",
        f"callable {mod}.find_appliances: **filters is left out of the route (it takes no "
        "arguments): a call passes nothing to *args or **kwargs; declare each value the "
        "function takes as a named parameter",
    )
    endpoint = router.snapshot().route("home/python/find_appliances").endpoint
    assert endpoint.input_schema["properties"] == {}
    assert router.add_callable(get_price, provider="plain").warnings == ()


def test_generator_functions_are_refused_at_registration() -> None:
    """An async generator registered and then failed at every call ("not JSON data",
    trial M §12); a generator is refused where it is registered, naming it."""
    from collections.abc import AsyncIterator, Iterator

    def departures(station: str) -> Iterator[str]:
        """Departures from a station."""
        yield "AP123 08:00"

    async def arrivals(station: str) -> AsyncIterator[str]:
        """Arrivals at a station."""
        yield "AP124 09:00"

    router = SchemaRouter()
    for fn, kind in ((departures, "a generator"), (arrivals, "an async generator")):
        with pytest.raises(DocumentError, match=kind) as refused:
            router.add_callable(fn, provider="trains")
        assert fn.__name__ in str(refused.value.where)
        assert "Return a list" in str(refused.value.hint)
    assert len(router.snapshot()) == 0


class Booking(BaseModel):
    booking_id: str
    flight_id: str


def find_booking(booking_id: str) -> Booking | None:
    """Look up a booking."""
    return Booking(booking_id=booking_id, flight_id="AP123") if booking_id != "none" else None


def test_an_optional_model_return_gives_the_models_fields() -> None:
    """``Optional[Model]`` gave one opaque ``result`` field, so ``booking_id`` could not feed
    an identifier chain (trial M §12). Its fields are the model's; ``None`` (found nothing)
    still validates."""
    router = SchemaRouter()
    router.add_callable(find_booking, provider="travel")
    endpoint = router.snapshot().route("travel/python/find_booking").endpoint
    assert [f.name for f in endpoint.output_fields] == ["booking_id", "flight_id"]
    found = router.call("travel/python/find_booking", {"booking_id": "B1"})
    assert found.output == {"booking_id": "B1", "flight_id": "AP123"}
    assert endpoint.field("booking_id").json_schema["type"] == "string"
    nothing = router.call("travel/python/find_booking", {"booking_id": "none"})
    assert nothing.output is None and nothing.status == "ok"


def test_a_class_local_to_a_function_under_future_annotations_is_named_as_the_cause() -> None:
    """This module has ``from __future__ import annotations``: a model defined inside a
    function is a name ``get_type_hints`` cannot find. The error said "Pass a plain typed
    function"; it now names the cause and the way out (trial M §12)."""

    class Quote(BaseModel):
        price: float

    def get_quote(symbol: str) -> Quote:
        """Energy futures quote."""
        return Quote(price=1.0)

    router = SchemaRouter()
    with pytest.raises(DocumentError, match="name 'Quote' is not defined") as refused:
        router.add_callable(get_quote, provider="q")
    assert "from __future__ import annotations" in str(refused.value)
    assert "Define the class at module level" in str(refused.value.hint)
    assert len(router.snapshot()) == 0


def rainfall_forecast(city: str, days: int = 3) -> list[float]:
    """Daily rainfall forecast for a city.

    Parameters
    ----------
    city : str
        Name of the city.
    days : int, optional
        How many days ahead
        (1-10).

    Returns
    -------
    list of float
        Millimetres per day.
    """
    return [0.0] * days


def test_numpy_docstring_types_are_not_parameter_descriptions() -> None:
    """A NumPy-style ``city : str`` line was read as Google's ``city: description``: the
    parameter's description became ``"str Name of the city."`` (``"int, optional How many
    days ahead (1-10)."``), the type shown to a model as prose. Under an underlined
    ``Parameters`` header the text after the colon is the type; the description is the
    indented lines below it."""
    router = SchemaRouter()
    router.add_callable(rainfall_forecast, provider="weather")
    endpoint = router.snapshot().route("weather/python/rainfall_forecast").endpoint
    assert endpoint.parameter("city").description == "Name of the city."
    assert endpoint.parameter("days").description == "How many days ahead (1-10)."
    assert endpoint.input_schema["properties"]["city"]["description"] == "Name of the city."
    assert endpoint.description == "Daily rainfall forecast for a city."
