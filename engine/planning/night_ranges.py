"""A range of clock times that ends the next morning: "Thursday 22:00-06:00", a night shift.

Trial 21's "schedule WO-1175 for Thursday 22:00-06:00" sent its end as Thursday 06:00, before
its start; the nineteenth security review left such a range open on both sides ("from 3pm
until 1pm", "23:00-01:00"). A range whose end's time of day is not after its start's is a
night (:func:`night`) where each side is a clock time that says its half of the day ("22:00",
"6 am", "오후 6시") and the two are at most 12 hours apart that way: its end is on the next
day (:mod:`.written_times`). "from 3pm until 1pm" (22 hours) and bare hours ("from 10 to 2",
which may mean the afternoon) are no night and fill neither side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["night"]

#: A time of day that says its half of the day: "22:00", "6 am", "오후 6시".
_CLOCK = re.compile(r":|[ap]\.?m\b|오전|오후", re.IGNORECASE)
#: The longest night a range of clock times may span into the next day.
_NIGHT = 12 * 3600


def _seconds(key: tuple[Any, ...]) -> int:
    return int(key[1]) * 3600 + int(key[2]) * 60 + int(key[3])


def night(ranges: Sequence[tuple[Any, Any]], query: str) -> bool:
    """Whether the one range of ``ranges`` (spans with ``start``, ``end`` and a ``key`` of
    ``(kind, hour, minute, second, ...)``) that ``query`` writes is a night (module
    docstring)."""
    if len(ranges) != 1:
        return False
    start, end = ranges[0]
    if not all(_CLOCK.search(query, s.start, s.end) for s in (start, end)):
        return False
    return 0 < _seconds(end.key) + 86400 - _seconds(start.key) <= _NIGHT
