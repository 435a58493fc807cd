"""Hostile documents (issue #15): real catalog and OpenAPI files, MCP tool lists and a
loopback server that serves documents. Each one is refused with a typed error naming the
document and the place, quickly and in little memory, or registered with policy no laxer
than the method says. Each test is a row of docs/faults.md."""

from __future__ import annotations

import gzip
import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.mcp import mcp_tools_registration
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Effect
from schemarouter.errors import DocumentError, RegistrationError, SchemaError
from schemarouter.index import HashingEncoder
from schemarouter.registry import parsing
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.parsing import load_document

from servers.loopback import LoopbackServer, Request, Response

Doc = dict[str, Any]


def _catalog(**endpoint: Any) -> Doc:
    """A one-endpoint catalog; ``endpoint`` replaces parts of the endpoint."""
    base: Doc = {
        "id": "summary",
        "name": "summary",
        "operation": {"method": "GET", "path": "/summary"},
        "parameters": [{"name": "formula", "location": "query", "json_schema": {"type": "string"}}],
        "output_fields": [{"name": "gap", "path": "data.*.gap", "json_schema": {"type": "number"}}],
    }
    return {
        "schemarouter_catalog": 1,
        "providers": [
            {
                "id": "lab",
                "display_name": "Lab",
                "access": [
                    {
                        "id": "rest",
                        "kind": "http",
                        "base_url": "https://lab.example.org",
                        "auth": {
                            "credentials": ["LAB_KEY"],
                            "scheme": "api_key",
                            "location": "header",
                            "parameter": "X-API-KEY",
                        },
                        "endpoints": [{**base, **endpoint}],
                    }
                ],
            }
        ],
    }


def _oas(schemas: Doc, response_schema: Doc, **operation: Any) -> Doc:
    get = {
        "operationId": "getThing",
        "responses": {
            "200": {
                "description": "ok",
                "content": {"application/json": {"schema": response_schema}},
            }
        },
        **operation,
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "things", "version": "1"},
        "servers": [{"url": "https://things.example.org"}],
        "components": {"schemas": schemas},
        "paths": {"/things": {"get": get}},
    }


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


# -- 2: $ref fan-out ---------------------------------------------------------------------------


def _fan_out(levels: int, prefix: str) -> Doc:
    """Each definition refers twice to the next: 2**levels copies once inlined."""
    defs: Doc = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"{prefix}S{i + 1}"},
                "b": {"$ref": f"{prefix}S{i + 1}"},
            },
        }
        for i in range(levels)
    }
    defs[f"S{levels}"] = {"type": "string"}
    return defs


def test_ref_fan_out_in_openapi_is_refused_quickly(tmp_path: Path) -> None:
    """30 levels (a 4 kB file; 2**30 copies inlined): a SchemaError naming the document,
    the operation's schema and where the limit was passed, in well under a second (the
    bound below only catches an expansion that never ends; load cannot reach it)."""
    path = tmp_path / "fan.json"
    doc = _oas(_fan_out(30, "#/components/schemas/"), {"$ref": "#/components/schemas/S0"})
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert path.stat().st_size < 5000
    started = time.monotonic()
    with pytest.raises(SchemaError, match="50000 JSON nodes") as caught:
        _router().add_openapi(path, provider="things")
    assert time.monotonic() - started < 30.0
    assert str(path) in str(caught.value)
    assert "paths./things.get.responses.200" in str(caught.value)


def test_ref_fan_out_in_an_mcp_tool_list_is_refused_quickly() -> None:
    tools = [
        {
            "name": "lookup",
            "description": "Look a thing up.",
            "inputSchema": {
                "type": "object",
                "properties": {"thing": {"$ref": "#/$defs/S0"}},
                "$defs": _fan_out(30, "#/$defs/"),
            },
        }
    ]
    assert len(json.dumps(tools)) < 4000
    started = time.monotonic()
    with pytest.raises(SchemaError, match=r"tools\[0\]\.inputSchema"):
        mcp_tools_registration(tools, provider="things")
    assert time.monotonic() - started < 30.0  # 2**30 copies would never end


def test_many_operations_sharing_a_large_schema_hit_the_document_limit() -> None:
    """Each operation alone stays under the per-schema limit; together they pass the
    document's (every operation gets its own inlined copy)."""
    doc = _oas(_fan_out(13, "#/components/schemas/"), {"$ref": "#/components/schemas/S0"})
    get = doc["paths"]["/things"]["get"]
    doc["paths"] = {f"/things{i}": {"get": {**get, "operationId": f"op{i}"}} for i in range(40)}
    started = time.monotonic()
    with pytest.raises(SchemaError, match="document's schemas are larger than 250000"):
        openapi_registration(doc, provider="things")
    assert time.monotonic() - started < 30.0  # refused as it passes the limit, not after


