"""The regexes of registered schemas (``pattern``, ``patternProperties``), matched in linear time.

A schema's ``pattern`` comes from a third-party document and is matched against what an
agent sends (the gate) and what a server answers (output validation). ``jsonschema`` matches
it with Python's backtracking ``re``, where a pattern such as ``^(a+)+$`` takes time
exponential in the length of the text: a 28-character argument took 8.6 s, a 40-character
one would take hours, and nothing (the call's timeout, ``Budget(max_seconds=)``) could stop
it (trial I #4). Here the validator matches them with RE2 (``google-re2``), which runs in
time linear in the text whatever the pattern.

RE2 reads the syntax JSON Schema patterns are written in (ECMA-262) and Python's with a few
exceptions. ``\\uXXXX`` and ``\\UXXXXXXXX`` (Python, ECMA-262) are read as ``\\x{...}`` and
Python's ``\\Z`` as ``\\z``. ``\\d``, ``\\w``, ``\\b`` are ASCII, and ``$`` matches only at
the end of the text, as in ECMA-262 (Python's match any Unicode digit or letter, and ``$``
before a final newline too). A pattern RE2 cannot run (look-around, backreferences, a
repeat counted past 1,000, a Python-only flag) is **not enforced**: values are not checked
against it (nor names against such a ``patternProperties`` key: they are taken as matching,
so ``additionalProperties`` does not refuse them), as a recursive ``$ref`` cut by the
adapters accepts anything. Registration says so in its warnings (:func:`unenforced`).

Why RE2 and not the ``regex`` package with a timeout: a timeout still spends its time on
every value checked (a list of 10,000 strings, 10,000 timeouts), and whether a value passes
would depend on how busy the machine is. RE2 decides every value, in linear time.

``jsonschema`` applies ``pattern``, ``patternProperties``, and the property names
``additionalProperties`` and ``unevaluatedProperties`` leave to ``patternProperties``; the
validator of :func:`validator` replaces those four keywords with the same rules over RE2
(the last one's search for evaluated names follows ``jsonschema._utils``). ``$schema``
keywords are dropped before validation: ``jsonschema`` would switch a sub-schema naming
another dialect to that dialect's stock validator, and its ``re``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["regex", "unenforced", "validator"]

#: Keywords whose values are data, not schemas (a ``pattern`` key in them is no pattern).
_DATA = frozenset({"enum", "const", "default", "examples", "example"})
#: Escapes Python and ECMA-262 write that RE2 spells otherwise; any other escape is kept.
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(Z)|(.))", re.DOTALL)


def _translate(pattern: str) -> str:
    """``pattern`` in RE2's spelling (``\\u00e9`` -> ``\\x{00e9}``, ``\\Z`` -> ``\\z``)."""
    if "\\u" not in pattern and "\\U" not in pattern and "\\Z" not in pattern:
        return pattern

    def spelled(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code:
            return f"\\x{{{code}}}"
        return "\\z" if match.group(3) else match.group(0)

    return _ESCAPE.sub(spelled, pattern)


@functools.cache
def _options() -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False  # a pattern RE2 cannot run is an answer here, not a log line
    options.never_capture = True  # only whether it matches: groups cost time and memory
    return options


@functools.lru_cache(maxsize=4096)
def regex(pattern: str) -> Any | None:
    """``pattern`` compiled by RE2, or ``None`` where RE2 cannot run it (see the module
    docstring); its ``search`` takes UTF-8 bytes."""
    import re2

    try:
        return re2.compile(_translate(pattern), options=_options())
    except (re2.error, UnicodeError, TypeError):
        return None


def _search(pattern: Any, text: str) -> bool:
    """Whether ``pattern`` finds a match in ``text`` (an unenforced pattern always does)."""
    compiled = regex(pattern) if isinstance(pattern, str) else None
    if compiled is None:
        return True
    return compiled.search(text.encode("utf-8", "surrogatepass")) is not None


def unenforced(schema: Any, location: str = "") -> Iterator[tuple[str, str]]:
    """``(place, pattern)`` for each pattern in ``schema`` that validation does not enforce:
    a ``pattern`` or ``patternProperties`` key RE2 cannot run, and an ``x-pattern`` (the
    annotation the OpenAPI and MCP adapters keep for a pattern Python cannot read)."""
    # (node, link) where link = (parent link, key) spells the place only for a hit
    todo: list[tuple[Any, Any]] = [(schema, None)]
    while todo:
        node, link = todo.pop()
        if type(node) is list:
            todo.extend((item, (link, i)) for i, item in enumerate(node))
            continue
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            kind = type(value)
            if kind is str:
                if key == "x-pattern" or (key == "pattern" and regex(value) is None):
                    yield _place(location, (link, key)), value
            elif kind is dict or kind is list or isinstance(value, Mapping):
                if key in _DATA:
                    continue
                if key == "patternProperties":
                    for name in value:
                        if not isinstance(name, str) or regex(name) is None:
                            yield _place(location, (link, key)), str(name)
                todo.append((value, (link, key)))


def _place(location: str, link: Any) -> str:
    parts: list[str] = []
    while link is not None:
        link, key = link
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    text = "".join(reversed(parts))
    return location + text if location else text.lstrip(".")


def _plain(node: Any, data: bool = False) -> Any:
    """``node`` without its ``$schema`` keywords (outside data keywords), copied only where
    it holds one."""
    if isinstance(node, list):
        items = [_plain(item, data) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if not isinstance(node, Mapping) or data:
        return node
    out = {
        key: _plain(value, key in _DATA)
        for key, value in node.items()
        if not (key == "$schema" and isinstance(value, str))
    }
    same = len(out) == len(node) and all(out[k] is v for k, v in node.items())
    return node if same else out


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        if not isinstance(pattern, str) or regex(pattern) is None:
            continue  # not enforced: no name is held to its schema
        for name, value in instance.items():
            if _search(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _extras(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The names of ``instance`` neither ``properties`` nor ``patternProperties`` cover."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        name
        for name in instance
        if name not in properties and not any(_search(p, name) for p in patterns)
    ]


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            names = sorted(extras, key=str)
            verb = "was" if len(names) == 1 else "were"
            joined = ", ".join(repr(each) for each in names)
            yield ValidationError(
                f"Additional properties are not allowed ({joined} {verb} unexpected)"
            )


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _evaluated(validator: Any, instance: Mapping[str, Any], schema: Any) -> list[str]:
    """The names of ``instance`` ``schema`` evaluates (``jsonschema._utils.
    find_evaluated_property_keys_by_schema``, with ``patternProperties`` over RE2)."""
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[str] = []
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is not None:
            resolved = validator._resolver.lookup(ref)
            inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys.extend(_evaluated(inner, instance, resolved.contents))
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        subschema = schema.get(keyword)
        if subschema is not None:
            keys += (k for k, v in instance.items() if _valid(validator.descend(v, subschema)))
    for pattern in schema.get("patternProperties", {}):
        keys += (name for name in instance if _search(pattern, name))
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys += _evaluated(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys += _evaluated(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated(validator, instance, schema["if"])
            if "then" in schema:
                keys += _evaluated(validator, instance, schema["then"])
        elif "else" in schema:
            keys += _evaluated(validator, instance, schema["else"])
    return keys


def _unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    evaluated = set(_evaluated(validator, instance, schema))
    refused = [
        name
        for name in instance
        if name not in evaluated
        and not _valid(validator.descend(instance[name], unevaluated, path=name, schema_path=name))
    ]
    if refused:
        names = sorted(refused, key=str) if unevaluated is False else refused
        verb = "was" if len(names) == 1 else "were"
        joined = ", ".join(repr(each) for each in names)
        if unevaluated is False:
            yield ValidationError(
                f"Unevaluated properties are not allowed ({joined} {verb} unexpected)"
            )
        else:
            yield ValidationError(
                f"Unevaluated properties are not valid under the given schema ({joined} "
                f"{verb} unevaluated and invalid)"
            )


@functools.cache
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
            "unevaluatedProperties": _unevaluated_properties,
        },
    )


def validator(schema: Any) -> Any:
    """A Draft 2020-12 validator for ``schema`` whose patterns run on RE2 (see above)."""
    return _validator_class()(_plain(schema))
