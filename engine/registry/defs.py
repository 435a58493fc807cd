"""Shared definitions: the form a schema takes when inlining every reference would not fit.

Inlining a definition that sits on a reference cycle makes a new copy on every path through
the cycle: Azure's network API (an interface names its subnet, the subnet its security
group, the group its interfaces ...) inlines one response into tens of thousands of JSON
nodes from a document of a few thousand. Where the inlined form passes the
:class:`~schemarouter.adapters._schema.InlineBudget`, the resolver builds this form instead:
every definition on a cycle is written once under the schema's ``$defs`` and referred to as
``{"$ref": "#/$defs/Name"}``; everything else is inlined as before. Its size is bounded by
the document's own, and a validator, an LLM API or the output-field flattening
(:mod:`schemarouter.adapters._fields`) follows the references. References that fan out
without a cycle (each definition referring twice to the next) have no cycle to share, so
they are refused as before, in milliseconds.

The helpers here are pure functions over JSON: which references lie on a cycle
(:func:`cyclic_pointers`, over :func:`strong_components`, which the import-graph check of
``training.bench.imports`` reads too), which ``$defs`` a schema uses (:func:`used_defs`), a
sub-schema made to stand alone (:func:`attach_defs`) and a parameter's ``$defs`` moved to
the root of the schema that holds it (:func:`hoist_defs`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from typing import Any

__all__ = [
    "DEFS_PREFIX",
    "attach_defs",
    "cyclic_pointers",
    "def_name",
    "hoist_defs",
    "local_refs",
    "strong_components",
    "used_defs",
]

#: How a shared definition is referred to inside a registered schema.
DEFS_PREFIX = "#/$defs/"


def local_refs(node: Any) -> Iterable[str]:
    """Every local ``$ref`` string inside ``node`` (references are not followed)."""
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, Mapping):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                yield ref
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def strong_components(
    start: Iterable[str],
    edges: Callable[[str], Iterable[str]],
    *,
    skip: Container[str] = (),
) -> Iterator[list[str]]:
    """The strongly connected components reachable from ``start`` (Tarjan's, iterative: no
    recursion limit), each as soon as it is complete, its root last. Nodes in ``skip`` are
    neither visited nor followed; it is read as the search goes, so a caller may add the
    members of each component to it before the next is found."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in start:
        if root in skip or root in index:
            continue
        work: list[tuple[str, Any]] = [(root, None)]
        while work:
            node, children = work[-1]
            if children is None:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                children = iter([c for c in edges(node) if c not in skip])
                work[-1] = (node, children)
            advanced = False
            for child in children:
                if child not in index:
                    work.append((child, None))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                yield members


def cyclic_pointers(
    start: Iterable[str], edges: Callable[[str], Iterable[str]], known: dict[str, bool]
) -> None:
    """Mark in ``known`` (pointer -> on a cycle) every pointer reachable from ``start``
    (:func:`strong_components`); a pointer is on a cycle when its component has two members
    or it refers to itself. Pointers already in ``known`` are not visited again (a
    component is complete once found)."""
    for members in strong_components(start, edges, skip=known):
        node = members[-1]
        looped = len(members) > 1 or node in set(edges(node))
        for member in members:
            known[member] = looped


def def_name(pointer: str, taken: Iterable[str]) -> str:
    """A readable ``$defs`` key for ``pointer`` (its last token), unique among ``taken``."""
    token = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    base = "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in token) or "def"
    taken = set(taken)
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def used_defs(schema: Any, defs: Mapping[str, Any]) -> list[str]:
    """The ``$defs`` names ``schema`` refers to, directly or through other definitions."""
    seen: dict[str, None] = {}
    todo = [schema]
    while todo:
        for ref in local_refs(todo.pop()):
            if ref.startswith(DEFS_PREFIX):
                name = ref[len(DEFS_PREFIX) :]
                if name in defs and name not in seen:
                    seen[name] = None
                    todo.append(defs[name])
    return list(seen)


def attach_defs(schema: Any, defs: Mapping[str, Any] | None) -> Any:
    """``schema`` (a part of a schema whose root holds ``defs``) standing alone: with the
    definitions it refers to under its own ``$defs``."""
    if not defs or not isinstance(schema, Mapping):
        return schema
    names = used_defs(schema, defs)
    if not names:
        return schema
    return {**schema, "$defs": {name: defs[name] for name in names}}


def hoist_defs(properties: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Property schemas without their ``$defs``, and those definitions merged, for an object
    schema that holds them (a ``#/$defs/...`` reference resolves against the root). A name
    two properties define differently stays where it is."""
    merged: dict[str, Any] = {}
    clash: set[str] = set()
    for schema in properties.values():
        inner = schema.get("$defs") if isinstance(schema, Mapping) else None
        for name, value in (inner or {}).items():
            if name in merged and merged[name] != value:
                clash.add(name)
            merged.setdefault(name, value)
    if not merged or clash:
        return dict(properties), {}
    out = {
        key: {k: v for k, v in schema.items() if k != "$defs"}
        if isinstance(schema, Mapping) and "$defs" in schema
        else schema
        for key, schema in properties.items()
    }
    return out, merged
