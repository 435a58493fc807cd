"""The labelled query set of the bundled materials catalog (``data/queries/materials.json``).

Each query carries its category (the nine of the paper's benchmark), language, a fixed
split (``dev`` for tuning, ``test`` held out) and its gold: every route of the bundled
catalog that can serve it, with the output fields on that route that carry the answer.
Gold routes are alternatives, except in ``cross_source`` queries, where the comparison
needs every one of them (:attr:`LabelledQuery.needs_all_routes`). Negative queries have
no gold: the router should abstain.

The file ships inside the package (``schemarouter.data``); :func:`load_bundled_queries`
reads it from there unless given a path. :func:`validate_queries` checks every gold route
and field against a registry snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "CATEGORIES",
    "LANGS",
    "SPLITS",
    "LabelledQuery",
    "bundled_queries_path",
    "load_bundled_queries",
    "validate_queries",
]

FORMAT = 1
CATEGORIES: tuple[str, ...] = (
    "single_property",
    "chemical_lookup",
    "provenance_sensitive",
    "multi_field",
    "literature",
    "cross_source",
    "unit_sensitive",
    "negative",
    "ambiguous",
)
SPLITS: tuple[str, ...] = ("dev", "test")
LANGS: tuple[str, ...] = ("en", "ko")


@dataclass(frozen=True)
class LabelledQuery:
    """One labelled routing query."""

    id: str
    split: str
    category: str
    lang: str
    query: str
    gold_routes: tuple[str, ...]
    # route id -> fields on that route carrying the answer (not hashed: a dict)
    gold_fields: dict[str, tuple[str, ...]] = field(hash=False)
    source_constraint: str | None = None
    notes: str | None = field(default=None, compare=False)

    @property
    def is_negative(self) -> bool:
        """No route should be chosen (empty gold)."""
        return not self.gold_routes

    @property
    def needs_all_routes(self) -> bool:
        """True where the answer needs every gold route (comparisons), not any one."""
        return self.category == "cross_source"


def bundled_queries_path() -> Traversable:
    """The packaged query set (a resource of ``schemarouter.data``)."""
    return resources.files("schemarouter.data") / "queries" / "materials.json"


def _fail(where: str, reason: str) -> ValueError:
    return ValueError(f"query set: {where}: {reason}")


def _parse(raw: Any, index: int) -> LabelledQuery:
    if not isinstance(raw, Mapping):
        raise _fail(f"queries[{index}]", "not an object")
    qid = raw.get("id")
    if not isinstance(qid, str) or not qid:
        raise _fail(f"queries[{index}]", "missing id")
    split = raw.get("split")
    if split not in SPLITS:
        raise _fail(qid, f"split {split!r} is not one of {SPLITS}")
    category = raw.get("category")
    if category not in CATEGORIES:
        raise _fail(qid, f"category {category!r} is not one of {CATEGORIES}")
    lang = raw.get("lang")
    if lang not in LANGS:
        raise _fail(qid, f"lang {lang!r} is not one of {LANGS}")
    text = raw.get("query")
    if not isinstance(text, str) or not text.strip():
        raise _fail(qid, "empty query text")
    gold = raw.get("gold")
    if not isinstance(gold, list):
        raise _fail(qid, "gold must be a list")
    routes: list[str] = []
    fields: dict[str, tuple[str, ...]] = {}
    for item in gold:
        if not isinstance(item, Mapping) or not isinstance(item.get("route"), str):
            raise _fail(qid, f"bad gold entry {item!r}")
        route = item["route"]
        names = item.get("fields")
        if (
            not isinstance(names, list)
            or not names
            or not all(isinstance(n, str) and n for n in names)
        ):
            raise _fail(qid, f"gold route {route!r} needs a non-empty list of field names")
        if route in fields:
            raise _fail(qid, f"gold route {route!r} listed twice")
        if len(set(names)) != len(names):
            raise _fail(qid, f"gold route {route!r} repeats a field")
        routes.append(route)
        fields[route] = tuple(names)
    if (category == "negative") != (not routes):
        raise _fail(qid, "negative queries need empty gold, all others a non-empty gold")
    constraint = raw.get("source_constraint")
    if constraint is not None and not isinstance(constraint, str):
        raise _fail(qid, "source_constraint must be a string or null")
    notes = raw.get("notes")
    return LabelledQuery(
        id=qid,
        split=split,
        category=category,
        lang=lang,
        query=text,
        gold_routes=tuple(routes),
        gold_fields=fields,
        source_constraint=constraint,
        notes=notes if isinstance(notes, str) else None,
    )


def load_bundled_queries(
    path: str | Path | None = None, *, split: str | None = None
) -> list[LabelledQuery]:
    """Load the labelled query set (the packaged one by default), optionally one split."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS} or None, got {split!r}")
    source: Path | Traversable = Path(path) if path is not None else bundled_queries_path()
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"query set {source}: cannot read: {exc}") from exc
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise ValueError(f"query set {source}: expected an object with format {FORMAT}")
    raw_queries = doc.get("queries")
    if not isinstance(raw_queries, list):
        raise ValueError(f"query set {source}: 'queries' must be a list")
    queries = [_parse(raw, i) for i, raw in enumerate(raw_queries)]
    seen: set[str] = set()
    for q in queries:
        if q.id in seen:
            raise _fail(q.id, "duplicate id")
        seen.add(q.id)
    if split is not None:
        queries = [q for q in queries if q.split == split]
    return queries


def validate_queries(queries: Iterable[LabelledQuery], snapshot: RegistrySnapshot) -> None:
    """Raise ``ValueError`` naming each query whose gold route or field is not registered."""
    problems: list[str] = []
    for q in queries:
        for route_id, names in q.gold_fields.items():
            route = snapshot.routes.get(route_id)
            if route is None:
                problems.append(f"{q.id}: unknown route {route_id!r}")
                continue
            known = {item.name for item in route.endpoint.output_fields}
            for name in names:
                if name not in known:
                    problems.append(f"{q.id}: route {route_id!r} has no output field {name!r}")
    if problems:
        raise ValueError("gold labels not in the registry:\n  " + "\n  ".join(problems))
