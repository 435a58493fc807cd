"""Deterministic query understanding, and the ``Analyzer`` protocol an LLM can implement.

:class:`RuleAnalyzer` finds, with no model:

- providers and tools named in the query (by id, display name or alias);
- source constraints (``measured``, ``experimental``, ``DFT``, ``calculated``, ``literature``,
  and their Korean words), which filter routes by provenance;
- identifiers and values: chemical formulas, DOIs, arXiv ids, CAS numbers, material ids,
  dates, numbers with units, ``owner/repo`` repositories (``kubernetes/kubernetes``: an
  ``owner`` and a ``repo``). They bind to route parameters by the parameters' semantic ids
  (or names) and are validated against the parameters' JSON Schemas.
- an identifier written right after the thing it identifies ("CallFire contact 12345", "Box
  folder #3301", "user id u-77"): it binds to the parameter that names that thing's
  identifier (``contact_id``, or ``id`` in ``/contacts/{id}``;
  :func:`~schemarouter.retrieval.identifiers.needed_parameters`), so no lookup is lifted or
  planned for an identifier the request already has.

Whatever an analyzer returns is checked against the registry snapshot by
:func:`gate_analysis` before the router uses it: an unknown provider or tool is dropped and
reported, never passed on.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from schemarouter.contracts import (
    TRANSPORT_LOCATIONS,
    Parameter,
    ParameterLocation,
    Route,
    SourceType,
    schema_validator,
)
from schemarouter.index.gloss import gloss_tokens
from schemarouter.retrieval.formulas import formulas as _formulas
from schemarouter.retrieval.identifiers import (
    ID_LABEL,
    identifier_thing,
    is_plural,
    is_template,
    needed_parameters,
    path_segments,
    stem,
    thing_named,
    things_of,
)
from schemarouter.retrieval.intents import split_intents
from schemarouter.retrieval.sources import source_constraints
from schemarouter.retrieval.values import coerce_value, parameter_kind

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "CURRENCIES",
    "DOMAIN_KINDS",
    "NAMED_IDENTIFIER",
    "Analyzer",
    "BoundValue",
    "QueryAnalysis",
    "RuleAnalyzer",
    "bind_parameters",
    "find_values",
    "fitted_value_count",
    "gate_analysis",
    "named_identifiers",
    "providers_of_every_part",
    "registry_kinds",
]


class BoundValue(BaseModel):
    """A value found in the query: its kind (``chemical.formula``, ``identifier.doi`` ...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    value: str
    start: int = 0
    end: int = 0
    unit: str | None = None
    #: for an identifier the request gives after the thing it identifies (kind
    #: ``identifier.named``: "contact 12345"), that thing's word as written ("contact")
    of: str | None = None


class QueryAnalysis(BaseModel):
    """What a query asks for, as far as the registry can tell."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    named_providers: tuple[str, ...] = ()
    named_routes: tuple[str, ...] = ()
    source_constraints: tuple[SourceType, ...] = ()
    values: tuple[BoundValue, ...] = ()
    #: Parts an analyzer proposed that the registry does not have (reported, not used).
    rejected: tuple[str, ...] = ()
    analyzer: str = "rules"


@runtime_checkable
class Analyzer(Protocol):
    """Anything that turns a query into a :class:`QueryAnalysis` over a registry snapshot."""

    def analyze(self, query: str, snapshot: RegistrySnapshot) -> QueryAnalysis: ...


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # a Korean particle written onto a DOI is no part of it ("10.1000/xyz123이랑", trial X1)
    (
        "identifier.doi",
        re.compile(r"\b10\.\d{4,9}/[^\s\"'<>,;\uac00-\ud7a3]+[^\s\"'<>,;.)\uac00-\ud7a3]"),
    ),
    (
        "identifier.arxiv_id",
        re.compile(
            # an old-style id's archive starts where no letter or hyphen is before it: from
            # every boundary inside "ORD-ORD-..." the run was read to its end again, time
            # quadratic in it (trial X3: 100 kB, over 20 s)
            r"(?:arXiv:\s*)?\b(\d{4}\.\d{4,5}(?:v\d+)?|(?<![a-z\-])[a-z\-]+(?:\.[A-Z]{2})?"
            r"/\d{7}(?:v\d+)?)\b",
            re.IGNORECASE,
        ),
    ),
    ("identifier.cas", re.compile(r"\b\d{2,7}-\d{2}-\d\b")),
    (
        "identifier.material_id",
        re.compile(
            r"\b(?:mp|mvc|oqmd|aflow|cod|JVASP|jvasp|agm|mpds)-\d+(?![^\W\uac00-\ud7a3])"
            r"|(?<![\w\-])[A-Z]{2,5}-\d+(?![^\W\uac00-\ud7a3])"
        ),
    ),
    ("time.date", re.compile(r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")),
    ("time.year", re.compile(r"\b(?:since|after|before|from|in|until)\s+((?:19|20)\d{2})\b")),
    (
        "quantity",
        re.compile(
            r"(?<![\w.])(-?\d+(?:\.\d+)?)\s?(K|°C|GPa|MPa|eV|meV|Å|nm|g/cm\^?3|kJ/mol)(?!\w)"
        ),
    ),
)

#: Kinds of one domain's identifiers whose shapes other codes share (a SKU ``BOL-0042`` is
#: shaped like a material id ``MAT-7``): read only where a registered route has a parameter
#: of that kind; elsewhere the code is left to the identifier-after-its-thing rule.
DOMAIN_KINDS = frozenset(("identifier.material_id", "identifier.cas", "identifier.arxiv_id"))

#: The kind of an identifier given right after the thing it identifies (``BoundValue.of``).
NAMED_IDENTIFIER = "identifier.named"
#: "<thing> <identifier>", "<thing> id: <identifier>", "<thing> #<identifier>", "<thing> with
#: (the) id <identifier>", "<thing> whose id is <identifier>": the identifier
#: has a digit and is a run of letters, digits, ``-`` and ``_`` (12345, L88917, u-77, 77a0f1),
#: its parts perhaps joined by colons (identity us-east-1:9f8e7d: a region-scoped id whole),
#: not a file name (``report-2026.csv``) or a decimal
#: A Korean thing word may stand before it (센서 S-00017: its English gloss is the thing), and
#: a Hangul particle right after it ends it (S-00017의, BOL-0042를).
_NAMED_ID = re.compile(
    rf"\b([A-Za-z]{{3,}}|[\uac00-\ud7a3]+)\s+(?:(?i:{ID_LABEL})|#|no\.\s*)?"
    r"((?=(?:[^\W\uac00-\ud7a3]|-)*\d)[A-Za-z0-9](?:[^\W\uac00-\ud7a3]|-|:(?=[A-Za-z0-9]))*"
    r"[A-Za-z0-9]|\d)"
    r"(?![^\W\uac00-\ud7a3]|-|\.\w)"
)
#: Hangul after an identifier of digits alone that makes it an identifier (a particle, 번:
#: "주문 12345번", "주문 12345의"); any other is a counter or a unit ("파일 3개", "5일").
_PARTICLES = ("의", "을", "를", "은", "는", "이", "가", "에", "로", "와", "과", "도", "번")
_FOLLOWING_WORD = re.compile(r"\s+([A-Za-z]+)")
#: A time of day ("10:30"): no identifier.
_CLOCK = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
#: Words that are never a thing with an identifier after them: function words (a negation
#: too: "customer C-42, not C-43" names no "not" that C-43 identifies), and the nouns
#: of counts, sizes and times ("top 10", "page 2", "season 3", "version 4", "in 2024"), and
#: months and days ("March 2026" is a date, not march id 2026).
_NOT_THINGS = frozenset(
    """a an the of in on at to for from by with about after before since until than and or
    but nor into onto over under per via as is are was were be been being my our your their
    not never except excluding without instead rather
    its his her this that these those all any each every some top last next first past
    within around near up down out off only just also than then now ago more less most least
    year years month months week weeks day days hour hours minute minutes second seconds
    time times page pages step steps level levels version versions season seasons episode
    episodes chapter chapters line lines row rows column columns port ports limit size count
    number total amount price cost rate percent degrees times x
    january february march april june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday
    may friday saturday sunday""".split()  # noqa: SIM905
)
#: After an identifier of digits alone, a plural noun makes it a count ("playlist 50 songs",
#: "folder 12 levels down"); these plurals name what the request asks of the thing it
#: identified ("order 1234 details").
_ASKED_OF = frozenset(
    """details settings stats statistics metrics logs contents analytics permissions
    attachments comments members""".split()  # noqa: SIM905
)


#: A quantity with its unit ("3kg", "10GB", "2.5km"): no identifier.
_UNITS = (
    r"kg|mg|g|km|cm|mm|mi|ft|lbs?|oz|ml|kb|mb|gb|tb|hrs?|min|ms|kwh|mwh|wh|kw|mw|hz|khz|mhz|ghz"
)
#: Currencies by code or English name ("50 USD", "20 euros"); planning reads amounts by them.
CURRENCIES = r"usd|eur|gbp|jpy|krw|cny|chf|cad|aud|inr|dollars?|euros?|yen|won|yuan"
#: A currency's code, written before its sum as often as after ("USD 20"): no thing.
_CODE_BEFORE = re.compile(r"usd|eur|gbp|jpy|krw|cny|chf|cad|aud|inr", re.IGNORECASE)
_QUANTITY = re.compile(rf"\d+(?:\.\d+)?(?:{_UNITS})", re.IGNORECASE)
#: A unit, currency or share written after a number ("50 USD", "3 kg", "20%", "500 yen"):
#: the number is an amount, not the identifier of the thing before it (trial K's "refund
#: 15000원" in English: "refund 50 USD" bound ``refund_id=50``).
_UNIT_AFTER = re.compile(
    rf"\s*(?:%|(?:{_UNITS}|l|{CURRENCIES}|pounds?|percent|pct|per\s+cent|units?|pieces?|pcs)\b)",
    re.IGNORECASE,
)
#: Korean verb endings: a word ending so asks for something ("연결해줘", "보여줘",
#: "확인해 주세요"); no thing whose identifier follows (trial K: "connect id 'C-1001'").
_KO_VERB_END = re.compile(r"(?:줘|해|봐|요|세요|할게|하고|해서|하기)$")


def _named_identifiers(text: str, things: Container[str] = ()) -> list[tuple[str, str, int, int]]:
    """``(thing, identifier, start, end)`` for each identifier written after its thing; a
    Korean thing word is one the glossary knows, or one of ``things`` (a parameter's alias)."""
    found = []
    for match in _NAMED_ID.finditer(text):
        thing, token = match.group(1), match.group(2)
        after = text[match.end(2) : match.end(2) + 1]
        if token.isdigit() and "\uac00" <= after <= "\ud7a3" and not after.startswith(_PARTICLES):
            continue  # a count or an amount ("파일 3개", "refund 15000원"), after any thing word
        if (
            _QUANTITY.fullmatch(token)
            or _CLOCK.fullmatch(token)
            or (not thing.isascii() and _KO_VERB_END.search(thing))
        ):
            continue  # "배송비 3kg" weighs, "10:30" is a time; "연결해줘 C-1001" asks
        thing = thing_named(text, match.start(1), thing, things, gloss_tokens)
        if thing is None or thing in _NOT_THINGS:
            continue  # a Korean word the glossary does not know, or a function word
        if _CODE_BEFORE.fullmatch(thing) and token[0].isdigit():
            continue  # a sum, its currency's code first ("Send USD 20", "usd 20")
        if token.isdigit():
            if _UNIT_AFTER.match(text, match.end(2)):
                continue  # an amount, a share or a weight ("refund 50 USD", "order 3 kg")
            following = _FOLLOWING_WORD.match(text, match.end(2))
            word = following.group(1).lower() if following else ""
            if is_plural(word) and word not in _ASKED_OF:
                continue
        found.append((thing, token, match.start(2), match.end(2)))
    return found


#: ``owner/repo`` as a code host writes it, not inside a URL, a path or a date
_REPOSITORY = re.compile(
    r"(?<![\w./:@-])([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9][A-Za-z0-9._-]{0,99})"
    r"(?![\w/])"
)
#: pairs written with a slash that are words, not repositories
_SLASH_WORDS = frozenset(
    {
        "and/or",
        "either/or",
        "input/output",
        "read/write",
        "client/server",
        "request/response",
        "yes/no",
        "true/false",
        "on/off",
        "open/closed",
        "open/close",
        "start/stop",
        "get/set",
        "import/export",
        "upload/download",
        "pros/cons",
        "his/her",
        "he/she",
    }
)


def _repositories(text: str) -> list[tuple[str, str, int, int]]:
    """``(owner, repo, start, end)`` of each ``owner/repo`` in ``text``: both parts with a
    letter, not both three characters or fewer (``and/or``, ``km/h``), not a word pair."""
    found = []
    for match in _REPOSITORY.finditer(text):
        owner, repo = match.group(1), match.group(2).rstrip(".")
        if not (re.search(r"[A-Za-z]", owner) and re.search(r"[A-Za-z]", repo)):
            continue
        if max(len(owner), len(repo)) <= 3 or f"{owner}/{repo}".lower() in _SLASH_WORDS:
            continue
        found.append((owner, repo, match.start(1), match.start(2) + len(repo)))
    return found


_NAME_TOKEN = re.compile(r"[0-9a-z]+|[\uac00-\ud7a3]+|[\u4e00-\u9fff]+")
_MAX_NAME_WORDS = 8
#: a separator, a path or an inner capital: a name someone typed on purpose
_IDENTIFIER_LIKE = re.compile(r"[_/.{}]|[a-z][A-Z]|\d")


def _name_tokens(text: str) -> tuple[str, ...]:
    return tuple(_NAME_TOKEN.findall(text.lower().replace("_", " ")))


class NameTable(NamedTuple):
    """Provider and endpoint names of one snapshot, for O(query length) lookups."""

    #: word tuple of a provider id, display name or alias -> provider ids
    providers: Mapping[tuple[str, ...], frozenset[str]]
    #: CJK names, matched as substrings (particles attach to Korean words)
    cjk_providers: tuple[tuple[str, str], ...]
    #: lower-cased endpoint name (6+ characters) -> route ids
    endpoints: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, snapshot: RegistrySnapshot) -> NameTable:
        # which providers' routes use each word: a one-word provider name that other
        # providers' routes also use ("weather", "search") is a topic, not a name
        word_providers: dict[str, set[str]] = {}
        for route in snapshot.routes.values():
            endpoint = route.endpoint
            text = " ".join((route.provider.display_name, endpoint.name, endpoint.description))
            for word in set(_name_tokens(text)):
                word_providers.setdefault(word, set()).add(route.provider.id)
        providers: dict[tuple[str, ...], set[str]] = {}
        cjk: list[tuple[str, str]] = []
        for provider in snapshot.providers.values():
            for name in (provider.id, provider.display_name, *provider.aliases):
                if len(name) < 2:
                    continue
                if any("\uac00" <= ch <= "\ud7a3" or "\u4e00" <= ch <= "\u9fff" for ch in name):
                    cjk.append((name.lower().replace(" ", ""), provider.id))
                    continue
                words = _name_tokens(name)
                if not words or len(words) > _MAX_NAME_WORDS:
                    continue
                if len(words) == 1 and word_providers.get(words[0], set()) - {provider.id}:
                    continue
                providers.setdefault(words, set()).add(provider.id)
        endpoints: dict[str, set[str]] = {}
        for route in snapshot.routes.values():
            name = route.endpoint.name.lower()
            # only identifier-like names force a route ("search_summary", "GET /movie/{id}");
            # a plain word ("search", "players") is what the query is about, not a name
            if len(name) >= 6 and _IDENTIFIER_LIKE.search(route.endpoint.name):
                endpoints.setdefault(name, set()).add(route.route_id)
        return cls(
            providers={k: frozenset(v) for k, v in providers.items()},
            cjk_providers=tuple(sorted(cjk)),
            endpoints={k: frozenset(v) for k, v in endpoints.items()},
        )

    def named_providers(self, query: str) -> list[str]:
        words = _name_tokens(query)
        found: dict[str, None] = {}
        for n in range(1, min(_MAX_NAME_WORDS, len(words)) + 1):
            for i in range(len(words) - n + 1):
                for provider in sorted(self.providers.get(words[i : i + n], ())):
                    found[provider] = None
        compact = query.lower().replace(" ", "")
        for name, provider in self.cjk_providers:
            if name in compact:
                found[provider] = None
        return list(found)

    def named_routes(self, query: str) -> list[str]:
        words = re.findall(r"[^\s,;:!?'\"()]+", query.lower())
        candidates = set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}
        found: set[str] = set()
        for text in candidates:
            found.update(self.endpoints.get(text.rstrip("."), ()))
        return sorted(found)


