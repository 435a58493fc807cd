"""What a message says, written unquoted after "that", "saying" or "with the message" (user
trial 14).

A free text parameter was filled only from a quoted phrase: "Notify customer CUS-300 that
their card was blocked" planned ``notify_customer`` with ``message`` missing, and execute
refused the plan ("Block card CARD-9, then notify customer CUS-300 that ..." sent neither
call). Where a route sends (its verb "send": notify, message, email, text ...) and its one
open required text parameter is no identifier, the words after "saying", "that says",
"with the message" (text, note, body), "telling them", or "that" right after the recipient
(an id, them, him, her, everyone) are that parameter's, to the end of their sentence or the
next "then": a parameter named or described as a message, a text, a body or a note, never
one that another parameter's value holds already ("with the message '...'" filled
``message``; the phone beside it takes none of it). "Notify the customer that owns account
AC-1" names no message ("that" after a noun is a relative clause), and the value still has
to pass the parameter's schema.

A change that sends nothing (``add_deployment_note``) takes, in its one open text parameter
that carries what is said, the words after that parameter's word and a colon ("note: rolled
back checkout", "add a note to deployment D-3: rolled back checkout"), less the words at their
end that name another parameter's value ("... to deployment D-3": :func:`labelled`; helper
wrongdebit: each sent no note). A change that adds a note or a comment (its name says so:
``add_note``, ``post_comment``) also reads what is said as a sending route does, and after a
colon right after the id the note is on (user trial 20: "add a note to C-2 that they went
with a competitor" and "add a note to C-2: prefers calls after 2pm" left ``text`` open and
nothing was noted).

A request that opens with a verb of messaging, a phone number or an id and a colon ("Text
+15551234567: running late", "ping C-4: call me", "message +15551234567: on my way") asks
to send what follows the colon (:func:`texted`): "ping" is no verb of the tables, and the
message's own words were read as the request's ("running": a start), so nothing was sent.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.actions import (
    is_read_verb,
    name_words,
    request_verbs,
    verb_of,
    verb_of_route,
)
from schemarouter.retrieval.identifiers import names_identifier
from schemarouter.retrieval.said import said_starts

__all__ = [
    "carries_said",
    "labelled",
    "named_as_said",
    "said_text",
    "said_words",
    "texted",
    "unsaid",
]

#: A parameter that carries what is said, by its name or description.
_SAYS = re.compile(r"messag|\bmsg|text|body|content|note|comment|notif", re.IGNORECASE)
#: Where it ends: its sentence's end, or the next step ("then", ", and then").
#: A run of blanks is read from its start only ("x" and 16,000 spaces took 4.6 s of CPU,
#: read from each of its places to its end; helper wrongdebit, once a note was read too).
_END = re.compile(r"[.;!?](?:\s|$)|(?:,|(?<!\s))\s++(?:and\s+)?then\b|$", re.IGNORECASE)


#: ", and" before a clause of its own: a change's verb, then an id (:func:`_end`).
_COMMA_AND = re.compile(
    r",\s+and\s+((?:(?:please|also|now|just)\s+)*)([A-Za-z]+)\b(?=([^.;!?]{0,80}))", re.I
)


def _end(query: str, start: int) -> int:
    """Where the message starting at ``start`` ends: at :data:`_END`, or at ", and" before a
    change of its own ("notify customer CU-3 that card CD-1 was blocked, and freeze account
    AC-1": the freeze is no part of what is said; the customer was sent "card CD-1 was
    blocked, and freeze account AC-1": review 17)."""
    end = _END.search(query, start)
    stop = end.start() if end else len(query)
    for m in _COMMA_AND.finditer(query, start, stop):
        verb, rest = m.group(2), m.group(3)
        if verb_of(verb) and not is_read_verb(verb.lower()) and re.search(r"\d", rest):
            return m.start()
    return stop


def carries_said(parameter: Parameter) -> bool:
    """Whether ``parameter`` carries what is said (a message, a text, a note: :data:`_SAYS`)."""
    return bool(_SAYS.search(f"{parameter.name} {parameter.description or ''}"))


def named_as_said(parameter: Parameter) -> bool:
    """Whether ``parameter``'s name (not its description) says it carries what is said
    (``message``, ``text``, ``body``), and no id (``message_id``): "delete message M-1" names
    a message's id, never the text a ``message`` parameter sends."""
    return bool(_SAYS.search(parameter.name)) and not names_identifier(parameter.name)


#: A change's name words that say it adds a note or a comment.
_NOTES = frozenset(("note", "notes", "comment", "comments", "memo", "remark", "annotation"))
#: A colon right after an id or a phone number ("C-2: prefers calls after 2pm", "Text
#: +15551234567: running late"): the note on it, or the message to it, starts after.
_ID_COLON = re.compile(r"(?<![\w+-])(?=[\w+-]*\d)[A-Za-z0-9+][\w-]*[A-Za-z0-9]:\s+")


#: A request that texts: a verb of messaging, the recipient (a phone number or an id), a colon.
_TEXTED = re.compile(
    r"\A\s*+(?:please\s+)?(?:text|txt|sms|message|msg|ping|dm|whatsapp)\s+(?:to\s+)?"
    r"(?:\+?\d[\d\s().-]{5,22}\d|(?=[\w-]*\d)[A-Za-z][\w-]*[A-Za-z0-9])\s*+:\s+(?=\S)",
    re.IGNORECASE,
)


def texted(query: str) -> int | None:
    """Where the message starts in a request that texts it ("Text +15551234567: running
    late": module docstring), else ``None``."""
    found = _TEXTED.match(query)
    return found.end() if found else None


def _adds_note(route: Route) -> bool:
    return route.endpoint.effect is not Effect.READ and bool(
        _NOTES & set(name_words(route.endpoint.name))
    )


def said_words(query: str, *, noted: bool = False) -> str | None:
    """The words ``query`` says a message is to carry (after "saying", "with the message",
    "that" after the recipient ...: the module docstring), whatever parameter takes them;
    ``None`` where it says none, or two. ``noted``: a note's, whose text also starts after a
    colon right after an id."""
    starts = said_starts(query)
    if noted:
        starts = sorted({*starts, *(m.end() for m in _ID_COLON.finditer(query))})
    if len(starts) != 1:
        return None
    start = starts[0]
    return query[start : _end(query, start)].strip(" ,\"'“”") or None


def said_text(
    parameter: Parameter, query: str, route: Route, taken: Collection[str] = ()
) -> str | None:
    """The words ``query`` says ``parameter`` (a sending route's one open text parameter,
    named or described as a message, a text, a body, a note: the module docstring) is to
    carry, where no other parameter carries them (``taken``: the values given already);
    ``None`` where it says none, or two."""
    if route.endpoint.effect is Effect.READ:
        return None
    if not carries_said(parameter):
        return None  # a phone number, an address: what is said is not theirs
    if verb_of_route(route) == "send":  # "Text +15551234567: running late" too
        text = said_words(query, noted=True)
    else:  # a note: after its word and a colon, or (a route that adds notes) as said
        text = labelled(parameter, query)
        if text is None and _adds_note(route):
            text = said_words(query, noted=True)
        text = _without_placed(text, taken) if text else text
    return text if text and text not in taken and valid(parameter, text) else None


#: A place's words at the end of a note, before a value another parameter holds: "... to
#: deployment D-3" (read in the last 80 characters only).
_PLACED = re.compile(r"\s+(?:to|on|for|of)\s+(?:the\s+)?(?:[A-Za-z]+\s+)?$", re.IGNORECASE)


def _without_placed(text: str, taken: Collection[str]) -> str:
    """``text`` less the words at its end that place it on a value another parameter holds
    ("add a note: rolled back checkout to deployment D-3": D-3 is the deployment's)."""
    for value in taken:
        if value and text.endswith(value):
            head = text[: -len(value)]
            placed = _PLACED.search(head, max(0, len(head) - 80))
            if placed is not None:
                return head[: placed.start()]
    return text


def labelled(parameter: Parameter, query: str) -> str | None:
    """What a change's text parameter that carries what is said (a ``note``, a ``comment``)
    is to hold, where the request writes it after that parameter's word and a colon, the
    thing it goes on between ("note: rolled back checkout", "add a note to deployment D-3:
    rolled back checkout"; helper wrongdebit: each sent no note), to its sentence's end; one
    such place only. A route that sends reads :func:`said_words` instead."""
    words = [w for w in re.split(r"[_\W]+", parameter.name.lower()) if _SAYS.search(w)]
    if not words:
        return None
    label = rf"\b(?:{'|'.join(map(re.escape, words))})s?\b[^:.;!?\n]{{0,80}}?:\s+"
    found = list(re.finditer(label, query, re.IGNORECASE))
    if len(found) != 1:
        return None
    start = found[0].end()
    return query[start : _end(query, start)].strip(" ,\"'“”") or None


def unsaid(query: str) -> str:
    """``query`` with what a message it asks to send says blanked (its places kept), where it
    asks to send and says one (the words :func:`said_words` reads): "Notify customer CU-3
    that card CD-1 is blocked and frozen" names no block of its own, where its "blocked"
    kept ``block_card``, ranked first, before the notification asked."""
    starts = said_starts(query)
    if (start := texted(query)) is not None and not starts:
        return query[:start] + " " * (_end(query, start) - start) + query[_end(query, start) :]
    if len(starts) != 1 or "send" not in request_verbs(query):
        return query
    stop = _end(query, starts[0])
    return query[: starts[0]] + " " * (stop - starts[0]) + query[stop:]
