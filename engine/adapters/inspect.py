"""Human API docs -> a contract *proposal*; :func:`approve` is the only way it becomes routes.

:func:`inspect` is deterministic and needs no model. HTML is reduced to text with the
standard library's ``html.parser`` (``<pre>`` becomes a fenced block, table rows become
``| a | b |`` lines); Markdown and plain text are read as they are. It finds:

- **endpoints**: ``GET /path/{id}`` (``:id`` becomes ``{id}``); the lines up to the next
  endpoint belong to it. A ``Base URL: https://...`` line proposes the base URL.
- **parameters**: bullets (``- formula (string, required): ...``), table rows (a header row
  naming ``name`` / ``parameter``), ``?param=`` in example URLs, and path template variables.
- **fields**: JSON examples in fenced blocks (flattened to paths with ``*`` for arrays and
  their JSON types), bullets under a heading or line that mentions the response, and unit
  mentions (``unit: eV``, ``(eV)`` after a type).

Every item carries the ``passage`` that grounds it and a ``grounding`` score in [0, 1]: how
explicit the evidence is (a typed bullet or table row 0.9, a JSON example 0.8, an untyped
bullet 0.7, a query string in an example URL 0.5). A proposal is plain data: nothing in it is
registered, bound or callable until :func:`approve`.
"""

from __future__ import annotations

import json
import logging
import re
from html.parser import HTMLParser
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from schemarouter import contracts
from schemarouter.errors import DocumentError, PolicyError, UnitError
from schemarouter.registry.compile import (
    RouteSpec,
    build_registration,
    format_validation_error,
    named_provider,
    parameters_schema,
    slugify,
)
from schemarouter.units import parse_unit

__all__ = [
    "ContractProposal",
    "ProposedEndpoint",
    "ProposedField",
    "ProposedParameter",
    "approve",
    "inspect",
]

logger = logging.getLogger(__name__)

_TYPES = {
    "string": "string",
    "str": "string",
    "text": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "object": "object",
    "dict": "object",
}
_ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+`?(/[^\s`'\"<>)]*)")
_BASE = re.compile(r"base\s*url\s*[:=]?\s*`?(https?://[^\s`'\"<>]+)", re.IGNORECASE)
_BULLET = re.compile(
    r"^\s*[-*+]\s+`?([A-Za-z_][\w.\[\]-]*)`?\s*(?:\(([^)]*)\))?\s*[:\u2014-]?\s*(.*)$"
)
_QUERY = re.compile(r"[?&]([A-Za-z_][\w.-]*)=")
_UNIT = re.compile(r"\bunits?\s*[:=]\s*`?([^\s,;)`]+)", re.IGNORECASE)
_READ = ("GET", "HEAD")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProposedParameter(_Model):
    name: str
    location: Literal["path", "query", "body"] = "query"
    json_type: str | None = None
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

    @property
    def effect(self) -> contracts.Effect:
        if self.method in _READ:
            return contracts.Effect.READ
        return contracts.Effect.DESTRUCTIVE if self.method == "DELETE" else contracts.Effect.WRITE


class ContractProposal(_Model):
    """What the docs suggest. Plain data: never registered, bound or executed by itself."""

    base_url: str | None = None
    base_url_passage: str = ""
    endpoints: tuple[ProposedEndpoint, ...] = ()


# -- HTML to text ---------------------------------------------------------------------------


class _Text(HTMLParser):
    _BLOCKS = frozenset(
        {
            "p",
            "div",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "section",
            "br",
            "tr",
            "table",
            "ul",
            "ol",
            "dt",
            "dd",
            "article",
            "header",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag == "pre":
            self.pre += 1
            self.out.append("\n```\n")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.out.append("\n```\n")
        elif tag == "tr":
            self.out.append(" |\n")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def _to_text(text: str) -> str:
    if not re.search(r"<(html|body|p|div|h[1-6]|pre|table|ul|code)\b", text, re.IGNORECASE):
        return text
    parser = _Text()
    parser.feed(text)
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.out).splitlines()]
    return "\n".join(line for line in lines if line.strip() or False)


# -- reading --------------------------------------------------------------------------------


