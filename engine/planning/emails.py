"""The e-mail address a request writes, and the parameters that take one: by their
``format``, or by their name where the schema gives none (moved from :mod:`.arguments`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import inside, url_spans, valid
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["email", "nested_email", "takes_email", "whose_email"]

#: Starts only where a run of its characters starts, so a long run is read once. A Korean
#: particle written onto the address is no part of its domain ("ann@example.com에게": the
#: invoice went to the domain "com에게", trial X1).
_HOST = r"(?:[^\W\uac00-\ud7a3\u3131-\u318e]|-)"
_EMAIL = re.compile(rf"(?<![\w.+-])[\w.+-]+@{_HOST}+(?:\.{_HOST}+)+(?!{_HOST})")
#: A parameter that takes an e-mail address by its name, where its schema gives no format.
_EMAIL_NAME = re.compile(r"^(?:e_?mail|mail)(?:_?address)?$|_e_?mail(?:_?address)?$", re.I)


def takes_email(parameter: Parameter) -> bool:
    """Whether ``parameter`` takes an e-mail address: by its ``format``, or by its name
    where its schema gives no format (``email``, ``to_email``)."""
    fmt = value_schema(parameter.json_schema).get("format")
    return fmt == "email" or (fmt is None and bool(_EMAIL_NAME.search(parameter.name)))


def email(query: str, takers: int) -> str | None:
    """The one address the request writes outside its URLs, where one open parameter
    takes an address (``takers``); none where it writes two, or two parameters take one:
    "send mail from alice@a.example to bob@b.example" bound ``from_email`` and ``to_email``
    both to alice's address, the first written (trial U1)."""
    urls, clauses = url_spans(query), clauses_of(query)
    found = dict.fromkeys(
        m.group(0)
        for m in _EMAIL.finditer(query)
        if not inside(m, urls) and not clauses.against(m)  # "not eve@...": not hers
    )
    return next(iter(found)) if len(found) == 1 and takers == 1 else None


def whose_email(parameter: Parameter) -> list[Parameter]:
    """The e-mail properties of an object ``parameter`` (a body's ``customer``), as
    parameters of their own; none of any other."""
    schema = value_schema(parameter.json_schema)
    inner = schema.get("properties") if schema.get("type", "object") == "object" else None
    found = (
        Parameter(name=name, json_schema=dict(sub))
        for name, sub in (inner.items() if isinstance(inner, Mapping) else ())
        if isinstance(sub, Mapping)
    )
    return [p for p in found if takes_email(p)]


def nested_email(parameter: Parameter, query: str, takers: int) -> dict[str, Any] | None:
    """An object ``parameter`` holding the one address the request writes, where its one
    e-mail property (:func:`whose_email`) takes it and the object then validates ("a ticket for
    customer ann@example.com": ``customer.email``, trial Z3)."""
    inner = whose_email(parameter)
    address = email(query, takers) if len(inner) == 1 else None
    value = {inner[0].name: address} if address else None
    return value if value and valid(parameter, value) else None