def test_a_shared_definition_used_many_times_still_registers() -> None:
    """Reuse without fan-out (a definition referred to by 200 properties) is fine."""
    schemas = {
        "Item": {"type": "object", "properties": {"id": {"type": "string"}}},
        "Page": {
            "type": "object",
            "properties": {f"p{i}": {"$ref": "#/components/schemas/Item"} for i in range(200)},
        },
    }
    registration = openapi_registration(
        _oas(schemas, {"$ref": "#/components/schemas/Page"}), provider="things"
    )
    assert len(registration.routes) == 1


class _Ref(str):
    """A reference that counts how often it is compared with another string: a lookup in a
    dict or a set hashes it, a search of a list compares it with each item in turn."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Ref.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _alias_chain(length: int, fields: int, prefix: str) -> Doc:
    """``C{length-1} -> ... -> C1 -> C0``, each a bare ``$ref``; ``C0`` is an object whose
    ``fields`` properties each refer to a definition of their own (every reference a
    :class:`_Ref`)."""
    defs: Doc = {f"C{i}": {"$ref": _Ref(f"{prefix}C{i - 1}")} for i in range(1, length)}
    defs["C0"] = {
        "type": "object",
        "properties": {f"p{i}": {"$ref": _Ref(f"{prefix}D{i}")} for i in range(fields)},
    }
    defs.update({f"D{i}": {"type": "string"} for i in range(fields)})
    return defs


def _register_alias_chain(adapter: str, length: int, fields: int) -> tuple[int, int]:
    """Register the chain through ``adapter``: the properties of the registered schema and
    how many times a reference was compared with another string meanwhile."""
    _Ref.compared = 0
    if adapter == "openapi":
        prefix = "#/components/schemas/"
        doc = _oas(_alias_chain(length, fields, prefix), {"$ref": _Ref(f"{prefix}C{length - 1}")})
        (route,) = openapi_registration(doc, provider="things").routes
        schema: Any = route.endpoint.output_schema
    else:
        tools = [
            {
                "name": "lookup",
                "description": "Look a thing up.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"thing": {"$ref": _Ref(f"#/$defs/C{length - 1}")}},
                    "$defs": _alias_chain(length, fields, "#/$defs/"),
                },
            }
        ]
        (route,) = mcp_tools_registration(tools, provider="things").routes
        schema = route.endpoint.input_schema["properties"]["thing"]
    return len(schema["properties"]), _Ref.compared


@pytest.mark.parametrize("adapter", ["openapi", "mcp"])
def test_a_long_chain_of_ref_aliases_registers_in_linear_time(adapter: str) -> None:
    """The chain and the references below it are looked up, not searched (trial I #5: a
    chain of 40,000 took 7 s, 80,000 took 28 s, quadratic in its length: each reference was
    searched for in a list of the aliases above it), in both adapters. Counted, not timed:
    a search compares the reference with string after string (that code: 2.3 million
    comparisons at 2,000 aliases, four times as many at twice the length), a lookup at most
    once per reference. Then the trial's size: 60,000 aliases over an object of 5,000
    referenced properties (2.8 MB) registers whole."""
    for length in (2_000, 4_000):
        properties, compared = _register_alias_chain(adapter, length, length // 10)
        assert properties == length // 10
        assert compared <= length + length // 10, (length, compared)
    assert _register_alias_chain(adapter, 60_000, 5_000)[0] == 5_000


def test_a_huge_value_is_clipped_where_an_error_quotes_it() -> None:
    """Trial I #12: a 5 MB string in ``type``, ``in``, ``swagger`` or a ``$ref`` became a
    5 MB message (10 MB for a dangling ``$ref``, quoted twice), the same from MCP listings,
    and a long ``$ref`` cycle was spelled out whole. Now each quoted value keeps 200
    characters and says how long it was; the place is still named."""
    huge = "A" * 1_000_000
    prefix = "#/components/schemas/"
    cases: list[tuple[Any, str]] = [
        (_oas({"T": {"type": "object" + huge}}, {"$ref": f"{prefix}T"}), "'objectAAA"),
        (
            _oas({}, {"type": "string"}, parameters=[{"name": "q", "in": "query" + huge}]),
            "'queryAAA",
        ),
        ({**_oas({}, {"type": "string"}), "openapi": "3.1.0" + huge}, "3.1.0AAA"),
        (_oas({}, {"$ref": f"{prefix}{huge}"}), f"'{prefix}AAA"),
    ]
    for document, shown in cases:
        with pytest.raises(RegistrationError) as caught:
            openapi_registration(document, provider="things")
        message = str(caught.value)
        assert len(message) < 1000, message[:300]
        assert shown in message and "characters)" in message
        assert caught.value.where
    tools = [{"name": "t", "inputSchema": {"type": "object" + huge}}]
    with pytest.raises(SchemaError) as caught:
        mcp_tools_registration(tools, provider="things")
    assert len(str(caught.value)) < 1000 and "tools[0]" in str(caught.value)
    cycle: Doc = {f"C{i}": {"$ref": f"{prefix}C{i - 1}"} for i in range(1, 20_000)}
    cycle["C0"] = {"$ref": f"{prefix}C19999"}
    with pytest.raises(RegistrationError, match="loops with no schema in between") as caught:
        openapi_registration(_oas(cycle, {"$ref": f"{prefix}C5"}), provider="things")
    assert len(str(caught.value)) < 2500


# -- 7: nesting ---------------------------------------------------------------------------------


def _nested_json(depth: int) -> str:
    return '{"type": "object", "properties": {"a": ' * depth + "{}" + "}}" * depth


@pytest.mark.parametrize("depth", [150, 100_000])
def test_deeply_nested_catalogs_and_openapi_documents_are_document_errors(
    depth: int, tmp_path: Path
) -> None:
    """A schema nested 150 levels (past what the JSON Schema checker can recurse through)
    or 100,000 (past what the JSON parser can): a DocumentError, never a RecursionError."""
    catalog = json.dumps(_catalog()).replace('{"type": "number"}', _nested_json(depth))
    path = tmp_path / "deep.json"
    path.write_text(catalog, encoding="utf-8")
    with pytest.raises(DocumentError, match="100 levels") as caught:
        load_catalog(path)
    assert str(path) in str(caught.value)
    oas = json.dumps(_oas({}, {"type": "string"})).replace(
        '{"type": "string"}', _nested_json(depth)
    )
    path = tmp_path / "deep-oas.json"
    path.write_text(oas, encoding="utf-8")
    with pytest.raises(DocumentError, match="100 levels"):
        _router().add_openapi(path, provider="things")


def test_deeply_nested_yaml_and_mcp_schemas_are_typed_errors(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("a:\n" + "".join("  " * i + "- \n" for i in range(1, 400)), encoding="utf-8")
    with pytest.raises(DocumentError):
        load_catalog(path)
    schema: Doc = {"type": "string"}
    for _ in range(60):  # 120 levels once written as JSON: passes parsing, not the checker
        schema = {"type": "object", "properties": {"a": schema}}
    with pytest.raises((DocumentError, SchemaError), match=r"levels|deeply"):
        mcp_tools_registration(
            [{"name": "t", "description": "d", "inputSchema": schema}], provider="p"
        )


def test_yaml_aliases_that_expand_the_document_are_refused(tmp_path: Path) -> None:
    """A billion laughs: each alias list repeats the one before nine times."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(DocumentError, match="expands to more than"):
        load_catalog(path)
    with pytest.raises(DocumentError, match="expands to more than"):
        openapi_registration(path, provider="laughs")
    assert time.monotonic() - started < 30.0  # 9**9 expanded would never end


