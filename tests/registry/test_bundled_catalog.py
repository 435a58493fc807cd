"""The bundled materials-science and scholarly catalog (data/catalogs/materials).

It must register as a whole, stay large and varied enough for the paper's experiments
(>= 19 providers, >= 160 output fields), carry licence and provenance on every provider,
declare units only with a dimension and normalizations only where pint agrees, and give the
unit and fallback rules real work: the same semantic id served by several providers with
different units, qualifiers or source types.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import (
    Effect,
    OutputField,
    ParameterLocation,
    Registration,
    Route,
    SourceType,
)
from schemarouter.registry.catalog import catalog_files, load_catalog
from schemarouter.units import check_field_units, parse_unit

from helpers import BUNDLED_CATALOG

OPTIMADE_FILE = BUNDLED_CATALOG / "optimade.yaml"


@pytest.fixture(scope="module")
def catalog() -> Registration:
    return load_catalog(BUNDLED_CATALOG)


def _fields(catalog: Registration) -> list[tuple[Route, OutputField]]:
    return [(route, item) for route in catalog.routes for item in route.endpoint.output_fields]


def _offers(catalog: Registration, semantic_id: str) -> list[tuple[Route, OutputField]]:
    return [(r, f) for r, f in _fields(catalog) if f.semantic_id == semantic_id]


def _field(catalog: Registration, route_id: str, name: str) -> OutputField:
    (route,) = [r for r in catalog.routes if r.route_id == route_id]
    return route.endpoint.field(name)


# -- registration and size -----------------------------------------------------------------


def test_the_python_api_names_the_bundled_catalog_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README Quickstart's ``SchemaRouter.from_catalog("data/catalogs/materials")`` ran
    only with the checkout as the working folder, and outside it said "catalog not found
    ... Check the path" with no word of the catalog installed with the package (trial W F1).
    ``schemarouter.bundled_catalog()`` names it (the folder the CLI defaults to), from any
    folder; the checkout's relative path, not found, is told of it."""
    from schemarouter import bundled_catalog
    from schemarouter.errors import DocumentError

    monkeypatch.chdir(tmp_path)
    assert bundled_catalog().is_dir()
    assert {f.name for f in catalog_files(bundled_catalog())} == {
        f.name for f in catalog_files(BUNDLED_CATALOG)
    }
    router = SchemaRouter.from_catalog(bundled_catalog())
    assert "materials_project/rest/summary_search" in router.snapshot()
    with pytest.raises(DocumentError, match="catalog not found") as info:
        SchemaRouter.from_catalog("data/catalogs/materials")
    assert "SchemaRouter.from_catalog(schemarouter.bundled_catalog())" in str(info.value)
    assert str(bundled_catalog()) in str(info.value)
    with pytest.raises(DocumentError) as info:  # another missing path: just the path
        SchemaRouter.from_catalog("data/catalogs/mine")
    assert str(info.value).endswith("Check the path")


def test_registers_into_a_router() -> None:
    router = SchemaRouter()
    change = router.add_catalog(BUNDLED_CATALOG)
    snapshot = router.snapshot()
    assert len(change.added) == len(snapshot) >= 40
    assert "materials_project/rest/summary_search" in snapshot


def test_size_matches_the_paper_inventory(catalog: Registration) -> None:
    assert len(catalog.providers) >= 19
    assert len(_fields(catalog)) >= 160
    assert len({f.semantic_id for _, f in _fields(catalog)}) >= 150


def test_every_family_of_the_paper_is_present(catalog: Registration) -> None:
    providers = {p.id for p in catalog.providers}
    wanted = {
        # materials property databases and the OPTIMADE structures route
        "materials_project",
        "oqmd",
        "jarvis_dft",
        "nomad",
        "aflow",
        "cod",
        "optimade",
        # chemistry
        "pubchem",
        # literature
        "arxiv",
        "crossref",
        "openalex",
        "pubmed",
        "europe_pmc",
        # business disclosure
        "dart",
        # web and Q&A fallbacks
        "wikipedia",
        "wikidata",
        "brave_search",
        "stackexchange",
    }
    assert wanted <= providers, sorted(wanted - providers)


