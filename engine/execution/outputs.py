"""Raw output -> planned fields: validation, extraction, declared normalization, projection.

- :func:`document_issues` validates the whole raw output against the endpoint's declared
  ``output_schema`` (JSON Schema 2020-12); each violation is located by a JSON path
  (``$.data[1].band_gap``).
- :func:`extract_field` follows a field's path into the raw output (``*`` over every element
  of an array and every value of an object), validates each value against the field's own
  JSON Schema, applies the field's declared :class:`UnitNormalizationSpec` (and nothing
  else: a unit string alone never converts), and attaches unit, provenance and license.
- :func:`project_output` cuts a raw output down to the paths of some fields (the document
  an agent sees for a projected call keeps its shape: ``{"data": [{"band_gap": 1.1}]}``).
- :func:`projection_names` gives the names a server-side projection parameter
  (OPTIMADE ``response_fields``, Materials Project ``_fields``) takes for the planned fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from schemarouter.contracts import (
    Effect,
    OutputField,
    Route,
    UnitNormalizationSpec,
    schema_validator,
)
from schemarouter.errors import OutputValidationError
from schemarouter.execution.results import FieldIssue, FieldStatus, FieldValue
from schemarouter.registry.bounds import MAX_OUTPUT_DEPTH, json_problem
from schemarouter.units import normalize

__all__ = [
    "check_output_shape",
    "document_issues",
    "extract_field",
    "json_path",
    "missing_field",
    "more_pages",
    "output_hint",
    "output_standing",
    "present_values",
    "project_output",
    "projection_names",
]

_MESSAGE_LIMIT = 300
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Location = tuple[str | int, ...]


def json_path(location: Iterable[str | int]) -> str:
    """``("data", 0, "band gap")`` -> ``$.data[0]['band gap']``."""
    out = "$"
    for part in location:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            out += f".{part}"
        else:
            out += "[" + repr(part) + "]"
    return out


def _short(text: str) -> str:
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."


class _Leaf(NamedTuple):
    location: Location
    value: Any
    #: ``None`` for a present value; else ``(kind, message)``.
    problem: tuple[str, str] | None


def _walk(node: Any, segments: Sequence[str], location: Location) -> Any:
    """A tree of lists (one level per ``*``) with :class:`_Leaf` leaves."""
    if not segments:
        return _Leaf(location, node, None)
    head, rest = segments[0], segments[1:]
    if head == "*":
        if isinstance(node, list):
            return [_walk(item, rest, (*location, i)) for i, item in enumerate(node)]
        if isinstance(node, dict):
            return [_walk(item, rest, (*location, key)) for key, item in node.items()]
        if node is None:
            return _Leaf(location, None, ("missing", "null where a list or object was expected"))
        return _Leaf(
            location, node, ("invalid", f"{type(node).__name__} where a list was expected")
        )
    if isinstance(node, dict):
        if head in node:
            return _walk(node[head], rest, (*location, head))
        return _Leaf((*location, head), None, ("missing", f"no key {head!r}"))
    if isinstance(node, list) and head.isdigit() and int(head) < len(node):
        return _walk(node[int(head)], rest, (*location, int(head)))
    if node is None:
        return _Leaf((*location, head), None, ("missing", "parent is null"))
    return _Leaf(location, node, ("invalid", f"{type(node).__name__} where an object was expected"))


def _leaves(tree: Any) -> Iterable[_Leaf]:
    if isinstance(tree, _Leaf):
        yield tree
    else:
        for item in tree:
            yield from _leaves(item)


def _map(tree: Any, fn: Any) -> Any:
    if isinstance(tree, _Leaf):
        return fn(tree)
    return [_map(item, fn) for item in tree]


def present_values(data: Any, path: str) -> list[tuple[Any, str]]:
    """Every present, non-null value at ``path`` (``results.*.id``) in ``data``, in order,
    each with its JSON path (``$.results[0].id``)."""
    segments = [s for s in path.split(".") if s]
    return [
        (leaf.value, json_path(leaf.location))
        for leaf in _leaves(_walk(data, segments, ()))
        if leaf.problem is None and leaf.value is not None
    ]


def entry_count(data: Any, path: str) -> int:
    """How many places ``path`` (``results.*.id``) names in ``data``: every entry a list
    returned, with or without a value there (``{"items": [{"id": "T-1"}, {"title": "x"}]}``
    has two entries at ``items.*.id``, one value)."""
    return sum(1 for _ in _leaves(_walk(data, [s for s in path.split(".") if s], ())))


def _related(a: Location, b: Location) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def output_hint(route: Route, status_code: int | None, hint: str, after_write: str) -> str:
    """The hint of an output problem of ``route``: ``hint`` after a read; after a write or
    destructive call, that it ran (the output is checked once the effect took place, and
    calling again would run it again), then ``after_write``."""
    if route.endpoint.effect is Effect.READ:
        return hint
    answered = f"The server answered {status_code}" if status_code else "The call returned"
    return (
        f"{answered}: the {route.endpoint.effect.value} was performed. Do not repeat the call "
        f"blindly (it would run again); {after_write}"
    )


def check_output_shape(
    data: Any, where: str, *, route: Route | None = None, status_code: int | None = None
) -> None:
    """Refuse a raw output nested past :data:`~schemarouter.registry.bounds.MAX_OUTPUT_DEPTH`, or
    holding a string or key with a lone surrogate (a server's ``"\\ud800"`` escape) (its
    values could not be validated, redacted or serialized: the result's ``model_dump_json()``
    raised): an :class:`~schemarouter.errors.OutputValidationError` at the JSON path where it
    does (its hint saying that a write of ``route`` ran, see :func:`output_hint`)."""
    problem = json_problem(data, max_depth=MAX_OUTPUT_DEPTH, finite=False, unicode=True)
    if problem is not None:
        path = json_path(problem.location[:32])
        hint = "The server's output is malformed; nothing of it was kept"
        if route is not None:
            hint = output_hint(route, status_code, hint, "nothing of its output was kept")
        what = (
            "the raw output holds a lone surrogate (a \\ud800-\\udfff escape), which is not Unicode"
            if problem.kind == "not_unicode"
            else f"the raw output is {problem.message}"
        )
        error = OutputValidationError(
            what,
            where=f"{where} output {path}",
            hint=hint,
        )
        error.json_path = path  # type: ignore[attr-defined]
        raise error


def document_issues(route: Route, data: Any) -> list[tuple[Location, FieldIssue]]:
    """Violations of the endpoint's declared ``output_schema`` (empty if none declared)."""
    schema = route.endpoint.output_schema
    if not schema:
        return []
    out: list[tuple[Location, FieldIssue]] = []
    errors = sorted(
        schema_validator(schema).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if data is None and errors:
        # an empty body (or JSON null): jsonschema's "None is not of type 'object'" names a
        # Python value the server never sent
        declared = schema.get("type")
        wanted = f"type {declared!r}" if isinstance(declared, str) else "an output"
        issue = FieldIssue(
            kind="invalid",
            path=json_path(()),
            message=f"output schema: the output is empty (an empty body, or null) where "
            f"{wanted} is declared",
        )
        return [((), issue)]
    for error in errors[:100]:
        base: Location = tuple(error.absolute_path)
        locations = [base]
        if error.validator == "required" and isinstance(error.instance, dict):
            names = error.validator_value if isinstance(error.validator_value, list) else []
            locations = [(*base, n) for n in names if n not in error.instance] or [base]
        for location in locations:
            issue = FieldIssue(
                kind="invalid",
                path=json_path(location),
                message=_short(f"output schema: {error.message}"),
            )
            out.append((location, issue))
    return out


def _check(item: OutputField, leaf: _Leaf, doc: Sequence[tuple[Location, FieldIssue]]) -> _Leaf:
    """Validate one present value against the field's schema and the document's errors."""
    if leaf.problem is not None:
        return leaf
    for location, issue in doc:
        if _related(location, leaf.location):
            return leaf._replace(problem=("invalid", issue.message))
    if item.json_schema:
        error = next(iter(schema_validator(item.json_schema).iter_errors(leaf.value)), None)
        if error is not None:
            where = (*leaf.location, *error.absolute_path)
            return _Leaf(where, leaf.value, ("invalid", _short(error.message)))
    # JSON Schema's bounds cannot catch NaN (every comparison with it is false)
    odd = json_problem(leaf.value, max_depth=MAX_OUTPUT_DEPTH)
    if odd is not None:
        return _Leaf((*leaf.location, *odd.location), leaf.value, ("invalid", odd.message))
    return leaf


def _status(leaves: Sequence[_Leaf]) -> FieldStatus:
    if not leaves or all(leaf.problem is None for leaf in leaves):
        return "ok"
    kinds = {leaf.problem[0] for leaf in leaves if leaf.problem is not None}
    if any(leaf.problem is None for leaf in leaves):
        return "partial"
    return "invalid" if "invalid" in kinds else "missing"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _not_numeric(value: Any) -> Any:
    """What in ``value`` a declared spec cannot convert: the value itself, or the first
    element of a (nested) list that is no number; ``None`` where every part is a number
    (a spec converts a list element by element, as :func:`~schemarouter.units.normalize`
    does; a null element stays null)."""
    if isinstance(value, list):
        return next((odd for odd in map(_not_numeric, value) if odd is not None), None)
    return None if _is_number(value) else value


def _evidence(route: Route, item: OutputField) -> dict[str, Any]:
    spec = item.normalization
    return {
        "field": item.name,
        "semantic_id": item.semantic_id,
        "source_unit": item.unit,
        "canonical_unit": spec.canonical_unit if spec else item.unit,
        "dimension": spec.dimension if spec else item.dimension,
        "qualifiers": dict(item.qualifiers),
        "source_type": route.field_source_type(item).value,
        "license": route.field_license(item),
        "license_url": None if item.license else route.provider.license_url,
        "provider": route.provider.id,
        "route_id": route.route_id,
        "fingerprint": route.fingerprint,
        "path": item.path,
    }


def output_standing(route: Route) -> dict[str, Any]:
    """What a step's or call's raw output of ``route`` is under: its provider's attribution,
    and the licences and source types of its values (see ``_RouteRun.licenses``)."""
    fields = route.endpoint.output_fields
    licenses = [route.field_license(f) for f in fields] if fields else [route.provider.license]
    kinds = [route.field_source_type(f) for f in fields] or [route.provider.source_type]
    return {
        "attribution": route.provider.attribution,
        "licenses": tuple(dict.fromkeys(name for name in licenses if name)),
        "source_types": tuple(dict.fromkeys(kind.value for kind in kinds)),
    }


def _kind(value: Any) -> str:
    """``str``, or ``a str in a list`` (what :func:`_not_numeric` found)."""
    odd = _not_numeric(value)
    name = type(odd).__name__ if odd is not None else type(value).__name__
    return f"a {name} in a list" if isinstance(value, list) else name


def _normalized(leaf: _Leaf, spec: UnitNormalizationSpec) -> _Leaf:
    """``leaf`` with its value converted by ``spec``; a conversion that leaves the finite
    numbers (``1e300 GPa`` in Pa is ``inf``) makes the value invalid there, as a server's
    NaN is."""
    if leaf.problem is not None:
        return leaf
    value = normalize(leaf.value, spec)
    odd = json_problem(value, max_depth=MAX_OUTPUT_DEPTH)
    if odd is None:
        return leaf._replace(value=value)
    at = tuple(odd.location)
    return _Leaf(
        (*leaf.location, *at),
        leaf.value,
        (
            "invalid",
            f"the declared {spec.source_unit} -> {spec.canonical_unit} conversion of "
            f"{_at(leaf.value, at)!r} gives {_at(value, at)!r}, not a finite number",
        ),
    )


def _at(value: Any, location: Location) -> Any:
    for part in location:
        value = value[part]
    return value


def extract_field(
    route: Route,
    item: OutputField,
    data: Any,
    *,
    doc: Sequence[tuple[Location, FieldIssue]] = (),
) -> FieldValue:
    """One planned field out of the raw output, checked, normalized, with its evidence."""
    segments = [s for s in item.path.split(".") if s] if item.path else []
    tree = _map(_walk(data, segments, ()), lambda leaf: _check(item, leaf, doc))
    raw = _map(tree, lambda leaf: leaf.value)
    spec = item.normalization
    normalized = False
    odd: list[_Leaf] = []
    if spec is not None:
        present = [
            leaf for leaf in _leaves(tree) if leaf.problem is None and leaf.value is not None
        ]
        odd = [leaf for leaf in present if _not_numeric(leaf.value) is not None]
        if not odd:
            normalized = True
            tree = _map(tree, lambda leaf: _normalized(leaf, spec))
    leaves = list(_leaves(tree))
    issues = [
        FieldIssue(kind=leaf.problem[0], path=json_path(leaf.location), message=leaf.problem[1])
        for leaf in leaves
        if leaf.problem is not None
    ]
    if not leaves and "*" in segments:  # zero rows: the route answered, with no value of it
        listed = json_path(segments[: segments.index("*")])
        issues.append(
            FieldIssue(kind="missing", path=listed, message=f"no value: {listed} lists nothing")
        )
    if spec is not None and odd:
        issues.append(
            FieldIssue(
                kind="not_normalized",
                path=json_path(odd[0].location),
                message=f"{_kind(odd[0].value)} is not a number: the declared "
                f"{spec.source_unit} -> {spec.canonical_unit} conversion was not applied",
            )
        )
    value = _map(tree, lambda leaf: leaf.value if leaf.problem is None else None)
    evidence = _evidence(route, item)
    return FieldValue(
        **evidence,
        value=value,
        raw_value=raw,
        unit=evidence["canonical_unit"] if normalized else item.unit,
        normalized=normalized,
        status=_status(leaves) if leaves or "*" not in segments else "missing",
        issues=tuple(issues),
    )


def missing_field(route: Route, item: OutputField, *, reason: str) -> FieldValue:
    """A planned field that no call delivered, marked as such."""
    return FieldValue(
        **_evidence(route, item),
        value=None,
        raw_value=None,
        unit=item.unit,
        normalized=False,
        status="missing",
        issues=(FieldIssue(kind="route_failed", path="$", message=_short(reason)),),
    )


def _document_name(path: str) -> str | None:
    """The top-level document field a path reads: ``data.*.bulk_modulus.vrh`` ->
    ``bulk_modulus``; ``data.*.attributes.nsites`` / ``data.attributes.nsites`` -> ``nsites``."""
    segments = [s for s in path.split(".") if s]
    if "*" in segments:
        segments = segments[segments.index("*") + 1 :]
    elif segments[:1] == ["data"]:
        segments = segments[1:]
    if len(segments) > 1 and segments[0] == "attributes":
        segments = segments[1:]
    return segments[0] if segments and segments[0] != "*" else None


def projection_names(route: Route, fields: Iterable[str]) -> tuple[str, ...] | None:
    """Names for the route's projection parameter, or ``None`` where one has no name."""
    names: list[str] = []
    for name in fields:
        found = _document_name(route.endpoint.field(name).path)
        if found is None:
            return None
        if found not in names:
            names.append(found)
    return tuple(names) if names else None


def more_pages(route: Route, data: Any) -> str | None:
    """A note where ``data`` is one page of more: a JSON:API answer (OPTIMADE's) whose
    ``links.next`` is set or whose ``meta.more_data_available`` is true. The values are that
    page's only, and a result that said nothing read as the whole answer (trial O)."""
    if not isinstance(data, Mapping):
        return None
    links, meta = data.get("links"), data.get("meta")
    following = links.get("next") if isinstance(links, Mapping) else None
    if isinstance(following, Mapping):
        following = following.get("href")
    more = isinstance(meta, Mapping) and meta.get("more_data_available") is True
    if not (isinstance(following, str) and following) and not more:
        return None
    entries = data.get("data")
    total = meta.get("data_returned") if isinstance(meta, Mapping) else None
    size = f"{len(entries)} entries" if isinstance(entries, list) else "some entries"
    if isinstance(entries, list) and isinstance(total, int) and not isinstance(total, bool):
        size = f"{len(entries)} of {total} entries"
    paging = [
        p.name
        for p in route.endpoint.parameters
        if re.match(r"^page_(?:offset|number|cursor|above|below)$|^offset$|^cursor$", p.name)
    ]
    ask = (
        f"call it again with {' or '.join(paging)} for the next page"
        if paging
        else "the server's links.next is the next page"
    )
    said = "links.next" if isinstance(following, str) and following else ""
    said = ", ".join(w for w in (said, "meta.more_data_available" if more else "") if w)
    return (
        f"{route.route_id} answered one page ({size}) and the server has more ({said}): "
        f"the values are this page's only; {ask}, or narrow the filter"
    )


def project_output(data: Any, paths: Iterable[str]) -> Any:
    """``data`` cut down to ``paths`` (field paths with ``*``), keeping its shape.

    Objects keep only the keys on some path, arrays keep every element (each projected);
    an empty path keeps everything below it, and no paths at all keep the whole output. A
    path that does not exist in ``data`` adds nothing (the field's own extraction reports
    it missing).
    """
    specs = [tuple(s for s in path.split(".") if s) for path in paths]
    return _project(data, specs) if specs else data


def _project(node: Any, specs: Sequence[tuple[str, ...]]) -> Any:
    if any(not spec for spec in specs):
        return node
    if isinstance(node, list):
        out = []
        for i, item in enumerate(node):
            wanted = [spec[1:] for spec in specs if spec[0] in ("*", str(i))]
            if wanted:
                out.append(_project(item, wanted))
        return out
    if isinstance(node, dict):
        star = [spec[1:] for spec in specs if spec[0] == "*"]
        projected: dict[str, Any] = {}
        for key, value in node.items():
            wanted = [spec[1:] for spec in specs if spec[0] == key] + star
            if wanted:
                projected[key] = _project(value, wanted)
        return projected
    return node
