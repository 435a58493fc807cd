"""Readable text views of a registration: the ``catalog show`` summary and SEMANTICS.md."""

from __future__ import annotations

from collections import defaultdict

from schemarouter.contracts import AvailabilityStatus, OutputField, Registration, Route
from schemarouter.retrieval.results import CandidateField, CapabilityRetrieval

__all__ = ["render_catalog_summary", "render_retrieval", "render_semantics"]


def _bold(text: str, color: bool) -> str:
    return f"\033[1m{text}\033[0m" if color else text


def _dim(text: str, color: bool) -> str:
    return f"\033[2m{text}\033[0m" if color else text


def _operation(route: Route) -> str:
    op = route.endpoint.operation
    if op.method and op.path:
        return f"{op.method} {op.path}"
    if op.tool:
        return f"tool {op.tool}"
    return f"python {op.qualname}"


def _unit_text(item: OutputField) -> str:
    if item.unit is None:
        return ""
    spec = item.normalization
    if spec is not None and spec.canonical_unit != item.unit:
        return f"{item.unit} -> {spec.canonical_unit}"
    return item.unit


def _qualifier_text(item: OutputField) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(item.qualifiers.items()))


def _own_terms(item: OutputField) -> str:
    """A field's own license or provenance, where it differs from its provider's."""
    terms = []
    if item.license:
        terms.append(f"license {item.license}")
    if item.source_type:
        terms.append(f"{item.source_type.value} data")
    return ", ".join(terms)


def render_catalog_summary(registration: Registration, *, color: bool = False) -> str:
    """Providers, their routes, and every field with semantic id, unit and qualifiers."""
    routes_by_provider: dict[str, list[Route]] = defaultdict(list)
    for route in registration.routes:
        routes_by_provider[route.provider.id].append(route)
    fields = [f for r in registration.routes for f in r.endpoint.output_fields]
    semantic_ids = {f.semantic_id for f in fields if f.semantic_id}
    lines = [
        _bold(f"Catalog {registration.source}", color),
        f"{len(routes_by_provider)} providers, {len(registration.routes)} routes, "
        f"{len(fields)} output fields, {len(semantic_ids)} semantic ids, "
        f"{sum(1 for f in fields if f.unit)} fields with units",
        "",
    ]
    for provider_id in sorted(routes_by_provider):
        routes = routes_by_provider[provider_id]
        provider = routes[0].provider
        lines.append(
            _bold(f"{provider.display_name}", color)
            + f"  [{provider.id}]  {provider.source_type.value} data, "
            + f"license {provider.license or 'not declared'}"
        )
        if provider.homepage:
            lines.append(f"  {provider.homepage}")
        accesses = {r.access.id: r.access for r in routes}
        for access in accesses.values():
            auth = access.auth
            needs = ", ".join(auth.credentials) if auth.credentials else "no credentials"
            if auth.credentials and auth.parameter:
                needs += f" ({auth.location.value if auth.location else '?'} {auth.parameter})"
            address = access.base_url or access.server or "not bound"
            lines.append(f"  via {access.kind.value} {address}  [{needs}]")
        for route in routes:
            endpoint = route.endpoint
            lines.append(
                f"  - {_operation(route)}  {_dim(route.route_id, color)}  "
                f"{endpoint.effect.value}, {len(endpoint.parameters)} params, "
                f"{len(endpoint.output_fields)} fields"
            )
            width = max((len(f.name) for f in endpoint.output_fields), default=0)
            sid_width = max((len(f.semantic_id or "") for f in endpoint.output_fields), default=0)
            for item in endpoint.output_fields:
                marker = "*" if item.identifier else " "
                extras = "  ".join(
                    x for x in (_unit_text(item), _qualifier_text(item), _own_terms(item)) if x
                )
                lines.append(
                    f"      {marker}{item.name:<{width}}  {(item.semantic_id or '-'):<{sid_width}}"
                    f"  {extras}".rstrip()
                )
        lines.append("")
    shared = _shared_semantics(registration)
    if shared:
        lines.append(_bold("Semantic ids served by more than one provider", color))
        for semantic_id, offers in shared.items():
            lines.append(f"  {semantic_id}")
            for route, item in offers:
                extras = "  ".join(
                    x
                    for x in (
                        _unit_text(item) or "no unit",
                        route.field_source_type(item).value,
                        f"license {route.field_license(item) or 'not declared'}",
                        _qualifier_text(item),
                    )
                    if x
                )
                lines.append(f"    {route.route_id}:{item.name}  {extras}")
        lines.append("")
    lines.append(_dim("* identifier field", color))
    return "\n".join(lines) + "\n"


