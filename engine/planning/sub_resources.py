"""A change of an entry itself, planned before the same change of a part of it the request does
not name.

An API often serves one change at two paths: on the entry (``DELETE /files/{FILE_ID}``, which
Box answers by moving the file to the trash) and on a part under it (``DELETE
/files/{FILE_ID}/trash``, "Permanently Delete"; ``.../watermark``, ``.../metadata/...``).
Retrieval may rank the part's first, since its words are the entry's and more: trial 18's
"Delete file 1011" and "Delete folder 400" were sent to the trash's delete, erasing each
for good where the request asked the plain delete Box undoes. Here, where the best route is a
change whose path goes on past its last identifier with words the request does not write
(``trash``), the route of the same provider, method and verb whose path stops at that
identifier (:func:`entry_route`), among the :data:`~.refusals.READ_DEPTH` best, is planned
first, and the warnings say so. A request that names the part, by its path or by a word of
its name or summary the entry's route lacks ("delete file 1011 from the trash", "delete file
1011 permanently", "remove the watermark on file 12"), keeps the part's route; a read is left
as ranked ("Who has access to folder 300?" asks a folder's collaborations, not the folder).
The change both routes do must be one the request asks: Box names its routes by their method
(``post_files_id`` restores a file, ``post_files_id_copy`` copies it), and "Duplicate file
789" was sent as the restore (eighteenth security review).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.refusals import READ_DEPTH
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import request_verbs, verb_of_route
from schemarouter.retrieval.identifiers import is_template, path_segments, stem

__all__ = ["entry_itself_first", "entry_route"]

_WORD = re.compile(r"[A-Za-z]+")
_CAMEL = re.compile(r"([a-z])([A-Z])")


def _entry_path(route: Route) -> tuple[list[str], list[str]]:
    """``route``'s path up to its last identifier, and the literal segments after it (both
    empty where the path has no identifier)."""
    segments = path_segments(route)
    last = max((i for i, s in enumerate(segments) if is_template(s)), default=-1)
    if last < 0:
        return [], []
    return segments[: last + 1], segments[last + 1 :]


def _root(word: str) -> str:
    """One form for a word's -ed, -ly and -ing forms and its plural: "trashed" and "trash",
    "permanently" and "permanent"."""
    word = word.lower()
    for ending in ("ly", "ed", "ing"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            word = word[: -len(ending)]
            break
    return stem(word)


def _words(*texts: str) -> set[str]:
    return {_root(w) for text in texts for w in _WORD.findall(_CAMEL.sub(r"\1 \2", text))}


def _part_unwritten(top: Route, other: Route, tail: Sequence[str], query: str) -> bool:
    """Whether ``query`` writes none of the words that set ``top`` apart from ``other``: the
    literal segments of ``top``'s path after its last identifier (``trash``), and the words of
    its name and summary that ``other``'s name, summary and description lack ("Permanently
    Delete" beside "Delete File")."""
    apart = _words(*tail) | (
        _words(top.endpoint.name, top.endpoint.summary)
        - _words(other.endpoint.name, other.endpoint.summary, other.endpoint.description)
    )
    return not apart & _words(query)


def entry_route(snapshot: RegistrySnapshot, ordered: Sequence[str], query: str) -> str | None:
    """The route of ``ordered[1:READ_DEPTH]`` that does ``ordered[0]``'s change (a write or a
    delete; same provider, HTTP method and verb) on the entry itself, where ``ordered[0]``
    does it on a part of the entry that ``query`` does not write (module docstring); else
    ``None``."""
    routes: Mapping[str, Route] = snapshot.routes
    top = routes.get(ordered[0]) if ordered else None
    if top is None or top.endpoint.effect is Effect.READ:
        return None
    entry, tail = _entry_path(top)
    if not tail:
        return None
    method = (top.endpoint.operation.method or "").upper()
    verb = verb_of_route(top)
    if verb not in request_verbs(query):
        return None  # "Duplicate file 789": post_files_id_copy and post_files_id share "post"
    for route_id in ordered[1:READ_DEPTH]:
        other = routes.get(route_id)
        if (
            other is not None
            and other.provider.id == top.provider.id
            and other.endpoint.effect is not Effect.READ
            and (other.endpoint.operation.method or "").upper() == method
            and verb_of_route(other) == verb
            and path_segments(other) == entry
            and _part_unwritten(top, other, tail, query)
        ):
            return route_id
    return None


def entry_itself_first(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), with :func:`entry_route`'s route first where there is one;
    the warnings say which route it is planned before and why."""
    found = entry_route(snapshot, eligible, query)
    if found is None:
        return list(eligible)
    _, tail = _entry_path(snapshot.routes[eligible[0]])
    warnings.append(
        f"{found} does the change on the entry itself, and {eligible[0]}, ranked above it, on "
        f"its {'/'.join(tail)}, which the request does not name: {found} is planned first"
    )
    return [found, *(r for r in eligible if r != found)]
