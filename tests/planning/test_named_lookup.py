"""A request that names one entry by its id is planned by the lookup that takes the id, where
the better-ranked route is a list of the same entries that takes no id.

Trial X3 (a lab inventory of typed functions): "details of sample S-12" ranked
``list_samples`` first and ``get_sample`` second; the plan called ``list_samples`` with no
arguments, returned every sample, and only warned that "the request names sample id 'S-12',
which no step takes as an argument"."""

from __future__ import annotations

from pydantic import BaseModel

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


class Sample(BaseModel):
    sample_id: str
    project: str
    volume_ml: float


SAMPLES = {"S-12": Sample(sample_id="S-12", project="apollo", volume_ml=1.5)}


def list_samples(project: str | None = None) -> list[Sample]:
    """Details of every sample: list the samples, with the details of each sample."""
    return list(SAMPLES.values())


def get_sample(sample_id: str) -> Sample:
    """Look one up by its id."""
    return SAMPLES[sample_id]


def delete_sample(sample_id: str) -> bool:
    """Delete the details of a sample."""
    return True


def _router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([list_samples, get_sample], provider="lab")
    router.add_callable(delete_sample, provider="lab", effect="destructive")
    return router


def test_the_lookup_taking_the_named_id_is_planned_over_the_list() -> None:
    router = _router()
    request = "details of sample S-12"
    assert router.retrieve(request, k=2).route_ids[0] == "lab/python/list_samples"
    plan = router.plan(request)
    assert [(s.route_id, dict(s.arguments)) for s in plan.steps] == [
        ("lab/python/get_sample", {"sample_id": "S-12"})
    ]
    assert any(
        "planned lab/python/get_sample in place of the better-ranked lab/python/list_samples" in w
        and "'S-12'" in w
        for w in plan.warnings
    ), plan.warnings
    assert not any("which no step takes as an argument" in w for w in plan.warnings)
    assert router.execute(plan).steps[0].output == SAMPLES["S-12"].model_dump()


def test_the_list_stays_where_no_id_is_named_or_only_a_change_takes_it() -> None:
    router = _router()
    assert router.plan("details of every sample").route_ids == ("lab/python/list_samples",)
    # a lookup of another provider, or a change, never stands in for the list
    router.remove_routes("lab/python/get_sample")
    plan = router.plan("details of sample S-12")
    assert plan.route_ids == ("lab/python/list_samples",)


def test_the_lookup_is_planned_whatever_max_calls_allows() -> None:
    """With ``max_calls=3`` "details of sample S-12" planned the unfiltered list again, and
    "details of samples S-12 and S-13" with one call said "plan with max_calls=2 to call it
    for each", where max_calls=2 planned the list once, for neither (trial V3)."""
    router = _router()
    for calls in (2, 3):
        plan = router.plan("details of sample S-12", max_calls=calls)
        assert [(s.route_id, dict(s.arguments)) for s in plan.steps] == [
            ("lab/python/get_sample", {"sample_id": "S-12"})
        ], calls
    one = router.plan("details of samples S-12 and S-13")
    assert any("plan with max_calls=2 to call it for each" in w for w in one.warnings)
    two = router.plan("details of samples S-12 and S-13", max_calls=2)
    assert [(s.route_id, dict(s.arguments)) for s in two.steps] == [
        ("lab/python/get_sample", {"sample_id": "S-12"}),
        ("lab/python/get_sample", {"sample_id": "S-13"}),
    ]
