"""The registry gate: invented routes, fields, parameters and values never pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemarouter.errors import GateError
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot
from schemarouter.retrieval.gate import check_candidates, validate_selection
from schemarouter.retrieval.results import candidate_from_route


@pytest.fixture
def snapshot(tiny_catalog: Path) -> RegistrySnapshot:
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    return registry.snapshot()


def test_registered_parts_pass_invented_parts_are_reported(snapshot: RegistrySnapshot) -> None:
    report = validate_selection(
        snapshot,
        [
            {
                "route_id": "matproj/rest/summary",
                "fields": [
                    "band_gap",
                    "electronic.band_gap",
                    "melting_point",
                    "mechanical.bulk_modulus",
                ],
                "arguments": {"formula": "Si", "api_key": "x", "material_ids": 3},
            },
            {"route_id": "openai/rest/answer_everything", "fields": ["answer"]},
            {"route_id": "cod/rest/result", "fingerprint": "sha256:0000"},
            "delete everything",
        ],
    )
    (selection,) = report.accepted
    assert selection.route_id == "matproj/rest/summary"
    assert selection.fields == ("band_gap", "k_vrh")  # semantic ids resolve to names
    assert selection.arguments == {"formula": "Si"}
    assert selection.fingerprint == snapshot.route("matproj/rest/summary").fingerprint
    reasons = {(r.index, r.part) for r in report.rejected}
    assert reasons == {
        (0, "field"),
        (0, "parameter"),
        (1, "route"),
        (2, "fingerprint"),
        (3, "proposal"),
    }
    assert not report.clean


def test_schema_invalid_values_are_dropped(snapshot: RegistrySnapshot) -> None:
    report = validate_selection(
        snapshot, {"route_id": "cod/rest/result", "arguments": {"formula": ["Si"]}}
    )
    assert report.accepted[0].arguments == {}
    assert report.rejected[0].part == "value"
    assert "breaks the schema of 'formula'" in report.rejected[0].reason


def test_check_candidates_refuses_tampered_candidates(snapshot: RegistrySnapshot) -> None:
    route = snapshot.route("matproj/rest/summary")
    good = candidate_from_route(route, rank=1, score=1.0, matched_fields=["band_gap"])
    check_candidates(snapshot, [good])
    with pytest.raises(GateError, match="not registered with fingerprint"):
        check_candidates(snapshot, [good.model_copy(update={"fingerprint": "sha256:1"})])
    with pytest.raises(GateError, match="unregistered fields"):
        check_candidates(snapshot, [good.model_copy(update={"matched_fields": ("secret",)})])
    with pytest.raises(GateError, match="not registered on"):
        candidate_from_route(route, rank=1, score=1.0, matched_fields=["secret"])


names = st.one_of(
    st.sampled_from(
        [
            "matproj/rest/summary",
            "cod/rest/result",
            "band_gap",
            "k_vrh",
            "formula",
            "file",
            "cellvol",
            "electronic.band_gap",
            "../etc/passwd",
            "",
        ]
    ),
    st.text(max_size=12),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
proposals = st.one_of(
    st.fixed_dictionaries(
        {"route_id": names},
        optional={
            "fields": st.one_of(st.lists(names, max_size=4), json_values),
            "arguments": st.one_of(st.dictionaries(names, json_values, max_size=4), json_values),
            "fingerprint": st.one_of(st.none(), st.text(max_size=10)),
            "sneaky": json_values,
        },
    ),
    json_values,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=st.one_of(st.lists(proposals, max_size=5), proposals))
def test_adversarial_proposals_never_leak(snapshot: RegistrySnapshot, batch: Any) -> None:
    report = validate_selection(snapshot, batch)
    for selection in report.accepted:
        route = snapshot.route(selection.route_id)  # registered
        assert selection.fingerprint == route.fingerprint
        registered_fields = {f.name for f in route.endpoint.output_fields}
        assert set(selection.fields) <= registered_fields
        params = {p.name: p for p in route.endpoint.parameters}
        assert set(selection.arguments) <= set(params)
        from schemarouter.contracts import schema_validator

        for name, value in selection.arguments.items():
            assert schema_validator(params[name].json_schema).is_valid(value)
