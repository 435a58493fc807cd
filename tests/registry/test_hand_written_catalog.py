"""A catalog written by hand for a team's own HTTP API (trial A): what its routes offer a
model, what the command line shows of them, and what a validation tells the author."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.errors import (
    DocumentError,
    ParameterValidationError,
    PolicyError,
    SchemaRouterError,
)

from servers.loopback import LoopbackServer, Request, Response, json_response

PLANT = """\
schemarouter_catalog: 1
providers:
  - id: plant_ops
    display_name: ACME Plant Operations
    license: ACME-Internal-1.0
    source_type: experimental
    access:
      - id: api
        kind: http
        base_url: {base_url}
        endpoints:
          - id: invoice
            name: GET /invoices/{{invoice_id}}
            operation: {{method: GET, path: "/invoices/{{invoice_id}}"}}
            summary: An energy invoice with its amount due.
            parameters:
              - {{name: invoice_id, location: path, required: true, json_schema: {{type: string}}}}
              - {{name: currency, location: query, json_schema: {{type: string}}}}
            output_fields:
              - {{name: amount_due, path: amount, json_schema: {{type: number}}, unit: USD,
                 dimension: USD, license: ACME-Confidential, source_type: business}}
          - id: meter_energy
            name: GET /meters/{{meter_id}}/energy
            operation: {{method: GET, path: "/meters/{{meter_id}}/energy"}}
            summary: Electrical energy consumed through a meter.
            parameters:
              - {{name: meter_id, location: path, required: true, json_schema: {{type: string}}}}
            output_fields:
              - {{name: energy, path: energy_kwh, json_schema: {{type: number}},
                 semantic_id: energy.consumed, aliases: [energy consumption], unit: kWh,
                 dimension: energy, normalization: {{source_unit: kWh, canonical_unit: MJ,
                 dimension: energy, scale: 3.6}}}}
          - id: record_reading
            name: POST /meters/{{meter_id}}/readings
            operation: {{method: POST, path: "/meters/{{meter_id}}/readings"}}
            summary: Record a manual meter reading in kWh.
            parameters:
              - {{name: meter_id, location: path, required: true, json_schema: {{type: string}}}}
              - {{name: reading_kwh, location: body, required: true, json_schema: {{type: number}}}}
          - id: delete_meter
            name: DELETE /meters/{{meter_id}}
            operation: {{method: DELETE, path: "/meters/{{meter_id}}"}}
            summary: Decommission and delete a meter.
            parameters:
              - {{name: meter_id, location: path, required: true, json_schema: {{type: string}}}}
          - id: tariff
            name: GET /tariffs/{{tariff_id}}
            operation: {{method: GET, path: "/tariffs/{{tariff_id}}"}}
            summary: Electricity tariff price per kWh.
            availability: {{status: deprecated, note: "use GET /v2/tariffs/{{tariff_id}}"}}
            input_schema: {{type: object, properties: {{tariff_id: {{type: string}}}}}}
            parameters:
              - {{name: tariff_id, location: path, required: true, json_schema: {{type: string}}}}
            output_fields:
              - {{name: price, path: price_eur, json_schema: {{type: number}}, unit: EUR,
                 dimension: EUR}}
