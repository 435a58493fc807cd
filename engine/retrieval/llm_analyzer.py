"""An LLM-backed :class:`~schemarouter.retrieval.analysis.Analyzer` over an OpenAI-compatible
endpoint.

The routing prompt is schema-independent (the paper's point): it lists provider ids and the
value kinds, never the whole catalog. Whatever the model answers is parsed defensively and
then passes through :func:`~schemarouter.retrieval.analysis.gate_analysis` in the router: invented
providers or routes are dropped and reported. If the endpoint fails or answers garbage, the
deterministic :class:`~schemarouter.retrieval.analysis.RuleAnalyzer` answers instead and the
analysis says so.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any

import httpx

from schemarouter.contracts import SourceType
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue, QueryAnalysis, RuleAnalyzer
from schemarouter.retrieval.clauses import CONTINUED

__all__ = ["DEFAULT_LLM_TIMEOUT", "OpenAICompatibleAnalyzer"]

logger = logging.getLogger(__name__)

DEFAULT_LLM_TIMEOUT = 20.0
_KINDS = (
    "chemical.formula",
    "identifier.doi",
    "identifier.arxiv_id",
    "identifier.cas",
    "identifier.material_id",
    "time.date",
    "time.year",
    "quantity",
)

_SYSTEM = """You extract routing facts from a data request. Answer with one JSON object:
{"named_providers": [provider ids named in the request, only from the list],
 "source_constraints": [any of "experimental", "calculated", "literature", "business", "web"],
 "values": [{"kind": one of %s, "value": "..."}]}
Providers: %s"""


class OpenAICompatibleAnalyzer:
    """Ask a chat-completions endpoint for providers, provenance words and values."""

    name = "llm"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str | None = "OPENAI_API_KEY",
        client: httpx.Client | None = None,
        timeout: float = DEFAULT_LLM_TIMEOUT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self._client = client or httpx.Client(timeout=timeout)
        self._fallback = RuleAnalyzer()

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        return {"Authorization": f"Bearer {key}"} if key else {}

    def analyze(self, query: str, snapshot: RegistrySnapshot) -> QueryAnalysis:
        providers = sorted(snapshot.providers)
        payload = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": _SYSTEM % (list(_KINDS), ", ".join(providers))},
                {"role": "user", "content": query},
            ],
        }
        try:
            response = self._client.post(
                f"{self.base_url}/chat/completions", json=payload, headers=self._headers()
            )
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
            answer = json.loads(content)
            if not isinstance(answer, dict):
                raise ValueError("the answer is not a JSON object")
        # RecursionError: JSON nested past the parser's depth (a hostile or broken answer)
        except (
            httpx.HTTPError,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
            RecursionError,
        ) as exc:
            logger.warning("LLM analyzer failed (%s); using the rule analyzer", exc)
            fallback = self._fallback.analyze(query, snapshot)
            return fallback.model_copy(update={"analyzer": "rules (llm failed)"})
        return self._named_in_text(self._parse(query, answer), snapshot)

    def _named_in_text(self, analysis: QueryAnalysis, snapshot: RegistrySnapshot) -> QueryAnalysis:
        """``analysis`` keeping only the providers the request's own words name (their id,
        display name or an alias, as the rule analyzer reads them): a named provider's routes
        go to the top, so a model that named one the request does not (careless or steered)
        lifted any provider's routes, writes among them (trial V2: ``ops/python/
        cancel_order`` second for "shipment weight of order O-1"). The others are rejected."""
        written = set(self._fallback.analyze(analysis.text, snapshot).named_providers)
        dropped = [
            p for p in analysis.named_providers if p in snapshot.providers and p not in written
        ]
        if not dropped:  # one not registered is the gate's to reject (gate_analysis)
            return analysis
        kept = tuple(p for p in analysis.named_providers if p not in dropped)
        rejected = (
            *analysis.rejected,
            *(f"provider:{p[:60]} (not named in the request)" for p in dropped),
        )
        return analysis.model_copy(update={"named_providers": kept, "rejected": rejected})

    def _parse(self, query: str, answer: dict[str, Any]) -> QueryAnalysis:
        rejected: list[str] = []

        def strings(key: str) -> list[str]:
            raw = answer.get(key) or []
            if not isinstance(raw, list):
                rejected.append(f"{key}:not a list")
                return []
            return [x for x in raw if isinstance(x, str)]

        sources = []
        for word in strings("source_constraints"):
            try:
                sources.append(SourceType(word))
            except ValueError:
                rejected.append(f"source:{word[:60]}")
        values = []
        raw_values = answer.get("values") or []
        for item in raw_values if isinstance(raw_values, list) else []:
            if (
                isinstance(item, dict)
                and item.get("kind") in _KINDS
                and isinstance(item.get("value"), str)
                and (start := written_whole(item["value"], query)) is not None
            ):
                values.append(
                    BoundValue(
                        kind=item["kind"],
                        value=item["value"],
                        start=start,
                        end=start + len(item["value"]),
                    )
                )
            else:
                # a value that is not literally in the query, or only as a part of a longer
                # one, is invented: never bind it
                rejected.append(f"value:{str(item)[:60]}")
        return QueryAnalysis(
            text=query,
            named_providers=tuple(dict.fromkeys(strings("named_providers"))),
            source_constraints=tuple(dict.fromkeys(sources)),
            values=tuple(values),
            rejected=tuple(rejected),
            analyzer=self.name,
        )


#: What an id does not end before: a letter or digit (a Korean particle aside) or a hyphen.
_GOES_ON = re.compile(r"[^\W\uac00-\ud7a3\u3131-\u318e]|-")


def written_whole(value: str, query: str) -> int | None:
    """Where ``query`` writes ``value`` whole, not as a part of a longer value: a model that
    answered "10.1000/xyz123" for a request naming "10.1000/xyz1234" had the planner remove
    another paper (trial X1). ``None`` where it writes it only inside another."""
    if not value:
        return None
    for match in re.finditer(re.escape(value), query):
        start, end = match.span()
        if start and re.match(r"[\w./\\-]", query[start - 1]):
            continue
        if _GOES_ON.match(query, end) or CONTINUED.match(query, end):
            continue
        return start
    return None
