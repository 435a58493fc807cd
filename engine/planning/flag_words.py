"""Whether the request turns a boolean setting on or off in words, read with care.

A change sent with a flag the request did not mean does another thing: a ``dry_run`` left on
where the request said "for real" deploys nothing (trial 16, R03 "deploy payments v2.3.1 for
real"); a ``dry_run`` turned off where the request said "don't skip the dry run" deploys for
real. So :func:`stated_flag` reads a flag as:

- ``True`` where the request writes the flag's name's words with no negation right before
  them ("a dry run", "force delete"), or writes them followed by an on-word ("dry run: on");
- ``False`` only where every mention is turned off by exactly one negation right before its
  words ("no dry run", "skip the dry run", "not a dry run", "without a dry run") or by an
  off-word after them ("dry_run=false", "dry run off"), and the request holds no other
  negation anywhere ("don't skip the dry run", "don't do it without a dry run" and "not
  for real" are never read as off) and is no question. A flag that asks for a simulation
  (:data:`SIMULATIONS`: a dry run, a preview) is also off where the request says the change
  is real ("for real", "actually deploy", "really deploy") and never mentions the flag;
- ``None`` (the default stays) where the request does not mention it, and where it reads
  both ways or in doubt; except that a simulation flag the request mentions in doubt is
  ``True``, the value that changes nothing.
"""

from __future__ import annotations

import re

from schemarouter.retrieval.actions import is_read_verb, verb_of

#: The names (their words, lower case) of flags that ask for a simulation of the change.
SIMULATIONS: frozenset[tuple[str, ...]] = frozenset(
    {
        ("dry", "run"),
        ("dryrun",),
        ("simulate",),
        ("simulation",),
        ("preview",),
        ("what", "if"),
        ("whatif",),
        ("validate", "only"),
        ("test", "run"),
        ("noop",),
    }
)
_NEGATION = (
    r"no|not|non|never|without|skip|skipping|skipped|disable|disabled|don't|dont|do not|"
    r"doesn't|does not|isn't|is not|won't|will not|instead of|rather than|no need for|cancel|"
    r"no need to|avoid|avoiding"
)
_FILLER = r"(?:a|an|the|in|on|to|with|use|using|do|doing|run|running|as|any|this|that|it)"
#: One negation right before a flag's words, the fillers between them, and what stood before.
_NEGATED = re.compile(rf"(?:^|(?<=[^\w']))(?:{_NEGATION})(?:\s+{_FILLER})*[\s-]*$", re.IGNORECASE)
#: Any negation, the words that turn what follows around as one does ("cannot skip the dry
#: run", "avoid skipping it") and those that make it a condition or a doubt ("only skip the
#: dry run if told so"): with one of them beside the negation of a flag's words, the flag is
#: in doubt.
_DOUBT = (
    r"cannot|nor|neither|nothing|none|nobody|avoid|avoiding|refuse|prevent|forbid|unless|if|"
    r"only|whether|should|maybe|perhaps"
)
_ANY_NEGATION = re.compile(rf"(?<![\w'])(?:{_NEGATION}|{_DOUBT}|\w+n't)(?![\w'])", re.IGNORECASE)
_AFTER = re.compile(
    r"\s*(?:[:=]\s*|\s+(?:is\s+|set\s+to\s+)?)"
    r"(?P<value>true|false|on|off|yes|no|enabled|disabled)(?![\w-])",
    re.IGNORECASE,
)
#: The request says the change is real: "for real" ending its clause ("for real this time",
#: not "for real users"), or "actually" / "really" right before a verb of change ("actually
#: deploy", not "I really need a preview of ...": :func:`_says_real`).
_FOR_REAL = re.compile(
    r"\bfor\s+real(?=\s*(?:[,.;:!]|$|\s+(?:this\s+time|now|please)\b))", re.IGNORECASE
)
_REALLY = re.compile(r"\b(?:actually|really)\s+([a-z]+)", re.IGNORECASE)
_ON = {"true", "on", "yes", "enabled"}
#: A negation right after a flag's words that is no off-word of :data:`_AFTER`: "force is not
#: needed", "force isn't" (review 17: each read as ``force=true``); the flag is in doubt.
_NEGATED_AFTER = re.compile(
    r"\s*(?:[:=]\s*(?:no|off|false|disabled|none)|off|false|disabled|isn't|aren't|wasn't"
    r"|(?:is|are|was|be|should\s+be|would\s+be)\s+(?:not|never|unnecessary|unneeded|off|false)"
    r"|not\s+(?:needed|required|necessary|wanted))\b",
    re.IGNORECASE,
)


def _says_real(query: str) -> bool:
    """Whether ``query`` says its change is real (:data:`_FOR_REAL`, :data:`_REALLY`): the
    word after "actually" or "really" must be a change's verb; "I really need a preview of
    deploying ..." and "I actually want to see what deploying ... would do" turned the dry run
    off (stop 52's review of the merge)."""
    if _FOR_REAL.search(query):
        return True
    for match in _REALLY.finditer(query):
        word = match.group(1).lower()
        if verb_of(word) is not None and not is_read_verb(word):
            return True
    return False


def flag_words(name: str) -> list[str]:
    """The words of a flag's name: ``dryRun`` and ``dry_run``: ``["dry", "run"]``."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split()


def stated_flag(name: str, query: str) -> bool | None:
    """``True``, ``False`` or ``None`` (not said, or in doubt) for the flag ``name``."""
    words = flag_words(name)
    if not words or len(words) > 3 or len("".join(words)) < 4:
        return None
    simulation = tuple(words) in SIMULATIONS
    pattern = r"(?<![\w-])" + r"[\s_-]?".join(re.escape(w) for w in words) + r"(?![\w-])"
    on = off = doubted = False
    negators = 0  # the negations that turned a mention off
    for m in re.finditer(pattern, query, re.IGNORECASE):
        before = _NEGATED.search(query[max(0, m.start() - 60) : m.start()])
        after = _AFTER.match(query, m.end())
        if before is not None:
            off = True
            negators += 1
        elif after is not None:
            on, off = on or after["value"].lower() in _ON, off or after["value"].lower() not in _ON
            negators += after["value"].lower() in ("no", "disabled")
        elif _NEGATED_AFTER.match(query, m.end(), m.end() + 40):
            doubted = True  # "force is not needed": not asked, nor plainly turned off
        else:
            on = True
    mentioned = on or off or doubted
    if not mentioned:
        real = simulation and _says_real(query)
        off, negators = real, 0
    in_doubt = on or doubted or "?" in query or len(_ANY_NEGATION.findall(query)) != negators
    if off and not in_doubt:
        return False
    if on and not off and not doubted:
        return True
    return True if simulation and mentioned else None