def _type(words: str) -> tuple[str | None, bool, str | None]:
    """(JSON type, required, unit) from the words in a bullet's parentheses."""
    kind = None
    for word in re.split(r"[\s,;/]+", words.lower()):
        if word in _TYPES and kind is None:
            kind = _TYPES[word]
    required = bool(re.search(r"\brequired\b", words, re.I)) and "not required" not in words
    unit = _UNIT.search(words)
    return kind, required, unit.group(1) if unit else None


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    names = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
        type(None): "null",
    }
    if isinstance(value, dict) and value:
        out = []
        for key, sub in value.items():
            out += _flatten(sub, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return _flatten(value[0], f"{prefix}.*" if prefix else "*")
    return [(prefix or "result", names.get(type(value), "string"))]


class _Section:
    def __init__(self, method: str, path: str, passage: str, grounding: float) -> None:
        self.method, self.passage, self.grounding = method, passage, grounding
        self.path = re.sub(r":([A-Za-z_]\w*)", r"{\1}", path.split("?")[0].rstrip(".,;:"))
        self.summary = ""
        self.params: dict[str, ProposedParameter] = {}
        self.fields: dict[str, ProposedField] = {}
        for var in re.findall(r"\{([^{}]+)\}", self.path):
            self.add_param(var, "path", "string", True, "", passage, 0.95)
        for name in _QUERY.findall(path):
            self.add_param(name, "query", None, False, "", passage, 0.5)

    def add_param(
        self,
        name: str,
        location: str,
        kind: str | None,
        required: bool,
        description: str,
        passage: str,
        grounding: float,
    ) -> None:
        old = self.params.get(name)
        if old is None or old.grounding < grounding:
            if old is not None and old.location == "path":
                location, required = "path", True
            self.params[name] = ProposedParameter(
                name=name,
                location=location,
                json_type=kind,
                required=required,
                description=description,
                passage=passage.strip()[:500],
                grounding=grounding,
            )

    def add_field(
        self,
        path: str,
        kind: str | None,
        unit: str | None,
        description: str,
        passage: str,
        grounding: float,
    ) -> None:
        name = ".".join(p for p in path.split(".") if p != "*") or "result"
        old = self.fields.get(name)
        if old is not None:
            unit = old.unit or unit
            kind = (
                (old.json_type or kind) if old.grounding >= grounding else (kind or old.json_type)
            )
            description = description or old.description
            grounding, passage = max(grounding, old.grounding), old.passage
            path = old.path
        self.fields[name] = ProposedField(
            name=name,
            path=path,
            json_type=kind,
            unit=unit,
            description=description,
            passage=passage.strip()[:500],
            grounding=grounding,
        )

    def build(self) -> ProposedEndpoint:
        return ProposedEndpoint(
            method=self.method,
            path=self.path,
            summary=self.summary,
            parameters=tuple(self.params.values()),
            fields=tuple(self.fields.values()),
            passage=self.passage.strip()[:500],
            grounding=self.grounding,
        )


def _table_row(line: str) -> list[str] | None:
    if not line.strip().startswith("|"):
        return None
    cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
    return None if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c) else cells


def inspect(text_or_html: str) -> ContractProposal:
    """Read human API docs (HTML, Markdown or plain text) into a :class:`ContractProposal`."""
    if not isinstance(text_or_html, str):
        raise DocumentError("inspect reads text", where="<docs>", hint="Pass the docs as str")
    lines = _to_text(text_or_html).splitlines()
    base_url, base_passage = None, ""
    sections: list[_Section] = []
    mode = "params"
    header: list[str] | None = None
    fence: list[str] | None = None
    for raw in lines:
        line = raw.strip()
        current = sections[-1] if sections else None
        if line.startswith("```"):
            if fence is None:
                fence = []
                continue
            block, fence = "\n".join(fence), None
            _read_block(block, current)
            continue
        if fence is not None:
            fence.append(raw)
            continue
        base = _BASE.search(line)
        if base and base_url is None:
            base_url, base_passage = base.group(1).rstrip("/.,;"), line
        found = _ENDPOINT.search(line)
        if found and not line.startswith(("-", "*", "|")):
            heading = line.startswith("#") or line.upper().startswith(found.group(1))
            sections.append(_Section(found.group(1), found.group(2), line, 0.9 if heading else 0.7))
            mode, header = "params", None
            continue
        if current is None:
            continue
        lowered = line.lower()
        if not line.startswith(("-", "*", "|")) and line:
            label = line.startswith("#") or line.endswith(":") or len(line) < 40
            if label and re.search(r"\b(response|returns|fields|output)\b", lowered):
                mode, header = "fields", None
            elif label and re.search(r"\b(parameters?|query|arguments|request)\b", lowered):
                mode, header = "params", None
            elif not current.summary and not line.startswith("#") and not line.endswith(":"):
                current.summary = line[:256]
        for name in _QUERY.findall(line) if "http" in line or line.startswith("/") else ():
            current.add_param(name, "query", None, False, "", line, 0.5)
        cells = _table_row(line)
        if cells is not None:
            lowered_cells = [c.lower() for c in cells]
            if header is None and any(c in ("name", "parameter", "field") for c in lowered_cells):
                header = lowered_cells
                continue
            if header is not None:
                _read_row(dict(zip(header, cells, strict=False)), mode, current, line)
            continue
        bullet = _BULLET.match(raw)
        if bullet and (bullet.group(2) or bullet.group(3)):
            name, words, rest = bullet.group(1), bullet.group(2) or "", bullet.group(3)
            kind, required, unit = _type(words)
            unit = unit or (m.group(1) if (m := _UNIT.search(rest)) else None)
            grounding = 0.9 if kind else 0.7
            if mode == "fields":
                current.add_field(name, kind, unit, rest, line, grounding)
            else:
                location = "path" if f"{{{name}}}" in current.path else "query"
                current.add_param(
                    name, location, kind, required or location == "path", rest, line, grounding
                )
    return ContractProposal(
        base_url=base_url,
        base_url_passage=base_passage,
        endpoints=tuple(s.build() for s in sections),
    )