"""


def _app(request: Request) -> Response:
    if request.path.startswith("/invoices/"):
        return json_response({"amount": 199.99})
    if request.path.startswith("/meters/"):
        return json_response({"energy_kwh": 1234.0})
    return json_response({"price_eur": 0.31})


def _catalog(tmp_path: Path, base_url: str = "http://127.0.0.1:9") -> Path:
    path = tmp_path / "plant.yaml"
    path.write_text(PLANT.format(base_url=base_url), encoding="utf-8")
    return path


def test_a_catalog_endpoint_without_an_input_schema_offers_its_parameters(
    tmp_path: Path,
) -> None:
    with LoopbackServer(_app) as server:
        router = SchemaRouter.from_catalog(_catalog(tmp_path, server.base_url))
        found = router.retrieve("amount due on invoice INV-7", k=2)
        assert found.route_ids[0] == "plant_ops/api/invoice"
        tools = {t["name"]: t for t in found.tools("anthropic")}
        schema = tools["plant_ops__api__invoice"]["input_schema"]
        # the parameters the catalog declares are the tool's; before, properties were {}
        assert schema["properties"] == {
            "invoice_id": {"type": "string"},
            "currency": {"type": "string"},
        }
        assert schema["required"] == ["invoice_id"]
        mcp = {t["name"]: t for t in found.tools("mcp")}
        assert mcp["plant_ops__api__invoice"]["inputSchema"]["required"] == ["invoice_id"]
        # a catalog that writes its input schema keeps it as written
        tariff = router.registry.snapshot().route("plant_ops/api/tariff")
        assert tariff.endpoint.input_schema == {
            "type": "object",
            "properties": {"tariff_id": {"type": "string"}},
        }
        # and the model's call, with the arguments the definition asks for, runs
        result = router.call("plant_ops/api/invoice", {"invoice_id": "INV-7"})
        assert result.output == {"amount": 199.99}
        assert server.paths() == ["/invoices/INV-7"]
        # a call leaving the required one out is refused at its place, nothing sent
        with pytest.raises(ParameterValidationError, match="'invoice_id' is a required") as no:
            router.call("plant_ops/api/invoice", {"currency": "USD"})
        assert no.value.json_path == "$.invoice_id"  # type: ignore[attr-defined]
        assert server.paths() == ["/invoices/INV-7"]


def test_the_command_line_shows_a_fields_own_license(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``retrieve`` printed ``amount_due  USD  [business]`` under "license ACME-Internal-1.0":
    a reader took the confidential amount for internal-use data."""
    catalog = _catalog(tmp_path)
    assert (
        main(["retrieve", "amount due on invoice INV-7", "-k", "1", "--catalog", str(catalog)]) == 0
    )
    out = capsys.readouterr().out
    assert "provenance experimental, license ACME-Internal-1.0" in out
    assert "- amount_due  USD  [business, license ACME-Confidential]" in out


