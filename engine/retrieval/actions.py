"""What a request asks to do and what a route does: read, or write (create, send, change, delete).

A request to "open a new issue" should find ``POST /repos/{owner}/{repo}/issues`` before the
``GET`` beside it, and "show my open issues" the reverse. Nothing here is learned: a request's
action is the first action verb of each of its clauses (English: after "please", "can you",
"I want to" ...; Korean: the verb stems that end a clause, 만들어 / 보내 / 삭제 ... against
보여 / 알려 / 조회 ...), and a route's is, in order, the verb its operation is named by
(``create_folder``, ``PutItem``, ``group_v2.kick_member``), the first word of its summary
("Creates a ...", "Returns ..."), then the HTTP method (GET/HEAD read, the rest write). A
route's registered effect is deliberately not read: MCP tools without annotations register as
``write`` for safety, and AWS's JSON APIs ``POST`` their reads.

:func:`action_penalty` is how ranking uses it (:data:`ACTION_PENALTY`): a route whose action is
the opposite of the request's loses that much of its fused score. Nothing leaves the list.

A write request also names *which* change (:func:`request_verbs`: "remove" and "삭제" name
``delete``, "rename" and "set" name ``update``); a route whose operation names the same change
(:func:`route_verb`: ``delete_customer``, ``DeleteObject``, a ``DELETE`` with no verb in its
name) gains :data:`VERB_BONUS`, so "delete the customer" finds ``delete_customer`` before the
``create_customer`` and ``update_customer`` beside it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from schemarouter.retrieval.http_sent import http_method_sent
from schemarouter.retrieval.korean_verbs import KO_VERB as _KO_VERB
from schemarouter.retrieval.sequence import sequenced
from schemarouter.retrieval.state_verbs import marked_change, returns_a_thing, route_returns
from schemarouter.retrieval.verb_nouns import noun_or_verb
from schemarouter.retrieval.verb_words import CANON as _CANON
from schemarouter.retrieval.verb_words import IRREGULAR_PAST as _IRREGULAR_PAST
from schemarouter.retrieval.verb_words import PHRASAL as _PHRASAL
from schemarouter.retrieval.verb_words import POLITE
from schemarouter.retrieval.verb_words import READ as _READ
from schemarouter.retrieval.verb_words import WRITE as _WRITE

if TYPE_CHECKING:
    from schemarouter.contracts import Route

__all__ = [
    "ACTION_PENALTY",
    "ACTION_WINDOW",
    "POLITE",
    "VERB_BONUS",
    "Action",
    "action_of",
    "action_penalty",
    "is_read_verb",
    "leading_action",
    "name_words",
    "read_request",
    "request_action",
    "request_verbs",
    "route_action",
    "route_verb",
    "verb_forms",
    "verb_of",
    "verb_of_route",
]

Action = Literal["read", "write"]

#: How much of the fused score (the best candidate's is about 1.0) a route of the opposite
#: action loses. Chosen on the development sets (both write-intent dev sets, user check 1,
#: tooltrain's validation, composed and mixed requests, the bundled dev split: the largest
#: that leaves none below 0.03, the size before); the figures:
#: docs/generalization.md#a-second-development-set-and-nine-more-readings.
ACTION_PENALTY = 0.08
#: The penalty applies to this many of the fused best (the tail keeps fusion's order).
ACTION_WINDOW = 30
#: How much of the fused score a route gains when it does the very change the request names
#: (its verb, or a synonym of it: "remove" / ``delete_customer``, "삭제" / ``DeleteItem``),
#: within the same window. Chosen on the development sets like :data:`ACTION_PENALTY`.
VERB_BONUS = 0.08


# inflections a name or summary uses ("Creates", "Deleted", "listing", "copies", "stopped")
_SUFFIXES = ("ing", "ed", "es", "s")
_WORD = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+")
#: "of" after a number is the number's ("refund $10 of transaction T-1", "cancel 2 of my
#: orders"): read as the verb's, with the number (no word) left out, it made the change a noun
#: ("refund of order O-1") and the request a read.
_PARTITIVE = re.compile(r"(?<=\d)%?\s+of\b", re.IGNORECASE)


def _clause_words(clause: str) -> list[str]:
    """The words of an English clause (:data:`_WORD`), a number's "of" left out."""
    return _WORD.findall(_PARTITIVE.sub("", clause))


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# a full stop ends a clause, the dots of ``ops@acme.io`` and ``report.csv`` do not; so does a
# dash between spaces ("I fixed the typos - upload the new version"), not the one of
# ``do-not-contact``
_CLAUSE = re.compile(
    r"\.(?=\s|$)|[;!?\n]|\s[-\u2013\u2014]+\s|,\s*(?:and\s+)?(?:then|also)\b"
    r"|\b(?:and then|and also)\b",
    re.I,
)

