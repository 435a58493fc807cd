"""The one enum value a request names for a parameter (:func:`enum_value`), and which side of
a conversion a parameter takes by its name (:func:`side`: ``to_currency`` the target,
``base`` the source). Used by :mod:`schemarouter.planning.arguments`."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.refusals import unquoted
from schemarouter.retrieval.actions import name_words, verb_of
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue, find_values
from schemarouter.retrieval.clauses import KO_AGAINST
from schemarouter.retrieval.values import value_schema

__all__ = [
    "again_base",
    "entry_words",
    "enum_value",
    "option_words",
    "past_forms",
    "route_nouns",
    "side",
    "state_forms",
    "written_option",
]


#: A parameter taking a conversion's target (``to``, ``to_currency``, ``target_lang``) or its
#: source (``from``, ``source_lang``, ``base``): an enum value binds to it only where the
#: request's words give it that side ("30 USD to EUR"), never the first one named.
_TARGET_NAME = re.compile(r"^(?:to|into|target|dest|destination)(?:_|$)|_(?:to|target)$")
_SOURCE_NAME = re.compile(r"^(?:from|source|src|base|origin)(?:_|$)|_(?:from|source)$")
_TARGET_BEFORE = re.compile(r"(?:\b(?:to|into|in|as)|->|→)\s*$", re.IGNORECASE)
_TARGET_AFTER = re.compile(r"^(?:으로|로)(?!\w)")
_SOURCE_BEFORE = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_SOURCE_AFTER = re.compile(r"^에서")


#: What refuses a value right beside it, at most two words (or "the ones that are") before
#: it: a negation ("not the closed ones", "except pending") or a verb that sets it aside
#: ("skip the pending tickets", "ignoring closed ones", "leave out archived"; trial Y1:
#: "skip" filtered status=pending, and clause reading keeps "skip" for a change's ids, "skip
#: track T1" being the action on T1), "anything but closed", "minus the closed ones", or an
#: unequal sign ("status != closed"; trial Z1: each filtered by the value refused). Korean's
#: after it ("closed 말고") is the clauses' :data:`KO_AGAINST`.
_REFUSED_BEFORE = re.compile(
    r"(?:\b(?:not|never|no|except|excluding|without|besides|instead\s+of|rather\s+than|"
    r"other\s+than|apart\s+from|skip(?:ping)?|omit(?:ting)?|ignor(?:e|ing)|"
    r"leav(?:e|ing)\s+out|exclude|avoid(?:ing)?|hid(?:e|ing)|minus|"
    r"(?:anything|everything|all|any)\s+but)|n['’]t|!=|≠|<>)(?:\s+\w+){0,2}"
    r"(?:\s+(?:that|which)\s+(?:are|is|were|was)(?:\s+\w+)?)?\s*$",
    re.IGNORECASE,
)
#: What refuses a value right after it: "closed excluded", "closed ones excepted", and
#: Korean's with a word between ("closed 상태는 빼고", "closed 티켓 말고"; trial Z1: each
#: filtered by the value refused).
_REFUSED_AFTER = re.compile(r"(?:\s+\w+)?\s+(?:excluded|excepted)\b", re.IGNORECASE)
_KO_REFUSED_AFTER = re.compile(r"(?:\s++[가-힣]{1,3}?){1,2}" + KO_AGAINST.pattern)


#: Where a listed value's words part: ``in_progress``, ``on-hold``, ``closedWon`` (the case
#: turning) are the words "in progress", "on hold", "closed won" as people write them.
_WORD_BREAK = re.compile(r"[\s_-]+|(?<=[a-z0-9])(?=[A-Z])")
_PARTED = r"[\s_-]+"


def option_words(option: str) -> list[str]:
    """The words of a listed value: ``["closed", "won"]`` of ``closed_won`` or ``closedWon``."""
    return [w for w in _WORD_BREAK.split(option) if w]


@lru_cache(maxsize=4096)
def written_option(option: str) -> str:
    """A pattern of ``option`` as a request writes it: itself, or its words parted by blanks,
    underscores or hyphens ("set T-4 to in progress" names ``in_progress``; trial 20's "move
    D-15 to closed won" named no ``closed_won`` and the stage was left open). No word
    boundaries: the caller's."""
    words = option_words(option)
    if len(words) < 2 or not all(w.isalnum() for w in words):
        return re.escape(option)
    parted = _PARTED.join(map(re.escape, words))
    return f"(?:{re.escape(option)}|{parted})"


def _refused_here(query: str, match: re.Match[str]) -> bool:
    """Whether the request refuses the value of ``match`` right beside it."""
    before = query[max(0, match.start() - 60) : match.start()]
    end = match.end()
    return bool(
        _REFUSED_BEFORE.search(before)
        or KO_AGAINST.match(query, end)
        or _REFUSED_AFTER.match(query, end)
        or _KO_REFUSED_AFTER.match(query, end)
    )


def side(parameter: Parameter) -> str | None:
    """``"target"``, ``"source"`` or ``None``: which side of a conversion ``parameter`` takes,
    from its name (``to``, ``target_lang``; ``from``, ``base``)."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower()
    if _TARGET_NAME.search(name):
        return "target"
    if _SOURCE_NAME.search(name):
        return "source"
    return None


def entry_words(query: str, values: Sequence[BoundValue]) -> frozenset[tuple[int, int]]:
    """Where ``query`` writes a thing's word right before the id the analysis reads as that
    thing's ("file" of "file 123", "folder" of "in folder 0"): a noun naming an entry, not
    a value an enum takes (:func:`enum_value`). Read from ``values`` and from the whole
    query, since a step's values may leave out an id another part names ("Rename file 456
    ..., and also add a comment to it": the comment's step holds no id)."""
    return _spans(query, values) | _spans(query, _found(query))


@lru_cache(maxsize=64)
def _found(query: str) -> tuple[BoundValue, ...]:
    """The values of the whole ``query``, read once per request (a plan fills many routes)."""
    return tuple(find_values(query))


def _spans(query: str, values: Sequence[BoundValue]) -> frozenset[tuple[int, int]]:
    spans = set()
    for value in values:
        if value.kind != NAMED_IDENTIFIER or not value.of:
            continue
        end = value.start  # read back from the id, not a copy of the query before it
        while end > 0 and query[end - 1].isspace():
            end -= 1
        start = end - len(value.of)
        if start >= 0 and query[start:end].lower() == value.of.lower():
            spans.add((start, end))
    return frozenset(spans)


def route_nouns(route: Route) -> frozenset[str]:
    """The words of ``route``'s name after its first, the verb: what it acts on (``folder``
    of ``create_folder``, ``file`` and ``info`` of ``update_file_info``)."""
    return frozenset(name_words(route.endpoint.name)[1:])


def enum_value(
    parameter: Parameter,
    query: str,
    *,
    paired: bool = False,
    change: bool = False,
    entries: Collection[tuple[int, int]] = (),
    own: Collection[str] = (),
) -> Any:
    """The one enum value the query names as a whole word (case-insensitive), else the one
    that is the past form of a verb the request or one of its parts opens with, for a
    ``change`` only ("Close ticket T-2": ``closed``; :func:`_state_of_verb`); none where a
    value named is refused right beside it ("not the closed ones"). For a conversion's
    target or source (:func:`side`), the one the request puts on that side: after "to" /
    "into" / "in" / "as" (Korean: before 로) for a target; for a source of a route that takes
    both sides (``paired``), after "from" (before 에서), or else the one value named that no
    "to" points at ("30 USD to EUR"); none where the words do not say (left open rather than
    swapped: "convert 30 USD to euros" bound ``to="USD"``).

    A word that names an entry is no value: one written right before an id the request
    names (``entries``: "file" of "file 123") or one of the words a change's route is named
    for the thing it acts on (``own``: "folder" of ``create_folder``). Box's bodies take a
    ``type`` whose enum lists every kind of entry: trial 18's "Create a shared link for file
    123 that expires 2027-01-31" sent ``PUT /files/123`` with ``{"type": "file"}`` alone,
    a change of nothing the server answered as done, and "Make the folder name for client
    Acme Corp" sent ``POST /folders`` with ``{"type": "folder"}``."""
    options = value_schema(parameter.json_schema).get("enum")
    if not isinstance(options, list):
        return None
    found: list[tuple[Any, re.Match[str]]] = []
    for option in options:
        if not isinstance(option, str) or len(option) < 2 or option.lower() in own:
            continue
        # a Korean particle may follow the value ("EUR로")
        pattern = rf"(?<![\w-]){written_option(option)}(?:(?![\w-])|(?=[가-힣]))"
        found += [
            (option, m)
            for m in re.finditer(pattern, query, re.IGNORECASE)
            if (m.start(), m.end()) not in entries
        ]
    # a value the request says right before or after it not to want leaves the parameter
    # open ("tickets of C-43 but not the closed ones" planned status="closed", exactly the
    # tickets not wanted; trial X3); a negation further off ("I don't know the rate: convert
    # 100 USD to EUR") says nothing of it
    if any(_refused_here(query, m) for _, m in found):
        return None
    named = list(dict.fromkeys(option for option, _ in found))
    taken = side(parameter)
    if taken is None and not named:
        glossed = _glossed_value(parameter, options, query)
        if glossed is not None:
            return glossed
        # a read's filter takes no verb's state ("List orders, then cancel O-3": trial Y1),
        # but the state a Korean word describes its entries by ("열려 있는 티켓": open)
        return _state_of_verb(options, query) if change else _korean_state(options, query)
    if taken is None or (taken == "source" and not paired):
        # a lone source-named parameter (a record's ``source``) is no conversion's side
        return named[0] if len(named) == 1 else None

    def targeted(m: re.Match[str]) -> bool:
        return bool(
            _TARGET_BEFORE.search(query[: m.start()]) or _TARGET_AFTER.match(query[m.end() :])
        )

    targets = list(dict.fromkeys(option for option, m in found if targeted(m)))
    if taken == "target":
        return targets[0] if len(targets) == 1 else None
    sources = list(
        dict.fromkeys(
            option
            for option, m in found
            if _SOURCE_BEFORE.search(query[: m.start()]) or _SOURCE_AFTER.match(query[m.end() :])
        )
    )
    if sources:
        return sources[0] if len(sources) == 1 else None
    others = [option for option in named if option not in targets]
    return others[0] if len(others) == 1 and len(targets) <= 1 else None


#: A Korean particle a glossed word may carry ("문자로", "문자만"): nothing else may follow it
#: in the word ("문자열", a string, is no text message).
_PARTICLE = "으로|로|만|은|는|을|를|이|가|도"


def _glosses(parameter: Parameter, options: list[Any]) -> dict[str, Any]:
    """The words ``parameter``'s description glosses its enum values by, each written in
    brackets right after its value ("kakao(카카오톡) 또는 sms(문자)", "sms (text message)"),
    by the value; a word glossing two values glosses none."""
    found: dict[str, list[Any]] = {}
    for option in options:
        if not isinstance(option, str) or not option:
            continue
        pattern = rf"(?<![\w-]){re.escape(option)}\s*[(（]([^()（）]{{1,40}})[)）]"
        for m in re.finditer(pattern, parameter.description, re.IGNORECASE):
            for word in re.split(r"\s*(?:,|/|;|\bor\b|또는)\s*", m.group(1)):
                if len(word.strip()) >= 2:
                    found.setdefault(word.strip().lower(), []).append(option)
    return {w: vs[0] for w, vs in found.items() if len(set(vs)) == 1}


def _glossed_value(parameter: Parameter, options: list[Any], query: str) -> Any:
    """The one enum value the request names by the word ``parameter``'s description glosses
    it by (:func:`_glosses`; trial 19: "고객 C-305에게 문자로 '...' 보내줘" sent the
    ``channel`` default ``kakao`` where ``sms(문자)`` was asked), outside quoted text; one
    refused right beside it ("카카오톡 말고 문자로") is not named. A Korean particle may follow
    the word ("문자로"). ``None`` where the request names none, or several values."""
    text = unquoted(query)
    named: set[Any] = set()
    refused: set[Any] = set()
    for word, option in _glosses(parameter, options).items():
        pattern = rf"(?<![\w-]){re.escape(word)}(?:{_PARTICLE})?(?![\w-])"
        for m in re.finditer(pattern, text, re.IGNORECASE):
            (refused if _refused_here(text, m) else named).add(option)
    named -= refused
    return next(iter(named)) if len(named) == 1 else None


#: Korean words that describe an entry by its state (a verb's adnominal form), by the English
#: state an enum names it by (trial Y2: "열려 있는 티켓 목록 보여줘" listed the closed ones too).
_KO_STATES = {
    "open": r"열린|열려\s*있는|오픈(?:된|\s*상태인)",
    "opened": r"열린|열려\s*있는",
    "closed": r"닫힌|닫혀\s*있는|종료된",
    "cancelled": r"취소된",
    "canceled": r"취소된",
    "refunded": r"환불된",
    "shipped": r"발송된|출고된",
    "delivered": r"배송\s*완료된|배달된|배달\s*완료된",
    "pending": r"대기\s*중인|보류\s*중인",
    "resolved": r"해결된",
    "archived": r"보관된",
    "paid": r"결제된|결제\s*완료된",
}


def _korean_state(options: list[Any], query: str) -> Any:
    """The one enum value of ``options`` a Korean state word of the request names
    (:data:`_KO_STATES`), not refused right after it ("닫힌 티켓 말고"); else ``None``."""
    states = []
    for option in options:
        words = _KO_STATES.get(option.lower()) if isinstance(option, str) else None
        matches = list(re.finditer(words, query)) if words else []
        if matches and not any(_refused_here(query, m) for m in matches):
            states.append(option)
    return states[0] if len(states) == 1 else None


#: The word a request, or a part of it, opens with: its verb where it asks for something
#: ("Close ticket T-2", "..., and also cancel order 7", "please ship it").
_LEADING_WORD = re.compile(
    r"(?:^|[.;:!?,]|\b(?:and|then|also|please|now)\b)\s*(?:please\s+)?([A-Za-z]+)(?![\w-])",
    re.IGNORECASE,
)


def past_forms(verb: str) -> set[str]:
    """What a state named after ``verb`` may read: close -> closed, cancel -> cancelled or
    canceled, ship -> shipped, archive -> archived, deny -> denied."""
    forms = {verb + "ed", verb + verb[-1] + "ed"}
    if verb.endswith("e"):
        forms.add(verb + "d")
    if verb.endswith("y") and len(verb) > 2:
        forms.add(verb[:-1] + "ied")
    return forms


def _state_of_verb(options: list[Any], query: str) -> Any:
    """The one enum value that is the past form of a verb the request opens a part with
    (trial X3: "Close ticket T-1002" left the body's ``status`` open though ``closed`` is one
    of its values); none where no part opens so ("when did we ship ...", "don't close it") or
    two values would fit."""
    verbs = {m.group(1).lower() for m in _LEADING_WORD.finditer(query)}
    forms = {form for verb in verbs if len(verb) >= 3 for form in state_forms(verb)}
    states = [o for o in options if isinstance(o, str) and o.lower() in forms]
    return states[0] if len(states) == 1 else None


def again_base(verb: str) -> str | None:
    """The change a re- verb does again, where ``verb`` is one that names its own change
    (reopen, reassign, reschedule, restart: open, assign, schedule, start); ``None`` for any
    other ("remove" deletes, "refresh" updates, "resolve" has no "solve")."""
    word = verb.lower()
    if len(word) < 5 or not word.startswith("re") or verb_of(word) != word:
        return None
    return word[2:] if verb_of(word[2:]) is not None else None


def state_forms(verb: str) -> set[str]:
    """What a state ``verb`` leaves an entry in may read: its :func:`past_forms`, and for a
    re- verb its base's too, the base itself among them ("reopen": reopened, open, opened;
    GitHub's issue ``state`` is ``open`` or ``closed``)."""
    base = again_base(verb)
    return past_forms(verb) | ({base} | past_forms(base) if base else set())