def test_a_provider_without_a_license_is_named_by_validate_and_registration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A provider whose ``license:`` line was left out validated as ``ok`` without a word,
    and every value of its routes carried ``license: None``."""
    catalog = _catalog(tmp_path)
    catalog.write_text(
        catalog.read_text().replace("    license: ACME-Internal-1.0\n", ""), encoding="utf-8"
    )
    assert main(["catalog", "validate", str(catalog)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "ok: 1 providers, 5 routes, 3 output fields"
    warning = (
        f"warning: {catalog}: providers[0] (plant_ops) declares no license, nor do 2 of its "
        "output fields (meter_energy.energy, tariff.price): their values carry no license in any result; set "
        "license on the provider (or on each field)"
    )
    assert captured.err.strip() == warning
    change = SchemaRouter().add_catalog(catalog)
    assert [w for w in change.warnings if "license" in w] == [warning.removeprefix("warning: ")]
    # a field with a license of its own (amount_due) is not one of them; a provider that
    # declares one is never named
    licensed = tmp_path / "licensed"
    licensed.mkdir()
    assert main(["catalog", "validate", str(_catalog(licensed))]) == 0
    assert capsys.readouterr().err == ""


def test_a_unit_asked_for_that_the_server_sends_is_said_to_be_in_the_raw_value(
    tmp_path: Path,
) -> None:
    """ "energy of meter M-104 in kWh", of a field declared in kWh and normalized to MJ: the
    plan said "energy ... comes in MJ (its declared unit) and is not converted", though the
    server sends the kWh asked for and the result keeps it."""
    with LoopbackServer(_app) as server:
        router = SchemaRouter.from_catalog(_catalog(tmp_path, server.base_url))
        plan = router.plan("energy consumption of meter M-104 in kWh")
        assert plan.route_ids == ("plant_ops/api/meter_energy",)
        assert plan.warnings == (
            "the request asks for kWh; energy of plant_ops/api/meter_energy comes in kWh and "
            "is normalized to MJ as declared: the field's raw_value holds it in kWh",
        )
        energy = router.execute(plan).field("energy")
        assert (energy.raw_value, energy.source_unit) == (1234.0, "kWh")
        assert (round(energy.value, 6), energy.unit) == (4442.4, "MJ")
        # another unit of the dimension is named with the conversion of what it comes in
        other = router.plan("energy consumption of meter M-104 in MWh").warnings
        assert other == (
            "the request asks for MWh; energy of plant_ops/api/meter_energy comes in MJ "
            "(normalized from kWh as declared) and is not converted: 1 MJ = 0.000277778 MWh",
        )


def test_a_misspelled_key_is_told_the_key_meant_and_the_keys_of_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``output_feilds`` in an endpoint was "unknown key (not part of the contract)", with
    only `schemarouter catalog schema` to go on."""
    catalog = _catalog(tmp_path)
    text = catalog.read_text()
    for right, typo in (
        ("            output_fields:", "            output_feilds:"),
        ("    license: ACME-Internal-1.0", "    licence: ACME-Internal-1.0"),
        ("dimension: energy, scale: 3.6", "dimension: energy, scael: 3.6"),
    ):
        catalog.write_text(text.replace(right, typo, 1), encoding="utf-8")
        wrong, meant = typo.split(":")[-2].split()[-1], right.split(":")[-2].split()[-1]
        assert main(["catalog", "validate", str(catalog)]) == 1
        err = capsys.readouterr().err
        assert f"unknown key (not part of the contract) (at {catalog}:" in err, err
        assert f".{wrong}). Did you mean {meant!r}? The keys here are: " in err, err
        with pytest.raises(DocumentError) as refused:
            SchemaRouter().add_catalog(catalog)
        assert f"Did you mean {meant!r}?" in (refused.value.hint or "")
    catalog.write_text(text.replace("            output_fields:", "            output_feilds:", 1))
    main(["catalog", "validate", str(catalog)])
    assert (
        "endpoints[0].output_feilds). Did you mean 'output_fields'? The keys here are: "
        "availability, description, effect, id, input_schema, intents, name, operation, "
        "output_fields, output_schema, parameters, policy_tags, summary. Run `schemarouter "
        "catalog schema` for the format"
    ) in capsys.readouterr().err


def test_a_catalog_write_or_delete_without_an_effect_needs_approval(tmp_path: Path) -> None:
    """A ``DELETE`` (and a ``POST``) written without ``effect:`` registered as a read: "delete
    meter M-999" was planned and sent, and ``router.call`` sent it, with no approval."""
    with LoopbackServer(lambda request: json_response({"ok": True})) as server:
        router = SchemaRouter.from_catalog(_catalog(tmp_path, server.base_url))
        routes = router.registry.snapshot().routes
        effects = {rid.split("/")[-1]: routes[rid].endpoint.effect.value for rid in routes}
        assert effects == {
            "invoice": "read",
            "meter_energy": "read",
            "record_reading": "write",
            "delete_meter": "destructive",
            "tariff": "read",
        }
        plan = router.plan("delete meter M-999")
        assert plan.route_ids == ()
        with pytest.raises(PolicyError, match="has effect destructive"):
            router.call("plant_ops/api/delete_meter", {"meter_id": "M-999"})
        with pytest.raises(PolicyError, match="has effect write"):
            router.call("plant_ops/api/record_reading", {"meter_id": "M-1", "reading_kwh": 1.0})
        assert server.paths() == []
        # allowed and approved, it runs
        done = router.call(
            "plant_ops/api/delete_meter",
            {"meter_id": "M-999"},
            allow_effects=["read", "destructive"],
            approve=lambda *args: True,
        )
        assert done.output == {"ok": True}
        assert server.paths() == ["/meters/M-999"]
    # an effect the catalog writes is kept: a POST that only reads says so
    text = (
        _catalog(tmp_path)
        .read_text()
        .replace(
            "summary: Record a manual meter reading in kWh.",
            "summary: Record a manual meter reading in kWh.\n            effect: read",
        )
    )
    (tmp_path / "plant.yaml").write_text(text, encoding="utf-8")
    kept = SchemaRouter.from_catalog(tmp_path / "plant.yaml").registry.snapshot()
    assert kept.routes["plant_ops/api/record_reading"].endpoint.effect.value == "read"


