"""Malformed catalogs: each defect raises a SchemaRouterError naming file, place and reason,
and leaves the registry exactly as it was."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.errors import (
    DanglingReferenceError,
    DocumentError,
    DuplicateRouteError,
    SchemaError,
    SchemaRouterError,
    UnitError,
)
from schemarouter.registry.catalog import catalog_problems

from helpers import TINY_CATALOG

Doc = dict[str, Any]


def _endpoint(doc: Doc, provider: int = 0) -> Doc:
    endpoint: Doc = doc["providers"][provider]["access"][0]["endpoints"][0]
    return endpoint


def _field(doc: Doc, name: str) -> Doc:
    return next(f for f in _endpoint(doc)["output_fields"] if f["name"] == name)


def _set(fn: Callable[[Doc], None]) -> Callable[[Doc], Doc]:
    def apply(doc: Doc) -> Doc:
        doc = copy.deepcopy(doc)
        fn(doc)
        return doc

    return apply


# (name, mutation, error class, text expected in the location, text expected in the message)
DEFECTS: list[tuple[str, Callable[[Doc], Doc], type[SchemaRouterError], str, str]] = [
    (
        "unknown key in an endpoint",
        _set(lambda d: _endpoint(d).update(colour="red")),
        DocumentError,
        "endpoints[0].colour",
        "unknown key",
    ),
    (
        "unknown key at top level",
        _set(lambda d: d.update(providerz=[])),
        DocumentError,
        "providerz",
        "unknown key",
    ),
    (
        "missing required key (provider display_name)",
        _set(lambda d: d["providers"][0].pop("display_name")),
        DocumentError,
        "providers[0].display_name",
        "missing",
    ),
    (
        "missing format version",
        _set(lambda d: d.pop("schemarouter_catalog")),
        DocumentError,
        "schemarouter_catalog",
        "missing",
    ),
    (
        "wrong type (required is a list)",
        _set(lambda d: _endpoint(d)["parameters"][0].update(required=["yes"])),
        DocumentError,
        "parameters[0].required",
        "boolean",
    ),
    (
        "wrong enum value (effect)",
        _set(lambda d: _endpoint(d).update(effect="maybe")),
        DocumentError,
        "effect",
        "read",
    ),
    (
        "invalid id (spaces and capitals)",
        _set(lambda d: _endpoint(d).update(id="Summary Search")),
        DocumentError,
        "endpoints[0].id",
        "pattern",
    ),
    (
        "invalid JSON Schema (type is a number)",
        _set(lambda d: _field(d, "band_gap").update(json_schema={"type": 12})),
        SchemaError,
        "output_fields[1].json_schema",
        "invalid JSON Schema",
    ),
    (
        "invalid JSON Schema in a parameter (minimum is text)",
        _set(
            lambda d: _endpoint(d)["parameters"][0].update(
                json_schema={"type": "string", "minLength": "three"}
            )
        ),
        SchemaError,
        "parameters[0].json_schema",
        "invalid JSON Schema",
    ),
    (
        "unknown unit",
        _set(lambda d: _field(d, "band_gap").update(unit="electronvoltz")),
        UnitError,
        "field 'band_gap'",
        "unknown unit",
    ),
    (
        "a unit pint's parser chokes on (its internals were the message)",
        _set(lambda d: _field(d, "band_gap").update(unit="g cm-3")),
        UnitError,
        "field 'band_gap'",
        "unknown unit 'g cm-3': pint cannot read it",
    ),
    (
        "unit does not match the declared dimension",
        _set(lambda d: _field(d, "band_gap").update(dimension="pressure")),
        UnitError,
        "field 'band_gap'",
        "not the declared 'pressure'",
    ),
    (
        "wrong declared factor",
        _set(lambda d: _field(d, "k_vrh")["normalization"].update(scale=1.0e6)),
        UnitError,
        "field 'k_vrh'",
        "pint gives scale=1000000000.0",
    ),
    (
        "normalization source unit differs from the field unit",
        _set(lambda d: _field(d, "k_vrh")["normalization"].update(source_unit="MPa")),
        DocumentError,
        "output_fields[2]",
        "differs from unit",
    ),
    (
        "duplicate route (same endpoint id twice)",
        _set(
            lambda d: d["providers"][0]["access"][0]["endpoints"].append(
                copy.deepcopy(_endpoint(d))
            )
        ),
        DuplicateRouteError,
        "endpoints[1]",
        "declared twice",
    ),
    (
        "duplicate provider",
        _set(lambda d: d["providers"].append(copy.deepcopy(d["providers"][0]))),
        DuplicateRouteError,
        "providers[2].id",
        "declared again",
    ),
    (
        "an intent requiring a field group nobody declares (said only the file)",
        _set(lambda d: d["intents"][0]["field_groups"].append("optics")),
        DocumentError,
        "intents[0].field_groups",
        "requires field group 'optics'",
    ),
    (
        "a field path with an empty segment (caught only when the call ran)",
        _set(lambda d: _field(d, "band_gap").update(path="data..band_gap")),
        DocumentError,
        "output_fields[1]",
        "empty segment",
    ),
    (
        "output fields without a path (each read the whole output; caught only when the call "
        "ran, trial W1)",
        _set(lambda d: [_field(d, name).pop("path") for name in ("band_gap", "k_vrh")]),
        DocumentError,
        "endpoints[0].output_fields",
        "2 output fields (band_gap, k_vrh) declare no path, so each would read the whole output",
    ),
    (
        "field group declared twice (the later replaced the earlier without a word)",
        _set(lambda d: d["field_groups"].append({**d["field_groups"][0], "description": "x"})),
        DocumentError,
        "field_groups[3].id",
        "field group 'identity' is declared again, otherwise",
    ),
    (
        "intent declared twice",
        _set(lambda d: d["intents"].append({"id": "property_lookup", "field_groups": []})),
        DocumentError,
        "intents[1].id",
        "intent 'property_lookup' is declared again, otherwise",
    ),
    (
        "dangling field group",
        _set(lambda d: _field(d, "band_gap").update(group="optics")),
        DanglingReferenceError,
        "output_fields[1].group",
        "'optics'",
    ),
    (
        "dangling intent",
        _set(lambda d: _endpoint(d).update(intents=["teleport"])),
        DanglingReferenceError,
        "intents",
        "'teleport'",
    ),
    (
        "path template variable without a parameter",
        _set(lambda d: _endpoint(d)["operation"].update(path="/materials/{material_id}/summary")),
        DanglingReferenceError,
        "operation.path",
        "{material_id}",
    ),
    (
        "dangling $ref inside a schema",
        _set(lambda d: _field(d, "band_gap").update(json_schema={"$ref": "#/$defs/Nowhere"})),
        DanglingReferenceError,
        "output_fields[1].json_schema",
        "#/$defs/Nowhere",
    ),
    (
        "relative base_url",
        _set(lambda d: d["providers"][0]["access"][0].update(base_url="api.example.org")),
        DocumentError,
        "access[0].base_url",
        "absolute",
    ),
    (
        "HTTP operation without a path",
        _set(lambda d: _endpoint(d)["operation"].pop("path")),
        DocumentError,
        "operation",
        "method and path",
    ),
    (
        "duplicate output field name",
        _set(lambda d: _endpoint(d)["output_fields"].append(copy.deepcopy(_field(d, "k_vrh")))),
        DocumentError,
        "endpoints[0]",
        "twice",
    ),
    (
        "credential declared as a route parameter",
        _set(
            lambda d: _endpoint(d)["parameters"].append(
                {"name": "X-API-KEY", "location": "header", "json_schema": {"type": "string"}}
            )
        ),
        DocumentError,
        "parameters",
        "credential",
    ),
]


@pytest.fixture
def router_with_data(tmp_path: Path) -> SchemaRouter:
    base = tmp_path / "base.yaml"
    doc = yaml.safe_load(TINY_CATALOG)
    doc["providers"] = doc["providers"][1:]  # only cod: the defects touch matproj
    base.write_text(yaml.safe_dump(doc), encoding="utf-8")
    router = SchemaRouter()
    router.add_catalog(base)
    return router


def test_at_least_fifteen_distinct_defects() -> None:
    assert len({name for name, *_ in DEFECTS}) >= 15
    assert len({cls for _, _, cls, *_ in DEFECTS}) >= 5


@pytest.mark.parametrize(
    ("name", "mutate", "error", "where", "what"), DEFECTS, ids=[d[0] for d in DEFECTS]
)
def test_defect_is_refused_and_registry_untouched(
    tmp_path: Path,
    router_with_data: SchemaRouter,
    name: str,
    mutate: Callable[[Doc], Doc],
    error: type[SchemaRouterError],
    where: str,
    what: str,
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(mutate(yaml.safe_load(TINY_CATALOG)), allow_unicode=True), "utf-8"
    )
    before = router_with_data.snapshot()
    with pytest.raises(error) as caught:
        router_with_data.add_catalog(bad)
    exc = caught.value
    assert exc.where is not None and str(bad) in exc.where, exc
    assert where in exc.where, exc
    assert what in str(exc), exc
    assert exc.hint, f"{name}: the error should say what to do"
    assert exc.code.startswith("SR1")
    after = router_with_data.snapshot()
    assert after is before
    assert after.route_ids() == ("cod/rest/result",)


def test_one_semantic_id_normalized_to_two_units_is_said(tmp_path: Path) -> None:
    """Two providers normalizing bulk modulus, one to Pa and one to GPa, registered without a
    word; ``by_semantic_id`` then held "normalized" values in both (a user trial)."""
    doc = yaml.safe_load(TINY_CATALOG)
    other = copy.deepcopy(doc)
    other["providers"] = [copy.deepcopy(doc["providers"][0])]
    other["providers"][0]["id"] = "mp_mirror"
    field = other["providers"][0]["access"][0]["endpoints"][0]["output_fields"][2]
    field["normalization"] = {**field["normalization"], "canonical_unit": "GPa", "scale": 1.0}
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    (tmp_path / "mirror.yaml").write_text(yaml.safe_dump(other), "utf-8")
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    assert not any(
        "canonical unit" in w for w in router.add_catalog(tmp_path / "tiny.yaml").warnings
    )
    change = router.add_catalog(tmp_path / "mirror.yaml")
    (clash,) = [w for w in change.warnings if "canonical unit" in w]
    assert "'mechanical.bulk_modulus' to 'GPa'" in clash and "to 'Pa'" in clash


def test_a_validator_s_message_is_its_own_words(tmp_path: Path) -> None:
    """Catalog errors began "Value error, " (pydantic's prefix) (trial N §10)."""
    doc = yaml.safe_load(TINY_CATALOG)
    _field(doc, "k_vrh")["dimension"] = "temperature"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc), "utf-8")
    with pytest.raises(DocumentError) as caught:
        SchemaRouter().add_catalog(bad)
    assert caught.value.what.startswith("field 'k_vrh': dimension 'temperature' differs")
    assert "Value error" not in str(caught.value)