#: The stems of :data:`_KO_VERB` that are nouns (a verb only with 하다 and its forms after
#: them): "주문해줘" orders, "주문 내역" (order history) and "주문 ORD-1" ask for none, nor
#: "삭제된 파일" (deleted files); a noun that ends its clause is a terse command ("PR 병합").
_KO_NOUNS = frozenset(
    str.split(
        """
    생성 추가 등록 전송 발송 수정 변경 업데이트 설정 삭제 제거 연장 갱신 취소 예약 업로드
    게시 작성 저장 초대 구독 결제 주문 보관 승인 거절 이동 복사 추방 가입 설치 배포 실행 중지
    시작 공유 병합 커밋 푸시 태그 발급 회수 신청 연결 접수 환불 확정 반납 대출 확인처리 읽음처리
    """
    )
) | {"확인 처리", "읽음 처리"}
#: What makes a noun of :data:`_KO_NOUNS` a verb: a form of 하다 (or 시켜, a request word)
#: after it, or the end of its clause.
_KO_VERBAL = re.compile(
    r"\s?(?:좀\s?)?(?:하|해|할|합|시켜|부탁|요청|진행|처리)|\s*+:|\s*+[.?!~;,]*+\s*+$"
)
_KO_WRITE = tuple(_KO_VERB)
_KO_READ = (
    "보여",
    "알려",
    "찾아",
    "검색",
    "조회",
    "목록",
    "확인",
    "가져와",
    "불러와",
    "읽어",
    "봐",
    "뭐",
    "무엇",
    "어떤",
    "몇",
    "있어",
    "있는지",
    "언제",
    "어디",
    "누구",
    "얼마",
)
_KO_STEMS = _KO_WRITE + _KO_READ  # write stems first: at one place, a write stem wins


@lru_cache(maxsize=16384)
def _forms(word: str, leading: bool = True) -> tuple[str, ...]:
    """``word`` (lower case) and the bases its inflection may stand for, the word first:
    ``"creates"`` -> ``creat``, ``create``; ``"stopped"`` -> ``stop``. A word in -ies or -ied
    is never read as a verb in -e ("movies" is not "moves"); it is one in -y only where it
    leads (``leading``: "Copies a file", not ``user_tweets_replies``, whose -ies is a plural)."""
    forms = [word]
    if len(word) > 4 and word.endswith(("ies", "ied")):
        return (word, word[:-3] + "y") if leading else (word,)
    for suffix in _SUFFIXES:
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < 2:
            continue
        forms += [base, base + "e"]
        if suffix in ("ed", "ing") and len(base) >= 3 and base[-1] == base[-2]:
            forms.append(base[:-1])  # "stopped", "tagging"
    return tuple(dict.fromkeys(forms))


def _verb_class(word: str, leading: bool = True) -> Action | None:
    """``"write"`` or ``"read"`` where ``word`` is (an inflection of) a verb of either kind;
    ``leading``: it opens its clause or name (see :func:`_forms`)."""
    for form in _forms(word.lower(), leading):
        if form in _WRITE:
            return "write"
        if form in _READ:
            return "read"
    return None


def verb_forms(word: str) -> tuple[str, ...]:
    """``word`` (any case) and the bases its inflection may stand for, the word first:
    ``"reopened"`` -> ``reopened``, ``reopen``, ``reopene`` (:func:`_forms`)."""
    return _forms(word.lower())