def providers_of_every_part(query: str, snapshot: RegistrySnapshot) -> tuple[str, ...]:
    """The providers ``query`` names, where each of its parts names one of them (a plan keeps
    to them); none where a part names none: "band gap of GaN, and also recent arXiv preprints
    about it" names arXiv for its second part only, and kept to arXiv its plan was empty."""
    names = snapshot.derived("query.names", NameTable.of)
    named = [names.named_providers(part) for part in split_intents(query)]
    if not all(named):
        return ()
    return tuple(dict.fromkeys(p for found in named for p in found))


class RuleAnalyzer:
    """Deterministic analyzer: regular expressions and the registry's own names."""

    name = "rules"

    def analyze(self, query: str, snapshot: RegistrySnapshot) -> QueryAnalysis:
        names = snapshot.derived("query.names", NameTable.of)
        sources = source_constraints(query)
        return QueryAnalysis(
            text=query,
            named_providers=tuple(names.named_providers(query)),
            named_routes=tuple(names.named_routes(query)),
            source_constraints=sources,
            values=tuple(
                find_values(
                    query,
                    kinds=registry_kinds(snapshot),
                    things=snapshot.derived("query.things", _things_of),
                )
            ),
            analyzer=self.name,
        )


def registry_kinds(snapshot: RegistrySnapshot) -> frozenset[str]:
    """The value kinds the parameters of ``snapshot``'s routes take (read once per snapshot)."""
    return snapshot.derived("query.kinds", _kinds_of)


