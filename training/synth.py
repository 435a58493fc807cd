"""Synthetic routing queries written from a catalog's own contracts (no model, no network).

For each route, :func:`synth_queries` writes a few queries from what the route declares,
each drawn from one *family* of templates:

* ``describe``: the first sentence of the summary or description turned into a request
  ("Returns the list of buckets" -> "Can you list the buckets?"), verbs swapped for
  synonyms and a few words dropped, so the model cannot win by copying text;
* ``name``: the operation or tool name split into words ("DescribeInstances" ->
  "describe instances"), with an argument value filled in from a parameter's name;
* ``field``: one or two output fields asked for by name, semantic id or alias;
  ``unit``: a field with a declared unit asked for in that unit;
* ``provider``: the request naming its provider ("use Box to ...");
* ``korean``: a Korean request built around the field's Korean alias where there is one,
  else around the English phrase (as Korean users write it);
* ``multi``: two requests joined in one query (StableToolBench style); both routes are
  positives.

Deterministic from ``seed``. Queries are tagged with their family and the fields they ask
for; every positive is a registered route of the catalog the queries were written from.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from schemarouter.contracts import OutputField, Route
from schemarouter.index.documents import clean_text

__all__ = ["FAMILIES", "SynthQuery", "name_words", "request_phrase", "synth_queries"]

#: Template families and their default weights.
FAMILIES: dict[str, float] = {
    "describe": 0.34,
    "name": 0.14,
    "field": 0.14,
    "unit": 0.04,
    "provider": 0.12,
    "korean": 0.06,
    "multi": 0.16,
}


@dataclass(frozen=True)
class SynthQuery:
    """One synthetic query: its text, the routes that serve it, how it was written."""

    text: str
    routes: tuple[str, ...]
    family: str
    fields: tuple[str, ...] = ()


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_WORD = re.compile(r"[^0-9A-Za-z\u00C0-\uFFFF]+")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_BOILERPLATE = re.compile(
    r"^(?:this|the)\s+(?:api|endpoint|operation|tool|method|function|plugin|action|call)\s+"
    r"(?:will\s+|can\s+|is used to\s+|allows you to\s+|lets you\s+|helps you\s+)?"
    r"|^(?:use this (?:tool |endpoint |api )?to|used to|allows you to|lets you|helps you)\s+",
    re.IGNORECASE,
)

_VERBS = {
    "returns": "get",
    "gets": "get",
    "retrieves": "retrieve",
    "fetches": "fetch",
    "lists": "list",
    "creates": "create",
    "deletes": "delete",
    "removes": "remove",
    "updates": "update",
    "modifies": "modify",
    "describes": "describe",
    "searches": "search",
    "finds": "find",
    "provides": "get",
    "gives": "give",
    "shows": "show",
    "adds": "add",
    "sets": "set",
    "checks": "check",
    "generates": "generate",
    "converts": "convert",
    "sends": "send",
    "calculates": "calculate",
    "translates": "translate",
    "downloads": "download",
    "uploads": "upload",
    "starts": "start",
    "stops": "stop",
    "cancels": "cancel",
    "queries": "query",
    "looks": "look",
    "enables": "enable",
    "disables": "disable",
    "registers": "register",
    "validates": "validate",
    "analyzes": "analyze",
    "predicts": "predict",
    "recommends": "recommend",
}
_SYNONYMS = {
    "get": ("fetch", "retrieve", "look up", "find", "obtain", "show me"),
    "retrieve": ("get", "fetch", "look up"),
    "fetch": ("get", "retrieve"),
    "list": ("show all", "enumerate", "get all", "list all"),
    "create": ("make", "add", "set up", "register"),
    "delete": ("remove", "drop", "get rid of"),
    "remove": ("delete", "drop"),
    "update": ("modify", "change", "edit"),
    "search": ("find", "look for", "search for"),
    "describe": ("show details of", "get details of", "explain"),
    "find": ("search for", "look up", "locate"),
    "check": ("verify", "test"),
    "generate": ("create", "produce", "make"),
}
_PREFIXES = (
    "",
    "",
    "",
    "Can you ",
    "Please ",
    "I want to ",
    "I need to ",
    "How can I ",
    "Help me ",
    "Is there a way to ",
    "I'd like to ",
    "Could you ",
)
_SCENES = (
    "",
    "",
    "",
    "",
    "I'm building a dashboard. ",
    "For my research project, ",
    "My team is planning a trip. ",
    "I'm writing a report and ",
    "As a developer, ",
    "For a client meeting tomorrow, ",
)
_JOINS = (" and ", ". Also, ", ", and then ", ". After that, ", "; also ")
_KOREAN = (
    "{x} 알려줘",
    "{x} 조회해 줘",
    "{x}를 찾아줘",
    "{x} 검색해줘",
    "{x} 값이 얼마야?",
    "{x}에 대한 정보 좀 줘",
)
_VALUES = (
    (("city", "location", "place", "region", "address"), ("Paris", "Tokyo", "Seoul", "Berlin")),
    (("country",), ("Germany", "Japan", "Brazil", "Korea")),
    (("date", "day", "time", "start", "end", "year"), ("2023-05-01", "next Monday", "2021")),
    (("email",), ("alice@example.com",)),
    (("url", "link", "domain", "website", "site"), ("example.com", "https://news.example.org")),
    (("symbol", "ticker", "stock"), ("AAPL", "TSLA", "MSFT")),
    (("movie", "film", "title", "show"), ("Inception", "The Matrix", "Parasite")),
    (("artist", "singer", "band"), ("Taylor Swift", "BTS", "Radiohead")),
    (("player", "team", "club"), ("Lionel Messi", "Real Madrid")),
    (("formula", "material", "compound", "element"), ("GaAs", "Si", "LiFePO4", "TiO2")),
    (("lang", "language", "locale"), ("French", "Korean", "Spanish")),
    (("currency",), ("USD", "EUR", "KRW")),
    (("name", "user", "username", "person", "author"), ("John Smith", "Marie Curie")),
    (("query", "keyword", "term", "search", "q", "text"), ("jazz", "climate change", "pizza")),
    (("bucket", "instance", "cluster", "stream", "table"), ("my-data", "prod-cluster")),
    (("id", "key", "number", "code"), ("12345", "A-7781", "42")),
)
_BASE_VERBS = (
    frozenset(_VERBS.values())
    | frozenset(_SYNONYMS)
    | frozenset(
        [
            "restore",
            "assign",
            "copy",
            "move",
            "invite",
            "apply",
            "attach",
            "detach",
            "put",
            "post",
            "run",
            "execute",
            "share",
            "lock",
            "unlock",
            "rename",
            "reset",
            "submit",
            "tag",
            "untag",
            "import",
            "export",
            "associate",
            "disassociate",
            "promote",
            "publish",
            "reboot",
            "terminate",
            "authorize",
            "revoke",
            "accept",
            "reject",
            "confirm",
            "subscribe",
            "unsubscribe",
            "purchase",
            "request",
            "test",
            "compare",
            "merge",
            "split",
            "replace",
            "preview",
            "count",
            "summarize",
            "extract",
            "parse",
            "play",
            "pause",
            "schedule",
            "book",
            "order",
            "pay",
            "transfer",
            "convert",
            "translate",
            "calculate",
            "estimate",
            "track",
            "monitor",
            "watch",
            "read",
            "write",
            "open",
            "close",
            "save",
            "load",
            "view",
            "display",
            "show",
            "give",
            "tell",
        ]
    )
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_MATERIALS = ("silicon", "GaAs", "LiCoO2", "TiO2", "copper", "graphite", "Al2O3")


def name_words(name: str) -> str:
    """``"DescribeInstances"`` / ``"get_weather-forecast"`` -> lowercase words."""
    spaced = _CAMEL.sub(" ", name)
    return " ".join(w.lower() for w in _NON_WORD.split(spaced) if w)


def _first_sentence(text: str, max_words: int = 18) -> str:
    text = clean_text(text, 400)
    if not text:
        return ""
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z])", text)
    sentence = text[: match.start()] if match else text
    sentence = _BOILERPLATE.sub("", sentence.strip()).strip(" .:;")
    words = sentence.split()
    return " ".join(words[:max_words])


def request_phrase(sentence: str, rng: random.Random) -> str:
    """A declarative description sentence as an imperative request, lightly paraphrased."""
    words = sentence.split()
    if not words:
        return ""
    first = words[0].lower()
    verb = _VERBS.get(first)
    if verb is None and first.endswith("ies") and len(first) > 4:
        verb = first[:-3] + "y"
    if verb is not None:
        words[0] = verb
    else:
        words[0] = words[0][0].lower() + words[0][1:] if not words[0].isupper() else words[0]
    head = words[0].lower()
    if head in _BASE_VERBS:
        words[0] = head
        verb = head
    if head in _SYNONYMS and rng.random() < 0.5:
        words[0] = rng.choice(_SYNONYMS[head])
    elif verb is None and rng.random() < 0.7:
        words.insert(0, rng.choice(("get", "find", "show me", "look up")))
    if len(words) >= 6:  # drop one inner word now and then: no copying the text verbatim
        drop = rng.randrange(1, len(words)) if rng.random() < 0.5 else -1
        words = [w for i, w in enumerate(words) if i != drop]
    return " ".join(words)


def _value_for(route: Route, rng: random.Random) -> str:
    params = list(route.endpoint.parameters)
    rng.shuffle(params)
    for param in params:
        words = set(name_words(param.name).split())
        for cues, values in _VALUES:
            if words & set(cues):
                return rng.choice(values)
    return ""


def _field_phrase(item: OutputField, rng: random.Random, *, english: bool = True) -> str:
    options = [name_words(item.name)]
    if item.semantic_id:
        options.append(item.semantic_id.rsplit(".", 1)[-1].replace("_", " "))
    aliases = [a for a in item.aliases if bool(_HANGUL.search(a)) != english]
    options.extend(aliases)
    if item.description and english:
        short = _ARTICLE.sub("", _first_sentence(item.description, 8))
        if short and len(short) < 60:
            options.append(short.lower())
    options = [o for o in options if o]
    return rng.choice(options) if options else ""


def _finish(text: str, rng: random.Random) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    if rng.random() < 0.3:
        text = text.rstrip(".?!") + "?"
    return text[0].upper() + text[1:] if rng.random() < 0.8 else text


def _describe(route: Route, rng: random.Random, *, scene: bool = True) -> str:
    ep = route.endpoint
    sentence = _first_sentence(ep.summary) or _first_sentence(ep.description)
    if not sentence:
        return _name(route, rng)
    request = request_phrase(sentence, rng)
    value = _value_for(route, rng) if rng.random() < 0.4 else ""
    if value:
        request += f" for {value}"
    head = ""
    if scene:
        where, prefix = rng.choice(_SCENES), rng.choice(_PREFIXES)
        if prefix and not where.endswith(". "):
            prefix = prefix if prefix.startswith(("I ", "I'")) else prefix[0].lower() + prefix[1:]
        head = where + prefix
    return _finish(head + request, rng)


def _name(route: Route, rng: random.Random) -> str:
    words = name_words(route.endpoint.name)
    if not words:
        return ""
    first, _, rest = words.partition(" ")
    if first in _SYNONYMS and rng.random() < 0.5:
        words = f"{rng.choice(_SYNONYMS[first])} {rest}".strip()
    value = _value_for(route, rng)
    if value and rng.random() < 0.7:
        words += rng.choice((" for ", " of ", " with ", " about ")) + value
    return _finish(rng.choice(_PREFIXES) + words, rng)


def _fields(route: Route, rng: random.Random, *, unit: bool) -> tuple[str, tuple[str, ...]]:
    fields = list(route.endpoint.output_fields)
    if unit:
        fields = [f for f in fields if f.unit]
    if not fields:
        return "", ()
    picked = rng.sample(fields, min(len(fields), 2 if rng.random() < 0.35 and not unit else 1))
    phrases = [_field_phrase(f, rng) for f in picked]
    if not all(phrases):
        return "", ()
    what = " and ".join(phrases)
    entity = _value_for(route, rng) or (
        rng.choice(_MATERIALS) if any(f.unit or f.semantic_id for f in picked) else ""
    )
    if unit:
        text = (
            f"{what} of {entity} in {picked[0].unit}" if entity else f"{what} in {picked[0].unit}"
        )
    else:
        template = rng.choice(
            (
                "what is the {w} of {e}",
                "{w} for {e}",
                "give me the {w} of {e}",
                "I need the {w} for {e}",
                "{e} {w}",
            )
            if entity
            else ("what is the {w}", "get {w}", "show the {w}", "{w} values", "list {w}")
        )
        text = template.format(w=what, e=entity)
    return _finish(text, rng), tuple(f.name for f in picked)


def _provider(route: Route, rng: random.Random) -> str:
    name = route.provider.display_name
    if route.provider.aliases and rng.random() < 0.4:
        name = rng.choice(route.provider.aliases)
    ep = route.endpoint
    sentence = _first_sentence(ep.summary) or _first_sentence(ep.description)
    request = request_phrase(sentence, rng) if sentence else name_words(ep.name)
    template = rng.choice(
        ("use {p} to {r}", "{r} on {p}", "{p}: {r}", "using the {p} API, {r}", "{r} with {p}")
    )
    return _finish(template.format(p=name, r=request), rng)


def _korean(route: Route, rng: random.Random) -> tuple[str, tuple[str, ...]]:
    fields = list(route.endpoint.output_fields)
    korean = [f for f in fields if any(_HANGUL.search(a) for a in f.aliases)]
    if korean:
        item = rng.choice(korean)
        phrase = _field_phrase(item, rng, english=False)
        entity = rng.choice(("실리콘", "구리", "GaAs", "LiCoO2", "")) if item.unit else ""
        phrase = f"{entity} {phrase}".strip()
        return rng.choice(_KOREAN).format(x=phrase), (item.name,)
    phrase = name_words(route.endpoint.name)
    return (rng.choice(_KOREAN).format(x=phrase), ()) if phrase else ("", ())


def synth_queries(
    routes: Sequence[Route],
    *,
    per_route: int = 2,
    seed: int = 0,
    weights: dict[str, float] | None = None,
) -> list[SynthQuery]:
    """About ``per_route`` synthetic queries for each route (see the module docstring)."""
    rng = random.Random(seed)
    weights = dict(weights or FAMILIES)
    families = list(weights)
    by_provider: dict[str, list[Route]] = {}
    for route in routes:
        by_provider.setdefault(route.provider.id, []).append(route)
    out: list[SynthQuery] = []
    seen: set[str] = set()
    for route in routes:
        for _ in range(per_route):
            family = rng.choices(families, [weights[f] for f in families])[0]
            fields: tuple[str, ...] = ()
            positives: tuple[str, ...] = (route.route_id,)
            if family == "describe":
                text = _describe(route, rng)
            elif family == "name":
                text = _name(route, rng)
            elif family in ("field", "unit"):
                text, fields = _fields(route, rng, unit=family == "unit")
                if not text:
                    family, text = "describe", _describe(route, rng)
            elif family == "provider":
                text = _provider(route, rng)
            elif family == "korean":
                text, fields = _korean(route, rng)
            else:
                siblings = [r for r in by_provider[route.provider.id] if r is not route]
                pool = siblings if siblings and rng.random() < 0.5 else list(routes)
                other = rng.choice(pool)
                if other.route_id == route.route_id:
                    family, text = "describe", _describe(route, rng)
                else:
                    first = _describe(route, rng).rstrip("?")
                    second = (
                        _describe(other, rng, scene=False)
                        if rng.random() < 0.6
                        else _name(other, rng)
                    )
                    second = second[:1].lower() + second[1:]
                    text = first + rng.choice(_JOINS) + second
                    positives = (route.route_id, other.route_id)
            text = " ".join(text.split())
            if not text or text.lower() in seen:
                continue
            seen.add(text.lower())
            out.append(SynthQuery(text, positives, family, fields))
    return out
