"""A planned write that creates what another planned step needs: run it first, bind its id.

"create a billing customer for alice@example.com, and also bill her 49 USD on an invoice"
plans ``POST /customers`` and ``POST /invoices``; the invoice's ``customer_id`` is the id of
the customer the first call creates. The planner chains *read* producers of an identifier
(:func:`schemarouter.planning.planner.plan_routes`); no write is ever added as a producer
(a create the request did not ask for is no lookup). But where the request itself asks for
the create, :func:`link_created` binds the identifier a later step needs (a path or query
parameter, or a JSON body property ``body.customer_id``) to the id the create returns, and
orders the steps so the create runs first. Read from the contracts alone:

- a route *creates* a thing (:func:`created`) when it is a write sent by ``POST`` or ``PUT``
  to a path that ends in a static segment (``/customers``, ``/tickets/{ticket_id}/comments``),
  the thing is that segment's word (``customer``, ``comment``), and its output holds the
  thing's identifier: a ``<thing>_id`` or a plain ``id`` at the top (or in a ``data`` /
  ``result`` / ``item`` / ``object`` / ``record`` object); MCP tools and Python functions
  have no path, and create nothing here;
- a step *needs* a thing where a required parameter or body property it leaves open is named
  like its identifier (:func:`needs_of`), and only a creator of the step's own provider binds
  it (identifiers are provider-scoped); where two planned steps create the thing, which one
  is meant is not known, and nothing is bound (a warning says so).

Execution keeps every write's own gate: each step is checked with its bound values before it
is sent, and a write still needs ``allow_effects`` and its own ``approve``; a step whose
source failed, or answered with an output that does not validate, is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from schemarouter.contracts import Effect, Route
from schemarouter.planning.body import body_fields, body_key
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.identifiers import (
    identifier_thing,
    is_template,
    needed_parameters,
    path_segments,
    stem,
)
from schemarouter.retrieval.results import IdentifierSource
from schemarouter.retrieval.sequence import where_written

__all__ = ["created", "link_created", "needs_of", "things_created"]

_WORDS = re.compile(r"[a-z0-9]+")
#: objects an answer may wrap the created thing in (``{"data": {"id": ...}}``)
_WRAPPERS = frozenset({"data", "result", "item", "object", "record"})


class _Bound(Protocol):
    @property
    def step(self) -> int: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` (pydantic's)."""
        ...