def is_read_verb(word: str) -> bool:
    """Whether ``word`` is (an inflection of) a verb that reads: list, show, get, fetch ..."""
    return _verb_class(word) == "read"


def _last_stem(clause: str, stems: Sequence[str]) -> str | None:
    """The one of ``stems`` that stands last in ``clause`` (Korean ends with the verb; at one
    place, the first listed), passing over a negated one ("안 써요": "I won't use it")."""
    best: tuple[int, str] | None = None
    for stem in stems:
        at = clause.rfind(stem)
        while at >= 0 and (_NEGATED.search(clause, at - 8, at) or not _acts(clause, at, stem)):
            at = clause.rfind(stem, 0, at)
        if at >= 0 and (best is None or at > best[0]):
            best = (at, stem)
    return best[1] if best else None


def _acts(clause: str, at: int, stem: str) -> bool:
    """Whether ``stem`` at ``at`` in ``clause`` is a verb (a noun stem only as
    :data:`_KO_VERBAL` says)."""
    return stem not in _KO_NOUNS or _KO_VERBAL.match(clause, at + len(stem)) is not None


#: A Korean verb negated by the adverb before it: "안 써요", "못 열어"; searched in the 8 characters
#: before a stem (a start below 0 is 0), not from the clause's start (thirteenth review).
_NEGATED = re.compile(r"(?:^|\s)[안못]\s?$")


def _korean_action(clause: str) -> Action | None:
    """The action of a Korean clause: its last verb stem decides."""
    stem = _last_stem(clause, _KO_STEMS)
    return None if stem is None else "write" if stem in _KO_VERB else "read"


#: Verbs with a particle that ask for another change than the verb alone ("kick off" starts,
#: "tear down" deletes, "set up" creates) or that read ("look up"): general English. The
#: particle is the first of :data:`_PARTICLES` after the verb, next to it or past an object of
#: up to four words ("turn the dark-mode flag on").
_PARTICLES = frozenset(("on", "off", "up", "down", "out"))


def _phrasal(words: Sequence[str], i: int) -> tuple[Action, str | None] | None:
    """The action and change of the phrasal verb ``words[i]`` opens, else ``None``."""
    for j in range(i + 1, min(i + 6, len(words))):
        particle = words[j].lower()
        if particle in _PARTICLES:
            for form in _forms(words[i].lower()):
                if (form, particle) in _PHRASAL:
                    return _PHRASAL[form, particle]
            return None  # the first particle belongs to another verb, or to none
    return None


def _narrates(word: str) -> bool:
    """Whether ``word``, a clause's leading verb, tells what happened rather than asks: a past
    form ("I stopped it last night", "Jane left the company") asks for no change."""
    low = word.lower()
    if low in _IRREGULAR_PAST:
        return True
    return low.endswith("ed") and low not in _WRITE and low not in _READ


def _verb_at(words: Sequence[str], i: int) -> tuple[Action | None, str | None, bool]:
    """``words[i]`` read as a clause's leading verb: its action, the change it names (a
    phrasal verb's with its particle; "leave a ..." creates) and whether it tells what
    happened rather than asks (a past form)."""
    low = words[i].lower()
    phrasal = _phrasal(words, i)
    if low == "get" and [w.lower() for w in words[i + 1 : i + 3]] == ["rid", "of"]:
        phrasal = ("write", "delete")  # "get rid of the old bucket"
    action = phrasal[0] if phrasal else _verb_class(low)
    change = phrasal[1] if phrasal else verb_of(low)
    if change in ("leave", "open") and [w.lower() for w in words[i + 1 : i + 2]] in (["a"], ["an"]):
        change = "create"  # "leave a comment", "open an issue" create one; "leave the channel"
    sent = http_method_sent(words, i)
    if sent is not None:  # "send an HTTP POST to ...": the method names the change
        action, change = ("read", None) if sent in ("get", "head") else ("write", verb_of(sent))
    action, change = noun_or_verb(words, i, action, change)
    return action, change, action is not None and _narrates(low)


#: Verbs that name their change where they lead an operation's name though they are nouns as
#: often in a request (:mod:`.verb_nouns`): a name is an order, ``patch_feature_flag`` updates.
_NAME_VERBS = {"patch": "update"}