def test_a_catalog_error_names_the_line_its_key_is_written_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A problem deep in a long file said only ``providers[0].access[0].endpoints[4]...``:
    the author counted endpoints to find it."""
    catalog = _catalog(tmp_path)
    text = catalog.read_text()
    lines = text.splitlines()
    for wrong, right, key in (
        ("unit: EUR,", "unit: EURX,", "], field 'price'"),  # a unit pint cannot read
        (
            'DELETE, path: "/meters/{meter_id}"',
            'DELETE, path: "/meters/{meter}"',
            ".operation.path",
        ),
        ("base_url: http://127.0.0.1:9", "base_url: 127.0.0.1:9", "].base_url"),
    ):
        bad = text.replace(wrong, right, 1)
        assert bad != text, wrong
        catalog.write_text(bad, encoding="utf-8")
        line = next(i for i, row in enumerate(lines, 1) if wrong in row)
        if key.startswith("], field"):  # an output field is named at its item's line
            line = next(i for i in range(line, 0, -1) if lines[i - 1].lstrip().startswith("- "))
        assert main(["catalog", "validate", str(catalog)]) == 1
        err = capsys.readouterr().err
        assert f"(at {catalog}:{line}: providers[0].access[0]." in err, (line, err)
        assert key in err, err
        with pytest.raises(SchemaRouterError) as refused:
            SchemaRouter().add_catalog(catalog)
        assert str(refused.value.where).startswith(f"{catalog}:{line}: providers[0]")


def test_a_deprecated_routes_own_note_is_in_the_plans_warning(tmp_path: Path) -> None:
    """The catalog's ``availability.note`` ("use GET /v2/tariffs/{tariff_id}") was left out of
    the plan's warning unless it began with "deprecated"."""
    router = SchemaRouter.from_catalog(_catalog(tmp_path))
    plan = router.plan("electricity tariff price for tariff T-3")
    assert plan.route_ids == ("plant_ops/api/tariff",)
    said = (
        "plant_ops/api/tariff is deprecated (use GET /v2/tariffs/{tariff_id}): planned as the "
        "best route, it runs as any other"
    )
    assert any(w.startswith(said) for w in plan.warnings), plan.warnings