# -- 11: duplicate keys --------------------------------------------------------------------------


def test_duplicate_keys_in_a_json_catalog_are_refused_with_their_line(tmp_path: Path) -> None:
    text = json.dumps(_catalog(effect="read"), indent=1)
    text = text.replace('"effect": "read"', '"effect": "read",\n"effect": "destructive"')
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"effect"' in row)
    with pytest.raises(DocumentError, match="'effect' is written twice") as caught:
        load_catalog(path)
    where = caught.value.where or ""
    assert where.startswith(f"{path}:")
    assert int(where.split(":")[-2]) < line  # the object that holds it starts before


def test_duplicate_keys_in_a_yaml_catalog_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(
        "schemarouter_catalog: 1\n"
        "providers:\n"
        "  - id: lab\n"
        "    display_name: Lab\n"
        "    display_name: Lab again\n"
        "    access: []\n",
        encoding="utf-8",
    )
    with pytest.raises(DocumentError, match="'display_name' is written twice") as caught:
        load_catalog(path)
    assert caught.value.where == f"{path}:5:5"


def test_yaml_merge_keys_may_still_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(
        "base: &base {type: string, description: a}\nover: {<<: *base, description: b}\n",
        encoding="utf-8",
    )
    assert parsing.parse_text(path.read_text(), source=str(path), json_first=False) == {
        "base": {"type": "string", "description": "a"},
        "over": {"type": "string", "description": "b"},
    }