#: Words that open a question asking what is ("is the rule enabled?", "did the job finish?").
_ASKS = frozenset(("is", "are", "was", "were", "does", "did", "has"))
#: Words that open a condition ("when a job fails, notify ..."): the clause asks nothing.
_CONDITION = frozenset(("if", "when", "whenever", "once"))
_FRESH = re.compile(r"\b(?:a|an|another)\s+(?:new|fresh)\b", re.I)


def _clause_action(clause: str, *, leading: bool = False) -> Action | None:
    """The action of ``clause``'s verb among its first three words, or (``leading``) of the
    word it opens with only."""
    if re.search(r"[\uac00-\ud7a3]", clause):
        return _korean_action(clause)
    if returns_a_thing(clause):  # "Return loan L-88" gives it back (:mod:`.state_verbs`)
        return "write"
    words = _clause_words(clause)
    for i, word in enumerate(words[:8]):
        low = word.lower()
        if low in POLITE:
            continue
        if low in _ASKS:
            return "read"
        action, _, tells = _verb_at(words, i)
        if tells:
            return None  # what happened, not what to do
        after = [w.lower() for w in words[i + 1 : i + 4]]
        if low == "open" and after and after[0] not in ("a", "an") and "new" not in after:
            return "read"  # "open my note" reads; "open a (new) issue" writes
        if action is not None:
            return action
        if leading or i >= 2:  # past the opening words: no leading verb in this clause
            break
    return "write" if _FRESH.search(clause) else None  # "I need a fresh key pair"


def _clauses(text: str) -> list[str]:
    """``text``'s clauses: split at :data:`_CLAUSE`, and at a comma before a clause that opens
    with a verb ("it isn't needed anymore, delete it"); a condition that comes first ("when
    a job fails, notify ops") is left out, it asks for nothing."""
    out: list[str] = []
    for clause in (piece for part in _CLAUSE.split(text) for piece in sequenced(part)):
        pieces = clause.split(",")
        current = pieces[0]
        for piece in pieces[1:]:
            words = [w for w in _WORD.findall(piece)[:3] if w.lower() not in POLITE]
            if words and _verb_at(words, 0)[0] is not None:
                out.append(current)
                current = piece
            else:
                current = f"{current},{piece}"
        out.append(current)
    first = _WORD.findall(out[0])[:1] if out else []
    if len(out) > 1 and first and first[0].lower() in _CONDITION:
        out = out[1:]
    return [c for c in out if c.strip()]


def verb_of(word: str) -> str | None:
    """The canonical change a (possibly inflected) English write verb names, else ``None``:
    ``"Removes"`` and ``"erase"`` -> ``"delete"``; a read verb or another word -> ``None``."""
    for form in _forms(word.lower()):
        if form in _CANON:
            return _CANON[form]
    return None


#: A Korean verb joined to the next by a connective ending ("시트를 복사해서 ... 만들어": copy,
#: then make; "지우고 새로 올려"): it asks a change of its own beside the clause's last verb.
_KO_LINKED = re.compile(r"(?:해|하)?(?:서|고)(?=\s|$)")
#: "-고" alone (and then): "배송 옵션을 변경하고 작업 목록도 보여줘" asks a change, and a read;
#: not "-고 있" / "-고 계" ("실행하고 있는 인스턴스": the instances running), nor 빼고 (but).
_KO_AND = re.compile(r"(?<!빼)하?고(?=\s)(?!\s*(?:있|계))")


def _korean_verbs(clause: str) -> set[str]:
    """The changes a Korean clause names: its last write stem's, and those of the write stems
    a connective ending joins to what follows (:data:`_KO_LINKED`), none negated."""
    last = _last_stem(clause, _KO_WRITE)
    if last is None:
        return set()
    stems = {last} | _linked(clause, _KO_LINKED)
    return {_CANON.get(_KO_VERB[stem], _KO_VERB[stem]) for stem in stems}


def _linked(clause: str, ending: re.Pattern[str]) -> set[str]:
    """The write stems of ``clause`` joined by ``ending`` to what follows, none negated."""
    return {
        stem
        for stem in _KO_WRITE
        for match in re.finditer(re.escape(stem), clause)
        if ending.match(clause, match.end())
        and not _NEGATED.search(clause, match.start() - 8, match.start())
    }