def test_a_file_that_is_no_catalog_in_a_catalog_folder_is_said_to_be_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``docker-compose.yml`` beside the catalog was three problems: "required key is
    missing (schemarouter_catalog)" and "unknown key" for each of its keys."""
    folder = tmp_path / "api"
    folder.mkdir()
    _catalog(folder)
    stray = folder / "docker-compose.yml"
    stray.write_text('version: "3"\nservices:\n  web: {image: nginx}\n', encoding="utf-8")
    assert main(["catalog", "validate", str(folder)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: [SR101] this is no SchemaRouter catalog: it has no schemarouter_catalog key "
        f"(its keys: services, version) (at {stray}). A catalog starts with "
        "'schemarouter_catalog: 1' and a 'providers' list; a catalog folder reads every "
        "*.yaml, *.yml and *.json under it, so move another file out of it or start its name "
        "with '_'",
        "1 problem found",
    ]
    router = SchemaRouter()
    with pytest.raises(DocumentError, match="this is no SchemaRouter catalog"):
        router.add_catalog(folder)
    assert router.registry.snapshot().routes == {}  # nothing half-registered
    stray.rename(folder / "_docker-compose.yml")
    assert main(["catalog", "validate", str(folder)]) == 0


def test_an_endpoint_id_given_twice_names_both_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``route ... is declared in plant.yaml and plant.yaml`` named the second place only."""
    catalog = _catalog(tmp_path)
    catalog.write_text(catalog.read_text().replace("- id: tariff", "- id: invoice"))
    assert main(["catalog", "validate", str(catalog)]) == 1
    err = capsys.readouterr().err
    assert (
        f"route 'plant_ops/api/invoice' is declared twice (first at {catalog}: "
        "providers[0].access[0].endpoints[0]) (at "
    ) in err, err
    with pytest.raises(SchemaRouterError) as refused:
        SchemaRouter().add_catalog(catalog)
    assert "is declared twice (first at providers[0].access[0].endpoints[0])" in str(refused.value)
    assert "endpoints[4]" in str(refused.value.where)


def test_catalog_show_marks_a_deprecated_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``catalog show`` listed a deprecated endpoint as any other; only retrieve said so."""
    assert main(["catalog", "show", str(_catalog(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert (
        "  - GET /tariffs/{tariff_id}  plant_ops/api/tariff  read, 1 params, 1 fields, "
        "deprecated (use GET /v2/tariffs/{tariff_id})"
    ) in out
    assert (
        "  - GET /invoices/{invoice_id}  plant_ops/api/invoice  read, 2 params, 1 fields\n" in out
    )


LEGACY = """\
          - id: legacy_report
            name: GET /legacy/energy_report
            operation: {method: GET, path: /legacy/energy_report}
            summary: Legacy energy report of a meter, in Wh.
            parameters:
              - {name: meter, location: query, required: true, json_schema: {type: string},
                 semantic_id: identifier.meter_id}
            output_fields:
              - {name: energy_wh, path: wh, json_schema: {type: number}, unit: Wh,
                 dimension: energy}
"""


def test_a_parameter_declared_as_a_things_id_takes_the_id_named_with_that_thing(
    tmp_path: Path,
) -> None:
    """Trial A (medium): a parameter named ``meter`` (not ``meter_id``) whose semantic id is
    ``identifier.meter_id`` was not filled from "meter M-104": the plan warned that no step
    takes "meter id 'M-104'" though a step declares it, and execute then refused "required
    parameters missing: meter"."""
    from schemarouter.planning.arguments import fill_arguments
    from schemarouter.retrieval.analysis import find_values

    path = _catalog(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + LEGACY, encoding="utf-8")
    router = SchemaRouter.from_catalog(path)
    route = router.snapshot().routes["plant_ops/api/legacy_report"]
    text = "legacy energy report for meter M-104"
    assert fill_arguments(route, text, find_values(text)) == {"meter": "M-104"}
    # the thing named differently, or no thing named: nothing bound
    other = "legacy energy report for site M-104"
    assert fill_arguments(route, other, find_values(other)) == {}


def test_a_request_to_record_a_reading_is_not_answered_by_a_read(tmp_path: Path) -> None:
    """Trial A (medium): "record a manual reading of 1234 kWh for meter M-104" was not read as
    asking for a change ("record" is a noun as often), so with writes not allowed the plan
    ran ``GET /meters/M-104/energy`` in place of the write, where "delete meter M-999" plans
    nothing and says why. Both now say why and plan nothing."""
    router = SchemaRouter.from_catalog(_catalog(tmp_path))
    for request in ("record a manual reading of 1234 kWh for meter M-104", "delete meter M-999"):
        plan = router.plan(request)
        assert plan.route_ids == ()
        assert "a read in their place would answer without doing it" in (plan.reason or "")