def test_duplicate_keys_in_openapi_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n"
        "  /things:\n    delete:\n      x-schemarouter-effect: destructive\n"
        "      x-schemarouter-effect: read\n      responses: {'204': {description: gone}}\n",
        encoding="utf-8",
    )
    with pytest.raises(DocumentError, match="written twice") as caught:
        openapi_registration(path, provider="things")
    assert caught.value.where == f"{path}:7:7"


# -- 14 and surrogates: numbers and text JSON cannot carry ---------------------------------------


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_in_a_json_catalog_schema_are_refused(text: str, tmp_path: Path) -> None:
    catalog = json.dumps(_catalog()).replace('{"type": "number"}', f'{{"maximum": {text}}}')
    path = tmp_path / "nan.json"
    path.write_text(catalog, encoding="utf-8")
    with pytest.raises(DocumentError, match="not a JSON number") as caught:
        load_catalog(path)
    assert "output_fields[0].json_schema.maximum" in str(caught.value)


@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_in_a_yaml_catalog_schema_are_refused(text: str, tmp_path: Path) -> None:
    path = tmp_path / "nan.yaml"
    import yaml

    path.write_text(yaml.safe_dump(_catalog()).replace("type: number", f"maximum: {text}"))
    with pytest.raises(DocumentError, match="not a JSON number"):
        load_catalog(path)


def test_a_lone_surrogate_in_a_document_is_refused(tmp_path: Path) -> None:
    catalog = json.dumps(_catalog(description="band gap @")).replace("@", "\\ud800")
    path = tmp_path / "surrogate.json"
    path.write_text(catalog, encoding="utf-8")
    with pytest.raises(DocumentError, match="lone surrogate") as caught:
        load_catalog(path)
    assert "endpoints[0].description" in str(caught.value)
    str(caught.value).encode("utf-8")  # the message itself is printable


_LONG = "9" * 4301  # one digit more than Python reads or writes as text (its default limit)


