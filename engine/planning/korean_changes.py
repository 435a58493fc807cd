"""Korean verbs retrieval's table does not read, each with the change it names: a verb stem in
its endings ("티켓 T-1 닫아줘": close), or a noun with a form of 하다 (or a request word) after
it, or ending its clause ("담당자 할당해줘": assign); not one the request forbids ("할당하지
마", "닫지 말고")."""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = ["KO_MORE", "more_korean_verbs"]

#: Each stem or noun, and the change it names.
KO_MORE = {
    "닫": "close",
    "할당": "assign",
    "배정": "assign",
    "재오픈": "reopen",
    "달": "create",
    "종료": "close",  # "티켓 종료해줘", "세션 종료": ends it, never a deletion
    "확정": "confirm",  # "예약 A-1002 확정해줘" (trial Z3)
    "늘": "update",  # "재고 20개 늘려줘": raises a count (trial 19)
    "줄": "update",  # "재고 5개 줄여줘": lowers it
}
#: A stem in one of its endings (forbidden where its word goes on to "-지 마" / "-지 말",
#: :func:`more_korean_verbs`), or a noun before a form of 하다 or a request word, or ending
#: its clause. 달 (attach) is no stem in a noun ending in it (배달 delivery, 전달, 도달, 발달,
#: 조달, 통달, 수달), nor before 을 (달을: a month, the moon): "주문 O-1의 배달을 보여줘" (show
#: order O-1's delivery) asked a create and sent ``POST /orders/O-1/delivery`` (review 17).
#: 늘 and 줄 are stems only before 려 / 리 and 여 (늘려, 늘리고, 줄여: raise, lower; 줄 alone
#: is a line, and 해줄래 a form of 주다).
_FORMS = re.compile(
    r"(닫(?=[아고기을읍])|(?<![배전도발조통수])달(?=[아고기])|늘(?=[려리])|줄(?=여))"
    r"[아고기을읍려리여]"
    r"|(할당|배정|재오픈|종료|확정)(?=\s?(?:좀\s?)?(?:해|하(?!지\s*(?:마|말))|할|합|시켜|부탁|요청|진행)"
    r"|\s*+[.?!~;,]*+\s*+$)"
)
#: The 지 of "-지 마" / "-지 말": the word it ends forbids its verb.
_DONT = re.compile(r"지(?=\s*(?:마|말))")
_SPACE = re.compile(r"\s")


def more_korean_verbs(text: str) -> set[str]:
    """The changes of :data:`KO_MORE` that ``text`` asks for. A stem's word forbids it where a
    :data:`_DONT` lies between the stem's ending and the word's end ("닫아지지 마"); the
    places of both are found once, each stem's word end looked up: a lookahead that read the
    rest of the word at each stem read a word of 20,000 "닫아" in 1.2 s (and 100,000
    characters in about 8 s)."""
    found = list(_FORMS.finditer(text))
    if not any(match.group(1) for match in found):
        return {KO_MORE[match.group(2)] for match in found}
    donts = [match.start() for match in _DONT.finditer(text)]
    spaces = [match.start() for match in _SPACE.finditer(text)]
    verbs = set()
    for match in found:
        if match.group(1):
            end = match.end()
            word_end = spaces[i] if (i := bisect_left(spaces, end)) < len(spaces) else len(text)
            dont = bisect_left(donts, end)
            if dont < len(donts) and donts[dont] < word_end:
                continue
        verbs.add(KO_MORE[match.group(1) or match.group(2)])
    return verbs
