"""The data :func:`schemarouter.adapters.inspect.inspect` proposes: plain, frozen models.

Nothing here is registered, bound or callable; :func:`~schemarouter.adapters.inspect.approve`
turns a :class:`ContractProposal` into routes.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from schemarouter import contracts

__all__ = ["ContractProposal", "ProposedEndpoint", "ProposedField", "ProposedParameter"]

_READ = ("GET", "HEAD")
_STRICTNESS = {contracts.Effect.READ: 0, contracts.Effect.WRITE: 1, contracts.Effect.DESTRUCTIVE: 2}
#: Verbs that, opening a sentence of an endpoint's own summary ("Deletes the order.") or a
#: word of its path (``/delete_order.pl``, ``/orders/{id}/cancel``), say it changes state.
#: Only plain, unambiguous change verbs: nouns that double as verbs (``rates``, ``orders``,
#: ``tags``, ``comments``) are left out, so a GET over a collection stays a read.
DESTRUCTIVE_VERBS = frozenset(
    ["delete", "remove", "purge", "destroy", "erase", "wipe", "truncate", "drop"]
)
WRITE_VERBS = frozenset(
    [
        "add",
        "adjust",
        "append",
        "approve",
        "archive",
        "assign",
        "cancel",
        "change",
        "charge",
        "create",
        "decrement",
        "disable",
        "edit",
        "enable",
        "increment",
        "insert",
        "modify",
        "move",
        "refund",
        "register",
        "rename",
        "reset",
        "restore",
        "revoke",
        "save",
        "set",
        "submit",
        "transfer",
        "trigger",
        "unregister",
        "unsubscribe",
        "update",
        "upload",
        "upsert",
        "write",
    ]
)
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _change_verb(word: str, *, inflected: bool) -> contracts.Effect | None:
    """The effect a change verb names: its base form, or (``inflected``, a sentence's first
    word: "Deletes", "Updates") its third-person form too."""
    word = word.lower()
    forms = [word]
    if inflected:
        forms += [word[:-1], word[:-2]] if word.endswith("es") else [word[:-1]]
    for form in forms:
        if form in DESTRUCTIVE_VERBS:
            return contracts.Effect.DESTRUCTIVE
        if form in WRITE_VERBS:
            return contracts.Effect.WRITE
    return None


def state_change(path: str, prose: str) -> tuple[contracts.Effect, str] | None:
    """Whether an endpoint's own path or prose says it changes state, and the words that
    say so: the first word of a sentence of ``prose`` ("Deletes the order."), else the
    first word of a path segment (``delete_order.pl``, ``setStatus``, ``cancel``); ``None``
    where neither does."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n", prose):
        sentence = sentence.strip().lstrip("*_`#> ")
        words = _WORD.findall(sentence)
        if not words or not sentence[:1].isalpha():
            continue
        effect = _change_verb(words[0], inflected=True)
        if effect is not None:
            return effect, sentence[:200]
    for segment in path.split("/"):
        if segment.startswith("{"):
            continue
        words = _WORD.findall(segment)
        effect = _change_verb(words[0], inflected=False) if words else None
        if effect is not None:
            return effect, segment
    return None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProposedParameter(_Model):
    name: str
    location: Literal["path", "query", "body"] = "query"
    json_type: str | None = None
    #: ``date-time`` or ``date`` where the type says so (``string (date-time)``)
    json_format: str | None = None
    required: bool = False
    description: str = ""
    passage: str
    grounding: float


class ProposedField(_Model):
    name: str
    path: str
    json_type: str | None = None
    unit: str | None = None
    description: str = ""
    passage: str
    grounding: float


class ProposedEndpoint(_Model):
    method: str
    path: str
    summary: str = ""
    parameters: tuple[ProposedParameter, ...] = ()
    fields: tuple[ProposedField, ...] = ()
    passage: str
    grounding: float
    #: Set where the endpoint's own path or summary says it changes state ("Deletes the
    #: order permanently.", ``/delete_order.pl``): the effect those words name, however it
    #: is called (a GET included), with the words in :attr:`changes_state_passage`. Set it to
    #: ``None`` (``model_copy(update=...)``) once you know the endpoint only reads.
    changes_state: Literal["write", "destructive"] | None = None
    changes_state_passage: str = ""
    #: ``application/x-www-form-urlencoded`` where the docs say the request body is
    #: form-encoded (the page or the section: "form-encoded", "Form fields:", ``curl -d
    #: "a=1&b=2"``); ``None``: a JSON body.
    body_media_type: str | None = None
    #: The passage saying the answer is not JSON ("responses are XML", "as plain text"): a
    #: call runs, then cannot read the answer; approving a write says so.
    answer_not_json: str = ""
    #: The passage saying the endpoint is deprecated ("Deprecated: use GET /v2/pos"):
    #: approved, it is registered as deprecated, and its tool description says so.
    deprecated: str = ""

    @field_validator("method")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.strip().upper()

    @property
    def effect(self) -> contracts.Effect:
        """From the HTTP method, in any case (``model_copy(update=...)`` skips validators, so
        an edited ``"delete"`` is read here as ``DELETE``): GET / HEAD read, DELETE
        destructive, any other method a write; or :attr:`changes_state` where that is
        stricter (a GET whose docs say it deletes is destructive)."""
        method = self.method.strip().upper()
        if method in _READ:
            effect = contracts.Effect.READ
        elif method == "DELETE":
            effect = contracts.Effect.DESTRUCTIVE
        else:
            effect = contracts.Effect.WRITE
        said = contracts.Effect(self.changes_state) if self.changes_state else effect
        return said if _STRICTNESS[said] > _STRICTNESS[effect] else effect


class ContractProposal(_Model):
    """What the docs suggest. Plain data: never registered, bound or executed by itself."""

    base_url: str | None = None
    base_url_passage: str = ""
    endpoints: tuple[ProposedEndpoint, ...] = ()
