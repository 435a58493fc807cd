"""Values of a route's optional settings that the request states in words.

Two kinds of optional parameter are left to their defaults unless the request says
otherwise, and a change sent with the default where the request said otherwise goes to the
wrong place or does another thing (trial 16: "restart pod api-7 in staging" restarted
``api-7`` in ``prod``, the ``namespace`` default; "force delete pod worker-3" sent
``force=false``):

- :func:`listed_value`: a text parameter with a default whose description lists the values it
  takes ("Kubernetes namespace, e.g. prod, staging, dev") takes the one of them the request
  states as the setting: after a preposition ("in staging", "to dev") or beside the
  parameter's name ("the staging namespace", "namespace=dev"); none where it states several or
  refuses the one it states ("not in prod"). The same word used of something else is no
  setting: "deploy payments v2.3.1, the dev said ok" (a person), "like staging", "which
  staging does not have" (review 17: each sent the change to that namespace); nor is a value
  in a clause whose subject is a pronoun, which tells where something was ("restart pod
  api-7, it was fine in staging", "deploy payments v2.3.1, we tested it in staging": each
  sent the change to ``staging``).
- :func:`flag_value`: a boolean parameter is ``true`` where the request writes its name's words
  as a phrase ("force delete": ``force``; "a dry run", "dry-run": ``dry_run``), and ``false``
  only where it turns them off with one negation and no other ("no dry run", "for real"),
  never from a double one ("don't skip the dry run"), nor from one after its words ("force
  is not needed" leaves the default): see :mod:`.flag_words`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.enum_values import written_option
from schemarouter.planning.flag_words import stated_flag
from schemarouter.retrieval.values import value_schema

#: Where a description starts to list example values, and where the list ends.
_LISTED = re.compile(
    r"(?:\be\.g\.|\beg\.|\bfor example\b|\bsuch as\b|\bone of\b|\bi\.e\.)[:,]?\s*([^.;()]+)",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(r"\s*(?:,|/|\bor\b|\band\b)\s*", re.IGNORECASE)
_OPTION = re.compile(r"[\w][\w.-]*")
#: A negation right before a value.
_NEGATED = re.compile(
    r"\b(?:no|not|non|never|without|skip|skipping|disable|don't|do not|instead of|rather than"
    r"|no need (?:to|for)|avoid|avoiding)"
    r"(?:\s+(?:a|an|any|the|in|on|to|with|use|using|do|run|as))*[\s-]*$",
    re.IGNORECASE,
)
#: What states a value as the setting, right before it: a preposition ("in staging").
_STATED_AFTER = re.compile(
    r"\b(?:in|on|to|into|onto|at|from|via|using|as|within)\s+(?:the\s+)?$", re.IGNORECASE
)
#: A clause that tells rather than asks, from its start to the value: its subject a pronoun
#: after a comma, a stop or a conjunction ("restart pod api-7, it was fine in staging"; "...
#: because we tested it in staging"), or a relative clause of a past or present verb ("pod
#: api-7 that crashed in dev"; not "that pod in dev", where "that" points).
_TOLD = re.compile(
    r"(?:(?:^|[,;:.!?(]|\b(?:and|but|because|since|as|though|although|while))\s*"
    r"(?:it|they|we|i|he|she|this|that|which|who|there|everything)\b"
    r"|\b(?:that|which|who)\s+(?:is|was|are|were|has|had|have|runs|ran|lives|sits|\w+ed)\b)"
    r"[^,;:.!?()]*$",
    re.IGNORECASE,
)


def listed_options(parameter: Parameter) -> list[str]:
    """The values ``parameter``'s description lists as examples, in its order."""
    schema = value_schema(parameter.json_schema)
    text = parameter.description or str(schema.get("description") or "")
    options: list[str] = []
    for m in _LISTED.finditer(text):
        for piece in _SEPARATOR.split(m.group(1).strip()):
            piece = piece.strip().strip("'\"`")
            if _OPTION.fullmatch(piece) and piece not in options:
                options.append(piece)
    return options


def listed_value(parameter: Parameter, query: str) -> str | None:
    """The one listed value of a defaulted text parameter the request writes as the setting."""
    written = _written(parameter, query)
    return written[0] if written is not None and len(written) == 1 else None


def unclear_settings(route: Route, query: str, arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """A change's defaulted settings the request states two values of ("restart pod api-7 in
    dev, no, in staging"): sent with the default, the change went to neither (prod); each is
    missing until the caller gives it."""
    if route.endpoint.effect is Effect.READ:
        return ()
    return tuple(
        p.name
        for p in route.endpoint.parameters
        if p.name not in arguments and len(_written(p, query) or ()) > 1
    )


def _written(parameter: Parameter, query: str) -> list[str] | None:
    """The listed values of a defaulted text parameter the request states as the setting, in
    order; ``None`` where it refuses one ("not in prod")."""
    schema = value_schema(parameter.json_schema)
    if schema.get("type") != "string" or "default" not in schema or "enum" in schema:
        return None
    named = _name_words(parameter.name)
    beside = r"[\s:=_-]+".join(re.escape(w) for w in named)
    written: list[str] = []
    for option in listed_options(parameter):
        pattern = rf"(?<![\w-]){written_option(option)}(?![\w-])"
        for m in re.finditer(pattern, query, re.IGNORECASE):
            before = query[max(0, m.start() - 40) : m.start()]
            if not (
                _STATED_AFTER.search(before)
                or re.search(rf"\b{beside}[\s:=]*(?:the\s+)?$", before, re.IGNORECASE)
                or re.match(rf"\s*{beside}\b", query[m.end() : m.end() + 40], re.IGNORECASE)
            ):
                continue  # "the dev said ok": the word is used of something else
            if _NEGATED.search(before):
                return None
            if _TOLD.search(query, max(0, m.start() - 120), m.start()):
                continue  # "it was fine in staging": said of where it was, not asked
            if option not in written:
                written.append(option)
    return written


def flag_value(parameter: Parameter, query: str) -> bool | None:
    """A boolean parameter as the request states it (:func:`.flag_words.stated_flag`), else
    ``None``."""
    if value_schema(parameter.json_schema).get("type") != "boolean":
        return None
    return stated_flag(parameter.name, query)


def _name_words(name: str) -> list[str]:
    """``dryRun``, ``dry_run``: ``["dry", "Run"]``, ``["dry", "run"]``."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").split()
