"""The thing a change's verb is written before, and a version the request writes.

Operators name what a change acts on right after its verb, with no thing word before it:
"scale checkout to 5 replicas", "roll back search to revision 12", "deploying payments
v2.3.1". Such a change's required name stayed missing, so nothing was sent (trial 16):

- :func:`verb_object`: a write's (never a delete's) one required text parameter (not one
  named as an identifier, nor a version; none where the route takes two) takes the word
  written right after the verb the route's name opens with (past "the", "a"), where that word
  is a name: not a preposition, a pronoun, a word like "latest", "all" or "rest", a word of
  the route's or the parameter's name ("rooms"), nor one with a digit (an id, "R1", is for
  the rules of ids), and not refused ("don't scale ...").
- :func:`version_value`: a text parameter named for a version or a tag takes the one version
  the request writes ("v2.3.1", "1.9.0").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Parameter, Route, schema_validator
from schemarouter.planning.route_verbs import opens_with
from schemarouter.retrieval.actions import name_words, verb_forms
from schemarouter.retrieval.identifiers import names_identifier
from schemarouter.retrieval.values import value_schema

_WORD = re.compile(r"[A-Za-z0-9][\w.-]*[A-Za-z0-9]|[A-Za-z0-9]")
_VERSION = re.compile(r"(?<![\w.-])v?\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?(?![\w.-])")
_ARTICLES = frozenset(("the", "a", "an", "our", "my"))
#: Words after a verb that name no thing.
_NO_NAME = frozenset(
    (
        "to", "in", "into", "on", "off", "of", "for", "from", "at", "by", "with", "up",
        "down", "out", "back", "over", "it", "them", "this", "that", "these", "those",
        "all", "every", "everything", "each", "latest", "last", "new", "newest", "current",
        "previous", "old", "oldest", "same", "other", "another", "some", "any", "and", "or",
        "now", "again", "first", "please", "me", "us", "is", "was", "be", "not", "too",
        "rest", "others", "remaining", "both", "none", "one", "ones", "everyone",
        "today", "tonight", "tomorrow", "soon", "later", "asap", "right", "just", "also",
    )
)  # fmt: skip
#: An adverb of manner or time between the verb and its thing ("deploy quickly payments").
_ADVERB = re.compile(r"[a-z]{3,}ly", re.IGNORECASE)
_REFUSED = re.compile(r"\b(?:don't|do not|never|no need to|not)\s+$", re.IGNORECASE)


def _is_version(parameter: Parameter) -> bool:
    return bool({"version", "tag"} & set(name_words(parameter.name)))


def version_value(parameter: Parameter, query: str) -> str | None:
    """The one version ``query`` writes, for a text parameter named for a version or tag."""
    schema = value_schema(parameter.json_schema)
    if schema.get("type") != "string" or "enum" in schema or not _is_version(parameter):
        return None
    found = list(dict.fromkeys(m.group(0) for m in _VERSION.finditer(query)))
    # never one its schema refuses: "to 0.75 m3/min" is no equipment_tag "^[A-Z]+-[0-9]+$",
    # and bound so it kept P-101 out (the gate then dropped it: trial 21)
    valid = schema_validator(parameter.json_schema).is_valid
    return found[0] if len(found) == 1 and valid(found[0]) else None


def verb_object(
    parameter: Parameter, route: Route, query: str, open_: Sequence[Parameter]
) -> str | None:
    """The word after the change's verb, for its one required text parameter, still open,
    that names no identifier or version."""
    if route.endpoint.effect is not Effect.WRITE:  # a delete's target is never guessed
        return None
    # the route's one such parameter, open still: of two ("projectKey", "featureFlagKey") the
    # word names either
    texts = [
        p
        for p in route.endpoint.parameters
        if p.required
        and value_schema(p.json_schema).get("type") == "string"
        and not {"enum", "format"} & set(value_schema(p.json_schema))
        and not names_identifier(p.name)
        and not _is_version(p)
    ]
    if len(texts) != 1 or texts[0] is not parameter or parameter not in open_:
        return None
    words = name_words(route.endpoint.name)
    if not words:
        return None
    named = set(words) | set(name_words(parameter.name))
    tokens = list(_WORD.finditer(query))
    found: list[str] = []
    for i, token in enumerate(tokens):
        second = tokens[i + 1].group(0) if i + 1 < len(tokens) else ""
        if not opens_with(token.group(0), second, words[0]):
            continue
        if _REFUSED.search(query[max(0, token.start() - 20) : token.start()]):
            return None
        # "roll back": the particle written apart is the verb's
        rest = tokens[i + (1 if words[0] in verb_forms(token.group(0)) else 2) :]
        while rest and rest[0].group(0).lower() in _ARTICLES:
            rest = rest[1:]
        if not rest:
            continue
        word = rest[0].group(0)
        # a thing word ("rooms") or an id ("R1", "CU-4") is for the rules of ids, which may
        # leave it unbound on purpose ("delete room R1／..／admin")
        if word.lower() in _NO_NAME or word.lower().rstrip("s") in named or word.lower() in named:
            return None
        if _ADVERB.fullmatch(word):  # "deploy quickly payments": no service is "quickly"
            return None
        if re.search(r"\d", word):
            return None
        found.append(word)
    found = list(dict.fromkeys(found))
    return found[0] if len(found) == 1 else None
