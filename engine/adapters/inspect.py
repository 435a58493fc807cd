"""Human API docs -> a contract *proposal*; :func:`approve` is the only way it becomes routes.

:func:`inspect` is deterministic and needs no model. HTML is reduced to text with the
standard library's ``html.parser`` (``<pre>`` becomes a fenced block, table rows become
``| a | b |`` lines); Markdown and plain text are read as they are. It finds:

- **endpoints**: ``GET /path/{id}`` (``:id`` becomes ``{id}``) in a heading or at the start
  of a line (``Endpoint: GET /x`` too; a sentence that only mentions one opens none); the
  lines up to the next endpoint belong to it, and a second section of the same endpoint is
  merged into the first. A ``Base URL: https://...`` line proposes the base URL. A ``curl``
  command calling a full URL no section documents opens one too (``curl -X POST
  https://host/v1/notes``: its method from ``-X``, else POST where it sends data, GET where
  not; its summary the heading above; its host the base URL where none is given), and its
  JSON ``-d`` names body parameters. A path starting ``//`` (a host) is never one.
- **deprecation**: the endpoint's line saying ``(deprecated)``, or a line of its section
  that is not a list item opening with "Deprecated" (``**Deprecated**``, "Deprecated: use
  ...") or saying "this endpoint is deprecated": approved, it is registered as deprecated.
- **parameters**: bullets (``- formula (string, required): ...``), table rows (a header row
  naming ``name`` / ``parameter`` / ``field``), ``?param=`` in example URLs, and path
  template variables. Under a request body label (``Request body``, ``Body``, ``Payload``,
  ``Form fields``) of a write, bullets and rows are ``body`` parameters and a JSON example's
  keys are too (not output fields); a call sends them as one JSON object.
- **fields**: JSON examples in fenced blocks (flattened to paths with ``*`` for arrays and
  their JSON types; a ``null`` gives no type; one nested deeper than 32 levels is skipped and
  logged), a ``*`` added to a listed path that crosses an array (``quotes[].price``, or
  ``quotes.price`` where an example shows ``quotes`` is one), bullets under a heading or
  line that mentions the response, and units (``unit: eV``; ``(eV)`` after the type's
  parentheses; a part of them of its own, ``(number, kg)`` / ``(number, in K)``, where pint
  reads it as a unit with a dimension or a percentage; ``C`` / ``F`` are not read: pint's
  coulomb and farad, where docs mean degrees).

Every item carries the ``passage`` that grounds it and a ``grounding`` score in [0, 1]: how
explicit the evidence is (a typed bullet or table row 0.9, a JSON example 0.8, an untyped
bullet 0.7, a query string in an example URL 0.5).

An endpoint's effect comes from its method (GET / HEAD read, DELETE destructive, the rest
write), made stricter where its own path or summary says it changes state: a path word or a
sentence opening with a plain change verb (``/delete_order.pl``, "Deletes the order.",
"Updates the price.") sets ``changes_state``, so such a GET needs ``allow_write=True``.

A proposal is plain data: nothing in it is registered, bound or callable until
:func:`approve`.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from schemarouter import contracts
from schemarouter.adapters._doc_proposal import (
    ContractProposal,
    ProposedEndpoint,
    ProposedField,
    ProposedParameter,
)
from schemarouter.adapters._doc_reader import inspect
from schemarouter.adapters.openapi import BODY_EXTENSION
from schemarouter.errors import DocumentError, PolicyError, UnitError
from schemarouter.registry.compile import (
    RouteSpec,
    build_registration,
    format_validation_error,
    named_provider,
    parameters_schema,
    slugify,
)
from schemarouter.units import parse_unit

__all__ = [
    "ContractProposal",
    "ProposedEndpoint",
    "ProposedField",
    "ProposedParameter",
    "approve",
    "inspect",
]

logger = logging.getLogger(__name__)


# -- approval -------------------------------------------------------------------------------


def _unit(item: ProposedField) -> tuple[str | None, str]:
    if item.unit is None:
        return None, item.description
    try:
        parse_unit(item.unit)
    except UnitError:
        return None, f"{item.description} (unit as documented: {item.unit})".strip()
    return item.unit, item.description


def _schema(kind: str | None, form: str | None) -> dict[str, Any]:
    """A parameter's schema: its type, a string's ``format`` where the docs give one."""
    schema: dict[str, Any] = {"type": kind} if kind else {}
    return {**schema, "format": form} if form and kind == "string" else schema


def _endpoint(item: ProposedEndpoint) -> contracts.Endpoint:
    params = tuple(
        contracts.Parameter(
            name=p.name,
            location=contracts.ParameterLocation(p.location),
            json_schema=_schema(p.json_type, p.json_format),
            required=p.required or p.location == "path",
            description=p.description,
        )
        for p in item.parameters
    )
    fields = []
    for f in item.fields:
        unit, description = _unit(f)
        fields.append(
            contracts.OutputField(
                name=f.name,
                path=f.path,
                unit=unit,
                description=description,
                # one example's type; a documented field may come null (trial 17: a closed
                # valve's closes_at refused the whole list of valves)
                json_schema={"type": [f.json_type, "null"]} if f.json_type else {},
            )
        )
    schema = parameters_schema(params)
    if item.body_media_type and any(p.location is contracts.ParameterLocation.BODY for p in params):
        # each body parameter a form field, as an OpenAPI form body's are
        schema[BODY_EXTENSION] = {"media_type": item.body_media_type, "style": "form"}
    name = f"{item.method} {item.path}"
    return contracts.Endpoint(
        output_schema=_output_schema(fields),
        id=slugify(name),
        name=name,
        operation=contracts.Operation(method=item.method, path=item.path),
        summary=item.summary,
        description=item.summary,
        input_schema=schema,
        parameters=params,
        output_fields=tuple(fields),
        effect=item.effect,
        availability=contracts.Availability(
            status=contracts.AvailabilityStatus.DEPRECATED,
            note=f"deprecated by its docs: {item.deprecated[:200]}",
        )
        if item.deprecated
        else contracts.Availability(),
        policy_tags=("from_docs",),
    )


def _output_schema(fields: list[contracts.OutputField]) -> dict[str, Any] | None:
    """The answer's shape as the approved fields type it: each typed field's value where
    it is present (``quotes.*.price`` under an array), nothing required and nothing else
    refused (the docs name what they name). A whole-output ``call`` checks it, as it checks
    an OpenAPI route's response schema; ``None`` where no field has a type."""
    root: dict[str, Any] = {"type": "object", "properties": {}}
    typed = False
    for item in fields:
        kind = item.json_schema.get("type")
        segments = [s for s in item.path.split(".") if s]
        if not isinstance(kind, str | list) or not segments or segments[0] == "*":
            continue
        node = root
        for i, segment in enumerate(segments):
            if segment == "*":
                continue
            properties = node.setdefault("properties", {})
            rest = segments[i + 1 :]
            if not rest:
                properties.setdefault(segment, {"type": kind})
            elif rest == ["*"]:  # an array of scalars
                properties.setdefault(segment, {"type": "array", "items": {"type": kind}})
            elif rest[0] == "*":
                array = properties.setdefault(segment, {"type": "array"})
                node = array.setdefault("items", {"type": "object"})
            else:
                node = properties.setdefault(segment, {"type": "object"})
        typed = True
    return root if typed else None


