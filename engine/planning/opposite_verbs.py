"""A change is never planned as the opposite of the one asked for (trial V2).

"Reopen a ticket" planned ``close_ticket``, ranked first (W2's document), the change undoing
the one asked for. Ranking is left as it is; here, where the best eligible route does the
opposite of the request's verb (reopen and close, unassign and assign, unarchive and archive,
unpublish and publish, disable and enable, unlock and lock, unfreeze and freeze,
unblock and block) and the request does not ask for
both, the first of the :data:`~schemarouter.planning.refusals.READ_DEPTH` best that does the
verb is planned first; where none does, the first of them that changes the same thing (takes
the same identifier), creates nothing and does no such verb ("reopen" by ``update_ticket``);
and where none is left either, nothing is planned (the next ranked may do another change
still: "unassign" by ``close_ticket``). The plan's warnings say so."""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.links import created
from schemarouter.planning.refusals import READ_DEPTH
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import (
    name_words,
    request_verbs,
    verb_forms,
    verb_of,
    verb_of_route,
)
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.identifiers import needed_parameters, stem

__all__ = ["OPPOSITES", "no_opposite_change", "refusal", "says_not_to"]

#: Each change and the one that undoes it (the words that name it, first the canonical one).
_PAIRS = (
    (("reopen",), ("close",)),
    (("unassign",), ("assign",)),
    (("unarchive", "restore"), ("archive",)),
    (("unpublish",), ("publish",)),
    (("disable", "deactivate"), ("enable", "activate")),
    (("unlock",), ("lock",)),
    (("unfreeze",), ("freeze",)),
    (("unblock",), ("block",)),
)
#: verb -> the verb that undoes it.
OPPOSITES = {a[0]: b[0] for a, b in _PAIRS} | {b[0]: a[0] for a, b in _PAIRS}
_CANON = {word: words[0] for pair in _PAIRS for words in pair for word in words}
_WORD = re.compile(r"[A-Za-z]+")
#: A verb the request says not to do, right after its "not" ("don't close", "never reopen");
#: not the clause reading's negation, which carries over a comma to a list's next item
#: ("don't close ticket T-7, reopen it" would refuse the reopen too).
#: Any apostrophe ("don’t" as phones write it), "avoid", "stop", "don't you dare" (trial X1:
#: "Don’t close the first ticket" closed it).
_REFUSED = re.compile(
    r"(?:\b(?:do|does|did|must|should|shall|can|will|would)\s*n['’‘ʼ´`]?t|n['’‘ʼ´`]t|\b(?:not"
    r"|never|without|avoid|stop|under\s+no\s+circumstances))\s+(?:you\s+)?(?:dare\s+|ever\s+)?"
    r"([A-Za-z]+)",
    re.I,
)
#: A Korean request that ends forbidding what it names ("닫지 마", "닫지 말아줘", "삭제하지
#: 마세요"); not "닫지 말고 다시 열어줘" ("instead of closing it, reopen it").
_FORBIDS_KO = re.compile(
    r"지\s*(?:마(?:세요|십시오|라)?|말아(?:요|라)?(?:\s*(?:줘|주세요|줄래))?|맙시다)\s*[.!?~]*\s*$"
)
#: A Korean taking back's "never mind" words after its 아니 / 잠깐 ("아니, 취소", "잠깐 그만").
_KO_CANCELLED = re.compile(r"((?:아니|아냐|아니야|아니요|아뇨|잠깐만?)[\W_]*)(?:취소|됐어|그만)")
#: ... and an English one's "cancel that", which asks no cancelling either (trial Y1).
_CANCEL_THAT = re.compile(r"\bcancel\s+that\b", re.I)


def _canon(word: str) -> str | None:
    """The canonical verb of a word of :data:`_PAIRS` (inflected: "reopens", "closing")."""
    return next((_CANON[form] for form in verb_forms(word) if form in _CANON), None)


def _asked(query: str) -> set[str]:
    """The verbs of :data:`_PAIRS` the request asks for: its clauses' changes
    (:func:`~schemarouter.planning.asked_changes.asked_verbs`: "다시 열어줘" reopens) and the
    un- verbs ranking does not know ("unassign", "unpublish"), where a clause opens with one;
    not one the request says not to do."""
    verbs = {_CANON.get(v, v) for v in asked_verbs(query)}
    for clause in re.split(r"[.;,!?]|\b(?:then|and)\b", query):
        words = [w for w in _WORD.findall(clause) if w.lower() not in {"please", "now", "also"}]
        verb = _canon(words[0]) if words else None
        if verb is not None and verb.startswith("un"):
            verbs.add(verb)
    # a verb the request says not to do is not asked ("don't close ticket T-7, reopen it")
    refused = {_canon(m.group(1)) for m in _REFUSED.finditer(query)}
    return {v for v in verbs if v in OPPOSITES and v not in refused}