def test_an_integer_too_long_for_python_is_a_document_error_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial I #6: a number of 4,301 digits escaped as a plain ValueError from the JSON and
    YAML parsers (a traceback from the CLI) and from fingerprinting a dict or MCP listing.
    Now a DocumentError at the line and column, or at the place in the dict; a string of
    digits before it is no number and is left alone."""
    parameter = {"name": "limit", "in": "query", "schema": {"type": "integer"}}
    doc = _oas({}, {"type": "string"}, parameters=[parameter], description="9" * 5000)
    text = json.dumps(doc, indent=1).replace('"integer"', '"integer", "maximum": ' + _LONG)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if _LONG in row)
    column = text.splitlines()[line - 1].index(_LONG) + 1
    as_json = tmp_path / "long.json"
    as_json.write_text(text, encoding="utf-8")
    with pytest.raises(DocumentError, match="more than 4300 digits") as caught:
        _router().add_openapi(as_json, provider="things")
    assert caught.value.where == f"{as_json}:{line}:{column}"
    as_yaml = tmp_path / "long.yaml"
    import yaml

    as_yaml.write_text(yaml.safe_dump(doc).replace("type: integer", f"maximum: {_LONG}"))
    with pytest.raises(DocumentError, match="more than 4300 digits") as caught:
        _router().add_openapi(as_yaml, provider="things")
    assert (caught.value.where or "").startswith(f"{as_yaml}:")
    parameter["schema"] = {"type": "integer", "maximum": 10**4301}
    with pytest.raises(DocumentError, match="more than 4300 digits") as caught:
        _router().add_openapi(doc, provider="things")
    assert caught.value.where == "<dict>: paths./things.get.parameters[0].schema.maximum"
    tools = [{"name": "t", "inputSchema": {"type": "object", "maximum": -(10**4301)}}]
    with pytest.raises(DocumentError, match="more than 4300 digits") as caught:
        _router().add_mcp_tools(tools, provider="things")
    assert "tools[0]: inputSchema.maximum" in str(caught.value)

    from schemarouter.cli import main

    assert main(["retrieve", "things", "--openapi", str(as_json)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: [SR101] an integer of more than 4300 digits")
    assert err.count("\n") == 1 and "Traceback" not in err


# -- 9: document hints may only make policy stricter ---------------------------------------------


def test_an_untrusted_openapi_read_hint_does_not_make_a_delete_readable() -> None:
    doc = _oas({}, {"type": "object"})
    doc["paths"]["/things"] = {
        "delete": {"operationId": "wipe", "x-schemarouter-effect": "read", "responses": {}},
        "post": {"operationId": "search", "x-schemarouter-effect": "read", "responses": {}},
        "get": {"operationId": "fetch", "x-schemarouter-effect": "destructive", "responses": {}},
    }
    routes = {r.endpoint.name: r for r in openapi_registration(doc, provider="t").routes}
    assert routes["wipe"].endpoint.effect is Effect.DESTRUCTIVE
    assert routes["search"].endpoint.effect is Effect.WRITE
    assert routes["fetch"].endpoint.effect is Effect.DESTRUCTIVE  # stricter: kept
    trusted = {
        r.endpoint.name: r for r in openapi_registration(doc, provider="t", trusted=True).routes
    }
    assert trusted["search"].endpoint.effect is Effect.READ
    assert trusted["search"].access.trusted


# -- 12: a header parameter that is the credential's header ---------------------------------------


def test_a_catalog_header_parameter_named_like_the_auth_header_is_refused(tmp_path: Path) -> None:
    params = [{"name": "x-api-key", "location": "header", "json_schema": {"type": "string"}}]
    path = tmp_path / "auth.json"
    path.write_text(json.dumps(_catalog(parameters=params)), encoding="utf-8")
    with pytest.raises(DocumentError, match="where the credential travels") as caught:
        load_catalog(path)
    assert "endpoints[0].parameters" in str(caught.value)


# -- 13: fetching a document: a size cap and one deadline ----------------------------------------


def _spec() -> bytes:
    return json.dumps(_oas({}, {"type": "object"})).encode()


def _document_app(request: Request) -> Response:
    if request.path == "/big.json":  # 3 MB of padding in a description
        doc = _oas({}, {"type": "object"})
        doc["info"]["description"] = "x" * 3_000_000
        return Response(200, json.dumps(doc).encode(), {"Content-Type": "application/json"})
    if request.path == "/bomb.json":
        blob = gzip.compress(gzip.compress(b" " * 8_000_000, 9), 9)
        return Response(
            200,
            blob,
            {"Content-Type": "application/json", "Content-Encoding": "gzip, gzip"},
        )
    if request.path == "/drip.json":  # the whole document, a byte every 100 ms (about 32 s)
        body = _spec()
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        return Response(raw=(bytes([b]) for b in itertools.chain(head, body)), pause=0.1)
    if request.path == "/hop":
        return Response(302, b"", {"Location": "/spec.json"})
    return Response(200, _spec(), {"Content-Type": "application/json"})


@pytest.fixture(scope="module")
def documents() -> Iterator[LoopbackServer]:
    with LoopbackServer(_document_app) as server:
        yield server


@pytest.mark.parametrize("name", ["big.json", "bomb.json"])
def test_a_fetched_document_is_capped(name: str, documents: LoopbackServer) -> None:
    url = f"{documents.base_url}/{name}"
    with pytest.raises(DocumentError, match="larger than 1000000 bytes") as caught:
        load_document(url, max_bytes=1_000_000)
    assert caught.value.where == url


def test_add_openapi_fetches_within_the_default_cap(
    documents: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parsing, "DEFAULT_MAX_DOCUMENT_BYTES", 1_000_000)
    with pytest.raises(DocumentError, match="larger than"):
        _router().add_openapi(f"{documents.base_url}/big.json", provider="big")
    change = _router().add_openapi(f"{documents.base_url}/hop", provider="hop")  # a redirect
    assert len(change.added) == 1


def test_a_dripping_document_stops_at_the_deadline(
    documents: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every byte comes well within any read timeout; only a deadline for the whole fetch
    stops it (the review's 40 s drip succeeded). The two fetches stop at 0.5 s each; the
    bound is far from that and from the 32 s either would take without the deadline."""
    started = time.monotonic()
    with pytest.raises(DocumentError, match=r"longer than 0\.5 s"):
        load_document(f"{documents.base_url}/drip.json", timeout=0.5)
    monkeypatch.setattr(parsing, "DEFAULT_TIMEOUT", 0.5)
    with pytest.raises(DocumentError, match=r"longer than 0\.5 s"):
        _router().add_openapi(f"{documents.base_url}/drip.json", provider="drip")
    assert time.monotonic() - started < 15.0
    # an injected client is bounded the same way
    with httpx.Client() as client, pytest.raises(DocumentError, match="longer than"):
        load_document(f"{documents.base_url}/drip.json", client=client, timeout=0.5)
