"""A list's filter named by the words that describe its entry: "the ticket titled 'printer on
fire'" fills ``title``, "the project named Apollo" (or "called Apollo") ``name``, "the ticket
assigned to Bob" ``assignee``, "order number 10042" ``number`` (trial W2: none was filled,
so the list step picked no entry out, and a change could take no id from it); so do
"order #10042" and "order no. 10042" (trial V2), and the Korean that writes them after the
value: "Bob에게 할당된 티켓", "'프린터 고장'이라는 제목의", "주문 번호 10042" (trial Y2).

Only a read's parameter takes such a value (a list or a search): a change's ``name`` is the
new one ("rename the project named Apollo to Gemini" sends ``name="Gemini"``, never Apollo).
The value is a quoted phrase, or one word that starts with a capital letter or a digit, and
the parameter's schema must accept it; a value the request says not to use is not taken.

A change's own property takes the value its verb says to put there (:func:`target_value`):
"assign the ticket T-8 to Ann" fills ``assignee``, "rename the project named Apollo to
Gemini" ``name`` (trial W2: both stayed open, so the change could not run); so does the Korean
"이름을 Gemini로 바꿔줘" (trial X2), and any other text property named between a verb of
setting and "to" ("change the phone of patient P-100 to 010-1234-5678"; a name or a title too:
"set the title of employee E-4 to Controller"). And a create's name
or title is the one the request gives the thing it creates (:func:`created_value`): "create a
new playlist called Road Trip", "register a new patient named Mina Park" (trial Z3: each left
``name`` missing)."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.body import body_fields
from schemarouter.planning.named_values import spellings, valid
from schemarouter.planning.page_size import flat_name
from schemarouter.retrieval.actions import verb_of_route
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.intents import split_intents
from schemarouter.retrieval.sequence import where_written

__all__ = ["created_value", "described_at", "filter_word_value", "not_described", "target_value"]

#: The words before a filter's value, by the parameter's name (lowercase letters only).
_WORDS = {
    "title": r"titled|entitled|with\s+(?:the\s+)?title",
    "subject": r"titled|entitled|with\s+(?:the\s+)?subject",
    "name": r"named|called|with\s+(?:the\s+)?name",
    "assignee": r"assigned\s+to",
    "owner": r"owned\s+by",
    "number": r"(?:with\s+(?:the\s+)?)?number|no\.",
}
_VALUE = r"""\s+(?:'([^']+)'|"([^"]+)"|“([^”]+)”|([A-Z0-9][\w.@+-]*[\w]|[A-Z0-9]))"""

#: A name the request gives what it creates: quoted, or a run of words that each start with a
#: capital letter or a digit ("called Road Trip", "named Mina Park with phone ..."), where a
#: filter takes one word (a lower-case word ends it; "called apollo" gives none).
_NAME_WORD = r"[A-Z0-9](?:[\w@+-]|\.(?=[\w@+-]))*"  # a stop ends it where no word follows
_CREATED = rf"""\s+(?:'([^']+)'|"([^"]+)"|“([^”]+)”|({_NAME_WORD}(?:[ \t]+{_NAME_WORD})*))"""


#: A quoted value a filter word introduces ("titled 'printer on fire'", "named \"T-9 backup\"").
_DESCRIBED = re.compile(
    rf"""\b(?i:{"|".join(v for k, v in _WORDS.items() if k != "number")})"""
    r"""\s+(?:'([^']+)'|"([^"]+)"|“([^”]+)”)"""
)


def described_at(position: int, query: str) -> bool:
    """Whether ``position`` of ``query`` is inside a quoted value a filter word introduces:
    text that describes an entry ("the ticket titled 'printer'", "... titled 'see ticket
    T-99'"), never the id of one (trial X1: both were sent as the ticket's id)."""
    starts, ends = _described(query)
    at = bisect.bisect_right(starts, position) - 1
    return at >= 0 and position < ends[at]


@functools.lru_cache(maxsize=64)
def _described(query: str) -> tuple[list[int], list[int]]:
    """The starts and ends of the quoted values of ``query`` a filter word introduces, read
    once per request (each value of a request naming thousands asks)."""
    spans = [(m.start(m.lastindex or 0), m.end()) for m in _DESCRIBED.finditer(query)]
    return [start for start, _ in spans], [end for _, end in spans]