def _said_to_change(item: ProposedEndpoint) -> str:
    """For a GET / HEAD whose docs say it changes state: why it is not a read."""
    if not item.changes_state or item.method.strip().upper() not in ("GET", "HEAD"):
        return ""
    return (
        f": its docs say it changes state ({item.changes_state_passage!r}); set "
        "changes_state=None on the endpoint if it only reads"
    )


#: The longest path an approved endpoint may have (its name, ``METHOD path``, is at most
#: 256 characters).
MAX_PATH = 240


def _check_path(item: ProposedEndpoint, i: int) -> None:
    """:class:`DocumentError` for a path that is not one: ``//host/...`` (a host, however
    the base URL joins it), no leading ``/``, or one too long to be an endpoint's name."""
    path = item.path
    why = (
        "starts with '//' (a host, not a path)"
        if path.startswith("//")
        else "does not start with '/'"
        if not path.startswith("/")
        else f"is {len(path)} characters long (at most {MAX_PATH})"
        if len(path) > MAX_PATH
        else ""
    )
    if why:
        raise DocumentError(
            f"endpoints[{i}] ({item.method} {path[:60]}{'...' if len(path) > 60 else ''}): "
            f"its path {why}",
            where=f"<docs proposal>: endpoints[{i}].path",
            hint="Fix the path (model_copy(update={'path': ...})) or drop the endpoint",
        )