def _clause_verb(clause: str, action: Action | None) -> str | None:
    """The change ``clause`` names; ``action`` is its :func:`_clause_action`."""
    if action == "read":
        return None
    marked = "return" if returns_a_thing(clause) else marked_change(clause, verb_of)
    if marked is not None:  # "Return loan L-88", "mark L-88 as returned" (.state_verbs)
        return marked
    words = [w for w in _clause_words(clause)[:8] if w.lower() not in POLITE]
    for i in range(min(3, len(words))):  # the clause's leading verb, as _clause_action reads it
        verb_action, change, tells = _verb_at(words, i)
        if tells:
            return None
        if verb_action is not None or change is not None:
            return "update" if change == "delete" and lowers(clause) else change
    return None


#: "drop" that lowers a quantity, not deletes a thing: a number after "by" or "to" in its
#: clause, no "and" or comma between ("drop the B-2 setpoint by 9 degF" read as a deletion
#: planned a boiler's decommission, trial 21); "drop table T-1 and set ... to 5" still deletes.
_DROP = re.compile(r"\bdrop(?:s|ping)?\b", re.I)
_BY_NUMBER = re.compile(r"\b(?:by|to)\s+(?:minus\s+)?[-+\u2212]?\d", re.I)
_BETWEEN = re.compile(r",|\band\b", re.I)


def lowers(clause: str) -> bool:
    """Whether a "drop" of ``clause`` has a number after "by" or "to" before the next comma or
    "and" (the comment above). Each is found once, and each "drop" looks up the first after
    it: a lazy scan from every "drop" to the next comma took time in the square of the text
    (100,000 characters of "drop x ": 227 s of CPU; the twentieth review)."""
    drops = [m.end() for m in _DROP.finditer(clause)]
    if not drops:
        return False
    numbers = [m.start() for m in _BY_NUMBER.finditer(clause)]
    if not numbers:
        return False
    stops = [m.start() for m in _BETWEEN.finditer(clause)]
    for end in drops:
        at = bisect_left(numbers, end)
        if at < len(numbers):
            stop = bisect_left(stops, end)
            if stop == len(stops) or stops[stop] >= numbers[at]:
                return True
    return False


def read_request(text: str) -> tuple[Action | None, frozenset[str]]:
    """:func:`request_action` and :func:`request_verbs` of ``text``, its clauses read once
    (ranking asks for both on every request)."""
    actions: set[Action] = set()
    verbs: set[str] = set()
    for clause in _clauses(text):
        action = _clause_action(clause)
        if action is not None:
            actions.add(action)
        if re.search(r"[\uac00-\ud7a3]", clause):
            verbs |= _korean_verbs(clause)
            if action == "read" and _linked(clause, _KO_AND):  # both kinds, as in English
                actions.add("write")
            continue
        verb = _clause_verb(clause, action)
        if verb is not None:
            verbs.add(verb)
    return (actions.pop() if len(actions) == 1 else None), frozenset(verbs)


def request_verbs(text: str) -> frozenset[str]:
    """The changes a request asks for: the canonical verb of each clause that asks to write
    (``"remove the old row, then add a new one"`` -> ``{"delete", "create"}``)."""
    return read_request(text)[1]


def request_action(text: str) -> Action | None:
    """``"write"`` when every clause with an action verb asks to create, send, change or
    delete; ``"read"`` when every such clause asks to get, list or show; ``None`` when no
    clause says, or the clauses disagree (a request of both kinds)."""
    return read_request(text)[0]


def leading_action(text: str) -> Action | None:
    """:func:`request_action` read from the word each clause opens with (past "please" ...)
    only: "End my listing" asks for no read, though ranking reads its "listing" as a list
    (trial Y1: a plan passed over the write asked for, as if the request only read)."""
    actions = {a for c in _clauses(text) if (a := _clause_action(c, leading=True)) is not None}
    if actions == {"read"} and any(_linked(c, _KO_AND) for c in _clauses(text)):
        actions.add("write")  # "변경하고 ... 보여줘" changes too, as read_request reads it
    return actions.pop() if len(actions) == 1 else None


