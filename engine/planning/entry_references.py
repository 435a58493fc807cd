"""The entry a change's body refers to, filled from the id the request names for it.

Box's Content API takes the entry a change is about inside its JSON body, as an object with an
``id`` (and a ``type`` whose enum lists the kinds of entry): ``POST /comments {"item": {"type":
"file", "id": "456"}, "message": ...}``, ``POST /tasks {"item": ...}``, ``POST /files/{FILE_ID}/
copy {"parent": {"id": "300"}}``. No rule read a named id into such an object, so trial 18's
"Create a review task on file 789 due next Friday ..." sent ``POST /tasks`` without the file
(the warnings said the request names file id '789', which no step takes), and "Add a comment to
file 456 ..." and "Copy file 123 into folder 300" left the body missing.

Here (:func:`referenced_entries`), for a change with a JSON object body, each id the request
writes after its thing's word ("file 456", "folder 300") that no other argument took fills the
one body property that refers to an entry of that thing: an object whose ``id`` takes the
value and whose ``type`` enum lists the thing, where its description says it refers to one
(``{"id": "456", "type": "file"}``; "The folder containing this file" refers to a folder, not
a file), or, where no property lists it, the one object whose only property is ``id`` (a bare
reference: copy_file's ``parent``), where the request leaves one id for it. An entry written
as where something is or comes from ("from folder 200", "out of folder 200", "that is in
folder 200") is no reference: "Copy file 123 from folder 200" copied it into folder 200. Where two
properties would take it, or two ids one property, nothing is filled: the caller gives it. A
create (:func:`creates`) whose body holds nothing else stays missing: a comment on file 456
with no message is no comment the request gave.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.body import acts_on_entry
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.identifiers import stem
from schemarouter.retrieval.values import value_schema

__all__ = ["creates", "referenced_entries"]


def _reference(parameter: Parameter) -> tuple[Mapping[str, Any], list[str]] | None:
    """The properties of ``parameter``'s object schema, where it has an ``id`` that takes a
    string, and the kinds of entry it refers to (:func:`_described`); ``None`` for any other
    schema."""
    schema = value_schema(parameter.json_schema)
    inner = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(inner, Mapping):
        return None
    ident = inner.get("id")
    if not isinstance(ident, Mapping) or value_schema(ident).get("type") not in ("string", None):
        return None
    kinds = inner.get("type")
    enum = value_schema(kinds).get("enum") if isinstance(kinds, Mapping) else None
    listed = [k for k in enum or () if isinstance(k, str)]
    text = parameter.description or str(schema.get("description") or "")
    return inner, _described(listed, text)


def _described(kinds: Sequence[str], description: str) -> list[str]:
    """The kinds of ``kinds`` a reference's ``description`` says it is: the first one it
    names, and those joined to it by "or" ("It references either a file or a folder"); a
    kind named after that is whose it is ("The folder containing this file": a folder, and
    Box's ``type`` enum lists 28 kinds); every kind where the description names none."""
    words = "|".join(re.escape(k.replace("_", " ")) for k in sorted(kinds, key=len, reverse=True))
    if not words:
        return []
    named = list(re.finditer(rf"\b({words})s?\b", description.replace("_", " "), re.IGNORECASE))
    if not named:
        return list(kinds)
    chosen = [named[0]]
    for match in named[1:]:
        between = description[chosen[-1].end() : match.start()]
        if not re.fullmatch(r"\s*(?:,|or|,\s*or)\s+(?:an?\s+)?", between, re.IGNORECASE):
            break
        chosen.append(match)
    said = {m.group(1).lower().replace(" ", "_") for m in chosen}
    return [k for k in kinds if k.lower() in said]


def _of_thing(kinds: Sequence[str], thing: str) -> str | None:
    """The kind of ``kinds`` that is ``thing`` (its singular and plural alike)."""
    return next((k for k in kinds if stem(k) == stem(thing)), None)


#: Words before an entry that say where something is or comes from, not what a body refers
#: to: "Copy file 123 from folder 200" copied it into folder 200 (eighteenth security review).
_WHERE = re.compile(
    r"\b(?:from|out\s+of|off|located\s+in|(?:that|which)(?:\s+is|\s+was|\s+are|'s)\s+"
    r"(?:in|inside|within|under))\s+(?:(?:the|a|an|its|their)\s+)?$",
    re.IGNORECASE,
)
#: How far before an entry's word :data:`_WHERE` is looked for.
_BEFORE = 40


def _where_it_is(query: str, value: BoundValue) -> bool:
    """Whether ``query`` writes ``value`` (an id after its thing's word) as where something is
    or comes from ("from folder 200", "that is in folder 200"), not where it goes."""
    before = query[max(0, value.start - _BEFORE - len(value.of or "")) : value.start]
    thing = re.compile(rf"{re.escape(value.of or '')}\s*[#:]?\s*$", re.IGNORECASE)
    head = thing.sub("", before)
    return head != before and bool(_WHERE.search(head))


def referenced_entries(
    properties: Sequence[Parameter],
    values: Sequence[BoundValue],
    taken: Sequence[Any],
    *,
    query: str = "",
) -> dict[str, Any]:
    """Body property name -> ``{"id": ..., "type": ...}`` for each entry the request names by
    its thing and an id not among ``taken`` (the values other arguments hold), where one of
    ``properties`` (a change's open body properties) refers to that thing (module docstring);
    an entry ``query`` writes as where something is or comes from refers to none."""
    named = [
        v
        for v in values
        if v.kind == NAMED_IDENTIFIER
        and v.of
        and v.value not in taken
        and not (query and _where_it_is(query, v))
    ]
    references = {p.name: ref for p in properties if (ref := _reference(p)) is not None}
    out: dict[str, Any] = {}
    by_property: dict[str, list[tuple[str, str]]] = {}  # property -> (kind, id) it would take
    for value in dict((v.value, v) for v in named).values():
        takers = [
            (name, kind)
            for name, (_, kinds) in references.items()
            if (kind := _of_thing(kinds, value.of or "")) is not None
        ]
        if len(takers) == 1:
            by_property.setdefault(takers[0][0], []).append((takers[0][1], value.value))
    for name, found in by_property.items():
        if len(found) == 1:
            out[name] = {"id": found[0][1], "type": found[0][0]}
    bare = [name for name, (inner, _) in references.items() if set(inner) == {"id"}]
    left = [v for v in named if all(v.value != ref["id"] for ref in out.values())]
    if not out and len(bare) == 1 and len({v.value for v in left}) == 1:
        out[bare[0]] = {"id": left[0].value}
    return {
        name: value
        for name, value in out.items()
        if valid(next(p for p in properties if p.name == name), value)
    }


def creates(route: Route) -> bool:
    """Whether ``route`` creates an entry (a ``POST`` to a collection): its body's references
    say where or about what, and one holding nothing else is no entry the request gave (a
    comment with no message); an update (``PUT``, ``PATCH``) or an action on an entry its
    path names (``POST /files/{FILE_ID}/copy``) may change or do nothing but that."""
    method = (route.endpoint.operation.method or "").upper()
    return method == "POST" and not acts_on_entry(route)