def approve(
    router: Any,
    proposal: ContractProposal,
    *,
    base_url: str,
    provider: str | contracts.Provider,
    allow_write: bool = False,
    access_id: str = "docs",
    replace: bool = False,
) -> Any:
    """Register (and bind) the proposal's endpoints at ``base_url``: the RegistryChange.

    Read-only endpoints are registered; write and destructive ones are left out (logged, and
    named in the change's warnings) unless ``allow_write`` is true, and then keep their
    effect, so execution still needs its own permission. A GET / HEAD whose own path or
    summary says it changes state (:attr:`ProposedEndpoint.changes_state`) counts as a write
    (or destructive), and the change's warnings say so. Nothing is registered when none remain.
    """
    from schemarouter.execution.invokers.http import register_http_routes

    if not isinstance(proposal, ContractProposal):
        raise DocumentError(
            "approve takes a ContractProposal",
            where="approve",
            hint="Pass the result of inspect(...)",
        )
    model = named_provider(provider, where="<docs proposal>: provider")
    access = contracts.AccessPath(
        id=access_id, kind=contracts.AccessKind.HTTP, base_url=base_url, document="<docs proposal>"
    )
    specs, warnings = [], []
    ids: dict[str, tuple[int, ProposedEndpoint]] = {}
    for i, item in enumerate(proposal.endpoints):
        said = _said_to_change(item)
        if item.effect is not contracts.Effect.READ and not allow_write:
            logger.warning(
                "approve: %s %s refused (%s%s); pass allow_write=True",
                item.method,
                item.path,
                item.effect.value,
                said,
            )
            warnings.append(
                f"{item.method} {item.path} left out: its effect is {item.effect.value}{said}, and "
                "allow_write is off; approve the proposal with allow_write=True to register it"
            )
            continue
        if said:
            warnings.append(f"{item.method} {item.path} approved as {item.effect.value}{said}")
        if item.answer_not_json:
            ran = "the server acts, then " if item.effect is not contracts.Effect.READ else ""
            warnings.append(
                f"{item.method} {item.path}: its docs say the answer is not JSON "
                f"({item.answer_not_json[:120]!r}); a call runs and {ran}its answer cannot be "
                "read (only JSON answers are)"
            )
        _check_path(item, i)
        if item.deprecated:
            warnings.append(
                f"{item.method} {item.path} approved as deprecated ({item.deprecated[:120]!r}): "
                "its tool description says so"
            )
        try:
            endpoint = _endpoint(item)
        except ValidationError as exc:
            what, loc = format_validation_error(exc)
            raise DocumentError(
                what,
                where=f"<docs proposal>: endpoints[{i}] ({loc})",
                hint="Fix the proposal before approving it",
            ) from None
        if endpoint.id in ids:
            j, other = ids[endpoint.id]
            raise DocumentError(
                f"endpoints[{j}] ({other.method} {other.path}) and endpoints[{i}] "
                f"({item.method} {item.path}) would both be route {endpoint.id!r}",
                where="<docs proposal>: endpoints",
                hint="Merge them into one endpoint or drop one before approving",
            )
        ids[endpoint.id] = (i, item)
        specs.append(RouteSpec(model, access, endpoint, f"endpoints[{i}]"))
    if not proposal.endpoints:  # a page with no API: no policy has anything to do with it
        raise DocumentError(
            "nothing to approve: the proposal has no endpoint (inspect found no HTTP method "
            "and path in the page)",
            where="approve",
            hint="Inspect the page that documents the API, or add endpoints to the proposal",
        )
    if not specs:
        raise PolicyError(
            "nothing to approve: every endpoint of the proposal writes, and allow_write is off",
            where="approve",
            hint="Pass allow_write=True to approve the writes",
        )
    registration = build_registration(
        specs, source="<docs proposal>", providers=[model], warnings=warnings
    )
    return register_http_routes(router, registration, replace=replace)
