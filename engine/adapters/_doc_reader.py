"""The reader behind :func:`schemarouter.adapters.inspect.inspect`: docs lines -> sections ->
a :class:`~schemarouter.adapters._doc_proposal.ContractProposal` (see that module's docstring
for what it finds)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from schemarouter.adapters._doc_proposal import (
    ContractProposal,
    ProposedEndpoint,
    ProposedField,
    ProposedParameter,
    state_change,
)
from schemarouter.adapters._doc_text import header_row, header_words, table_row, to_text
from schemarouter.adapters._doc_types import UNIT, doc_format, doc_type, unit_word
from schemarouter.adapters._json import nested_past
from schemarouter.errors import DocumentError

__all__ = ["inspect"]

logger = logging.getLogger("schemarouter.adapters.inspect")

#: ``METHOD /path``; a path is never ``//host/...`` (a host in disguise, not a path).
_ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+`?(/(?!/)[^\s`'\"<>)]*)")
_BASE = re.compile(
    r"(?:base\s*url|기본\s*url|베이스\s*url)\s*[:=]?\s*`?(https?://[^\s`'\"<>]+)", re.IGNORECASE
)
_BULLET = re.compile(
    r"^\s*[-*+]\s+`?([A-Za-z_][\w.\[\]-]*)`?\s*(?:\(([^)]*)\))?\s*[:\u2014-]?\s*(.*)$"
)
#: A label that opens a write's request body: its bullets, rows and JSON example are body
#: parameters, not query parameters or output fields.
_BODY_LABEL = re.compile(
    r"\b(request\s+body|body|payload|form\s+(fields?|data)|request\s+json)\b|요청\s*본문|본문|바디"
)
#: Labels of a section's answer and of its parameters, in English and Korean (응답: the
#: response, 반환: returns, 출력: output; 매개변수 / 파라미터: parameters, 인자: arguments,
#: 쿼리: query, 요청: request).
_FIELDS_LABEL = re.compile(r"\b(response|returns|fields|output)\b|응답|반환|출력")
_PARAMS_LABEL = re.compile(
    r"\b(parameters?|query|arguments|request)\b|매개\s*변수|파라미터|인자|쿼리|요청"
)
#: A table cell saying a parameter is required (Korean 예 / 필수 / 오, beside yes / true).
_YES = ("yes", "true", "required", "y", "예", "네", "필수", "o")
_OPENER = re.compile(r"^[\s>*_`]+")  # Markdown marks before a line's first word
_QUERY = re.compile(r"[?&]([A-Za-z_][\w.-]*)=")
#: A line saying its endpoint is deprecated: the endpoint's own line ("GET /v1/pos
#: (deprecated)"), or a line of its section that is not a list item ("Deprecated: use ...",
#: "**Deprecated**", "This endpoint is deprecated."); not a heading such as "Deprecated fields".
_DEPRECATED = re.compile(
    r"^[\W_]*deprecated(?:[\W_]*$|\s*[:.!\u2014-])|\(deprecated\)"
    r"|\b(?:endpoint|operation|route|method|call|api) (?:is|has been) deprecated\b",
    re.IGNORECASE,
)
#: ``(eV)`` opening a bullet's text after its type's parentheses: ``- gap (number) (eV): ...``.
_UNIT_AFTER = re.compile(r"^\(([^()]{1,16})\)\s*[:\u2014-]?\s*(.*)$")
#: Words saying a request body is form-encoded, and an example request's form data.
_FORM = re.compile(r"x-www-form-urlencoded|form[- ]encoded|form\s+(fields?|data)\b", re.I)
_CURL_JSON = re.compile(r"(?:\s-d|--data(?:-raw|-binary)?)\s+'(\{.*\})'")
_CURL_DATA = re.compile(r"(?:\s-d|--data(?:-urlencode)?)\s+['\"]?([^'\"\s]+)")
#: A ``curl`` command (``$ curl ...`` too), the URL it calls, and its ``-X`` method.
_CURL = re.compile(r"^\$?\s*curl\s")
_CURL_URL = re.compile(r"(https?://[^\s/'\"<>]+)[^\s'\"<>]*")
_CURL_METHOD = re.compile(r"(?:\s-X|--request)\s*['\"]?([A-Za-z]+)")
#: Words of the answer, and the kinds of answer that are not JSON (:func:`_not_json`).
_ANSWERS = re.compile(r"\b(?:respons\w*|returns?|answers?)\b", re.IGNORECASE)
_NOT_JSON = re.compile(r"\b(?:xml|plain text|text/plain|text/xml|csv)\b", re.IGNORECASE)
#: What a form-encoded body travels as.
FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"


def _not_json(line: str) -> bool:
    """Whether a sentence of ``line`` says the answer is a kind that is not JSON ("Returns
    ``OK`` as plain text."), its word of the answer before the kind. Read a sentence at a
    time: one pattern over the line read the rest of a sentence from each word of the answer
    in it ("returns " * 2,000 in a line: 0.5 s, 100,000 characters about 40 s; stop 52)."""
    for sentence in line.split("."):
        said = _ANSWERS.search(sentence)
        if said is not None and _NOT_JSON.search(sentence, said.end()):
            return True
    return False


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str | None]]:
    """(path, JSON type) of each leaf; a ``null`` says nothing of a field's type (an example
    shows it empty), so it gives none."""
    names = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
    }
    if isinstance(value, dict) and value:
        out = []
        for key, sub in value.items():
            out += _flatten(sub, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return _flatten(value[0], f"{prefix}.*" if prefix else "*")
    if value is None:
        return [(prefix or "result", None)]
    return [(prefix or "result", names.get(type(value), "string"))]


class _Section:
    def __init__(self, method: str, path: str, passage: str, grounding: float) -> None:
        self.method, self.passage, self.grounding = method, passage, grounding
        self.path = re.sub(r":([A-Za-z_]\w*)", r"{\1}", path.split("?")[0].rstrip(".,;:"))
        self.summary = ""
        self.prose: list[str] = []  # the endpoint's own words before its first list or label
        self.listed = False
        self.params: dict[str, ProposedParameter] = {}
        self.fields: dict[str, ProposedField] = {}
        self.form = ""  # the passage saying its body is form-encoded
        self.not_json = ""  # the passage saying its answer is not JSON
        self.deprecated = passage if _DEPRECATED.search(passage) else ""
        # an example call sent its body (curl -d '{...}'): the JSON after it is the answer,
        # and a write's parameters no query string or "in" column puts in the query are
        # the body's (trial 17: POST /valves/{valve_id}/open sent its duration_min as a query)
        self.sent_body = False
        self.queried: set[str] = set()
        for var in re.findall(r"\{([^{}]+)\}", self.path):
            self.add_param(var, "path", "string", True, "", passage, 0.95)
        for name in _QUERY.findall(path):
            self.add_query(name, passage)

    def add_query(self, name: str, passage: str) -> None:
        """A parameter an example's query string names (``?field_id=F-7``)."""
        self.queried.add(name)
        self.add_param(name, "query", None, False, "", passage, 0.5)

    def located(self) -> tuple[ProposedParameter, ...]:
        """The parameters, a write's in its body where its example call sent one (above)."""
        if not self.sent_body or self.method in ("GET", "HEAD"):
            return tuple(self.params.values())
        return tuple(
            p.model_copy(update={"location": "body"})
            if p.location == "query" and p.name not in self.queried
            else p
            for p in self.params.values()
        )

    def add_param(
        self,
        name: str,
        location: str,
        kind: str | None,
        required: bool,
        description: str,
        passage: str,
        grounding: float,
        form: str | None = None,
    ) -> None:
        old = self.params.get(name)
        if old is None or old.grounding < grounding:
            if old is not None and old.location == "path":
                location, required = "path", True
            self.params[name] = ProposedParameter(
                name=name,
                location=location,
                json_type=kind,
                json_format=form,
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

    def build(self, page_form: str = "", page_not_json: str = "") -> ProposedEndpoint:
        """The proposal of this section; ``page_*``: what the page says of every endpoint
        ("Requests are form-encoded", "responses are XML") where its own section is silent."""
        said = state_change(self.path, "\n".join(self.prose))
        writes = self.method not in ("GET", "HEAD")
        form = (
            writes
            and bool(self.form or page_form)
            and any(p.location == "body" for p in self.params.values())
        )
        return ProposedEndpoint(
            changes_state=said[0].value if said else None,
            changes_state_passage=said[1] if said else "",
            body_media_type=FORM_MEDIA_TYPE if form else None,
            answer_not_json=(self.not_json or page_not_json)[:500],
            deprecated=self.deprecated[:500],
            method=self.method,
            path=self.path,
            summary=self.summary,
            parameters=self.located(),
            fields=_placed(_array_paths(tuple(self.fields.values()))),
            passage=self.passage.strip()[:500],
            grounding=self.grounding,
        )


def _array_paths(fields: tuple[ProposedField, ...]) -> tuple[ProposedField, ...]:
    """Fields whose paths cross an array get its ``*``: ``quotes[].price`` and
    ``quotes[*].price`` are written ``quotes.*.price``, and ``quotes.price`` is too where
    another field's path (a JSON example's) shows ``quotes`` is an array; an answer shaped
    as documented then validates."""
    paths = [re.sub(r"\[\*?\]", ".*", f.path).replace("..", ".") for f in fields]
    arrays = set()
    for path in paths:
        parts = path.split(".")
        arrays |= {
            ".".join(p for p in parts[:i] if p != "*") for i, p in enumerate(parts) if p == "*"
        }
    out = []
    for field, path in zip(fields, paths, strict=True):
        walked: list[str] = []
        for part in path.split("."):
            under = ".".join(p for p in walked if p != "*")
            if part != "*" and walked and walked[-1] != "*" and under in arrays:
                walked.append("*")
            walked.append(part)
        fixed = ".".join(walked)
        out.append(field if fixed == field.path else field.model_copy(update={"path": fixed}))
    return tuple(out)


def _placed(fields: tuple[ProposedField, ...]) -> tuple[ProposedField, ...]:
    """A field a table names bare (``air_temp_c``) where the answer's example shows it at
    one place under another (``readings.*.air_temp_c``) is that one, with the table's type,
    unit and description: the bare path would find nothing in an answer shaped as shown
    (trial 17: ``rain_mm`` in mm at the top and ``readings.*.rain_mm`` with no unit)."""
    out = {f.path: f for f in fields}
    for bare in fields:
        if "." in bare.path or bare.path == "*" or not bare.passage.startswith("|"):
            continue
        under = [f for f in fields if f.path.endswith("." + bare.path)]
        if len(under) != 1 or under[0].path not in out:
            continue
        (shown,) = under
        out[shown.path] = shown.model_copy(
            update={
                "json_type": bare.json_type or shown.json_type,
                "unit": bare.unit or shown.unit,
                "description": bare.description or shown.description,
            }
        )
        del out[bare.path]
    return tuple(out.values())


def inspect(text_or_html: str) -> ContractProposal:
    """Read human API docs (HTML, Markdown or plain text) into a :class:`ContractProposal`."""
    if not isinstance(text_or_html, str):
        raise DocumentError("inspect reads text", where="<docs>", hint="Pass the docs as str")
    lines = to_text(text_or_html).splitlines()
    base_url, base_passage = None, ""
    page_form = page_not_json = ""
    sections: list[_Section] = []
    mode = "start"
    header: list[str] | None = None
    fence: list[str] | None = None
    title = ""  # the last heading that names no endpoint ("## Create a note")
    for raw in lines:
        line = raw.strip()
        current = sections[-1] if sections else None
        if line.startswith("```"):
            if fence is None:
                fence = []
                continue
            block, fence = "\n".join(fence), None
            opened = _from_curl(block, sections, base_url, title)
            if opened is not None:
                current, url = opened
                sections.append(current)
                mode, header = "start", None
                if base_url is None:
                    base_url, base_passage = url, current.passage
            _read_block(block, current, mode)
            continue
        if fence is not None:
            fence.append(raw)
            continue
        if line.startswith("#") and not _ENDPOINT.search(line):
            title = _OPENER.sub("", line.lstrip("#")).strip()
        if _CURL.match(line) and (opened := _from_curl(line, sections, base_url, title)):
            current, url = opened
            sections.append(current)
            mode, header = "start", None
            if base_url is None:
                base_url, base_passage = url, line
            _read_block(line, current, mode)
            continue
        if _FORM.search(line) and current is None:
            page_form = page_form or line
        elif _FORM.search(line) and current is not None:
            current.form = current.form or line
        if _not_json(line):
            if current is None:
                page_not_json = page_not_json or line
            else:
                current.not_json = current.not_json or line
        base = _BASE.search(line)
        if base and base_url is None:
            base_url, base_passage = base.group(1).rstrip("/.,;"), line
        found = _ENDPOINT.search(line)
        if found and _defines(line, found):
            heading = line.startswith("#") or _OPENER.sub("", line).startswith(found.group(1))
            sections.append(_Section(found.group(1), found.group(2), line, 0.9 if heading else 0.7))
            mode, header = "start", None
            continue
        if current is None:
            continue
        if not re.match(r"[-*+]\s|\|", line) and _DEPRECATED.search(line):
            current.deprecated = current.deprecated or line
        lowered = line.lower()
        if not line.startswith(("-", "*", "|")) and line:
            # a heading, a line ending in ':', or a short line that is not a sentence: a
            # sentence ("Returns 404 if none match.") never switches params to fields
            label = line.startswith("#") or line.endswith(":")
            label = label or (len(line) < 40 and not line.endswith((".", "!", "?")))
            if label and _FIELDS_LABEL.search(lowered):
                mode, header, current.listed = "fields", None, True
            elif label and _BODY_LABEL.search(lowered) and current.method not in ("GET", "HEAD"):
                mode, header, current.listed = "body", None, True
            elif label and _PARAMS_LABEL.search(lowered):
                mode, header, current.listed = "params", None, True
            elif not line.startswith("#") and not line.endswith(":"):
                current.summary = current.summary or line[:256]
                if not current.listed:
                    current.prose.append(line)
        else:
            current.listed = current.listed or line.startswith(("-", "*", "|"))
        for name in _QUERY.findall(line) if "http" in line or line.startswith("/") else ():
            current.add_query(name, line)
        cells = table_row(line)
        if cells is not None:
            lowered_cells = header_words(cells)
            if (
                header is None and any(c in ("name", "parameter", "field") for c in lowered_cells)
            ) or (header is not None and header_row(lowered_cells)):
                header = lowered_cells  # a table right after another opens with its own header
                continue
            if header is not None:
                _read_row(dict(zip(header, cells, strict=False)), mode, current, line)
            continue
        bullet = _BULLET.match(raw)
        if bullet and (bullet.group(2) or bullet.group(3)):
            name, words, rest = bullet.group(1), bullet.group(2) or "", bullet.group(3)
            kind, required, unit = doc_type(words)
            after = _UNIT_AFTER.match(rest) if words and unit is None else None
            if after and unit_word(after.group(1).strip()):
                unit, rest = after.group(1).strip(), after.group(2)
            unit = unit or (m.group(1) if (m := UNIT.search(rest)) else None)
            grounding = 0.9 if kind else 0.7
            if mode == "fields":
                current.add_field(name, kind, unit, rest, line, grounding)
            else:
                location = "body" if mode == "body" else "query"
                location = "path" if f"{{{name}}}" in current.path else location
                rest = _with_unit(rest, unit)
                required = required or location == "path"
                current.add_param(
                    name, location, kind, required, rest, line, grounding, doc_format(words)
                )
    return ContractProposal(
        base_url=base_url,
        base_url_passage=base_passage,
        endpoints=tuple(s.build(page_form, page_not_json) for s in _merged(sections)),
    )


def _merged(sections: list[_Section]) -> list[_Section]:
    """One section per ``METHOD /path``: a second one (an overview heading, a deprecated
    section written before the current one) is merged into the first, each parameter and
    field kept from its best-grounded passage, so neither copy's evidence is lost."""
    first: dict[tuple[str, str], _Section] = {}
    for section in sections:
        kept = first.setdefault((section.method, section.path), section)
        if kept is section:
            continue
        kept.summary = kept.summary or section.summary
        kept.prose += section.prose
        kept.form, kept.not_json = kept.form or section.form, kept.not_json or section.not_json
        kept.deprecated = kept.deprecated or section.deprecated
        if len(section.params) + len(section.fields) > len(kept.params) + len(kept.fields):
            kept.passage, kept.grounding = section.passage, max(kept.grounding, section.grounding)
        for p in section.params.values():
            kept.add_param(
                p.name, p.location, p.json_type, p.required, p.description, p.passage, p.grounding
            )
        for f in section.fields.values():
            kept.add_field(f.path, f.json_type, f.unit, f.description, f.passage, f.grounding)
    return list(first.values())


def _from_curl(
    text: str, sections: list[_Section], base_url: str | None, title: str
) -> tuple[_Section, str] | None:
    """A new section for the first ``curl`` command in ``text`` that calls a full URL no
    section documents yet (``curl -X POST https://api.example.com/v1/notes``; its method from
    ``-X`` / ``--request``, else POST where it sends data and GET where it does not), with
    the base URL it calls (the page's own where the URL starts with it); ``None`` where there
    is none."""
    for line in text.splitlines():
        if not _CURL.match(line.strip()) or not (url := _CURL_URL.search(line)):
            continue
        said = _CURL_METHOD.search(line)
        method = said.group(1).upper() if said else "POST" if _CURL_DATA.search(line) else "GET"
        if method not in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"):
            return None
        full = url.group(0).rstrip(".,;")
        base = base_url if base_url and full.startswith(base_url.rstrip("/") + "/") else None
        base = base.rstrip("/") if base else url.group(1)
        path = "/" + full[len(base) :].lstrip("/")
        bare = path.split("?")[0]
        for section in sections:
            template = re.sub(r"\\\{[^{}]+\\\}", "[^/]+", re.escape(section.path))
            if section.method == method and re.fullmatch(template, bare):
                return None
        opened = _Section(method, path, line.strip(), 0.7)
        opened.summary = title[:256]
        return opened, base
    return None


def _defines(line: str, found: re.Match[str]) -> bool:
    """Whether ``line``, which names ``METHOD /path``, opens that endpoint: a heading, or a
    line that starts with it (past Markdown marks, or a short label: ``Endpoint: GET /x``).
    A sentence that mentions another endpoint ("To change it, send PATCH /orders/{id}") and
    a list item or table row do not."""
    if line.startswith("#"):
        return True
    if line.startswith(("-", "|", "* ", "+ ")):
        return False
    head = _OPENER.sub("", line)
    return head.startswith(found.group(0).lstrip()) or bool(
        re.match(r"[A-Za-z][\w ]{0,23}:\s*[`*]*" + re.escape(found.group(0).lstrip()), head)
    )


def _with_unit(description: str, unit: str | None) -> str:
    """A parameter's description saying its unit (a parameter has no unit of its own: the
    description is what an agent reads, ``weight of the parcel (unit: kg)``)."""
    if not unit or re.search(rf"(?<!\w){re.escape(unit)}(?!\w)", description):
        return description
    return f"{description} (unit: {unit})".strip()


def _read_row(row: dict[str, str], mode: str, section: _Section, line: str) -> None:
    name = row.get("name") or row.get("parameter") or row.get("field")
    if not name or not re.fullmatch(r"[A-Za-z_][\w.\[\]-]*", name):
        return
    kind, _, unit = doc_type(row.get("type", ""))
    unit = row.get("unit") or unit
    required = row.get("required", "").lower() in _YES
    description = row.get("description", "")
    if mode == "fields" or (mode == "start" and "field" in row):
        section.add_field(name, kind, unit or None, description, line, 0.9 if kind else 0.7)
    else:
        description = _with_unit(description, unit)
        location = row.get("in", "body" if mode == "body" else "query").lower()
        location = "path" if f"{{{name}}}" in section.path else location
        if row.get("in", "").lower() == "query":
            section.queried.add(name)
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
            doc_format(row.get("type", "")),
        )