def _kinds_of(snapshot: RegistrySnapshot) -> frozenset[str]:
    """The value kinds the parameters of ``snapshot``'s routes take."""
    kinds = (parameter_kind(p) for r in snapshot.routes.values() for p in r.endpoint.parameters)
    return frozenset(kind for kind in kinds if kind is not None)


def _of(kind: str) -> str:
    """The thing a kind identifies (``identifier.material_id``: ``material``)."""
    return stem(kind.rsplit(".", 1)[-1].removesuffix("_id"))


def _things_of(snapshot: RegistrySnapshot) -> frozenset[str]:
    return things_of(snapshot.routes.values())


class _Spans:
    """The spans of a request its values took, apart and in order: whether a span is free
    is found by bisection (read against every one taken, "room R1, " 10,000 times took 1.5 s
    and 30,000 times 13 s: trial V1)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, end)  # the spans that start before it ends
        return before == 0 or self.ends[before - 1] <= start

    def take(self, start: int, end: int) -> None:
        at = bisect.bisect_left(self.starts, start)
        self.starts.insert(at, start)
        self.ends.insert(at, end)


def find_values(
    query: str, *, kinds: Container[str] | None = None, things: Container[str] = ()
) -> list[BoundValue]:
    """Identifiers and values in ``query``, in order of appearance, without overlaps.
    ``kinds``: the kinds a registry's parameters take; a kind of :data:`DOMAIN_KINDS` not
    among them is not read (``None``: every kind is). ``things``: words naming a thing whose
    identifier a registered parameter takes (:func:`things_of`): a code written right after
    one ("chamber GB-2", "시료 S-12의") is that thing's identifier, not a material id."""
    found: list[BoundValue] = []
    spans = _Spans()
    named = _named_identifiers(query, things)
    # a code after a thing a parameter takes is that thing's ("chamber GB-2"), but for the
    # thing a domain kind names itself ("material MAT-7" stays a material id)
    owned = {(s, e): stem(t) for t, _, s, e in named if t.lower() in things or stem(t) in things}

    free = spans.free

    for kind, pattern in _PATTERNS:
        if kinds is not None and kind in DOMAIN_KINDS and kind not in kinds:
            continue
        for match in pattern.finditer(query):
            group = 1 if match.groups() and match.group(1) is not None else 0
            start, end = match.span(group)
            thing = owned.get((start, end))
            if not free(start, end) or (kind in DOMAIN_KINDS and thing not in (None, _of(kind))):
                continue
            unit = match.group(2) if kind == "quantity" else None
            found.append(
                BoundValue(kind=kind, value=match.group(group), start=start, end=end, unit=unit)
            )
            spans.take(start, end)
    for owner, repo, start, end in _repositories(query):
        if free(start, end):  # one owner/repo fills two parameters
            middle = start + len(owner)
            found.append(BoundValue(kind="repository.owner", value=owner, start=start, end=middle))
            found.append(BoundValue(kind="repository.name", value=repo, start=middle + 1, end=end))
            spans.take(start, end)
    for token, start, end in _formulas(query):
        if free(start, end):
            found.append(BoundValue(kind="chemical.formula", value=token, start=start, end=end))
            spans.take(start, end)
    for thing, token, start, end in named:
        if free(start, end):
            found.append(
                BoundValue(kind=NAMED_IDENTIFIER, value=token, start=start, end=end, of=thing)
            )
            spans.take(start, end)
    return sorted(found, key=lambda v: v.start)


