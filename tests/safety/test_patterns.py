"""Patterns of third-party schemas run in linear time (schemarouter.safety.patterns; trial I #4).

``pattern: "^(a+)+$"`` in a document made the gate and output validation take time
exponential in the value's length (Python's backtracking ``re``: 28 characters 8.6 s, and
``Budget(max_seconds=)`` could not stop it). Here each check of a 40-character value has to
be decided in milliseconds, against a real server on loopback (the bounds below are far
from that and from what a backtracking engine takes, so load cannot flip them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import schema_validator
from schemarouter.errors import OutputValidationError, ParameterValidationError
from schemarouter.execution.policy import Budget
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

EVIL = "^(a+)+$"
#: 31 characters that almost match: about 45 s for a backtracking engine (here 22 took
#: 0.18 s, each one more doubles it), so a return to one fails the 10 s bounds below
#: instead of stalling the run for hours; RE2 takes milliseconds
ALMOST = "a" * 30 + "!"
#: Far above RE2's milliseconds, even on a loaded machine; far below a backtracking engine.
BOUND = 10.0


def _answer(request: Request) -> Response:
    return json_response({"names": [request.arg("answer", "plain")]})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_answer) as running:
        yield running


def _router(
    base_url: str, pattern: str, *, on_output: bool = True
) -> tuple[SchemaRouter, tuple[str, ...]]:
    """A router with the document registered, and the registration's warnings."""
    names: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if on_output:
        names["items"]["pattern"] = pattern
    document = {
        "openapi": "3.1.0",
        "info": {"title": "names", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/names": {
                "get": {
                    "operationId": "listNames",
                    "parameters": [
                        {
                            "name": "q",
                            "in": "query",
                            "schema": {"type": "string", "pattern": pattern},
                        },
                        {"name": "answer", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"names": names}}
                                }
                            },
                        }
                    },
                }
            }
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_openapi(document, provider="names")
    return router, change.warnings


ROUTE = "names/rest/list_names"


def test_a_catastrophic_pattern_is_decided_in_linear_time_at_the_gate_and_on_output(
    server: LoopbackServer,
) -> None:
    router, _ = _router(server.base_url, EVIL)
    server.reset()
    started = time.monotonic()
    with pytest.raises(ParameterValidationError, match="does not match") as refused:
        router.call(ROUTE, {"q": ALMOST}, budget=Budget(max_seconds=1.0))
    assert time.monotonic() - started < BOUND
    assert getattr(refused.value, "json_path", None) == "$.q"
    assert server.paths() == []  # refused before any request
    started = time.monotonic()
    with pytest.raises(OutputValidationError, match=r"\$\.names\[0\]"):
        router.call(ROUTE, {"answer": ALMOST}, budget=Budget(max_seconds=1.0))
    assert time.monotonic() - started < BOUND  # a request to loopback, then the check
    # the pattern still holds: matching values pass, on both sides
    assert router.call(ROUTE, {"q": "aaaa", "answer": "a" * 40}).output == {"names": ["a" * 40]}


