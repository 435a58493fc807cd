"""What a parameter's name says it identifies, read from the registered contract alone.

A route *needs* the identifier of a thing when a required parameter is named like one:
``person_id``, ``movieId``, ``track_ids``, or a plain ``id`` right after a collection segment
of its path (``/users/{id}``: a user). :mod:`schemarouter.retrieval.prerequisites` finds the
routes that produce such identifiers; :mod:`schemarouter.retrieval.analysis` binds an
identifier a request carries ("CallFire contact 12345") to the parameter that needs it. Both
read the things with the same :func:`stem`, so singular and plural match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Sequence

from schemarouter.contracts import TRANSPORT_LOCATIONS, Route
from schemarouter.retrieval.korean_verbs import korean_verb_word

__all__ = [
    "ID_LABEL",
    "identifier_thing",
    "is_plural",
    "is_template",
    "names_identifier",
    "needed_parameters",
    "needs",
    "path_segments",
    "stem",
    "thing_named",
    "things_of",
]

#: What a request may write between a thing and its id: "id", "id:", "with (the) id", "whose id
#: is", "identifier" ("close the ticket with id T-1" left ticket_id missing); a pattern's piece.
ID_LABEL = r"(?:(?:with\s+(?:the\s+|an\s+)?|whose\s+)?(?:id|identifier)(?:\s+is)?\s*[:=]?\s*)"

#: ``<thing>_id`` / ``<thing>-id`` / ``thingId`` / ``thingID`` (not ``valid``, ``paid``), and
#: their plurals (``track_ids``, ``albumIds``: a list of them is as much a need)
_ID_SUFFIX = re.compile(
    r"^(?P<thing>[A-Za-z][A-Za-z0-9_\-.]*?)"
    r"(?:[_\-.](?:ids?|Ids?|IDs?)|(?<=[a-z0-9])(?:Ids?|IDs?))$"
)
#: names that are a plain id whatever their letters say
_PLAIN_IDS = frozenset({"id", "_id", "uuid", "guid", "pid"})
#: a plain list of ids (``GET /albums?ids=``): whose, the route's last path word says
_PLAIN_ID_LISTS = frozenset({"ids", "uuids", "guids"})
_SEPARATORS = re.compile(r"[_\-.]")
_TEMPLATE = re.compile(r"^\{[^}]+\}$")


def is_template(segment: str) -> bool:
    """Whether a path segment is a ``{parameter}``."""
    return bool(_TEMPLATE.match(segment))


def stem(word: str) -> str:
    """One stem for a thing's singular and plural, the same on both sides of a match
    (``movie`` and ``movies``: ``mov``; ``category`` and ``categories``: ``categor``)."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word[-1] in "ey":
        word = word[:-1]
    if len(word) > 3 and word.endswith("i"):
        word = word[:-1]
    return word


#: Words in -s that are no plural ("this", "status").
_NOT_PLURAL = frozenset(["is", "was", "has", "does", "as", "its", "this", "thus", "yes", "status"])


def is_plural(word: str) -> bool:
    """Whether ``word`` reads as a plural noun: in -s, not -ss, not one of the short words in
    -s that are none ("this", "its", "status")."""
    word = word.lower()
    return word.endswith("s") and not word.endswith("ss") and word not in _NOT_PLURAL


def identifier_thing(name: str) -> str | None:
    """What identifier ``name`` names: the thing's stem for ``<thing>_id`` / ``thingId``,
    ``""`` for a plain ``id`` (``id``, ``uuid``, ``pid``: whose, the context says), ``None``
    for a name that is no identifier."""
    match = _ID_SUFFIX.match(name)
    # a compound thing reads as one word (``file_version_retention_id``, ``analysisRuleId``:
    # ``fileversionretention``, ``analysisrule``), as its path segments do (_things_named)
    thing = _SEPARATORS.sub("", match["thing"]) if match else ""
    if len(thing) > 1:
        return stem(thing)
    return "" if match or name.lower() in _PLAIN_IDS else None


def names_identifier(name: str) -> bool:
    """Whether a parameter or field name reads as an identifier (``id``, ``author_id``,
    ``movieId``, ``uuid``)."""
    return identifier_thing(name) is not None


def path_segments(route: Route) -> list[str]:
    """The non-empty segments of the route's path (``{templates}`` among them)."""
    path = route.endpoint.operation.path or ""
    return [s for s in path.split("/") if s]