def test_files_follow_the_layout() -> None:
    files = {p.name for p in catalog_files(BUNDLED_CATALOG)}
    assert "catalog.yaml" in files and "optimade.yaml" in files
    assert not [p for p in BUNDLED_CATALOG.glob("_*.yaml")]


# -- providers: licence, provenance, credentials -------------------------------------------


def test_every_provider_has_licence_homepage_and_source_type(catalog: Registration) -> None:
    for provider in catalog.providers:
        assert provider.license, provider.id
        assert provider.homepage and provider.homepage.startswith("https://"), provider.id
        assert provider.source_type is not SourceType.UNKNOWN, provider.id
        assert provider.display_name and provider.aliases, provider.id
        if provider.license.startswith("CC-BY"):
            assert provider.attribution, f"{provider.id}: CC BY needs attribution text"
    kinds = {p.source_type for p in catalog.providers}
    assert {
        SourceType.CALCULATED,
        SourceType.EXPERIMENTAL,
        SourceType.LITERATURE,
        SourceType.BUSINESS,
        SourceType.WEB,
    } <= kinds


@pytest.mark.parametrize(
    ("provider_id", "license_text", "source_type"),
    [
        ("materials_project", "CC-BY-4.0", SourceType.CALCULATED),
        ("oqmd", "CC-BY-4.0", SourceType.CALCULATED),
        ("cod", "CC0-1.0", SourceType.EXPERIMENTAL),
        ("crossref", "CC0-1.0", SourceType.LITERATURE),
        ("openalex", "CC0-1.0", SourceType.LITERATURE),
        ("wikipedia", "CC-BY-SA-4.0", SourceType.WEB),
        ("wikidata", "CC0-1.0", SourceType.WEB),
        (
            "dart",
            "Open DART terms of use (Financial Supervisory Service, Korea)",
            SourceType.BUSINESS,
        ),
    ],
)
def test_licences_of_known_sources(
    catalog: Registration, provider_id: str, license_text: str, source_type: SourceType
) -> None:
    (provider,) = [p for p in catalog.providers if p.id == provider_id]
    assert provider.license == license_text
    assert provider.source_type is source_type


def test_credentials_are_names_never_values(catalog: Registration) -> None:
    seen = {}
    for route in catalog.routes:
        auth = route.access.auth
        for name in auth.credentials:
            assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name), (route.route_id, name)
            seen[route.provider.id] = (name, auth.location, auth.parameter)
    assert seen["materials_project"] == ("MP_API_KEY", ParameterLocation.HEADER, "X-API-KEY")
    assert seen["dart"] == ("DART_API_KEY", ParameterLocation.QUERY, "crtfc_key")


# -- endpoints -----------------------------------------------------------------------------


def test_endpoints_are_complete_and_read_only(catalog: Registration) -> None:
    declared_intents = {i.id for i in catalog.intents}
    for route in catalog.routes:
        endpoint = route.endpoint
        where = route.route_id
        assert endpoint.effect is Effect.READ, where
        assert endpoint.description and endpoint.intents, where
        assert set(endpoint.intents) <= declared_intents, where
        properties = endpoint.input_schema.get("properties", {})
        assert set(properties) == {p.name for p in endpoint.parameters}, where
        assert set(endpoint.input_schema.get("required", [])) == {
            p.name for p in endpoint.parameters if p.required
        }, where
        for parameter in endpoint.parameters:
            assert properties[parameter.name] == parameter.json_schema, (where, parameter.name)
        if endpoint.operation.method not in (None, "GET"):
            # a POST that only reads (NOMAD's query) says so
            assert "read_only_post" in endpoint.policy_tags, where


def test_every_intent_and_field_group_is_used(catalog: Registration) -> None:
    used_intents = {i for r in catalog.routes for i in r.endpoint.intents}
    used_groups = {f.group for _, f in _fields(catalog)}
    assert {i.id for i in catalog.intents} <= used_intents
    assert {g.id for g in catalog.field_groups} <= used_groups
    for intent in catalog.intents:
        assert intent.field_groups and intent.examples, intent.id


def test_every_field_is_grouped_and_described(catalog: Registration) -> None:
    for route, item in _fields(catalog):
        assert item.semantic_id and item.group and item.description, (route.route_id, item.name)
        assert item.path, (route.route_id, item.name)