class _Step(Protocol):
    """What is read of a plan step here (the planner's ``PlanStep``)."""

    @property
    def route_id(self) -> str: ...

    @property
    def missing_parameters(self) -> tuple[str, ...]: ...

    @property
    def bindings(self) -> Mapping[str, Any]: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` (pydantic's)."""
        ...


Step = TypeVar("Step", bound=_Step)


def created(route: Route) -> tuple[str, IdentifierSource] | None:
    """The thing ``route`` creates and where its answer holds the new identifier (see the
    module docstring); ``None`` for a route that creates nothing read so."""
    method = (route.endpoint.operation.method or "").upper()
    if route.endpoint.effect is not Effect.WRITE or method not in ("POST", "PUT"):
        return None
    segments = path_segments(route)
    if not segments or is_template(segments[-1]):
        return None
    thing = stem("".join(_WORDS.findall(segments[-1].lower())))
    if not thing:
        return None
    plain: list[tuple[int, str, str]] = []
    for output in route.endpoint.output_fields:
        parts = (output.path or output.name).split(".")
        if "*" in parts or len(parts) > 2:
            continue
        named = identifier_thing(parts[-1])
        path = output.path or output.name
        if named == thing and len(parts) == 1:
            return thing, IdentifierSource(route_id=route.route_id, field=output.name, path=path)
        if named == "" and (len(parts) == 1 or parts[0].lower() in _WRAPPERS):
            plain.append((len(parts), output.name, path))
    if not plain:
        return None
    _, field, path = min(plain)
    return thing, IdentifierSource(route_id=route.route_id, field=field, path=path)


def things_created(routes: Iterable[Route]) -> frozenset[tuple[str, str]]:
    """``(provider id, thing)`` of what each of ``routes`` creates (:func:`created`)."""
    out = set()
    for route in routes:
        made = created(route)
        if made is not None:
            out.add((route.provider.id, made[0]))
    return frozenset(out)


def needs_of(route: Route, missing: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, thing)`` of each identifier ``route`` needs that ``missing`` leaves open: a
    required parameter named like one (:func:`needed_parameters`), or a required property of
    its JSON body (``body.customer_id``, named like a ``<thing>_id``)."""
    out = [(name, thing) for name, thing in needed_parameters(route) if name in missing]
    fields = body_fields(route)
    for item in fields.properties if fields is not None else ():
        key = body_key(fields.parameter, item.name) if fields is not None else ""
        thing = identifier_thing(item.name)
        if item.required and thing and key in missing:
            out.append((key, thing))
    return out


def _reaches(edges: set[tuple[int, int]], start: int, goal: int) -> bool:
    """Whether step ``goal`` depends on step ``start`` through ``edges`` (source, user)."""
    todo, seen = [start], {start}
    while todo:
        here = todo.pop()
        if here == goal:
            return True
        for source, user in edges:
            if source == here and user not in seen:
                seen.add(user)
                todo.append(user)
    return False


def link_created(
    snapshot: RegistrySnapshot,
    steps: list[Step],
    binding: Callable[..., _Bound],
    warnings: list[str],
    query: str = "",
    parts: Sequence[tuple[str, str]] = (),
) -> list[Step]:
    """``steps`` with each identifier a step leaves open bound to the id a planned write of
    its provider creates (``binding(step=, field=, path=, thing=)`` makes the binding), that
    write moved before the step where it came after (each step keeps its place otherwise);
    ``warnings`` says what moved and what could not be bound. A step whose part of ``query``
    (``parts``: ``(words, route id)``) is written before the create's is not bound to it:
    "Delete the playlist called Old Mix, then create a new playlist" deletes Old Mix, not the
    playlist it creates (the ninth review: the plan created one and deleted it)."""
    routes = [snapshot.routes[s.route_id] for s in steps]
    made = [created(route) for route in routes]
    text_of: dict[str, str] = {}
    for text, route_id in parts:
        if text:
            text_of.setdefault(route_id, text)
    written = [
        where_written(query, text_of[s.route_id]) if s.route_id in text_of else -1 for s in steps
    ]
    edges = {(b.step, i) for i, s in enumerate(steps) for b in s.bindings.values()}
    new: dict[int, dict[str, _Bound]] = {}
    moved: list[str] = []
    for i, (step, route) in enumerate(zip(steps, routes, strict=True)):
        for name, thing in needs_of(route, step.missing_parameters):
            makers = [
                j
                for j, item in enumerate(made)
                if j != i
                and item is not None
                and item[0] == thing
                and routes[j].provider.id == route.provider.id
            ]
            if len(makers) != 1:
                if makers:
                    warnings.append(
                        f"{route.route_id} needs {name!r}, the id of what "
                        f"{len(makers)} planned steps create "
                        f"({', '.join(routes[j].route_id for j in makers)}): which one is "
                        "meant is not known, so it is not bound; supply it"
                    )
                continue
            j = makers[0]
            if 0 <= written[i] < written[j]:  # the request writes this change before the create
                warnings.append(
                    f"{route.route_id} needs {name!r}; the request asks for it before "
                    f"{routes[j].route_id}, so what that creates is not what it changes: not "
                    "bound; supply it"
                )
                continue
            if _reaches(edges, i, j):  # the creator needs this step's output already
                warnings.append(
                    f"{route.route_id} needs {name!r} from {routes[j].route_id}, which needs "
                    f"{route.route_id}'s own output first: not bound; supply it"
                )
                continue
            source = made[j]
            assert source is not None
            edges.add((j, i))
            new.setdefault(i, {})[name] = binding(
                step=j, field=source[1].field, path=source[1].path, thing=thing
            )
            if j > i:
                moved.append(
                    f"{routes[j].route_id} runs before {route.route_id}: what it creates "
                    f"is what {route.route_id} takes the id of ({name})"
                )
    if not new:
        return steps
    order = _ordered(len(steps), edges)
    at = {old: place for place, old in enumerate(order)}
    out = []
    for old in order:
        step = steps[old]
        bound = {**step.bindings, **new.get(old, {})}
        update: dict[str, Any] = {
            "bindings": {k: b.model_copy(update={"step": at[b.step]}) for k, b in bound.items()},
            "missing_parameters": tuple(p for p in step.missing_parameters if p not in bound),
        }
        out.append(step.model_copy(update=update))
    warnings.extend(moved)
    return out


def _ordered(count: int, edges: set[tuple[int, int]]) -> list[int]:
    """The steps ``0 .. count - 1`` with every source before its users, each otherwise as
    early as its place in the plan puts it (the edges hold no cycle: :func:`link_created`
    never adds one)."""
    done: list[int] = []
    left = list(range(count))
    while left:
        ready = next(i for i in left if all(s in done for s, u in edges if u == i))
        done.append(ready)
        left.remove(ready)
    return done
