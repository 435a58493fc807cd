"""Requests of several parts, composed from tooltrain requests served by different tools.

People ask an agent for two or three things at once ("find me a flight to Denver, and also
book a table for four tonight"). tooltrain's multi-tool requests are few and mostly from one
service (SGD dialogue turns, BFCL parallel calls), so requests of several parts are composed
here: 2-3 requests of the same split, each served by tools the others do not need, joined as
people write them (", and also", "Additionally,", "then"). The composed request's positives
are the union of its parts'; a part's tools never appear in another part.

Used twice, always within one split so nothing held out leaks into training:

- ``split="train"``: extra encoder triplets (:mod:`schemarouter.training.encoder_pairs`) and
  rows for the ranking stage;
- ``split="val"``: the composed development set (``schemarouter eval --suite tooltrain
  --tooltrain-split composed``), beside tooltrain's own ``mixed`` requests.

Parts are drawn source by source (a source's weight is the square root of its request count,
so SGD and tldr do not make every request), each request used at most once, and requests a
person would not write as one part are left out: tau-bench's multi-sentence persona
scenarios, and parts longer than :data:`MAX_PART_CHARS`.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Mapping, Sequence

from schemarouter.training.datasets.train_record import TrainRecord

__all__ = ["COMPOSED_SOURCE", "JOINERS", "MAX_PART_CHARS", "compose_requests", "join_parts"]

#: The ``source`` of a composed record.
COMPOSED_SOURCE = "composed"
#: Sources whose requests are not written as one clause of a longer request.
EXCLUDED_SOURCES = ("tau_bench", "bfcl_irrelevance")
#: A part longer than this reads as a task, not a clause.
MAX_PART_CHARS = 220
#: How parts are joined: (text between parts, whether the next part starts a sentence).
JOINERS: tuple[tuple[str, bool], ...] = (
    (", and also ", False),
    (". Additionally, ", False),
    (", then ", False),
    (". Then ", False),
    (" and then ", False),
    (". Also, ", False),
    ("; also ", False),
    (". After that, ", False),
    (". ", True),
)
_END = re.compile(r"[\s.?!;,]+$")


def _clause(text: str, *, first: bool, sentence: bool) -> str:
    text = _END.sub("", " ".join(text.split()))
    if first or sentence or not text:
        return text[:1].upper() + text[1:] if text else text
    # lower-case the first letter of a clause unless it begins an acronym or a name ("I")
    head = text.split(" ", 1)[0]
    if len(head) > 1 and head[1:2].islower():
        return text[:1].lower() + text[1:]
    return text


def join_parts(parts: Sequence[str], rng: random.Random) -> str:
    """``parts`` joined as one request, with joiners drawn from :data:`JOINERS`."""
    if not parts:
        return ""
    out = _clause(parts[0], first=True, sentence=True)
    for part in parts[1:]:
        joiner, sentence = rng.choice(JOINERS)
        out += joiner + _clause(part, first=False, sentence=sentence)
    end = "?" if parts[-1].rstrip().endswith("?") else "."
    return out + end


#: Dialogue turns that lean on earlier turns ("yes, book that one", "a hotel there") make no
#: sense as a clause of a new request: parts of dialogue sources must stand alone.
DIALOGUE_SOURCES = ("sgd", "api_bank", "tooltalk")
_LEANS_ON_CONTEXT = re.compile(
    r"^(yes|yeah|yep|no|nope|ok|okay|sure|thanks|thank|great|perfect|sounds|cool|alright|"
    r"that|this|it|please|also|and|but|so)\b|\b(that|there|it|this|those|them|these|same|"
    r"one|ones|then)\b",
    re.IGNORECASE,
)


def _usable(record: TrainRecord) -> bool:
    text = record.query.strip()
    if (
        not record.positives
        or record.source in EXCLUDED_SOURCES
        or len(text) > MAX_PART_CHARS
        or "\n" in text
        or "<<" in text
    ):
        return False
    return not (record.source in DIALOGUE_SOURCES and _LEANS_ON_CONTEXT.search(text))


def compose_requests(
    by_source: Mapping[str, Sequence[TrainRecord]],
    *,
    n: int,
    seed: int = 0,
    parts: Sequence[int] = (2, 2, 3),
    split: str = "train",
) -> list[tuple[TrainRecord, tuple[TrainRecord, ...]]]:
    """``n`` composed requests (fewer where the pool runs out), each with the records it
    was made of. ``parts`` is drawn from per request (two parts twice as often as three).

    Within a composed request no two parts share a tool or a split key (that would be one
    part said twice).
    """
    rng = random.Random(f"compose:{seed}:{split}")
    pools: dict[str, list[TrainRecord]] = {}
    for source in sorted(by_source):
        usable = [r for r in by_source[source] if _usable(r)]
        rng.shuffle(usable)
        if usable:
            pools[source] = usable
    out: list[tuple[TrainRecord, tuple[TrainRecord, ...]]] = []
    failures = 0
    while len(out) < n and failures < 200:
        want = rng.choice(tuple(parts))
        chosen: list[TrainRecord] = []
        tools: set[str] = set()
        keys: set[str] = set()
        for _ in range(want * 6):
            if len(chosen) == want:
                break
            live = [s for s in sorted(pools) if pools[s]]
            if not live:
                break
            weights = [math.sqrt(len(pools[s])) for s in live]
            source = rng.choices(live, weights=weights)[0]
            record = pools[source][-1]
            if tools & set(record.positives) or keys & set(record.positive_keys):
                # this part would repeat a tool: put it back at the bottom, try another
                pools[source].insert(0, pools[source].pop())
                continue
            pools[source].pop()
            chosen.append(record)
            tools.update(record.positives)
            keys.update(record.positive_keys)
        if len(chosen) < 2:
            failures += 1
            for record in chosen:  # unused: back into its pool
                pools[record.source].insert(0, record)
            continue
        failures = 0
        text = join_parts([r.query for r in chosen], rng)
        positives = tuple(dict.fromkeys(p for r in chosen for p in r.positives))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        out.append(
            (
                TrainRecord(
                    query=text,
                    source=COMPOSED_SOURCE,
                    split_key=f"composed:{digest}",
                    positives=positives,
                    positive_keys=tuple(k for r in chosen for k in r.positive_keys),
                    split=split,
                ),
                tuple(chosen),
            )
        )
    return out
