"""A change the request asks for a later time, or after an event no router sees.

"2시간 후에 주문 O-1을 환불해줘" (refund order O-1 in two hours), "Refund order O-1 in two
hours", "Delete customer C-1 tomorrow", "Cancel the subscription at the end of the month" and
"Delete customer C-1 after the refund of order O-1" were each sent at once: a router cannot
schedule, and a change sent now is not the change asked for later. Such a time or event is
read as a condition (:func:`deferral_spans`), held as one (:mod:`.conditions`): the change is
withheld and named with its arguments and the time, and a read of what it is about is planned
in its place where a condition's is.

Not a time to act: one that is the change's own value, for a route that takes a date or a
time (:func:`takes_a_time`: "Set the reminder time to tomorrow 9am", "schedule a meeting for
tomorrow", "create an event tomorrow at 10"); "now", "immediately", "today"; a deadline ("by
tomorrow", "until Friday"), which a change sent now meets; a time that says which things
("orders created in the last two hours", "tomorrow's batch", "the orders created after the
launch"); and reads, which no condition holds back.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.refusals import QUOTED
from schemarouter.retrieval.values import value_schema

__all__ = ["deferral_spans", "takes_a_time"]

_COUNT = (
    r"(?:\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
    r"|twenty|thirty|forty|fifty|sixty|ninety|a\s+few|a\s+couple\s+of|couple\s+of|several)"
)
_UNIT = r"(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|hours?|days?|weeks?|months?|years?|fortnight)"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PERIOD = r"(?:day|week|month|year|quarter|business\s+day|(?:billing\s+)?(?:period|cycle)|term)"
#: An English time to act that is later than now, or an event after which to act (see the
#: module docstring); not after "by", "until", "till", "before" (a deadline), a participle
#: ("created after the launch": which things), a negation or what sets it aside ("now, not
#: later", "instead of tomorrow", "rather than later"), nor "tomorrow's", "next week's"
#: (whose), nor inside a word of hyphens ("due-tomorrow", "follow-up-later": a name).
_ENGLISH = re.compile(
    r"(?<![\w-])(?<!\bby\s)(?<!\buntil\s)(?<!\btill\s)(?<!\bbefore\s)(?<!ed\s)(?<!\bnot\s)(?<!\bno\s)"
    r"(?<!\bnever\s)(?<!\bthan\s)(?<!\bof\s)\b(?:"
    rf"in\s+(?:another\s+)?{_COUNT}\s+(?:more\s+)?{_UNIT}"
    rf"|{_COUNT}\s+{_UNIT}\s+(?:from\s+now|later|hence)"
    r"|(?:the\s+day\s+after\s+)?tomorrow(?!['’]s)|tonight|overnight"
    r"|(?<!\bthe\s)later(?!\s+than\b)(?:\s+(?:today|tonight|on|this\s+week))?"
    r"|at\s+a\s+later\s+(?:date|time)"
    rf"|next\s+(?:{_WEEKDAY}|week|month|year|weekend|quarter|morning|time)"
    rf"|(?:on|this|coming)\s+{_WEEKDAY}|this\s+(?:evening|afternoon|weekend)"
    rf"|(?:at|on)\s+(?:the\s+)?(?:end|start|beginning|close)\s+of\s+(?:the\s+|this\s+|next\s+)?"
    rf"(?:current\s+)?{_PERIOD}"
    r"|(?:at\s+)?(?:month|week|year|quarter)[\s-]end"
    r"|at\s+(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b\.?|o['’]?clock\b)|\d{1,2}:\d{2}|noon|midnight)"
    rf"|on\s+(?:(?:19|20)\d{{2}}-\d{{2}}-\d{{2}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
    r"|the\s+\d{1,2}(?:st|nd|rd|th))"
    r"|after\s+(?:the|a|an|its|his|her|their|our|my|your)\s+"
    r"(?!(?:first|second|third|last|next|previous|other|one|ones)\b)[a-z]+\b(?:\s+of\s+[\w-]+(?:\s+[\w-]+)?)?"
    r")(?![\w-])(?!['’]s\b)",
    re.IGNORECASE,
)
#: A Korean one: "2시간 후에", "3일 뒤에", "내일", "모레", "다음 주에", "월말에", "이따가",
#: "나중에", "오후 3시에", and a noun event's "after" ("환불 후에"); not "오늘" (today), "지금",
#: "바로" (now), nor "내일의" / "내일자" (tomorrow's), "주말 특가" (a weekend sale: 월말 / 주말
#: only with 에), "그 후에" (after that), nor a verb's "after" ("환불한 후에", "환불된 후에":
#: :func:`.sequence.korean_afters` reads it as a part asked or a condition).
_KOREAN = re.compile(
    r"(?<!\S)(?:\d+|한|두|세|네|다섯|몇)\s*(?:초|분|시간|일|주일?|개월|달|년)\s*"
    r"(?:후|뒤|이후|있다가)(?:에|에는)?(?=\s|$)"
    r"|(?<!\S)(?:내일|모레|내일모레|글피|이따가?|나중에|다음\s*(?:주|달|번|날))(?:에|에는|쯤)?(?![가-힣])"
    r"|(?<!\S)(?:월말|연말|주말|월초)(?:에|에는|쯤)(?![가-힣])"
    r"|(?<!\S)(?:(?:오전|오후|저녁|밤|새벽)\s*)?\d{1,2}시(?:\s*\d{1,2}분)?(?:에|쯤)(?![가-힣])"
    r"|(?<!\S)(?!(?:그|이|저|그것|이것|그거|그런)\s*(?:후|뒤|이후|다음))"
    r"[가-힣]*[가-힣](?<![한된난낸친은온])\s*(?:후|뒤|이후)에(?![가-힣])"
)
#: What a date or time parameter is named: "date", "time", "start", "due", "scheduled_at".
_TIME_WORDS = frozenset(
    ("date", "time", "datetime", "timestamp", "when", "at", "schedule", "scheduled", "start")
) | frozenset(("starts", "end", "ends", "due", "deadline", "remind"))
_TIME_FORMATS = frozenset(("date", "date-time", "time"))


def deferral_spans(query: str) -> list[tuple[int, int]]:
    """Where ``query`` asks to act later, or after an event (module docstring), outside
    quoted text, in written order."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    spans = [m.span() for m in _ENGLISH.finditer(text)]
    if not text.isascii():
        spans += [m.span() for m in _KOREAN.finditer(text)]
    return sorted(set(spans))


def _name_words(name: str) -> list[str]:
    """``name``'s words, lower case: ``scheduledAt`` and ``scheduled_at`` -> scheduled, at."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)]


def takes_a_time(route: Route) -> bool:
    """Whether ``route`` takes a date or a time (a parameter, or a property of its JSON
    body, of a date or time format, or named as one): a time the request writes may be its
    value, not when to send it."""
    fields = body_fields(route)
    taken = [*route.endpoint.parameters, *(fields.properties if fields is not None else ())]
    for parameter in taken:
        schema = value_schema(parameter.json_schema)
        if schema.get("format") in _TIME_FORMATS:
            return True
        if _TIME_WORDS & set(_name_words(parameter.name)):
            return True
    return False