def _once(pattern: str, query: str, clauses: Clauses) -> tuple[str, int, int] | None:
    """The value ``pattern`` captures once in ``query`` (in a clause that does not say not to
    use it), where its match ends and the number of the group that captured it; ``None``
    where it matches no or several places. What says not is read where the value is
    written: "Don't delete department D-30, rename it to Treasury" names Treasury in a clause
    of its own, where the match's first word, after the refused clause's comma, read as an
    item of its list (the HR trial)."""

    def captured(match: re.Match[str]) -> int:
        return next(i for i, g in enumerate(match.groups(), start=1) if g is not None)

    found = [
        m
        for m in re.finditer(pattern, query)
        if not clauses.against_span(m.start(captured(m)), m.end(captured(m)))
    ]
    if len(found) != 1:
        return None
    return found[0].group(captured(found[0])), found[0].end(), captured(found[0])


def not_described(values: Sequence[BoundValue], query: str) -> list[BoundValue]:
    """``values`` without those found inside a quoted value a filter word introduces
    (:func:`described_at`)."""
    return [v for v in values if not described_at(v.start, query)]


def filter_word_value(parameter: Parameter, query: str, clauses: Clauses, read: bool) -> str | None:
    """The value the request describes ``parameter``'s entry by (see the module docstring),
    for a read's (``read``) text parameter; ``None`` where it writes none."""
    words = _WORDS.get(flat_name(parameter.name))
    if not read or words is None or parameter.json_schema.get("type") not in (None, "string"):
        return None
    pattern = rf"\b(?i:{words}){_VALUE}"
    if words == _WORDS["number"]:
        pattern += r"|#\s*(\d[\w-]*)"  # "order #10043" (trial V2)
    if (korean := _KO_WORDS.get(flat_name(parameter.name))) is not None:
        pattern += f"|{korean}"
    if (once := _once(pattern, query, clauses)) is None:
        return None
    value = once[0]
    if words == _WORDS["number"] and not re.search(r"\d", value):
        return None  # "Hmm no. Close the ticket" names no number (trial X1: number=Close)
    return value if valid(parameter, value) else None


#: Korean writes the describing words after the value, by the parameter's name: "Bob에게
#: 할당된 티켓" (assigned to Bob), "담당자가 Bob인", "'프린터 고장'이라는 제목의 티켓", "제목이
#: '프린터 고장'인", "Apollo라는 이름의", "주문 번호 10042" (trial Y2: "Bob에게 할당된 티켓
#: 보여줘" listed every ticket).
_KO_NAMED = r"""(?:'([^']+)'|"([^"]+)"|“([^”]+)”|(?<![^\s])([^\s'"“”]+?))"""
_KO_WORDS = {
    "assignee": rf"{_KO_NAMED}(?:에게|한테)\s*(?:할당|배정)(?:된|되어\s*있는|돼\s*있는)"
    rf"|담당자(?:가|는)\s*{_KO_NAMED}(?:인|이고|$|\s)",
    "title": rf"{_KO_NAMED}(?:이)?라는\s*제목|제목이\s*{_KO_NAMED}(?:인|이고)",
    "name": rf"{_KO_NAMED}(?:이)?라는\s*이름|이름이\s*{_KO_NAMED}(?:인|이고)",
    "number": r"번호\s*+(?:가|는|이)?\s*+(\d[\w-]*)",
}

#: The verbs whose "to <value>" is a change's property, by the property's name (lowercase
#: letters only).
_TARGETS = {
    "assignee": "assign|reassign",
    "assignedto": "assign|reassign",
    "assigneename": "assign|reassign",
    "assigneeemail": "assign|reassign",
    "name": "rename",
    "newname": "rename",
    "title": "rename|retitle",
}