def says_not_to(query: str, route: Route) -> bool:
    """Whether ``query`` says not to do the change ``route`` does, right after its "not"
    ("don't close the first ticket" of ``close_ticket``; "don't refund" of ``refund_order``,
    by its name's first word, a verb no list knows), says not to do its opposite without
    asking for it ("stop closing the first ticket" of ``reopen_ticket``), or ends by forbidding
    a change in Korean ("첫 번째 티켓을 닫지 말아줘", which asks for none), or takes the change
    back after it ("Close the first ticket? No."): such a change takes
    no listed entry (trial X1: the first closed the first ticket listed, the others reopened
    it)."""
    return refusal(query, route) is not None


def refusal(query: str, route: Route) -> str | None:
    """Why :func:`says_not_to` holds for ``route`` (what a warning says), else ``None``."""
    verb = verb_of_route(route)
    words = [m.group(1) for m in _REFUSED.finditer(query)]
    refused = {v for word in words for v in (verb_of(word), _canon(word))}
    does = _does(route)
    # not the thing its path names, read as a verb ("order" of refund_order: "Refund order
    # O-1, not order O-2" refuses no refund; trial Y1)
    if verb is not None and verb in refused and stem(verb) not in _things(route):
        return f"says not to {verb} it"
    # a verb no list knows, the route's name's first word ("don't refund" of refund_order),
    # or its last, past its method and the things its path names (trial Y1: "don't refund
    # the first order" bound it for PostOrdersOrderRefund, order_refund, issueRefund; "not
    # order O-2" is no refusal of refund_order)
    named = [w for w in name_words(route.endpoint.name) if stem(w) not in _things(route)]
    for lead in dict.fromkeys(named[:1] + named[-1:]):
        if any(lead in verb_forms(word) for word in words):
            return f"says not to {lead} it"
    if does is not None and OPPOSITES[does] in refused and does not in _asked(query):
        return f"says not to {OPPOSITES[does]} it and does not ask to {does} it"
    back = clauses_of(query).taken_back  # "Close the first ticket? No.", "..., just kidding"
    # "아니, 취소" takes back: its 취소 (cancel) asks no change of its own
    if back and not request_verbs(_CANCEL_THAT.sub("", _KO_CANCELLED.sub(r"\1", query[back:]))):
        return f"takes it back ({query[back:].strip()!r})"
    return "forbids a change" if _FORBIDS_KO.search(query) else None


def _things(route: Route) -> set[str]:
    """The stems of what ``route``'s path names before its last part (``/orders/{order_id}/
    refund``: ``order``), and of the HTTP methods (Stripe's ``PostChargesChargeRefund``)."""
    path = (route.endpoint.operation.path or "").strip("/").split("/")
    literal = [part for part in path[:-1] if part and not part.startswith("{")]
    return {stem(w) for w in [*literal, "get", "post", "put", "patch", "delete"]}


def _does(route: Route) -> str | None:
    """The verb of :data:`_PAIRS` ``route`` does (its name's first word of them)."""
    verb = verb_of_route(route)
    if verb is not None and _CANON.get(verb, verb) in OPPOSITES:
        return _CANON.get(verb, verb)
    return next((f for w in name_words(route.endpoint.name) if (f := _canon(w)) is not None), None)


def no_opposite_change(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), where the best does the opposite of the request's verb,
    with a route that does the verb first, or one that changes the same thing and does no
    opposite, or without the opposite routes (see the module docstring)."""
    asked = _asked(query)
    if not eligible or len(asked) != 1:
        return list(eligible)
    verb = next(iter(asked))
    routes = snapshot.routes
    top = routes[eligible[0]]
    if OPPOSITES[verb] in asked or _does(top) != OPPOSITES[verb]:
        return list(eligible)
    window = eligible[1:READ_DEPTH]
    doing = [r for r in window if _does(routes[r]) == verb]
    if not doing:
        things = {thing for _, thing in needed_parameters(top)}
        doing = [
            r
            for r in window
            if routes[r].provider.id == top.provider.id
            and routes[r].endpoint.effect is Effect.WRITE
            and _does(routes[r]) is None
            and created(routes[r]) is None
            and things & {t for _, t in needed_parameters(routes[r])}
        ]
    if doing:
        warnings.append(
            f"the request asks to {verb}, so {doing[0]} is planned before {eligible[0]}, "
            f"ranked above it, which would {OPPOSITES[verb]}"
        )
        return [doing[0], *(r for r in eligible if r != doing[0])]
    warnings.append(
        f"the request asks to {verb}, and {eligible[0]}, ranked first, would "
        f"{OPPOSITES[verb]}: nothing is planned, as none of the {len(window) + 1} best routes "
        f"does the change asked for (nor changes the same thing otherwise)"
    )
    return []
