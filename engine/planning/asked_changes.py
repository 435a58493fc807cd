"""The change a request asks for, read for planning's choice among the routes retrieval ranked,
and the route that does that very change planned before one that does another.

Retrieval reads a Korean clause's change from a table of stems
(:mod:`schemarouter.retrieval.actions`) that ranking weighs; here planning reads a few more,
leaving that table (and the order it gives) as it is: 닫- in every ending ("닫고", "닫기";
the table knows "닫아" only), 할당 / 배정 (assign), 재오픈 (reopen), 종료 (close: "T-2 티켓
종료해줘" planned delete_ticket) and 달- ("댓글 달아줘": add a comment), and 다시 before a
change as its re- verb where English has one ("다시 열어줘" reopens, "다시 시작해줘" restarts).
A quoted value is never read for a verb ("댓글 추가해줘:
'확인 중'" adds a comment: its 확인 is what the comment says, not a request to check).

Trial Y2: "티켓 T-2 닫아줘" planned ``update_ticket`` (ranked first, its body left missing)
where ``close_ticket`` was fourth; "티켓 T-3 다시 열어줘" planned ``update_ticket`` too; "티켓
T-1에 '확인 중입니다' 댓글 달아줘" planned ``list_ticket_comments``, a read standing for the
write. :func:`asked_change_first`: where the request asks one change and the best eligible
route does not do it, the first of the :data:`~schemarouter.planning.refusals.READ_DEPTH` best
that does is planned first, else the first of the :data:`CHANGE_DEPTH` best that does and is
of the best's provider and changes the same thing (takes the same identifier, where the best
takes one: "다시 열어줘" ranked ``reopen_ticket`` seventh); the plan's warnings say so.
:func:`parts_by_change` does the same for each part of a multi-part request ("티켓 T-1 닫고
T-2 다시 열어줘"), by the part's own scores of the routes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping, Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.body import acts_on_entry
from schemarouter.planning.described_ids import undescribed
from schemarouter.planning.empty_changes import EDIT_VERBS, changes_to_state
from schemarouter.planning.field_verbs import field_verbs
from schemarouter.planning.korean_changes import KO_MORE, more_korean_verbs
from schemarouter.planning.message_text import texted, unsaid
from schemarouter.planning.money_moves import is_transfer, moves_money, transfers_money
from schemarouter.planning.questions import asks_whether
from schemarouter.planning.refusals import READ_DEPTH, unquoted
from schemarouter.planning.refused_verbs import only_refused, refused_verbs
from schemarouter.planning.route_verbs import creates_named, makes_named, opens_with
from schemarouter.planning.signed_counts import adjusts_count, counted_verb, counts_at
from schemarouter.planning.sub_resources import entry_route
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import (
    is_read_verb,
    name_words,
    request_action,
    request_verbs,
    verb_forms,
    verb_of,
    verb_of_route,
)
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.clauses import clauses_of, without_refused
from schemarouter.retrieval.identifiers import needed_parameters
from schemarouter.retrieval.identifiers import stem as word_stem
from schemarouter.retrieval.sequence import korean_afters
from schemarouter.retrieval.verb_nouns import NOUN_AFTER, is_noun_form

__all__ = [
    "asked_change_first",
    "asked_verbs",
    "does_change",
    "no_change_asked",
    "parts_by_change",
    "read_for",
    "thing_first",
    "things_blanked",
    "undone_notes",
]

#: How far down the ranked routes one of the best's provider that does the asked change is taken.
CHANGE_DEPTH = 10
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_WORD = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+")
_WORD_OR_SUM = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+|[$€£¥₩]?\d[\d.,]*")
#: Changes whose verb is a noun as often ("book", "order", "tag"): a route does one only where
#: its name leads with it (``book_room``); ``borrow_book`` lends a book, its verb "borrow" one
#: no table knows (trial 13: "Book room R-201 ..." planned it before ``create_booking``).
_NOUN_VERBS = frozenset(("book", "order", "tag", "record", "log", "text", "message", "comment"))
#: A name's first word that is its HTTP method, naming no change of its own.
_METHOD_WORDS = frozenset(("get", "post", "put", "patch", "delete", "head", "options"))
#: A Korean command of a word no table knows: the word, then a form of 하다 or 시키다 that asks
#: ("에스컬레이션해줘", "처리해 주세요", "진행하세요"); not a question ("환불됐어?", "삭제했어?").
_KO_COMMAND = re.compile(
    r"[\uac00-\ud7a3A-Za-z]\s?(?:좀\s?)?(?:해|시켜)\s?(?:줘|주세요|주십시오|줄래|봐|라|요)"
    r"|[\uac00-\ud7a3A-Za-z]\s?(?:하세요|하십시오|합시다|하자|해라)"
)
#: The -한 form of a change before Korean "after" ("주문 O-1을 환불한 후에 ...": refund, then
#: ...): it asks that change, as "환불하고" does (:func:`.sequence.korean_afters`).
_KO_DONE = re.compile(r"(\S+)한\s*(?:후|뒤|다음)")
#: 다시 ("again") and the word after it: that word's change as its re- verb.
_AGAIN = re.compile(r"다시\s*(\S+)")


#: "mark <the thing> (as) <a state>": the state's verb is the change asked ("mark order 88123
#: as shipped" ships it; trial 22 planned ``mark_received``, ranked first, and sent it).
_MARKED = re.compile(r"\bmark(?:s|ed)?\b(?:\s+[\w#'’-]+){0,4}?\s+(?:as\s+)?([a-z]{3,}ed)\b", re.I)


def asked_verbs(query: str) -> frozenset[str]:
    """The changes ``query`` asks for: :func:`~schemarouter.retrieval.actions.request_verbs`
    of its unquoted text, with the Korean verbs of this module (see its docstring); none of
    the words that take back what came before ("Refund order O-1. Cancel that.": no cancel),
    and none where it asks whether or why to change ("Can I cancel ...?": :func:`asks_whether`)."""
    if asks_whether(query):
        return frozenset()
    back = clauses_of(query).taken_back
    # a verb that describes another thing asks nothing ("the account that C-9 opened")
    text = unquoted(undescribed(query[:back] if back else query))
    if texted(text) is not None:  # "ping +15551234567: running late": send, no start
        return frozenset(("send", *request_verbs(unsaid(text))))
    verbs = set(request_verbs(text) | field_verbs(text))  # "Retitle issue 5 ..."
    counted = None if verbs else counted_verb(text)  # "take 2 off the stock": adjust_stock
    verbs |= {counted} if counted else set()
    marked = _MARKED.search(text) if "mark" in verbs else None
    if marked:  # "mark order 88123 as shipped" asks the shipping (trial 22)
        verbs.discard("mark")
        verbs.add(marked.group(1).lower())
    if not _HANGUL.search(text):
        return frozenset(verbs)
    verbs |= more_korean_verbs(text)
    for start, _, end, condition in korean_afters(text):  # "주문 O-1을 환불한 후에 ..."
        done = None if condition else _KO_DONE.search(text, start, end)
        verbs |= request_verbs(f"{done.group(1)}해줘") if done else set()
    for match in _AGAIN.finditer(text):
        word = match.group(1)
        for verb in request_verbs(word) | {v for s, v in KO_MORE.items() if word.startswith(s)}:
            again = verb_of(f"re{verb}")
            if again is not None:
                verbs.discard(verb)
                verbs.add(again)
    return frozenset(verbs)


def not_refused(query: str) -> str:
    """``query`` with the words of the clauses that say not to do something blanked (their
    places kept): "Don't delete department D-30, rename it" asks to rename only."""
    clauses = clauses_of(query)
    return re.sub(r"\S+", lambda m: " " * len(m[0]) if clauses.against(m) else m[0], query)


def no_refused_change(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[str]:
    """``eligible`` without the routes that do a change the request says not to do and asks
    nowhere else (:func:`only_refused`), where it names an id it does not refuse: such a
    route would take that id ("예약 A-1001 취소하지 말고 A-1002 확정해줘", don't cancel A-1001,
    confirm A-1002, planned the cancel of A-1002, ready to send: 확정 was a verb no table
    knew). A request naming no other id keeps them, their id left open ("don't refund order
    O-1")."""
    banned = only_refused(query)
    if not banned or not any(
        v.kind.startswith("identifier.") for v in without_refused(values, query)
    ):
        return list(eligible)
    # "don't write off PED-0111, just take 1 off its stock" asks adjust_stock's count, outside
    # the refused clause (trial 22): it does the refused change by no name of its own
    doing = [
        r
        for r in eligible
        if any(does_change(snapshot.routes[r], v, query) for v in banned)
        and not adjusts_count(snapshot.routes[r], query)
    ]
    if doing:
        warnings.append(
            f"the request says not to {' or '.join(sorted(banned))}: {', '.join(doing[:3])}, "
            "which does, is not planned"
        )
    return [r for r in eligible if r not in doing]


def does_change(route: Route, verb: str, query: str = "") -> bool:
    """Whether ``route`` (a write or a delete) does the change ``verb``: its verb (one that is
    a noun as often only where the name leads with it), or its name's first word ("refund"
    of ``refund_order``, a verb no list knows), or it creates the entry ``verb`` names
    (:func:`~.route_verbs.creates_named`); or, ``query`` given, it moves the money
    ``verb`` sends, pays or moves there (:func:`~.money_moves.transfers_money`)."""
    if route.endpoint.effect is Effect.READ:
        return False
    if transfers_money(route, verb, query) or creates_named(route, verb):
        return True
    if query and adjusts_count(route, query):  # "SKU-12 재고 5개 빼줘": adjust_stock
        return True
    lead = next(iter(name_words(route.endpoint.name)), "")
    if verb_of_route(route) == verb and (verb not in _NOUN_VERBS or verb in verb_forms(lead)):
        return True
    if lead in _METHOD_WORDS and acts_on_entry(route):  # POST /orders/{id}/ship: "shipped"
        last = (route.endpoint.operation.path or "").rstrip("/").rpartition("/")[2]
        forms = set(verb_forms(verb))
        if any(forms & set(verb_forms(word)) for word in re.split(r"[_\-]", last) if word):
            return True
    return bool(lead) and (verb_of(lead) == verb or verb in verb_forms(lead))


def _reads_too(query: str) -> bool:
    """Whether a clause of ``query`` reads beside the one that changes ("show every genre, and
    also add the author ..."): its best read may serve that clause; a clause that describes
    another thing serves none ("... account AC-2, which was opened by C-9, ...")."""
    if texted(query) is not None:  # "message +15551234567: running late": all one message
        return False
    text = unquoted(undescribed(query))
    return request_action(text) is None and bool(request_verbs(text))


#: Whether a route takes one of the ids a request names (``None``: it names none).
Takes = Callable[[Route], bool] | None


def _doing(
    snapshot: RegistrySnapshot,
    ordered: Sequence[str],
    verb: str,
    takes: Takes = None,
    query: str = "",
) -> str | None:
    """The first of ``ordered[1:]`` that does ``verb`` (:func:`asked_change_first`'s windows),
    the first that also ``takes`` one of the ids the request names where one does; where
    ``query`` moves money, the first transfer of the :data:`CHANGE_DEPTH` best before any
    (a notification sends too: user trial 14)."""
    routes = snapshot.routes
    top = routes[ordered[0]]
    if moves_money(query, verb):
        moving = [r for r in ordered[1:CHANGE_DEPTH] if is_transfer(routes[r])]
        if moving:
            return moving[0]
    near = [r for r in ordered[1:READ_DEPTH] if does_change(routes[r], verb, query)]
    things = {thing for _, thing in needed_parameters(top)}
    far = [
        route_id
        for route_id in ordered[READ_DEPTH:CHANGE_DEPTH]
        if routes[route_id].provider.id == top.provider.id
        and (not things or things & {t for _, t in needed_parameters(routes[route_id])})
        and does_change(routes[route_id], verb, query)
    ]
    if takes is not None:  # "기기 D-401 삭제해줘": remove_device, not delete_room
        taking = [r for r in [*near, *far] if takes(routes[r])]
        if taking:
            return taking[0]
    return near[0] if near else far[0] if far else None


def _no_other_change(
    snapshot: RegistrySnapshot, eligible: Sequence[str], verbs: frozenset[str], warnings: list[str]
) -> list[str]:
    """``eligible``, with a read first where the best is a write of its own verb (not an
    update named by an edit verb, which may make any change: ``renew_loan`` does its own) that
    the request does not ask nor its name or summary
    names, and no route does the change asked: "주문 O-1 환불 내역 보여주고 티켓 T-1 닫아줘"
    planned the refund of O-1 (trial Y2)."""
    top = snapshot.routes[eligible[0]]
    verb = verb_of_route(top)
    text = f"{top.endpoint.name} {top.endpoint.summary}"
    named = {
        verb_of(w) for w in re.findall(r"[A-Za-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
    }
    # a delete is mixed_verbs.no_unasked_destruction's (a write of the same thing first); an
    # update named by an edit verb may make any change, one named otherwise ("renew") does
    # its own (trial 13: "Return loan L-88" sent renew_loan where no route returns)
    edits = any(EDIT_VERBS & set(verb_forms(w)) for w in name_words(top.endpoint.name))
    if verb is None or (verb == "update" and edits) or top.endpoint.effect is not Effect.WRITE:
        return list(eligible)
    if verbs & named:
        return list(eligible)
    read = read_for(snapshot, eligible)
    if read is None:
        return list(eligible)
    warnings.append(
        f"the request asks to {' and '.join(sorted(verbs))}, and {eligible[0]}, ranked first, "
        f"does another change: {read} is planned before it"
    )
    return [read, *(r for r in eligible if r != read)]


def _names_its_change(query: str, route: Route) -> bool:
    """Whether ``query`` names the change ``route`` (a write or a delete) does by its name's
    first word, a verb no table knows ("refund" of ``refund_order``), outside what a message
    says (:func:`~.message_text.unsaid`): the request asks it beside the change it names by a
    known verb, and the order stays."""
    if route.endpoint.effect is Effect.READ:
        return False
    lead = next(iter(name_words(route.endpoint.name)), "")
    if not lead or lead in _METHOD_WORDS:
        return False
    return any(lead in verb_forms(word) for word in _WORD.findall(unquoted(unsaid(query)).lower()))


def _updates_named(route: Route, takes: Callable[[Route], bool]) -> bool:
    """Whether ``route`` is an update (a write, no delete) that ``takes`` an id named."""
    return (
        route.endpoint.effect is Effect.WRITE and verb_of_route(route) == "update" and takes(route)
    )


def asked_change_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    warnings: list[str],
    takes: Takes = None,
) -> list[str]:
    """``eligible`` (best first), with the first of the :data:`READ_DEPTH` best that does the
    one change the request asks for first, where the best does not do it (module docstring);
    a request that asks none, or several, keeps the order (but for a best that reads, where
    one change asked is the only one the five best do: trial 20's "create a deal ..., stage
    qualification"), and so does one whose best is a
    read where another clause reads. Where the request names ids (``takes`` says whether a
    route takes one), a route doing the change that takes one is planned before one that
    takes none, the best too ("Delete device D-401": ``remove_device`` before
    ``delete_room``), and one that takes none is never put before a best that is an update
    taking one ("Move device D-401 to room RM-1": ``update_device``, which may make any
    change, not a filesystem's ``move_file``); before a read or another change, as before."""
    verbs, refused = asked_verbs(query), refused_verbs(query)
    if len(verbs) > 1:  # a change said not to do is none asked (trial 10: "Don't delete
        # department D-30, rename it to Treasury instead" planned the deletion)
        verbs = verbs - refused or verbs
    if len(verbs) > 1 and eligible and snapshot.routes[eligible[0]].endpoint.effect is Effect.READ:
        best = [snapshot.routes[r] for r in eligible[:READ_DEPTH] if r in snapshot.routes]
        doable = frozenset(v for v in verbs if any(does_change(r, v, query) for r in best))
        verbs = doable if len(doable) == 1 else verbs  # "create ..., stage X": none stages
    if len(verbs) != 1 or not eligible:
        return list(eligible)
    verb = next(iter(verbs))
    top = snapshot.routes[eligible[0]]
    does = does_change(top, verb, query)
    reads = top.endpoint.effect is Effect.READ and _reads_too(query)
    moving = moves_money(query, verb) and not is_transfer(top) and not reads
    doing = _doing(snapshot, eligible, verb, takes, query) if moving else None
    if doing is not None and is_transfer(snapshot.routes[doing]):
        pass  # "Send $250 from ACC-1 to ACC-2": the transfer, not a notification above it
    elif does and takes is not None and not takes(top):
        doing = _doing(snapshot, eligible, verb, takes, query)
        if doing is None or not takes(snapshot.routes[doing]):
            return list(eligible)
        if makes_named(query, top, verb) and not makes_named(query, snapshot.routes[doing], verb):
            return list(eligible)  # "create a task to call C-4": not add_note, taking C-4
    elif does or reads:
        return list(eligible)
    elif _names_its_change(query, top) and not any(does_change(top, v, query) for v in refused):
        return list(eligible)  # "Refund order O-1 and then close ticket T-1"
    else:
        doing = _doing(snapshot, eligible, verb, takes, query)
    if doing is None and top.endpoint.effect is Effect.READ:
        # where no route does it by name, an update to the state it names, before a read
        # ("close issue 5": ``update_issue``, state=closed; a create or a delete ranked first
        # is left to the rules of its own, mixed_verbs')
        near = eligible[1:READ_DEPTH]
        doing = next((r for r in near if changes_to_state(snapshot.routes[r], verb, query)), None)
    if doing is None:
        return _no_other_change(snapshot, eligible, verbs, warnings)
    # an update (which may make any change: "move" a device to a room) of the entry named
    # stays before a route doing the verb to something else, and is planned before a read of
    # it ranked above ("Add 20 units to stock of SKU-77": ``adjust_stock``, not
    # ``create_shipment``, trial 19); a read or another change never
    if takes is not None and not takes(snapshot.routes[doing]):
        routes = snapshot.routes
        update = next((r for r in eligible[:READ_DEPTH] if _updates_named(routes[r], takes)), None)
        if update is not None and (update == eligible[0] or top.endpoint.effect is Effect.READ):
            where = "stays first" if update == eligible[0] else "is planned first"
            warnings.append(
                f"the request asks to {verb}, and {doing} does, but takes none of the ids the "
                f"request names: {update}, an update that takes them, {where}"
            )
            return [update, *(r for r in eligible if r != update)]
    passed = eligible[: eligible.index(doing)]
    shown = ", ".join(passed[:3]) + (f" and {len(passed) - 3} more" if len(passed) > 3 else "")
    warnings.append(
        f"the request asks to {verb}, so {doing}, which does, is planned before {shown}, "
        "ranked above it"
    )
    return [doing, *(r for r in eligible if r != doing)]


def things_blanked(query: str, values: Sequence[BoundValue]) -> str:
    """``query`` with each thing word written right before the id the analysis reads as that
    thing's blanked ("Ship order O-5002 to DE": "order" is a noun there, not the verb it may
    also be, and the refund of ``refund_order`` was planned in place of the shipment)."""
    out = list(query)  # blanked in place: a copy of the query per id took 1 s for 1,000
    for value in values:
        if value.kind != NAMED_IDENTIFIER or not value.of:
            continue
        end = value.start  # the word before the id, read back from it
        while end > 0 and query[end - 1].isspace():
            end -= 1
        start = end
        while start > 0 and not query[start - 1].isspace():
            start -= 1
        if counts_at(query, start):  # "take 2 off the stock": a verb and its count
            continue
        if start < end < value.start and query[start:end].lower() == value.of.lower():
            out[start:end] = " " * (end - start)
    return "".join(out)


def thing_first(
    query: str, values: Sequence[BoundValue], things: Container[str] | None = None
) -> str:
    """``query`` with its opening blanked where it opens with a thing and the id the analysis
    reads as that thing's ("order O-1 refund history", "customer C-1 deletion"): a noun, not
    the verb it may also be ("order"), else ``query`` as it is. Given ``things`` (the words
    that name a thing a registered parameter takes the id of), a write verb that names none
    of them is the verb it is: "Unfreeze ACC-1003 please" asks to unfreeze (user trial 14,
    which planned a read of the account in its place)."""
    first = re.match(r"\s*(\S+)\s*", query)  # the words before an id, read once for all
    for value in values:
        if first is None or not first.start(1) < value.start <= first.end():
            continue  # no word, or a second one, before the id
        opening = query[first.start(1) : min(value.start, first.end(1))].lower()
        if not (value.kind == NAMED_IDENTIFIER and value.of and opening == value.of.lower()):
            continue
        named = things is not None and any(w in things for w in (opening, word_stem(opening)))
        if counts_at(query, first.start(1)):  # "take 2 off the stock": a verb and its count
            return query
        if things is not None and verb_of(opening) and not named:
            return query  # a verb before the id ("Unfreeze ACC-1003"), no thing's name
        return " " * value.end + query[value.end :]
    return query


def _asks_no_change(query: str, top: Route, *, thing_first: bool = False) -> bool:
    """Whether ``query`` asks no change: no clause asks one (:func:`asked_verbs`), and it reads
    (a clause with a read verb, none with a change, and its first word not the verb ``top``'s
    name opens with, "End my listing" asking ``end_my_listing``, but where a read word follows
    it: "refund status of order O-1"), or, in Korean, it is a noun
    phrase or a question with no command in it ("주문 O-1 환불 내역", "고객 C-1 삭제됐어?"; not
    "티켓 T-1 에스컬레이션해줘", a change no table knows), or, opening with a thing and its id
    (``thing_first``: :func:`thing_first` blanked them), it says nothing after them that asks
    ("customer C-1 deletion"), or, in English, it opens with a noun of ``top``'s change ("refund
    of order O-1", "refunds for ...", "deletions of ...": :func:`is_noun_form`)."""
    text = unquoted(query)
    if asks_whether(query):  # "Can I cancel appointment A-1?", "주문 O-1 환불할까?"
        return True
    if asked_verbs(query):
        return False
    action = request_action(text)
    # a sum is a word here: "Refund €20 of payment P-301" is no "refund of" (trial 13)
    first, second, *_ = [*_WORD_OR_SUM.findall(text), "", ""]
    words = name_words(top.endpoint.name)
    lead = next(iter(words), "")
    noun = is_noun_form(first, lead, second)  # "refund status of ...", "refund of order O-1"
    if action is not None:
        # "End my listing" asks end_my_listing, and put_my_listings_state_end (a name of its
        # method and path: the change is its last word)
        own = opens_with(first, second, lead)  # "roll back" too: rollback_deployment
        own = own or (first.lower() in words and not is_read_verb(first.lower()))
        verb = own and second.lower() not in NOUN_AFTER and not noun
        return action == "read" and not verb
    if thing_first:  # "customer C-1 deletion": no verb after the thing and its id
        return True
    if lead and lead not in _METHOD_WORDS - {"delete", "patch"} and noun:
        return True  # "refund of order O-1", "refunds for order O-1", "deletions of ..."
    return bool(_HANGUL.search(text)) and not _KO_COMMAND.search(text)


def read_for(snapshot: RegistrySnapshot, ordered: Sequence[str]) -> str | None:
    """The read planned in place of the change ``ordered[0]``: the first read of the
    :data:`CHANGE_DEPTH` best that takes the identifier the change takes ("고객 C-1
    삭제됐어?": get_customer), else the first read of the :data:`READ_DEPTH` best."""
    routes = snapshot.routes
    reads = [r for r in ordered[:CHANGE_DEPTH] if routes[r].endpoint.effect is Effect.READ]
    things = {thing for _, thing in needed_parameters(routes[ordered[0]])}
    same = [r for r in reads if things & {t for _, t in needed_parameters(routes[r])}]
    near = [r for r in reads if r in ordered[:READ_DEPTH]]
    return same[0] if same else near[0] if near else None


def no_change_asked(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    warnings: list[str],
    *,
    thing_first: bool = False,
) -> list[str]:
    """``eligible`` (best first), with its first read first where the request asks no change
    (:func:`_asks_no_change`) and its best route is a write or a delete: the first read of the
    :data:`CHANGE_DEPTH` best that takes the identifier the change takes, else the first read
    of the :data:`READ_DEPTH` best; none where the request asks whether or why to change and
    no such read is near (:func:`asks_whether`). Trial Y2, every effect allowed: "주문 O-1
    환불됐어?" ("was order O-1 refunded?") and "주문 O-1 환불 내역" planned the refund of
    O-1, and "고객 C-1 삭제됐어?" the deletion of C-1, each ready to send."""
    routes = snapshot.routes
    if not eligible or routes[eligible[0]].endpoint.effect is Effect.READ:
        return list(eligible)
    if not _asks_no_change(query, routes[eligible[0]], thing_first=thing_first):
        return list(eligible)
    read = read_for(snapshot, eligible)
    if read is None and asks_whether(query):
        # a question about a change is answered by no change (user trial 14: "Can I close
        # account ACC-1005?" closed it, no read of an account being near)
        warnings.append(
            f"the request asks whether or why to make a change ({eligible[0]}), which no "
            "change answers, and no read of the same thing ranks near it: nothing is planned; "
            "ask for the change itself to plan it, or for a read of the thing"
        )
        return []
    if read is None:
        return list(eligible)
    passed = eligible[: eligible.index(read)]
    shown = ", ".join(passed[:3]) + (f" and {len(passed) - 3} more" if len(passed) > 3 else "")
    warnings.append(
        f"the request asks for no change, so {read} is planned before {shown} (effect "
        f"{routes[passed[0]].endpoint.effect.value}), ranked above it; plan a change with a "
        "request that asks for it, or Plan.with_arguments on that route"
    )
    return [read, *(r for r in eligible if r != read)]


def parts_by_change(
    parts: Sequence[tuple[str, str]],
    scores: Mapping[str, Mapping[str, float]],
    snapshot: RegistrySnapshot,
) -> list[tuple[str, str]]:
    """``parts`` (``(words, best route id)``), each part that asks one change and whose route
    does not do it given the first of its :data:`READ_DEPTH` best by its own ``scores`` (route
    id -> part -> fused score) that does, and each that asks no change and whose route is one
    a read of them (:func:`no_change_asked`'s; trial Y2: "티켓 T-1 닫고 주문 O-1 환불 내역
    보여줘" refunded O-1)."""
    out = []
    for text, route_id in parts:
        verbs = asked_verbs(text)
        route = snapshot.routes.get(route_id)
        own = sorted(
            (r for r in scores if r in snapshot.routes and text in scores[r] and r != route_id),
            key=lambda r: -scores[r][text],
        )
        verb = next(iter(verbs)) if len(verbs) == 1 else ""
        if verb and route is not None and not does_change(route, verb, text):
            route_id = _doing(snapshot, [route_id, *own], verb, query=text) or route_id
        elif route is not None and route.endpoint.effect is not Effect.READ and not verbs:
            # a part that asks no change ("주문 O-1 환불 내역 보여줘") is planned by a read
            read = read_for(snapshot, [route_id, *own]) if _asks_no_change(text, route) else None
            route_id = read or route_id
        # "..., then delete file 1011": the file's delete, not its trash's (sub_resources)
        route_id = entry_route(snapshot, [route_id, *own], text) or route_id
        out.append((text, route_id))
    return out


def undone_notes(steps: Sequence[str], snapshot: RegistrySnapshot, query: str) -> list[str]:
    """A note naming the changes a request asks that no planned step (route ids ``steps``)
    does, where some step does another, or none changes anything ("티켓 T-1 닫고 주문 O-1 환불
    내역 보여줘" planned by reads):  "티켓 T-1을 Bob에게 할당하고 닫아줘" (assign
    T-1 to Bob and close it) is read whole, its "닫아줘" being too short a part, and its close
    was dropped with no word (trial Y2). A change the request says not to do is none it asks
    (trial Z3: "Don't delete patient P-100, just show me their appointments" was told to plan
    the deletion as a request of its own)."""
    verbs = asked_verbs(not_refused(query))
    routes = [snapshot.routes[r] for r in steps if r in snapshot.routes]
    done = {v for v in verbs if any(does_change(route, v, query) for route in routes)}
    changes = any(route.endpoint.effect is not Effect.READ for route in routes)
    if not verbs or done == verbs or (not done and (changes or (len(verbs) < 2 and not steps))):
        return []
    asked, left = sorted(verbs), sorted(verbs - done)
    said = f"{', '.join(asked[:-1])} and {asked[-1]}" if len(asked) > 1 else asked[0]
    return [
        f"the request asks to {said}; no planned step does {' or '.join(left)}: plan it as a "
        "request of its own"
    ]