#: Korean says which property by its noun, the new value before 로 / 으로, and then the verb
#: ("이름을 Gemini로 바꿔줘", "'Q4 계획'으로 이름 변경", trial X2): by the property's name.
_KOREAN_TARGETS = {"name": "이름", "newname": "이름", "title": "제목"}
_KOREAN_TARGETS |= dict.fromkeys(["assignee", "assignedto", "assigneename"], "담당자")
_KO_QUOTED = r"""'([^']+)'|"([^"]+)"|“([^”]+)”"""
_KO_VALUE = rf"""(?:{_KO_QUOTED}|([^\s'"“”]+?))(?:으로|로)"""
#: ... and after the property's noun, a name of several words each starting with a capital
#: or a digit ("이름을 Smoke Alarm으로 바꿔줘"; trial 11: a run of words gave no value).
_KO_RUN_VALUE = rf"""(?:{_KO_QUOTED}|((?:{_NAME_WORD}[ \t]+)*[^\s'"“”]+?))(?:으로|로)"""
#: ... and an assignee is also the one "to" (에게 / 한테) whom it is assigned ("Ann에게 할당해줘").
_KO_ASSIGNED = rf"""(?<![^\s])(?:{_KO_QUOTED}|([^\s'"“”]+?))(?:에게|한테)\s*(?:할당|배정)"""
#: The verb, not said not to do ("바꾸지 말고": don't change).
_KO_CHANGE = r"(?:바꿔|바꾸|바꿀|변경|수정|고쳐|지정)(?!\s*하?지\s*(?:말|않))"


def target_value(
    parameter: Parameter, query: str, clauses: Clauses, change: bool, route: Route | None = None
) -> str | None:
    """The value the request's verb puts in ``parameter`` of a change (``change``): the one
    written after "to" in the clause of "assign" (``assignee``) or "rename" (``name``; a
    ``title`` only where ``route`` takes no name), quoted or a run of words that each start
    with a capital or a digit ("to Desk Lamp"; trial 11: "Desk" alone was sent), or, in
    Korean, before 로 / 으로 beside the property's noun and the verb
    ("이름을 Gemini로 바꿔줘", "Gemini로 이름 변경", "담당자를 Ann으로 변경"),
    or before 에게 ("Ann에게 할당해줘"); else the one a verb of setting puts in it
    (:func:`_set_to`), but never for a create. A create (``route``) takes it only from a part
    that asks to create: "Create a playlist called Road Trip, then rename it to Summer"
    renames after the create (the tenth review: the create sent ``name="Summer"``)."""
    verbs = _TARGETS.get(flat_name(parameter.name))
    if not change or parameter.json_schema.get("type") not in (None, "string"):
        return None
    if flat_name(parameter.name) == "title" and route is not None and _takes_name(route):
        verbs = "retitle"  # "rename employee E-4 to Ada" names no job title (trial 10: both
        # the name and the title were sent "Ada")
    if verbs is None:
        return _set_to(parameter, query, clauses)
    noun = _KOREAN_TARGETS.get(flat_name(parameter.name))
    pattern = rf"\b(?i:(?:{verbs})(?:s|ed|ing)?\b[^.;!?]*?\bto){_CREATED}"
    if noun is not None:  # "이름을 Gemini로 바꿔", or "Gemini로 이름을 바꿔"
        pattern += rf"|{noun}(?:을|를)?\s*{_KO_RUN_VALUE}\s*{_KO_CHANGE}"
        pattern += rf"|(?<![^\s]){_KO_VALUE}\s*{noun}(?:을|를)?\s*{_KO_CHANGE}"
        pattern += rf"|{_KO_ASSIGNED}(?!\s*하?지\s*(?:말|않))" if noun == "담당자" else ""
    once = _once(pattern, query, clauses)
    creates = route is not None and verb_of_route(route) == "create"
    if once is not None and once[2] == 4 and not _is_a_name(parameter):
        # a title runs to the end of its clause: "rename issue 5 to Fix crash" (the user
        # trial: title="Fix"), where nothing else can be meant, else it is no value
        start = once[1] - len(once[0])
        if not _WORD_ENDS.match(query, once[1]):
            run = _clause_run(query, start, name=False)
            once = None if run is None else (run[0], run[1], 4)
    if once is not None and valid(parameter, once[0]):
        return None if creates and not _in_a_create(query, once[1] - 1) else once[0]
    # "set the title of employee E-4 to Controller", "change the name of ...": the property
    # named after a verb of setting, as any other text property (trial 10: a title was read
    # only after "rename" or "retitle", so the update went without its body); a create's
    # name is the one it is given ("called ..."), never a later change's
    return None if creates else _set_to(parameter, query, clauses)


def _takes_name(route: Route) -> bool:
    """Whether ``route`` takes a ``name`` (or ``new_name``), as a parameter or in its body."""
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    return any(flat_name(p.name) in ("name", "newname") for p in taken)