def named_identifiers(values: Iterable[BoundValue]) -> dict[str, str]:
    """Thing (:func:`~schemarouter.retrieval.identifiers.stem`) -> the identifier the request
    gives after it ("contact 12345": ``{"contact": "12345"}``, the first where several): what
    :func:`bind_parameters` binds, and the things a route needs no lookup for."""
    found: dict[str, str] = {}
    for value in values:
        if value.kind == NAMED_IDENTIFIER and value.of:
            found.setdefault(stem(value.of), value.value)
    return found


def fitted_value_count(analysis: QueryAnalysis) -> int:
    """How many values (not identifiers after a thing) the request gives, read as the
    shipped abstention model was fit with: the rules' reading with every kind (a code shaped
    like a material id counts where no route takes one, as it did then); an analyzer's own
    values where another analyzer read the request."""
    values: Iterable[BoundValue] = analysis.values
    if analysis.analyzer == RuleAnalyzer.name and any(
        pattern.search(analysis.text) for kind, pattern in _PATTERNS if kind in DOMAIN_KINDS
    ):  # read again only where a kind the registry skipped is in the request at all
        values = find_values(analysis.text)
    return sum(v.kind != NAMED_IDENTIFIER for v in values)


def _collections(route: Route, name: str) -> list[str]:
    """The segments before path parameter ``name``'s template back to the template before it,
    nearest first: ``structures`` of ``/structures/{entry_id}``; ``selling``, ``orders``, ``my``
    of ``/my/orders/selling/{id}`` (trial 22: "order 88123" bound no ``id`` of the latter)."""
    segments = path_segments(route)
    template = "{" + name + "}"
    at = segments.index(template) if template in segments else 0
    before = list(itertools.takewhile(lambda s: not is_template(s), reversed(segments[:at])))
    return [stem(segment) for segment in before]