_TOO_DEEP = object()
#: A JSON example nested deeper than this is skipped (logged): no answer's field sits so
#: deep, and reading one would only make paths of thousands of characters.
_MAX_DEPTH = 32


def _read_block(block: str, section: _Section | None, mode: str) -> None:
    """A fenced block: a JSON example (under a request body label: the body's keys, else the
    answer's fields), else example requests whose query strings name parameters."""
    if section is None:
        return
    try:
        value = json.loads(block)
    except RecursionError:
        value = _TOO_DEEP
    except ValueError:
        for data in _CURL_JSON.findall(block):  # curl -d '{"text": "hi"}': a JSON body
            try:
                sent = json.loads(data)
            except ValueError:
                continue
            for name in sent if isinstance(sent, dict) else ():
                section.add_param(str(name), "body", None, False, "", block.splitlines()[0], 0.6)
            section.sent_body = section.sent_body or isinstance(sent, dict)
        for data in _CURL_DATA.findall(block):  # curl -d "a=1&b=2": a form body's fields
            names = re.findall(r"(?:^|&)([A-Za-z_][\w.-]*)=", data)
            for name in names:
                section.add_param(name, "body", None, False, "", block.splitlines()[0], 0.6)
            if names:
                section.form = section.form or block.splitlines()[0]
        block = _CURL_DATA.sub(" ", block)
        for found in _ENDPOINT.finditer(block):
            for name in _QUERY.findall(found.group(2)):
                section.add_query(name, found.group(0))
        for name in _QUERY.findall(block) if not _ENDPOINT.search(block) else ():
            section.add_query(name, block.splitlines()[0])
        return
    if value is _TOO_DEEP or nested_past(value, _MAX_DEPTH):
        logger.warning(
            "inspect: a JSON example under %s %s nests deeper than %d levels; skipped (%.60r)",
            section.method,
            section.path,
            _MAX_DEPTH,
            block,
        )
        return
    if mode == "body" and not section.sent_body:
        for name, sub in value.items() if isinstance(value, dict) else ():
            kind = _flatten(sub)[0][1] if not isinstance(sub, (dict, list)) else None
            kind = "object" if isinstance(sub, dict) else "array" if isinstance(sub, list) else kind
            section.add_param(str(name), "body", kind, False, "", block[:500], 0.6)
        return
    for path, kind in _flatten(value):
        section.add_field(path, kind, None, "", block[:500], 0.8)