def _by_semantic(registration: Registration) -> dict[str, list[tuple[Route, OutputField]]]:
    offers: dict[str, list[tuple[Route, OutputField]]] = defaultdict(list)
    for route in registration.routes:
        for item in route.endpoint.output_fields:
            if item.semantic_id:
                offers[item.semantic_id].append((route, item))
    return dict(sorted(offers.items()))


def _shared_semantics(registration: Registration) -> dict[str, list[tuple[Route, OutputField]]]:
    return {
        sid: offers
        for sid, offers in _by_semantic(registration).items()
        if len({route.provider.id for route, _ in offers}) > 1
    }


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_semantics(registration: Registration, *, title: str = "Semantic ids") -> str:
    """Markdown: every semantic id, its aliases, and the routes (with units) providing it."""
    offers = _by_semantic(registration)
    lines = [
        f"# {title}",
        "",
        "Generated by `schemarouter catalog semantics`; do not edit by hand.",
        "",
        f"{len(offers)} semantic ids over {len(registration.routes)} routes of "
        f"{len(registration.providers)} providers.",
        "",
        "| semantic id | aliases | route : field | unit (canonical) | source | qualifiers |",
        "|---|---|---|---|---|---|",
    ]
    for semantic_id, items in offers.items():
        aliases = sorted({a for _, f in items for a in f.aliases})
        for i, (route, item) in enumerate(items):
            lines.append(
                "| "
                + " | ".join(
                    [
                        f"`{semantic_id}`" if i == 0 else "",
                        _md(", ".join(aliases)) if i == 0 else "",
                        f"`{route.route_id}` : `{item.name}`",
                        _md(_unit_text(item)),
                        route.field_source_type(item).value,
                        _md(_qualifier_text(item)),
                    ]
                )
                + " |"
            )
    return "\n".join(lines) + "\n"


def _candidate_field_text(item: CandidateField) -> str:
    unit = item.unit or ""
    if item.canonical_unit and item.canonical_unit != item.unit:
        unit = f"{unit} -> {item.canonical_unit}"
    quals = ", ".join(f"{k}: {v}" for k, v in sorted(item.qualifiers.items()))
    return "  ".join(x for x in (item.name, unit, quals) if x)


def render_retrieval(result: CapabilityRetrieval, *, color: bool = False) -> str:
    """A readable table: rank, route, score, matched fields with units, provenance, license."""
    order = "reranked" if result.reranked else "fusion order"
    lines = [
        _bold(f"{result.query!r}", color)
        + f"  (k={result.k}, registry v{result.registry_version}, {order})"
    ]
    if result.abstained:
        lines.append(f"no candidates: {result.reason}")
        return "\n".join(lines) + "\n"
    if result.off_catalog:
        follow = "; the best routes follow" if result.candidates else ""
        lines.append(f"flagged: {result.reason}{follow}")
    for c in result.candidates:
        operation = f"{c.method} {c.path}" if c.method else (c.tool or c.qualname or "")
        score = f"score {c.score:.3f}"
        if "rerank" in c.scores:
            score = f"fused {c.score:.3f}, rerank {c.scores['rerank']:+.2f}"
        status = (
            "" if c.availability is AvailabilityStatus.AVAILABLE else f"  {c.availability.value}"
        )
        lines.append(
            f"{c.rank:>2}. " + _bold(c.route_id, color) + f"  {score}  {c.effect.value}{status}"
        )
        lines.append(f"    {c.provider_name}: {operation}")
        lines.append(
            f"    provenance {c.source_type.value}, license {c.license or 'not declared'}"
            + (f", needs {', '.join(c.credentials)}" if c.credentials else "")
        )
        matched = [c.field(name) for name in c.matched_fields]
        for item in matched:
            extra = f"  [{item.source_type.value}]" if item.source_type != c.source_type else ""
            lines.append(f"      - {_candidate_field_text(item)}{extra}")
        if c.bound_parameters:
            bound = ", ".join(f"{k}={v!r}" for k, v in c.bound_parameters.items())
            lines.append(f"    parameters from the query: {bound}")
    notes = [w for w in result.warnings if w]
    if notes:
        lines.append(_dim("note: " + "; ".join(notes), color))
    return "\n".join(lines) + "\n"