def bind_parameters(route: Route, values: Iterable[BoundValue]) -> dict[str, Any]:
    """Bind query values to ``route``'s parameters by kind, and an identifier given after its
    thing to the parameter needing that thing's identifier; keep only schema-valid ones."""
    by_kind: dict[str, list[BoundValue]] = {}
    for value in values:
        by_kind.setdefault(value.kind, []).append(value)
    bound: dict[str, Any] = {}
    parameters = {parameter.name: parameter for parameter in route.endpoint.parameters}

    def bind(parameter: Parameter, value: str) -> None:
        candidate = coerce_value(value, parameter.json_schema)
        if schema_validator(parameter.json_schema).is_valid(candidate):
            bound[parameter.name] = candidate

    for parameter in parameters.values():
        kind = parameter_kind(parameter)
        if kind is not None and kind in by_kind:
            bind(parameter, by_kind[kind][0].value)
    named = named_identifiers(by_kind.get(NAMED_IDENTIFIER, ()))
    if named:
        for name, thing in needed_parameters(route):
            if name not in bound and thing in named:
                bind(parameters[name], named[thing])
        for parameter in parameters.values():  # the thing words the parameter declares
            if parameter.name in bound:
                continue
            found = next((named[a] for a in map(stem, parameter.aliases) if a in named), None)
            if found is None and parameter.location is ParameterLocation.PATH:
                found = named.get(stem(parameter.name))  # "SKU ABC-1" -> /inventory/{sku}
                if found is None:  # "structure koptimade-42" -> /structures/{entry_id} (T3)
                    owner = (c for c in _collections(route, parameter.name) if c in named)
                    found = named.get(next(owner, ""))
            if found is None and parameter.location not in TRANSPORT_LOCATIONS:
                # an optional ``item_id`` takes "item SKU-1001": the request names its thing
                # (trial B: the plan warned that no step takes the id it had a parameter for);
                # so does a ``meter`` whose semantic id is ``identifier.meter_id`` (trial A)
                kind = (parameter.semantic_id or "").partition("identifier.")[2]
                whose = identifier_thing(parameter.name) or (kind and identifier_thing(kind))
                found = named.get(whose) if whose else None
            if found is not None:
                bind(parameter, found)
    return bound


def gate_analysis(analysis: QueryAnalysis, snapshot: RegistrySnapshot) -> QueryAnalysis:
    """Drop (and report) providers and routes the registry does not have."""
    rejected = list(analysis.rejected)

    def registered(names: Sequence[str], known: Container[str], kind: str) -> tuple[str, ...]:
        rejected.extend(f"{kind}:{name}" for name in names if name not in known)
        return tuple(name for name in names if name in known)

    kept_providers = registered(analysis.named_providers, snapshot.providers, "provider")
    kept_routes = registered(analysis.named_routes, snapshot.routes, "route")
    return analysis.model_copy(
        update={
            "named_providers": kept_providers,
            "named_routes": kept_routes,
            "rejected": tuple(rejected),
        }
    )
