"""A phone parameter's number from the request: "send an SMS to 010-1111-2222", "call +82 10
1234 5678" (trial 13: ``send_sms(phone, message)`` left ``phone`` open, the number read only
as an id of no parameter, and the plan was refused).

Only a string parameter named for a phone (``phone``, ``phone_number``, ``mobile``,
``to_phone`` ...), or named for a recipient (``to``, ``recipient``, ``number``) where its
description says a phone or a number and no e-mail, takes one, only where it is the one open
such parameter, and only a number the request writes once, in digits grouped by ``-``,
``.``, spaces or parentheses (seven digits or more, two groups or more, or a leading ``+``)
or in one piece after a ``+`` (E.164: "+15551234567"), outside quotes and outside a clause
that says not to use it; two numbers name no one phone."""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.planning.refusals import QUOTED
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["phone_value", "takes_phone", "written_phones"]

_NAME = re.compile(
    r"(?:^|_)(?:phone|mobile|cell|tel|telephone|msisdn)(?:_?(?:number|no|num))?$", re.I
)
#: Digits in groups; a country code after a ``+`` may be one digit ("+1 555 123 4567": the
#: number was read as "555 123 4567", its country code dropped).
_NUMBER = re.compile(
    r"(?<![\w+-])((?:\+\d{1,3}|\+?\(?\d{2,4}\)?)(?:[ .-]\(?\d{2,4}\)?){1,4})(?![\w-])"
)

#: A parameter named for whom a message goes to, and the words of a description that say
#: it takes a phone number (helper wrongdebit: "Send a text to +15551234567 saying ..." left
#: ``to``, "Recipient phone number", open).
_TO = re.compile(r"(?:to|recipient|number|destination|dest|to_number|recipient_number)", re.I)
_PHONE_WORDS = re.compile(r"\b(?:phone|mobile|cell|msisdn|e\.?164|sms)\b", re.I)
_NUMBERED = re.compile(r"\bnumber\b", re.I)
_WHOSE = re.compile(r"\brecipient", re.I)
_MAIL_WORDS = re.compile(r"e-?mail|address\b", re.I)
_DATE = re.compile(r"\d{4}[-.]\d{1,2}[-.]\d{1,2}")
#: A number in one piece after a ``+`` (E.164: "+15551234567").
_PLUS = re.compile(r"(?<![\w+])(\+\d{7,15})(?!\w)")


def takes_phone(parameter: Parameter) -> bool:
    """Whether ``parameter`` is a text parameter named for a phone number, or one named for
    whom a message goes to (``to``, ``recipient``, ``number``) whose description says a
    phone or a number and no e-mail ("Recipient phone number", "E.164 number to text")."""
    split = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name)
    schema = value_schema(parameter.json_schema)
    if schema.get("type", "string") != "string" or "format" in schema:
        return False
    if _NAME.search(split):
        return True
    described = f"{parameter.description} {schema.get('description') or ''}"
    named = _TO.fullmatch(split)
    if named is None or _MAIL_WORDS.search(described):
        return False
    # a ``number`` says whose ("Recipient's number"); a ``to`` may say only "number"
    said = _WHOSE if split.lower() == "number" else _NUMBERED
    return bool(_PHONE_WORDS.search(described) or said.search(described))


def written_phones(query: str) -> list[str]:
    """The phone numbers ``query`` writes (as :func:`phone_value` reads one, or in one piece
    after a ``+``: "+15551234567"), outside quotes and outside a clause that says not to use
    them."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    clauses = clauses_of(query)
    grouped = [m for m in _NUMBER.finditer(text) if _grouped(m.group(1))]
    return [m.group(1) for m in [*grouped, *_PLUS.finditer(text)] if not clauses.against(m)]


def _grouped(number: str) -> bool:
    """Whether ``number`` (a :data:`_NUMBER` match) reads as a phone number: seven digits or
    more, no date, a leading ``+`` or digits grouped."""
    return (
        len(re.sub(r"\D", "", number)) >= 7
        and not _DATE.fullmatch(number)
        and bool(number.startswith("+") or re.search(r"\d[ .)-]+\(?\d", number))
    )


def phone_value(parameter: Parameter, query: str, takers: int) -> Any:
    """The one phone number ``query`` writes, for ``parameter`` where it takes a phone
    (:func:`takes_phone`) and is the one open parameter that does (``takers``)."""
    if takers != 1 or not takes_phone(parameter):
        return None
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    clauses = clauses_of(query)
    grouped = [m for m in _NUMBER.finditer(text) if _grouped(m.group(1))]
    found = {m.group(1) for m in [*grouped, *_PLUS.finditer(text)] if not clauses.against(m)}
    if len(found) != 1:
        return None
    (number,) = found
    return number if valid(parameter, number) else None