def test_identifier_parameters_carry_semantic_ids(catalog: Registration) -> None:
    by_semantic: dict[str, set[str]] = defaultdict(set)
    for route in catalog.routes:
        for parameter in route.endpoint.parameters:
            if parameter.semantic_id:
                by_semantic[parameter.semantic_id].add(route.provider.id)
    assert {"materials_project", "oqmd", "cod"} <= by_semantic["chemical.formula"]
    assert {"crossref", "opencitations", "unpaywall"} <= by_semantic["identifier.doi"]
    assert "arxiv" in by_semantic["identifier.arxiv_id"]
    assert "materials_project" in by_semantic["identifier.material_id"]
    assert "cas_common_chemistry" in by_semantic["identifier.cas"]
    assert {"pubchem", "chembl"} <= by_semantic["chemical.name"]
    assert "dart" in by_semantic["identifier.corp_code"]
    assert {"pubmed", "dart"} <= by_semantic["time.date"]
    assert {"arxiv", "openalex", "europe_pmc", "brave_search"} <= by_semantic["text.query"]


def test_route_ids_are_stable(catalog: Registration) -> None:
    # Route ids are public names (plans, indexes and logs refer to them): renaming one is a
    # breaking change and must update this list in the same commit.
    assert sorted(r.route_id for r in catalog.routes) == ROUTE_IDS


# -- units ---------------------------------------------------------------------------------


def test_every_unit_has_a_dimension_that_fits(catalog: Registration) -> None:
    with_units = [(r, f) for r, f in _fields(catalog) if f.unit is not None]
    assert len(with_units) >= 80
    for route, item in with_units:
        assert item.dimension, (route.route_id, item.name)
        check_field_units(item, where=route.route_id)  # raises on a mismatch


def test_every_normalization_agrees_with_pint(catalog: Registration) -> None:
    specs = [(r, f) for r, f in _fields(catalog) if f.normalization is not None]
    assert len(specs) >= 40
    for route, item in specs:
        spec = item.normalization
        assert spec is not None
        source, canonical = parse_unit(spec.source_unit), parse_unit(spec.canonical_unit)
        for value in (0.0, 1.0, 42.5):
            expected = (value * source).to(canonical).magnitude  # pint itself, not the spec
            assert math.isclose(spec.apply(value), expected, rel_tol=1e-6, abs_tol=1e-9), (
                route.route_id,
                item.name,
                value,
            )


def test_concrete_conversions(catalog: Registration) -> None:
    k_vrh = _field(catalog, "materials_project/rest/summary_search", "k_vrh")
    assert k_vrh.unit == "GPa" and k_vrh.normalization is not None
    assert k_vrh.normalization.apply(1.0) == pytest.approx(1e9)
    formation = _field(catalog, "oqmd/rest/formationenergy_search", "delta_e")
    assert formation.normalization is not None
    assert formation.normalization.apply(-1.0) == pytest.approx(-96.485332, rel=1e-7)
    nomad_gap = _field(catalog, "nomad/api_v1/entries_query", "band_gap")
    assert nomad_gap.unit == "J" and nomad_gap.normalization is not None
    assert nomad_gap.normalization.apply(1.602176634e-19) == pytest.approx(1.0)
    cod_volume = _field(catalog, "cod/rest/result_search", "vol")
    assert cod_volume.normalization is not None
    assert cod_volume.normalization.apply(1000.0) == pytest.approx(1.0)  # 1000 Å^3 = 1 nm^3
    density = _field(catalog, "materials_project/rest/summary_search", "density")
    assert density.normalization is not None
    assert density.normalization.apply(2.33) == pytest.approx(2330.0)


# -- the same quantity from several sources ------------------------------------------------


def test_semantic_ids_served_with_different_contracts(catalog: Registration) -> None:
    varied = []
    by_semantic: dict[str, list[tuple[Route, OutputField]]] = defaultdict(list)
    for route, item in _fields(catalog):
        by_semantic[str(item.semantic_id)].append((route, item))
    for semantic_id, offers in by_semantic.items():
        providers = {r.provider.id for r, _ in offers}
        units = {f.unit for _, f in offers}
        qualifiers = {tuple(sorted(f.qualifiers.items())) for _, f in offers}
        sources = {r.field_source_type(f) for r, f in offers}
        if len(providers) >= 2 and (len(units) > 1 or len(qualifiers) > 1 or len(sources) > 1):
            varied.append(semantic_id)
    assert len(varied) >= 5
    for semantic_id in (
        "electronic.band_gap",
        "mechanical.bulk_modulus",
        "structure.density",
        "structure.cell_volume",
        "thermo.formation_energy_per_atom",
        "chemistry.molecular_weight",
        "citation.cited_by_count",
    ):
        assert semantic_id in varied, semantic_id