def _read_row(row: dict[str, str], mode: str, section: _Section, line: str) -> None:
    name = row.get("name") or row.get("parameter") or row.get("field")
    if not name or not re.fullmatch(r"[A-Za-z_][\w.\[\]-]*", name):
        return
    kind, _, unit = _type(row.get("type", ""))
    unit = row.get("unit") or unit
    required = row.get("required", "").lower() in ("yes", "true", "required", "y")
    description = row.get("description", "")
    if mode == "fields" or "field" in row:
        section.add_field(name, kind, unit or None, description, line, 0.9 if kind else 0.7)
    else:
        location = "path" if f"{{{name}}}" in section.path else row.get("in", "query").lower()
        if location not in ("path", "query", "body"):
            location = "query"
        section.add_param(
            name,
            location,
            kind,
            required or location == "path",
            description,
            line,
            0.9 if kind else 0.7,
        )


def _read_block(block: str, section: _Section | None) -> None:
    if section is None:
        return
    try:
        value = json.loads(block)
    except ValueError:
        for found in _ENDPOINT.finditer(block):
            for name in _QUERY.findall(found.group(2)):
                section.add_param(name, "query", None, False, "", found.group(0), 0.5)
        for name in _QUERY.findall(block) if not _ENDPOINT.search(block) else ():
            section.add_param(name, "query", None, False, "", block.splitlines()[0], 0.5)
        return
    for path, kind in _flatten(value):
        section.add_field(path, kind, None, "", block[:500], 0.8)


# -- approval -------------------------------------------------------------------------------


def _unit(item: ProposedField) -> tuple[str | None, str]:
    if item.unit is None:
        return None, item.description
    try:
        parse_unit(item.unit)
    except UnitError:
        return None, f"{item.description} (unit as documented: {item.unit})".strip()
    return item.unit, item.description


def _endpoint(item: ProposedEndpoint) -> contracts.Endpoint:
    params = tuple(
        contracts.Parameter(
            name=p.name,
            location=contracts.ParameterLocation(p.location),
            json_schema={"type": p.json_type} if p.json_type else {},
            required=p.required or p.location == "path",
            description=p.description,
        )
        for p in item.parameters
    )
    fields = []
    for f in item.fields:
        unit, description = _unit(f)
        fields.append(
            contracts.OutputField(
                name=f.name,
                path=f.path,
                unit=unit,
                description=description,
                json_schema={"type": f.json_type} if f.json_type else {},
            )
        )
    schema = parameters_schema(params)
    name = f"{item.method} {item.path}"
    return contracts.Endpoint(
        id=slugify(name),
        name=name,
        operation=contracts.Operation(method=item.method, path=item.path),
        summary=item.summary,
        description=item.summary,
        input_schema=schema,
        parameters=params,
        output_fields=tuple(fields),
        effect=item.effect,
        policy_tags=("from_docs",),
    )


def approve(
    router: Any,
    proposal: ContractProposal,
    *,
    base_url: str,
    provider: str | contracts.Provider,
    allow_write: bool = False,
    access_id: str = "docs",
    replace: bool = False,
) -> Any:
    """Register (and bind) the proposal's endpoints at ``base_url``: the RegistryChange.

    Read-only (GET / HEAD) endpoints are registered; write and destructive ones are left
    out (logged) unless ``allow_write`` is true, and then keep their effect, so execution
    still needs its own permission. Nothing is registered when none remain.
    """
    from schemarouter.execution.invokers.http import bind_http_routes

    if not isinstance(proposal, ContractProposal):
        raise DocumentError(
            "approve takes a ContractProposal",
            where="approve",
            hint="Pass the result of inspect(...)",
        )
    model = named_provider(provider, where="<docs proposal>: provider")
    access = contracts.AccessPath(
        id=access_id, kind=contracts.AccessKind.HTTP, base_url=base_url, document="<docs proposal>"
    )
    specs, ids = [], set()
    for i, item in enumerate(proposal.endpoints):
        if item.effect is not contracts.Effect.READ and not allow_write:
            logger.warning(
                "approve: %s %s refused (%s); pass allow_write=True",
                item.method,
                item.path,
                item.effect.value,
            )
            continue
        try:
            endpoint = _endpoint(item)
        except ValidationError as exc:
            what, loc = format_validation_error(exc)
            raise DocumentError(
                what,
                where=f"<docs proposal>: endpoints[{i}] ({loc})",
                hint="Fix the proposal before approving it",
            ) from None
        if endpoint.id in ids:
            continue
        ids.add(endpoint.id)
        specs.append(RouteSpec(model, access, endpoint, f"endpoints[{i}]"))
    if not specs:
        raise PolicyError(
            "nothing to approve: the proposal has no endpoint allowed here",
            where="approve",
            hint="Write operations need allow_write=True",
        )
    registration = build_registration(specs, source="<docs proposal>", providers=[model])
    change = router.register(registration, replace=replace)
    bind_http_routes(router, registration.routes)
    return change