def needed_parameters(
    route: Route, *, given: frozenset[str] = frozenset()
) -> tuple[tuple[str, str], ...]:
    """``(parameter, thing)`` for each required parameter of ``route`` named like the
    identifier of a thing (``<thing>_id``, or ``id`` right after a collection segment of its
    path), but for a parameter whose declared kind (``semantic_id``) is in ``given``: the
    request carries a value of that kind (the query analysis found ``identifier.doi`` in it)."""
    found: list[tuple[str, str]] = []
    segments = path_segments(route)
    for parameter in route.endpoint.parameters:
        if not parameter.required or (parameter.semantic_id and parameter.semantic_id in given):
            continue
        if parameter.location in TRANSPORT_LOCATIONS:  # X-Request-Id, cookies: not needs
            continue
        thing = identifier_thing(parameter.name)
        if thing == "":  # a plain id: the collection segment before it says whose
            template = "{" + parameter.name + "}"
            if template in segments and segments.index(template) > 0:
                before = segments[segments.index(template) - 1]
                if not _TEMPLATE.match(before):
                    thing = stem(before)
        elif thing is None and parameter.name.lower() in _PLAIN_ID_LISTS:
            static = [s for s in segments if not _TEMPLATE.match(s)]
            thing = stem(_SEPARATORS.sub("", static[-1])) if static else None
        if thing:
            found.append((parameter.name, thing))
    return tuple(found)


def needs(route: Route, *, given: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The things whose identifier ``route`` needs (:func:`needed_parameters`), once each."""
    return tuple(dict.fromkeys(thing for _, thing in needed_parameters(route, given=given)))


def things_of(routes: Iterable[Route]) -> frozenset[str]:
    """The words that name a thing whose identifier a parameter of ``routes`` takes: the
    things of :func:`needed_parameters` (stems: ``chamber``), and the declared aliases of an
    identifier-named parameter (``sample_id`` with ``aliases: [sample, 시료]``), lowercased.
    The query analysis reads an identifier written after one of them as that thing's."""
    out: set[str] = set()
    for route in routes:
        out.update(thing for _, thing in needed_parameters(route))
        for parameter in route.endpoint.parameters:
            if names_identifier(parameter.name):
                out.update(alias.lower() for alias in parameter.aliases if alias.strip())
    return frozenset(out)


#: The one or two words right before a thing word ("leave" of "leave request LR-5").
_WORDS_BEFORE = re.compile(
    r"(?<![A-Za-z\uac00-\ud7a3])(?:([A-Za-z]+|[\uac00-\ud7a3]+)\s+)?([A-Za-z]+|[\uac00-\ud7a3]+)\s+$"
)


def thing_named(
    text: str,
    start: int,
    word: str,
    things: Container[str],
    gloss: Callable[[str], Sequence[str]] = lambda word: (),
) -> str | None:
    """The thing (lowercase) that ``word``, at ``start`` of ``text`` and right before an
    identifier, names: a Korean word its English ``gloss`` (the one a parameter takes, of
    several: "예약" is book, reservation, booking), or itself where it is one of ``things`` (a
    parameter's alias); ``None`` for a Korean word of no gloss. Where the words before it
    make with it the name of a thing whose identifier a parameter takes (``things``,
    :func:`things_of`), that thing: "leave request LR-5" is a ``leave_request_id``'s
    ("leaverequest"), a Korean word read by its gloss ("휴가 신청"), as "purchase order line 7"
    is a ``purchase_order_line_id``'s (trial 10: "request" was read, and no parameter took
    LR-5)."""
    thing = word.lower()
    if not word.isascii():
        english = [word] if word in things else _noun_glosses(word, gloss)
        if not english:
            return None
        thing = next((w for w in english if w in things or stem(w) in things), english[0])
    # read in the few characters before it: a request of thousands of ids asks once each
    before = _WORDS_BEFORE.search(text, max(0, start - 64), start)
    words = [w for w in before.groups() if w] if before is not None else []
    for count in range(len(words), 0, -1):  # the longest name first
        spellings = [""]
        for each in words[-count:]:
            english = [each.lower()] if each.isascii() else [w.lower() for w in gloss(each)]
            spellings = [s + e for s in spellings for e in english]
        for first in spellings:
            for joined in (first + thing, f"{first}-{thing}", f"{first}_{thing}"):
                if joined in things or stem(joined) in things:
                    return joined
    return thing


def _noun_glosses(word: str, gloss: Callable[[str], Sequence[str]]) -> list[str]:
    """The English words of the Korean ``word`` as a thing: its glosses less the one of its
    verb sense, where it has another ("예약 B-3" is a booking, a reservation or an appointment,
    never a book: "book" is 예약's verb; trial 13 read "예약 B-1003 확정해줘" on an API of books
    and bookings as a book's id)."""
    glosses = list(gloss(word))
    nouns = [w for w in glosses if w != korean_verb_word(word)]
    return nouns or glosses