def test_band_gap_functionals_and_units(catalog: Registration) -> None:
    offers = _offers(catalog, "electronic.band_gap")
    assert {r.provider.id for r, _ in offers} >= {
        "materials_project",
        "oqmd",
        "jarvis_dft",
        "aflow",
        "nomad",
    }
    jarvis = {f.qualifiers.get("functional") for r, f in offers if r.provider.id == "jarvis_dft"}
    assert {"OptB88vdW", "TBmBJ"} <= jarvis
    assert {f.unit for _, f in offers} == {"eV", "J"}
    # PBE gaps of MP, OQMD and AFLOW share one contract: a conservative fallback may swap them
    pbe = {r.provider.id for r, f in offers if f.qualifiers == {"functional": "PBE"}}
    assert {"materials_project", "oqmd", "aflow"} <= pbe


def test_bulk_modulus_averages_and_units(catalog: Registration) -> None:
    offers = _offers(catalog, "mechanical.bulk_modulus")
    assert {r.provider.id for r, _ in offers} >= {
        "materials_project",
        "jarvis_dft",
        "aflow",
        "nomad",
    }
    assert {f.unit for _, f in offers} == {"GPa", "Pa"}
    averages = {f.qualifiers.get("average") for _, f in offers}
    assert {"Voigt", "Reuss", "Voigt-Reuss-Hill"} <= averages


def test_cell_volume_experimental_and_calculated(catalog: Registration) -> None:
    offers = _offers(catalog, "structure.cell_volume")
    sources = {r.provider.id: r.field_source_type(f) for r, f in offers}
    assert sources["cod"] is SourceType.EXPERIMENTAL
    assert sources["materials_project"] is SourceType.CALCULATED
    assert {f.unit for _, f in offers} >= {"Å^3", "m^3"}
    canonical = {f.normalization.canonical_unit for _, f in offers if f.normalization}
    assert canonical == {"nm^3"}


def test_alias_layer(catalog: Registration) -> None:
    def named(alias: str) -> set[str]:
        return {f.name for _, f in _fields(catalog) if alias in f.aliases}

    # the paper's examples: "bulk modulus" -> k_vrh, "magnetic moment" -> total_magnetization
    assert "k_vrh" in named("bulk modulus")
    assert "total_magnetization" in named("magnetic moment")
    # Korean aliases for common quantities
    assert {"band_gap", "optb88vdw_bandgap", "mbj_bandgap"} <= named("밴드갭")
    assert "density" in named("밀도")
    assert "MolecularWeight" in named("분자량")


# -- the generated OPTIMADE file -----------------------------------------------------------


def test_optimade_routes_come_from_the_definitions(catalog: Registration) -> None:
    routes = {r.route_id: r for r in catalog.routes if r.provider.id == "optimade"}
    assert set(routes) == {"optimade/v1/structures_search", "optimade/v1/structure_by_id"}
    many = routes["optimade/v1/structures_search"].endpoint
    one = routes["optimade/v1/structure_by_id"].endpoint
    assert many.operation.path == "/structures" and one.operation.path == "/structures/{entry_id}"
    assert {"filter", "response_fields", "page_limit", "page_offset", "sort"} <= {
        p.name for p in many.parameters
    }
    assert one.parameter("entry_id").required
    lattice = many.field("lattice_vectors")
    assert lattice.path == "data.*.attributes.lattice_vectors"
    assert (lattice.unit, lattice.dimension) == ("angstrom", "length")
    assert one.field("lattice_vectors").path == "data.attributes.lattice_vectors"
    assert many.field("id").path == "data.*.id" and many.field("id").identifier
    assert many.field("chemical_formula_reduced").unit is None  # "inapplicable"
    assert many.field("nsites").unit == "dimensionless"
    text = OPTIMADE_FILE.read_text(encoding="utf-8")
    assert text.startswith("# GENERATED FILE")
    assert "python -m schemarouter.training.catalog_tools.optimade" in text
    assert "x-optimade" not in text and "$$inherit" not in text  # derived, not copied