#: The most characters between a verb of setting and its property, and between the property
#: and its "to" (:func:`_set_to`): unbounded, each verb read its sentence to its end, and
#: "set " * 8,000 took 7.6 s to plan, 54,000 "set the title of issue I-1 " 31 s (a review of
#: this stop's merges); a property is named within a few words of its verb.
_SET_GAP = 200
#: The verbs of "change the phone of patient P-100 to 010-1234-5678" (:func:`_set_to`).
_SETS = r"change|changes|set|sets|update|updates|edit|modify|replace"
#: Its value: quoted, or one word (a final stop is no part of it).
_SET_VALUE = re.compile(r"""\s+(?:'([^']+)'|"([^"]+)"|“([^”]+)”|([^\s'"“”,;]*[^\s'"“”,;.!?]))""")
#: Where one unquoted word ends the clause it is set to: "to 010-1, thanks", "to 010-1 and the
#: notes to ..."; "to her new number" gives no value (the ninth review: it sent phone="her").
_WORD_ENDS = re.compile(r"\s*(?:$|[,;.!?)]|(?:and|then|but|please|also|thanks?)\b)", re.I)
#: A join between a verb of setting and the property: "... to 'vip' and forward the phone to
#: Bob" joins a clause with a verb of its own; "... to 010-1 and the notes to" does not.
_JOIN = re.compile(r"\b(?:and|then|but|or|also)\b|[,:]", re.I)
_ONLY_DETERMINER = re.compile(r"\s*(?:(?:the|its|their|his|her|my|our|your)\s+)?", re.I)
#: Quoted text (an apostrophe inside a word opens none: "patient P-100's notes").
_QUOTED_SPAN = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<!\w)'[^']*'(?!\w)")


def _set_to(parameter: Parameter, query: str, clauses: Clauses) -> str | None:
    """The value a change puts in the text property ``parameter`` that the request names
    between a verb of setting and "to": "change the phone of patient P-100 to 010-1234-5678",
    "set patient P-100's notes to 'allergic to penicillin'" (trial Z3: the phone was left
    out, so the update had no body); once in the request, and valid for it. The verb, the
    property and "to" are read outside quoted text ("to 'call the phone to confirm'" sets no
    phone), in one clause ("and forward the phone to Bob" is another verb's), and a value of
    one unquoted word must end its clause ("to her new number" gives none)."""
    names = "|".join(re.escape(n).replace(r"\ ", r"[\s_-]") for n in spellings(parameter))
    gap = rf"([^.;!?]{{0,{_SET_GAP}}}?)"
    lead = re.compile(rf"\b(?i:(?:{_SETS})\b{gap}\b(?:{names})\b{gap}\bto\b)")
    plain = _QUOTED_SPAN.sub(lambda m: " " * len(m.group(0)), query)
    found = []
    for first in lead.finditer(plain):
        match: re.Match[str] | None = first
        joins = list(_JOIN.finditer(first.group(1)))
        if joins and not _ONLY_DETERMINER.fullmatch(first.group(1)[joins[-1].end() :]):
            # the property is another clause's, which may open with a verb of its own:
            # "update issue 5 in o/r, set title to ..." (the user trial: the match from
            # "update" hid the one from "set"); read once from there
            verb = _SET_VERB.search(plain, first.start(1) + joins[-1].end(), first.end(1))
            match = lead.match(plain, verb.start()) if verb is not None else None
            if match is not None and _JOIN.search(match.group(1)):
                match = None
        if match is None or clauses.against(match) or _JOIN.search(match.group(2)):
            continue
        found.append(match)
    if len(found) != 1 or (value := _SET_VALUE.match(query, found[0].end())) is None:
        return None
    text, end = next(g for g in value.groups() if g is not None), value.end()
    if value.group(4) is not None and not _WORD_ENDS.match(query, end):
        # "to her new number": the word begins a phrase, no value given; "to Fix crash": a
        # value of several words, where nothing else can be meant (:func:`_clause_run`)
        if (run := _clause_run(query, value.start(4), _is_a_name(parameter))) is None:
            return None
        text, end = run
    if _NEGATED.search(query, end):
        return None  # "to USD, not EUR": two values named, none is guessed (trial U1)
    return text if valid(parameter, text) else None