def test_one_mistake_is_one_problem(tmp_path: Path) -> None:
    """An unknown key in an output field was listed with two more problems, "Tuple should
    have at least 1 item" at the endpoints and the access paths (a user trial): pydantic
    counts only the items that validated."""
    doc = yaml.safe_load(TINY_CATALOG)
    _field(doc, "band_gap")["uncertainty"] = 0.1
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    (problem,) = catalog_problems(path)
    assert "unknown key" in str(problem) and "output_fields[1].uncertainty" in str(problem)


def test_syntax_errors_name_the_line(tmp_path: Path) -> None:
    broken_yaml = tmp_path / "broken.yaml"
    broken_yaml.write_text("schemarouter_catalog: 1\nproviders: [\n  {id: x\n", "utf-8")
    with pytest.raises(DocumentError, match="invalid YAML") as caught:
        SchemaRouter().add_catalog(broken_yaml)
    assert caught.value.where is not None and caught.value.where.startswith(f"{broken_yaml}:")

    broken_json = tmp_path / "broken.json"
    broken_json.write_text('{"schemarouter_catalog": 1, "providers": [}', "utf-8")
    with pytest.raises(DocumentError, match="invalid JSON") as caught:
        SchemaRouter().add_catalog(broken_json)
    assert caught.value.where == f"{broken_json}:1:43"


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([1, 2]), "utf-8")
    with pytest.raises(DocumentError, match="mapping at the top level"):
        SchemaRouter().add_catalog(path)