@pytest.mark.shared_data
def test_optimade_file_is_up_to_date(shared_data: Path, tmp_path: Path) -> None:
    from schemarouter.training.catalog_tools import optimade

    out = tmp_path / "optimade.yaml"
    assert optimade.main(["--data", str(shared_data / "optimade"), "--out", str(out)]) == 0
    regenerated = out.read_text(encoding="utf-8").replace(
        str(out), "data/catalogs/materials/optimade.yaml"
    )
    assert regenerated == OPTIMADE_FILE.read_text(encoding="utf-8"), (
        "data/catalogs/materials/optimade.yaml is stale: regenerate it (see its header)"
    )


@pytest.mark.shared_data
def test_optimade_units_resolve_through_nested_lists(shared_data: Path) -> None:
    from schemarouter.training.catalog_tools import optimade

    root = shared_data / "optimade"
    structures = root / "properties" / "optimade" / "structures"
    lattice = optimade.load_property(structures / "lattice_vectors.yaml", root)
    species = optimade.load_property(structures / "species.yaml", root)
    identifier = optimade.load_property(structures / "id.yaml", root)  # $$inherit of core/id
    assert lattice["x-optimade-unit"] == "inapplicable"
    assert optimade._unit(lattice) == "angstrom"
    assert optimade._unit(species) is None  # a list of dictionaries has no single unit
    assert identifier["type"] == ["string"] and "$$inherit" not in identifier


ROUTE_IDS = [
    "aflow/aflux/aflux_search",
    "arxiv/api/query",
    "brave_search/v1/web_search",
    "cas_common_chemistry/api/detail",
    "cas_common_chemistry/api/search",
    "chembl/web_services/molecule_search",
    "cod/rest/result_search",
    "crossref/rest/work_by_doi",
    "crossref/rest/works_search",
    "dart/api/company",
    "dart/api/disclosure_list",
    "dart/api/full_statements",
    "dart/api/major_accounts",
    "datacite/rest/dois_search",
    "europe_pmc/rest/citations",
    "europe_pmc/rest/search",
    "jarvis_dft/jarvis_tools/dft_dataset",
    "materials_project/rest/elasticity_search",
    "materials_project/rest/magnetism_search",
    "materials_project/rest/summary_search",
    "materials_project/rest/thermo_search",
    "nomad/api_v1/entries_query",
    "openalex/api/work_by_id",
    "openalex/api/works_search",
    "opencitations/index_v2/citation_count",
    "opencitations/index_v2/citations",
    "optimade/v1/structure_by_id",
    "optimade/v1/structures_search",
    "oqmd/rest/formationenergy_search",
    "pubchem/pug_rest/compound_properties_by_cid",
    "pubchem/pug_rest/compound_properties_by_name",
    "pubchem/pug_rest/compound_synonyms_by_name",
    "pubmed/eutils/esearch",
    "pubmed/eutils/esummary",
    "semantic_scholar/graph_v1/paper_by_id",
    "semantic_scholar/graph_v1/paper_search",
    "stackexchange/api_v2_3/search_advanced",
    "unpaywall/v2/doi_lookup",
    "wikidata/api/get_item",
    "wikidata/api/search_entities",
    "wikipedia/en/page_summary",
    "wikipedia/en/search_page",
    "wikipedia/ko/page_summary",
    "wikipedia/ko/search_page",
]


def test_the_command_line_is_told_the_bundled_catalogs_path_not_a_python_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial D: `schemarouter catalog show data/catalogs/materials` outside a checkout was
    told to call ``SchemaRouter.from_catalog(schemarouter.bundled_catalog())``, Python a
    command's user cannot run. The command line is told the path to pass instead."""
    from schemarouter import bundled_catalog
    from schemarouter.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["catalog", "show", "data/catalogs/materials"]) != 0
    said = capsys.readouterr().err
    assert "catalog not found" in said and str(bundled_catalog()) in said
    assert "SchemaRouter.from_catalog" not in said
    assert main(["catalog", "show", str(bundled_catalog())]) == 0  # the path it names works