def test_pattern_properties_and_the_names_they_leave_are_matched_in_linear_time() -> None:
    """``patternProperties`` keys are matched against names by ``patternProperties``,
    ``additionalProperties`` and ``unevaluatedProperties``; a sub-schema naming another
    dialect (``$schema``) would switch jsonschema to that dialect's stock validator."""
    schemas = [
        {"patternProperties": {EVIL: {"type": "integer"}}, "additionalProperties": False},
        {"patternProperties": {EVIL: {"type": "integer"}}, "unevaluatedProperties": False},
        {
            "properties": {
                "x": {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": EVIL}
            }
        },
    ]
    started = time.monotonic()
    errors = [
        [e.message for e in schema_validator(schema).iter_errors(value)]
        for schema, value in zip(schemas, [{ALMOST: 1}, {ALMOST: 1}, {"x": ALMOST}], strict=True)
    ]
    assert time.monotonic() - started < BOUND
    assert "do not match any of the regexes" in errors[0][0].replace("does", "do")
    assert "Unevaluated properties are not allowed" in errors[1][0]
    assert "does not match" in errors[2][0]
    # the same rules as jsonschema's otherwise
    assert not list(schema_validator(schemas[0]).iter_errors({"aaa": 1}))
    assert len(list(schema_validator(schemas[0]).iter_errors({"aaa": "one"}))) == 1
    assert not list(schema_validator(schemas[1]).iter_errors({"aaa": 1}))


def test_escapes_python_and_json_schema_write_are_read() -> None:
    """``\\u0041`` (ECMA-262 and Python) and Python's ``\\Z`` are spelled otherwise in RE2."""
    validator = schema_validator({"type": "string", "pattern": "^[\\u0041-\\u005A]+\\Z"})
    assert validator.is_valid("ABC")
    assert not validator.is_valid("abc")
    assert not validator.is_valid("ABC\n")


def test_a_pattern_re2_cannot_run_is_not_enforced_and_registration_says_so(
    server: LoopbackServer,
) -> None:
    """Look-around (or a backreference) has no linear-time match: the value goes unchecked
    against it (the server still judges it), and the registration's warnings name it."""
    lookahead = "^(?!-)[a-z-]+$"
    router, warnings = _router(server.base_url, lookahead, on_output=False)
    (note,) = [w for w in warnings if "not enforced" in w]
    assert "paths./names.get.input_schema.properties.q.pattern" in note
    assert repr(lookahead) in note
    server.reset()
    assert router.call(ROUTE, {"q": "-abc"}).ok
    assert server.requests[-1].arg("q") == "-abc"


def test_the_validator_follows_jsonschema_where_the_patterns_are_plain() -> None:
    """The four keywords replaced (``pattern``, ``patternProperties``, ``additionalProperties``,
    ``unevaluatedProperties``) report what jsonschema's own reports, message, instance path
    and schema path, through ``$ref``, ``allOf``/``anyOf``, ``if``/``then``/``else`` and
    ``dependentSchemas``."""
    from jsonschema import Draft202012Validator

    schemas: list[dict[str, Any]] = [
        {
            "properties": {"a": {"type": "integer"}},
            "patternProperties": {"^x": {"type": "string"}},
            "unevaluatedProperties": False,
        },
        {
            "allOf": [{"properties": {"a": {}}}, {"patternProperties": {"^b": {}}}],
            "unevaluatedProperties": False,
        },
        {
            "$defs": {"D": {"patternProperties": {"^c": {"type": "integer"}}}},
            "$ref": "#/$defs/D",
            "unevaluatedProperties": {"type": "string"},
        },
        {
            "if": {"properties": {"a": {"const": 1}}, "required": ["a"]},
            "then": {"patternProperties": {"^t": {}}},
            "else": {"properties": {"e": {}}},
            "unevaluatedProperties": False,
        },
        {
            "anyOf": [
                {"patternProperties": {"^a": {"type": "integer"}}},
                {"properties": {"z": {}}},
            ],
            "unevaluatedProperties": False,
        },
        {
            "dependentSchemas": {"a": {"patternProperties": {"^d": {}}}},
            "unevaluatedProperties": False,
        },
        {
            "properties": {"a": {}},
            "additionalProperties": {"type": "integer"},
            "patternProperties": {"^p": {"type": "string"}},
        },
        {"additionalProperties": False, "patternProperties": {"^p": {}, "q$": {}}},
        {"additionalProperties": False, "properties": {"k": {}}},
        {"type": "string", "pattern": "^[a-c]+\\d$"},
        {"propertyNames": {"pattern": "^[a-z]+$"}},
    ]
    keys = ["a", "c1", "d", "t", "x", "z", "p1", "aq", "AB"]
    instances: list[Any] = [{}, "abc1", "abc", 5]
    instances += [{k: v} for k in keys for v in (1, "s")]
    instances += [{k: 1, m: "s"} for k in keys for m in keys if k != m]

    def report(validator: Any, instance: Any) -> list[str]:
        return sorted(
            repr((e.message, list(e.path), list(e.schema_path)))
            for e in validator.iter_errors(instance)
        )

    for schema in schemas:
        ours, theirs = schema_validator(schema), Draft202012Validator(schema)
        for instance in instances:
            assert report(ours, instance) == report(theirs, instance), (schema, instance)