def test_missing_file_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="not found"):
        SchemaRouter().add_catalog(tmp_path / "nope.yaml")
    with pytest.raises(DocumentError, match="no catalog files"):
        SchemaRouter().add_catalog(tmp_path)


def test_a_bad_file_in_a_folder_registers_nothing(tmp_path: Path) -> None:
    good = yaml.safe_load(TINY_CATALOG)
    (tmp_path / "a_good.yaml").write_text(yaml.safe_dump(good), "utf-8")
    bad = copy.deepcopy(good)
    bad["providers"] = [bad["providers"][1]]
    bad["providers"][0]["id"] = "cod2"
    bad["providers"][0]["access"][0]["endpoints"][0]["output_fields"][1]["unit"] = "parsec^9x"
    (tmp_path / "b_bad.yaml").write_text(yaml.safe_dump(bad, allow_unicode=True), "utf-8")
    router = SchemaRouter()
    with pytest.raises(UnitError) as caught:
        router.add_catalog(tmp_path)
    assert "b_bad.yaml" in (caught.value.where or "")
    assert len(router.snapshot()) == 0
    assert router.registry.version == 0


def test_hidden_and_underscore_folders_of_a_catalog_are_not_read(tmp_path: Path) -> None:
    """A catalog kept in a repository has .github workflows, drafts in _drafts, and perhaps its
    index saved beside it in .index: none of them is a catalog file (a user trial saw each read
    as one, and refused)."""
    (tmp_path / "catalog.yaml").write_text(TINY_CATALOG, "utf-8")
    for name in (".github/workflows/build.yml", "_drafts/wip.yaml", ".index/gen-1/routes.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("- not a catalog\n", "utf-8")
    router = SchemaRouter()
    router.add_catalog(tmp_path)
    assert len(router.snapshot()) == len(
        SchemaRouter().add_catalog(tmp_path / "catalog.yaml").added
    )
    assert catalog_problems(tmp_path) == []


def test_groups_and_intents_named_where_no_file_declares_any_are_warned_about(
    tmp_path: Path,
) -> None:
    """Where no file declares field groups (catalog.yaml left out of a deploy), nothing checks
    the names a field gives: a typo passed unseen (a user trial). The catalog still loads, as
    before, and says so."""
    doc = yaml.safe_load(TINY_CATALOG)
    doc.pop("field_groups"), doc.pop("intents")
    _endpoint(doc).pop("intents", None)
    _endpoint(doc)["output_fields"][1]["group"] = "electronik"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    change = SchemaRouter().add_catalog(path)
    (warning,) = [w for w in change.warnings if "field group" in w]
    assert "electronik" in warning and "no file declares any field group" in warning
    declared = tmp_path / "declared.yaml"
    declared.write_text(TINY_CATALOG, "utf-8")
    assert not [w for w in SchemaRouter().add_catalog(declared).warnings if "declares" in w]


def test_a_qualifier_written_as_a_number_says_to_quote_it(tmp_path: Path) -> None:
    """Trial Q §10: ``temperature: 298.15`` said only "Input should be a valid string ...
    Run `schemarouter catalog schema` for the format"."""
    doc = yaml.safe_load(TINY_CATALOG)
    _field(doc, "band_gap")["qualifiers"] = {"temperature": 298.15}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc), "utf-8")
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    with pytest.raises(DocumentError) as caught:
        router.add_catalog(bad)
    assert "qualifiers.temperature" in str(caught.value.where)
    assert 'quote it, with its unit where it has one (temperature: "298.15 K")' in str(
        caught.value.hint
    )
    (problem,) = catalog_problems(bad)  # `catalog validate` says the same
    assert "quote it" in str(problem)
    assert router.snapshot().route_ids() == ()


