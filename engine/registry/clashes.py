"""What a registration clashes with, and what its errors and warnings say of it: a route
id another source holds (the same source registered again, or plainly another document), a
provider's sources, a semantic id normalized to two canonical units; and the provider id a
document registers under so that it clashes with no other document's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from schemarouter.contracts import AccessKind, AccessPath, Provider, Registration, Route
from schemarouter.errors import RegistrationError
from schemarouter.registry.kinds import on_command_line

__all__ = [
    "canonical_clashes",
    "declared_twice",
    "duplicate_hint",
    "provider_id_for",
    "renamed_provider",
    "replaced_nothing",
    "same_routes",
    "sources_of",
    "two_functions",
]


def canonical_clashes(
    providers_of: Callable[[str], Iterable[Any]], routes: Sequence[Route], leaving: set[str]
) -> list[str]:
    """A warning for each semantic id these ``routes`` normalize to another canonical unit
    than a registered route (``providers_of``: the snapshot's offers of a semantic id, each
    with its ``canonical_unit`` and ``route_id``) or another of them does: ``by_semantic_id``
    would give "normalized" values in GPa and Pa side by side."""
    units: dict[str, tuple[str, str]] = {}  # semantic id -> (canonical unit, route id)
    named = {f.semantic_id for r in routes for f in r.endpoint.output_fields if f.semantic_id}
    for semantic_id in named:
        for offer in providers_of(semantic_id):
            if offer.canonical_unit and offer.route_id not in leaving:
                units.setdefault(semantic_id, (offer.canonical_unit, offer.route_id))
    out = []
    for route in routes:
        for item in route.endpoint.output_fields:
            spec = item.normalization
            if item.semantic_id is None or spec is None:
                continue
            seen = units.setdefault(item.semantic_id, (spec.canonical_unit, route.route_id))
            if seen[0] != spec.canonical_unit and seen[1] != route.route_id:
                out.append(
                    f"{route.route_id}: field {item.name!r} normalizes {item.semantic_id!r} to "
                    f"{spec.canonical_unit!r}, {seen[1]} to {seen[0]!r}; values of one "
                    "semantic id are compared in one canonical unit"
                )
    return out


def sources_of(routes: Iterable[Route]) -> str:
    """Where ``routes`` (a provider's) were registered from, for an error."""
    found = sorted({r.access.document or "?" for r in routes})
    return ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")


def _content(routes: Iterable[Route]) -> set[tuple[str, str, str]]:
    """What routes of a document say, whoever names their provider and wherever the document
    was read from: each route's access path id and its access path's and endpoint's
    fingerprints (a file and the same text parsed into a dict give equal ones)."""
    return {(r.access.id, r.access_fingerprint, r.endpoint_fingerprint) for r in routes}


def same_routes(held: Iterable[Route], registering: Iterable[Route], access_id: str) -> bool:
    """Whether the routes ``registering`` makes at access path ``access_id`` are the very
    routes ``held`` (a provider's) has there: the same document, wherever each was read
    from."""
    mine = _content(r for r in registering if r.access.id == access_id)
    return bool(mine) and mine == _content(r for r in held if r.access.id == access_id)


def _other_document(old: Route, new: Route, *, same: bool) -> str | None:
    """Where ``old`` was read from, where that is plainly another OpenAPI document than
    ``new``'s: another path or URL, or a dict of another title (a dict of the same title may
    be a new version of it). ``None``: the same document (``same``: its routes are the very
    routes registered, read from a file and then from a dict), or one that cannot be told
    apart."""
    a, b = old.access, new.access
    if same or AccessKind.OPENAPI not in (a.kind, b.kind) or a.kind != b.kind:
        return None
    if a.document == b.document and (
        a.document != "<dict>" or old.provider.display_name == new.provider.display_name
    ):
        return None
    if a.document == "<dict>":
        return f"a dict titled {old.provider.display_name!r}"
    return a.document or "?"


def two_functions(old: Route, new: Route) -> tuple[str, str] | None:
    """The qualnames of two Python routes of one id built from different functions
    (``__main__.온도``, ``__main__.습도``); ``None`` for any other pair."""
    a, b = old.endpoint.operation.qualname, new.endpoint.operation.qualname
    if old.access.kind is not AccessKind.PYTHON or new.access.kind is not AccessKind.PYTHON:
        return None
    return (a, b) if a and b and a != b else None


def _name_hint(first: str, second: str) -> str:
    return (
        f"A Python route's id comes from its function's name: give {second} (or {first}) a "
        "name of its own with @capability(name=...)"
    )


def declared_twice(first: Route, second: Route) -> tuple[str, str]:
    """What and hint of a route id two routes of one registration take: the two functions
    named where both are Python callables."""
    what = f"route {second.route_id!r} is declared twice"
    functions = two_functions(first, second)
    if functions is None:
        return what, "Give each endpoint a distinct id inside its access path"
    a, b = functions
    return f"{what}: by callable {a} and by callable {b}", _name_hint(a, b)


def duplicate_hint(
    old: Route,
    new: Route,
    *,
    prune: bool,
    held: Iterable[Route] = (),
    registering: Iterable[Route] = (),
) -> str:
    """The hint of a duplicate route: ``replace=True`` for the same source registered
    again (also where the routes ``registering`` makes are the very routes ``old``'s
    provider ``held``); ``provider=`` where the route is another document's (replacing would
    remove that document's routes); ``@capability(name=...)`` where it is another
    function's (replacing would remove that function's route)."""
    functions = two_functions(old, new)
    if functions is not None:
        a, b = functions
        return f"{_name_hint(a, b)} (replace=True would remove the route of {a})"
    other = _other_document(old, new, same=same_routes(held, registering, new.access.id))
    if on_command_line():  # no replace=True or provider= to pass there: say the sources
        return _command_line_hint(other)
    if other is None:
        return _replace_hint(new, prune=prune)
    return (
        f"The route belongs to another document ({other}) under provider {new.provider.id!r}: "
        "pass another provider= name to register this one under an id of its own (replace=True "
        "would replace that document's routes)"
    )


def _command_line_hint(other: str | None) -> str:
    """The hint of a duplicate route on the command line, whose sources are registered once
    each into a fresh registry: a source given twice (the same file, or a copy of it under
    another path), or two sources under one provider name."""
    if other is None:
        return (
            "Two sources register this route: one document given twice (the same file, or a "
            "copy of it under another path), or two sources under one provider name. List "
            "each document once, and give a copy or another source a provider name of its own "
            "(--openapi NAME=FILE or --mcp-tools NAME=FILE; provider: in a gateway config)"
        )
    return (
        f"The route belongs to another source ({other}): register this one under a provider "
        "name of its own (--openapi NAME=FILE or --mcp-tools NAME=FILE; provider: in a "
        "gateway config)"
    )


def _replace_hint(route: Route, *, prune: bool) -> str:
    """What ``replace=True`` would do to ``route``'s neighbours, in a duplicate's hint."""
    if not prune:
        return (
            "Pass replace=True to replace just this route (the provider's other routes stay "
            "registered), or remove the provider first"
        )
    return (
        "Pass replace=True to replace it together with the rest of its access path (routes "
        f"of provider {route.provider.id!r} at access path {route.access.id!r} that this "
        "registration lacks are removed), or remove the provider first"
    )


def provider_id_for(
    routes_of: Callable[[str], Sequence[Route]], registration: Registration, *, replace: bool
) -> str:
    """The provider id ``registration`` (a document compiled under its own id, from its
    title) registers under, given the registered routes (``routes_of``: a snapshot's, by
    provider id): ``id_2`` (``_3`` ...) where the id belongs to routes of another document
    (two AWS documents both titled "Amazon Cognito Identity ..."). The same document (a file
    or URL by its path, a dict by its content, or any source whose routes are the very routes
    an id holds at the access path, as a file and then its text parsed into a dict) keeps
    the id it has, so registering it again is refused as a duplicate; with ``replace``, another
    document of the title (a new version under a new file name, a changed dict) takes the
    one id that title's documents hold, as :meth:`~schemarouter.SchemaRouter.diff` predicts
    (several: the one documents of its sort hold, dicts or files and URLs; else refused, say
    ``provider=``), so replacing a document never removes another's
    routes by chance."""
    access = registration.routes[0].access
    base = registration.routes[0].provider.id

    def held(provider_id: str) -> list[AccessPath]:  # the access paths of its routes
        return [r.access for r in routes_of(provider_id)]

    chain, n = [base], 2  # base, base_2, ... while some document holds them
    while held(chain[-1]):
        chain.append(f"{base}_{n}")
        n += 1

    def same(other: AccessPath) -> bool:
        if other.document != access.document:
            return False
        return access.document != "<dict>" or other.document_hash == access.document_hash

    name = next(
        (
            i
            for i in chain
            if any(same(a) for a in held(i))
            or same_routes(routes_of(i), registration.routes, access.id)
        ),
        None,
    )
    if name is None and replace:
        documents = [
            i for i in chain if held(i) and all(a.kind is AccessKind.OPENAPI for a in held(i))
        ]
        if len(documents) > 1:  # the one of them a document of its sort (dict, file) holds
            dicts = access.document == "<dict>"
            alike = [
                i for i in documents if all((a.document == "<dict>") == dicts for a in held(i))
            ]
            documents = alike if len(alike) == 1 else documents
        if len(documents) > 1:
            sources = "; ".join(f"{i} ({sources_of(routes_of(i))})" for i in documents)
            raise RegistrationError(
                f"documents titled {registration.routes[0].provider.display_name!r} are "
                f"registered under several providers: {sources}; which one this replaces "
                "cannot be told",
                where=access.document,
                hint="Pass provider= to name the one to replace",
            )
        name = documents[0] if documents else None
    if name is None:  # a new document: the first id no other document holds
        name = next(i for i in chain if not held(i))
    return name


def replaced_nothing(
    providers: Mapping[str, Provider],
    routes_of: Callable[[str], Sequence[Route]],
    registration: Registration,
) -> str | None:
    """A warning where ``registration`` (a document registered with ``replace=True`` under a
    ``provider=`` name, which added routes and replaced none) is shown under the title of
    another provider that holds routes at the same access path: the document registered
    without ``provider=`` took its title's id (``Acme Shop API``: ``acme_shop``), the name
    given takes its own slug (``acme_shop_api``), so both are now registered, each route
    twice. ``None`` where no other provider is shown under that title."""
    if not registration.routes:
        return None
    new, access_id = registration.routes[0].provider, registration.routes[0].access.id
    for other in providers.values():
        if other.id == new.id or other.display_name != new.display_name:
            continue
        held = [r for r in routes_of(other.id) if r.access.id == access_id]
        if held:
            return (
                f"replace=True replaced nothing: provider {new.id!r} is new, while provider "
                f"{other.id!r}, shown as {new.display_name!r} too, holds {len(held)} routes at "
                f"access path {access_id!r} (from {sources_of(held)}); both are registered now, "
                f"each route twice. To replace those, register it with provider={other.id!r} "
                f"(a document without provider= takes its title's id), then "
                f"remove_provider({new.id!r})"
            )
    return None


def renamed_provider(
    routes_of: Callable[[str], Sequence[Route]], wanted: str, registration: Registration
) -> str | None:
    """A warning where ``registration`` took ``wanted`` + ``_2`` (``_3`` ...) because another
    document holds ``wanted``: such a number follows the order documents are registered in,
    so a document added or removed before it moves its routes to another id (trial X2: in a
    folder changed daily, ``globex_amazon_simple_2`` was the email service one day and the
    storage service the next, and an allow list naming it followed); ``None`` otherwise."""
    if not registration.routes:
        return None
    route = registration.routes[0]
    taken = route.provider.id
    if taken == wanted:
        return None
    holders = sources_of(routes_of(wanted)) or "another document"
    return (
        f"provider id {taken!r}: {wanted!r}, from the title {route.provider.display_name!r}, "
        f"is held by {holders}; a numbered id follows the order documents are registered "
        f"in and moves to another document when one is added or removed before it: give "
        f"this document its own provider name (provider=, or PROVIDER=FILE on the command "
        f"line) wherever route ids must last (allow lists, labelled requests, saved state)"
    )