_NEGATED = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_SET_VERB = re.compile(rf"\b(?i:{_SETS})\b")

#: The end of a clause an unquoted value of several words runs to (:func:`_clause_run`).
#: A stop ends a sentence where a space or the end follows ("main.py" is no stop).
_CLAUSE_END = re.compile(r"\s*(?:$|[,;)]|[.!?](?=\s|$)|\b(?i:and|then|but|please|also|thanks?)\b)")
#: Words in a run that could mean something else: an id, a number, an address, a path or a
#: repository (a digit, ``/``, ``@``, ``#``), a quote, or another "<property> to".
_ELSE_MEANT = re.compile(r"""[\d/@#'"“”‘’]|\bto\b""", re.IGNORECASE)
#: A name's words: each starts with a capital or a digit ("Ada King", "Road Trip 2").
_NAME_RUN = re.compile(rf"{_NAME_WORD}(?:[ \t]+{_NAME_WORD})*")


def _clause_run(query: str, start: int, name: bool) -> tuple[str, int] | None:
    """The unquoted value of several words written at ``start`` of ``query`` (after "to") and
    where it ends: its words up to the end of their clause (a stop, a comma, "and", "then",
    "please", ...), "set title to Fix crash, thanks" gives "Fix crash" (the user trial: a
    value of one word was taken only, and this update went without its body). Only where
    nothing else can be meant: the first word starts with a capital ("to her new number"
    gives none), and no word of the run could be another value (an id or a number, a path,
    an address, a quote) or another property set "to" something; a ``name`` (a person's or a
    thing's) is a run of words that each start with a capital or a digit and ends its
    clause ("to Ada in the directory" gives none). ``None`` where any of these fails."""
    end = _CLAUSE_END.search(query, start)
    stop = end.start() if end is not None else len(query)
    text = query[start:stop].strip()
    if not text[:1].isupper() or _ELSE_MEANT.search(text):
        return None
    if name and not _NAME_RUN.fullmatch(text):
        return None
    return text, start + len(text)


def _is_a_name(parameter: Parameter) -> bool:
    """Whether ``parameter`` takes a name (``name``, ``full_name``, ``assignee``): proper
    nouns, each word capitalized, where other text (a title, notes) runs as a phrase."""
    flat = flat_name(parameter.name)
    return flat.endswith("name") or (flat in _TARGETS and "assign" in _TARGETS[flat])


def created_value(parameter: Parameter, route: Route, query: str, clauses: Clauses) -> str | None:
    """The name or title the request gives the thing ``route`` creates (see the module
    docstring), where its verb is a create and ``parameter`` a text ``name`` / ``title``:
    "named", "called", "titled", "with the name" and the value, once in the request, or the
    Korean "'Road Trip'이라는 이름의"; ``None`` else."""
    words = _WORDS.get(flat_name(parameter.name))
    if words is None or flat_name(parameter.name) not in ("name", "title", "subject"):
        return None
    if parameter.json_schema.get("type") not in (None, "string"):
        return None
    if verb_of_route(route) != "create":
        return None
    pattern = rf"\b(?i:{words}){_CREATED}"
    if (korean := _KO_WORDS.get(flat_name(parameter.name))) is not None:
        pattern += f"|{korean}"
    found = [m for m in re.finditer(pattern, query) if not clauses.against(m)]
    found = [m for m in found if _in_a_create(query, m.start())]
    if len(found) != 1:
        return None
    value = next(g for g in found[0].groups() if g is not None)
    return value if valid(parameter, value) else None


def _in_a_create(query: str, at: int) -> bool:
    """Whether the part of ``query`` written at ``at`` asks to create: "Delete the playlist
    called Old Mix, then create a new playlist" names the playlist it deletes, not the new one
    (the ninth review: the create sent name="Old Mix"). A place in no part found is the
    request's own (a one-part request)."""
    parts = split_intents(query)
    # a part given the thing of the one before ("rename a playlist called Road Trip to Summer"
    # for "..., then rename it to Summer") is found by its first word (sequence.where_written)
    starts = [where_written(query, part) for part in parts]
    if len(parts) < 2 or min(starts) < 0:
        return True
    holding = [part for part, start in zip(parts, starts, strict=True) if start <= at]
    return not holding or "create" in asked_verbs(holding[-1])
