"""A wall-clock time that is not one moment of its zone: skipped or repeated where its clocks
change (the nineteenth security review).

"schedule irrigation for field F-7 tomorrow at 2:30" in Europe/Berlin on 2027-03-27 sent
``2027-03-28T02:30:00+01:00``: that night the clocks jump from 02:00 to 03:00, and Python
reads a skipped time in the offset before the jump (03:30 there); on 2027-10-30 it sent the
first of the two 02:30s. Neither is the request's: :func:`not_once` says how a time is not
one moment, :mod:`.written_times` fills nothing with it, and :func:`clock_notes` says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, tzinfo

__all__ = ["clock_notes", "not_once"]


def not_once(moment: datetime) -> str:
    """How the wall-clock ``moment`` is not one moment of its zone: ``"skipped"`` (the clocks
    jump past it: 2:30 on 2027-03-28 in Europe/Berlin), ``"repeated"`` (they go back over
    it: 2:30 on 2027-10-31), else ``""``."""
    try:
        there = moment.astimezone(UTC).astimezone(moment.tzinfo)
    except OverflowError:  # 9999-12-31T23:00-12:00 is in year 10000 in UTC
        return "past the calendar's end"
    if there.replace(tzinfo=None) != moment.replace(tzinfo=None):
        return "skipped"
    return "repeated" if moment.replace(fold=1).utcoffset() != moment.utcoffset() else ""


def clock_notes(
    day: date | None,
    walls: Iterable[tuple[int, int, int]],
    zone: tzinfo | None,
    open_: Sequence[str],
) -> list[str]:
    """That a time of ``walls`` (hour, minute, second) on ``day`` is skipped or repeated in
    ``zone``, where it left the ``open_`` date-time parameters open."""
    if not open_ or zone is None or day is None:
        return []
    out = []
    for wall in sorted(set(walls)):
        how = not_once(datetime.combine(day, time(*wall), zone))
        if how:
            out.append(
                f"{time(*wall).isoformat()} on {day.isoformat()} is {how} in {zone} (its clocks "
                f"change that night); give {', '.join(open_)} with Plan.with_arguments"
            )
    return out