@lru_cache(maxsize=65536)
def name_words(name: str) -> tuple[str, ...]:
    """An operation's or tool's name as lower-case words (snake, kebab, camel and all-caps
    runs split: ``DescribeDBClusters`` -> ``describe``, ``db``, ``clusters``)."""
    return tuple(
        w.lower() for piece in re.split(r"[^A-Za-z0-9]+", name) for w in _CAMEL.findall(piece)
    )


@lru_cache(maxsize=65536)
def _cached_route_action(
    name: str, method: str | None, summary: str, namespaces: tuple[str, ...]
) -> Action | None:
    return route_action(name, method=method, summary=summary, namespaces=namespaces)


def action_of(route: Route) -> Action | None:
    """:func:`route_action` of a registered route (its endpoint name, method and summary;
    the provider id's words are not verbs). Cached: ranking asks for each candidate."""
    endpoint = route.endpoint
    return _cached_route_action(
        endpoint.name,
        endpoint.operation.method,
        (endpoint.summary or endpoint.description or "")[:120],
        _namespaces(route),
    )


def _namespaces(route: Route) -> tuple[str, ...]:
    """The words of a route's provider id (never the verb of its operation name)."""
    return tuple(re.split(r"[^a-z0-9]+", route.provider.id.lower()))


def _operation_words(name: str, namespaces: Sequence[str]) -> list[str]:
    """The first three words of an operation name, past ``namespaces`` and version segments
    (``v2``): where its verb stands."""
    skip = {n.lower() for n in namespaces}
    words = [w for w in name_words(name) if w not in skip and not re.fullmatch(r"v?\d+", w)]
    return words[:3]


def route_action(
    name: str, *, method: str | None = None, summary: str = "", namespaces: Sequence[str] = ()
) -> Action | None:
    """A route's action from its operation name, then its summary's first word, then its
    HTTP method; ``None`` where none says. ``namespaces`` are name words to skip (the
    provider's id, version segments such as ``v2``)."""
    for i, word in enumerate(_operation_words(name, namespaces)):
        action = "write" if i == 0 and word in _NAME_VERBS else _verb_class(word, leading=i == 0)
        action = "write" if route_returns(word, i, method) else action  # POST .../return
        if action is not None:
            return action
    first = _WORD.findall(summary[:80])
    for i, word in enumerate(first[:2]):
        action = _verb_class(word, leading=i == 0)
        if action is not None:
            return action
    if method:
        return "read" if method.upper() in ("GET", "HEAD") else "write"
    return None


def route_verb(
    name: str, *, method: str | None = None, namespaces: Sequence[str] = ()
) -> str | None:
    """The change a route's operation name names (``delete_customer``, ``PutItem`` ->
    ``"create"``, ``group_v2.approve_all_pending`` -> ``"approve"``); a ``DELETE`` named by
    no verb -> ``"delete"``; else ``None``."""
    for i, word in enumerate(_operation_words(name, namespaces)):
        if i == 0 and word in _NAME_VERBS:
            return _NAME_VERBS[word]
        if route_returns(word, i, method):
            return word
        if _verb_class(word, leading=i == 0) is not None:
            return verb_of(word)
    if method and method.upper() == "DELETE":
        return "delete"
    return None


@lru_cache(maxsize=65536)
def _cached_route_verb(name: str, method: str | None, namespaces: tuple[str, ...]) -> str | None:
    return route_verb(name, method=method, namespaces=namespaces)


def verb_of_route(route: Route) -> str | None:
    """:func:`route_verb` of a registered route (cached like :func:`action_of`)."""
    endpoint = route.endpoint
    return _cached_route_verb(endpoint.name, endpoint.operation.method, _namespaces(route))


def action_penalty(request: Action | None, route: Action | None) -> float:
    """What ranking takes from a route's fused score: :data:`ACTION_PENALTY` where the route
    does the opposite of what the request asks, else 0."""
    if request is None or route is None or request == route:
        return 0.0
    return ACTION_PENALTY