def test_add_catalog_takes_a_list_as_one_change(tmp_path: Path) -> None:
    """Trial Q §10: ``add_catalog([a, b])`` refused a list (only a folder or load_catalog
    took several). Now a list is one change: all of it, or nothing."""
    from schemarouter.errors import ArgumentError

    doc = yaml.safe_load(TINY_CATALOG)
    other = copy.deepcopy(doc)
    other["providers"] = [copy.deepcopy(doc["providers"][0])]
    other["providers"][0]["id"] = "mp_mirror"
    a, b, bad = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "bad.yaml"
    a.write_text(yaml.safe_dump(doc), "utf-8")
    b.write_text(yaml.safe_dump(other), "utf-8")
    broken = copy.deepcopy(other)
    _field(broken, "band_gap")["unit"] = "furlongz"
    bad.write_text(yaml.safe_dump(broken), "utf-8")
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    before = router.snapshot()
    with pytest.raises(UnitError, match="furlongz"):
        router.add_catalog([a, str(bad)])
    assert router.snapshot() is before  # nothing of a.yaml either
    change = router.add_catalog([a, str(b)])
    assert router.snapshot().version == before.version + 1
    assert {r.split("/")[0] for r in change.added} == {
        *(p["id"] for p in doc["providers"]),
        "mp_mirror",
    }
    with pytest.raises(ArgumentError, match="empty list"):
        router.add_catalog([])
