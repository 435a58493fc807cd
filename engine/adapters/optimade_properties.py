"""The OPTIMADE structures properties this project knows: each one's semantic id, field
group, whether it identifies an entry, and the words a request may use for it.

One table for both ways an OPTIMADE service is registered: :func:`schemarouter.adapters.
optimade.optimade_registration` (``add_optimade``, a live service or its payloads) gives
its fields these semantic ids and aliases, and the bundled catalog's generator
(``schemarouter.training.catalog_tools.optimade``) writes them into the catalog file. Before
they were two tables, and a service registered with ``add_optimade`` had no aliases: "space
group" resolved to no field of it (trial O).
"""

from __future__ import annotations

__all__ = ["OPTIMADE_PROPERTIES"]

#: OPTIMADE property -> (semantic id, field group, identifier?, extra aliases).
#: Semantic ids are the ones the hand-written catalog files use for the same quantity.
OPTIMADE_PROPERTIES: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {
    "id": ("identifier.optimade_entry_id", "identity", True, ("entry id", "structure id")),
    "immutable_id": ("identifier.optimade_immutable_id", "provenance", False, ()),
    "last_modified": ("provenance.last_modified", "provenance", False, ("updated",)),
    "elements": ("chemical.elements", "identity", False, ("constituent elements",)),
    "nelements": ("chemical.nelements", "identity", False, ("number of elements",)),
    "elements_ratios": ("chemical.elements_ratios", "identity", False, ("composition",)),
    "chemical_formula_descriptive": ("chemical.formula_descriptive", "identity", False, ()),
    "chemical_formula_reduced": (
        "chemical.formula",
        "identity",
        True,
        ("formula", "reduced formula", "화학식"),
    ),
    "chemical_formula_hill": ("chemical.formula_hill", "identity", False, ("Hill formula",)),
    "chemical_formula_anonymous": (
        "chemical.formula_anonymous",
        "identity",
        False,
        ("anonymous formula",),
    ),
    "dimension_types": ("structure.dimension_types", "structure", False, ("periodicity",)),
    "nperiodic_dimensions": (
        "structure.nperiodic_dimensions",
        "structure",
        False,
        ("dimensionality",),
    ),
    "lattice_vectors": (
        "structure.lattice_vectors",
        "structure",
        False,
        ("cell", "lattice", "격자 벡터"),
    ),
    "space_group_symmetry_operations_xyz": (
        "structure.symmetry_operations",
        "structure",
        False,
        ("symmetry operations",),
    ),
    "space_group_symbol_hall": ("structure.space_group_hall", "structure", False, ()),
    "space_group_symbol_hermann_mauguin": (
        "structure.space_group_symbol",
        "structure",
        False,
        ("space group", "공간군"),
    ),
    "space_group_symbol_hermann_mauguin_extended": (
        "structure.space_group_symbol_extended",
        "structure",
        False,
        (),
    ),
    "space_group_it_number": (
        "structure.space_group_number",
        "structure",
        False,
        ("space group number",),
    ),
    "cartesian_site_positions": (
        "structure.cartesian_site_positions",
        "structure",
        False,
        ("atomic positions",),
    ),
    "nsites": ("structure.nsites", "structure", False, ("number of sites", "number of atoms")),
    "species": ("structure.species", "structure", False, ()),
    "species_at_sites": ("structure.species_at_sites", "structure", False, ()),
    "assemblies": ("structure.assemblies", "structure", False, ("disorder groups",)),
    "structure_features": ("structure.features", "structure", False, ()),
}
