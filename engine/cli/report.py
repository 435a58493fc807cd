"""Readable text views of a registration (the ``catalog show`` summary and SEMANTICS.md) and
of a retrieval; what a command says on stderr (registration warnings and failures, the
library's warnings)."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from schemarouter.contracts import AvailabilityStatus, OutputField, Registration, Route
from schemarouter.errors import SchemaRouterError
from schemarouter.retrieval.results import CandidateField, CapabilityRetrieval

__all__ = [
    "library_warnings_on_stderr",
    "render_catalog_summary",
    "render_retrieval",
    "render_semantics",
    "say_failed",
    "say_warnings",
    "warning_kind",
]


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
            # a deprecated (or unavailable) endpoint says so, as retrieve does (trial A)
            state = endpoint.availability.status
            status = "" if state is AvailabilityStatus.AVAILABLE else f", {state.value}"
            note = (
                f" ({endpoint.availability.note})" if status and endpoint.availability.note else ""
            )
            lines.append(
                f"  - {_operation(route)}  {_dim(route.route_id, color)}  "
                f"{endpoint.effect.value}, {len(endpoint.parameters)} params, "
                f"{len(endpoint.output_fields)} fields{status}{note}"
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
    # what ordered the list: the cross-encoder, the learned ranking stage (its score on
    # every candidate it ordered), else fusion (trial U3: "fusion order" under --ranking)
    staged = bool(result.candidates) and all("ranking" in c.scores for c in result.candidates)
    order = "reranked" if result.reranked else "ranking stage" if staged else "fusion order"
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
            # a field's own provenance or license, where it is not the route's (trial A)
            own = [item.source_type.value] if item.source_type != c.source_type else []
            if item.license != c.license:
                own.append(f"license {item.license or 'not declared'}")
            extra = f"  [{', '.join(own)}]" if own else ""
            lines.append(f"      - {_candidate_field_text(item)}{extra}")
        if c.bound_parameters:
            bound = ", ".join(f"{k}={v!r}" for k, v in c.bound_parameters.items())
            lines.append(f"    parameters from the query: {bound}")
    notes = [w for w in result.warnings if w]
    if notes:
        lines.append(_dim("note: " + "; ".join(notes), color))
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def library_warnings_on_stderr() -> Iterator[None]:
    """The library's warnings, one ``warning: ...`` line each on stderr, while a command runs.
    The package's logger has a ``NullHandler`` (the library never prints), so without this
    the command line dropped them: ``retrieve --index DIR`` with an index an earlier release
    embedded with its own encoder ran with that encoder and no off-catalog verdict, and said
    nothing (upgrade trial V). The adapters' records are left out: they sum up a source's
    registration warnings, which the commands print themselves with the source. ``serve``
    sets up its own logging; a host that configured logging keeps its own."""
    if logging.getLogger().handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.addFilter(lambda record: not record.name.startswith("schemarouter.adapters"))
    handler.setFormatter(logging.Formatter("warning: %(message)s"))
    package = logging.getLogger("schemarouter")
    package.addHandler(handler)
    try:
        yield
    finally:
        package.removeHandler(handler)


#: up to this many registration warnings are printed each; past it, a few of each kind
WARNINGS_IN_FULL = 50
#: of each kind of warning, this many are printed before the rest are counted
EACH_KIND = 3
#: what differs between two warnings of one kind: quoted names (not an apostrophe's
#: ``get's``), paths and numbers
_VARYING = re.compile(r"(?<!\w)'(?:[^'\\]|\\.)*'(?!\w)|\"[^\"]*\"|`[^`]*`|\S*/\S*|\d+(?:[.,]\d+)*")


def warning_kind(warning: str) -> str:
    """What a registration warning says, without where and of what: its location (the
    leading ``paths./x.get:`` with no space in it), names and numbers left out, up to the
    first ``": "`` (``endpoint id … shortened to … (a tool name has at most … characters)``).
    Only its first 400 characters are read: a kind is told by its opening words."""
    warning = warning[:400]
    where, colon, said = warning.partition(": ")
    if colon and not any(c.isspace() for c in where):
        warning = said
    return _VARYING.sub("…", warning).split(": ")[0].replace(" (and … more places)", "")


def say_warnings(registered: Sequence[tuple[str, Any]], *, every: bool = False) -> None:
    """Each source's registration warnings on stderr, with the source they are about (a
    repaired schema, a header left out, an operationId two operations share and the route
    id the later one got instead): a batch build in CI otherwise never shows them.

    More than :data:`WARNINGS_IN_FULL` (a folder of a thousand documents gave 6,013, trial
    X2) are told :data:`EACH_KIND` of each kind (:func:`warning_kind`) in the order they came,
    then one line per kind counting the rest and the sources they are in; ``every`` prints
    each one."""
    said = [(source, warning) for source, change in registered for warning in change.warnings]
    if not said:
        return
    kinds: dict[str, list[str]] = defaultdict(list)
    for source, warning in said:
        kinds[warning_kind(warning)].append(source)
    brief = not every and len(said) > WARNINGS_IN_FULL
    told: dict[str, int] = defaultdict(int)
    for source, warning in said:
        kind = warning_kind(warning)
        if brief and told[kind] == EACH_KIND:
            continue
        told[kind] += 1
        print(f"warning: {source}: {warning}", file=sys.stderr)
    for kind, sources in kinds.items():
        rest = len(sources) - told[kind]
        if rest:
            others = len(set(sources[told[kind] :]))
            print(
                f'warning: ... and {rest} more like "{kind}" (in {others} '
                f"source{'s' if others > 1 else ''})",
                file=sys.stderr,
            )
    warned = sum(1 for _, change in registered if change.warnings)
    print(
        f"{len(said)} registration warning{'s' if len(said) > 1 else ''} in {warned} "
        f"source{'s' if warned > 1 else ''}: each source registered as its warnings say"
        + (" (--all-warnings prints each one)" if brief else ""),
        file=sys.stderr,
    )


def say_failed(failed: Sequence[tuple[str, SchemaRouterError]], registered: int, then: str) -> int:
    """Every source that could not be registered, with its error (file and location), then
    how many: exit status 1. A batch of hundreds of documents names them all in one run,
    not one per run."""
    for _, error in failed:
        print(f"error: {error}", file=sys.stderr)
    total = len(failed) + registered
    print(
        f"{len(failed)} of {total} source{'s' if total > 1 else ''} could not be registered "
        f"(each is named above); {then}. Fix or leave out each, then run it again",
        file=sys.stderr,
    )
    return 1


def say_skipped(skipped: Sequence[tuple[str, SchemaRouterError]], registered: int) -> None:
    """Each source ``--skip-invalid`` left out, with its error (file and location), then how
    many: the build goes on without them (a nightly folder with one malformed document)."""
    if not skipped:
        return
    for _, error in skipped:
        print(f"warning: left out (--skip-invalid): {error}", file=sys.stderr)
    total = len(skipped) + registered
    print(
        f"{len(skipped)} of {total} source{'s' if total > 1 else ''} could not be registered "
        "and were left out (each is named above); the index holds the others",
        file=sys.stderr,
    )
