"""Deterministic large catalogs made by recombining the real documents in shared data.

    python -m schemarouter.training.datasets.recombined --routes 10000 --out catalog.json [--seed 0]

The pool is every endpoint read by :mod:`.shared_data` (StableToolBench G1 RapidAPI endpoints,
LiveMCPBench MCP tools, MetaTool plugins, the openapi-permissive Swagger operations) and
the OPTIMADE property definitions as extra output fields. Each synthetic provider:

* takes a real provider as its template and a new display name recombined from words of
  real provider names and categories (``"Quantum Cinema Cloud"``, ``"Transfermarkt Pro
  Hub"``), with a matching id;
* keeps a random subset of the template's endpoints (their real names, operations,
  descriptions and parameters);
* recombines output fields: some endpoints swap a few fields for fields of another real
  endpoint, and some gain OPTIMADE property fields (with semantic ids and units).

The same ``(routes, seed)`` always gives the same catalog, byte for byte. Nothing is
invented text: every description, name and field comes from a real document.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schemarouter.contracts import AccessPath, Endpoint, OutputField, Provider, Route
from schemarouter.registry.compile import slugify
from schemarouter.training.datasets.shared_data import (
    MAX_FIELDS,
    SourceApi,
    load_g1,
    load_mcp,
    load_metatool,
    load_openapi,
    load_optimade_fields,
    shared_data_dir,
)

__all__ = ["SynthProvider", "catalog_document", "load_pool", "synth_providers"]

#: Words real API names end with; combined with words of real provider names.
_SUFFIXES = (
    "API",
    "Hub",
    "Cloud",
    "Data",
    "Service",
    "Connect",
    "Labs",
    "Pro",
    "Live",
    "Open",
    "Direct",
    "Plus",
    "Online",
    "Network",
    "Center",
    "Portal",
    "Gateway",
)
_WORD = re.compile(r"[A-Za-z][A-Za-z]{2,}")


class SynthProvider:
    """A generated provider: its contract, access path and endpoints."""

    def __init__(self, provider: Provider, access: AccessPath, endpoints: list[Endpoint]):
        self.provider = provider
        self.access = access
        self.endpoints = endpoints

    def routes(self) -> list[Route]:
        return [Route.build(self.provider, self.access, e, source="synth") for e in self.endpoints]


def load_pool(data: Path) -> tuple[list[SourceApi], list[OutputField]]:
    """Every real provider (with endpoints) and the OPTIMADE fields."""
    apis = [*load_g1(data)[0], *load_mcp(data), *load_metatool(data)[0], *load_openapi(data)]
    return apis, load_optimade_fields(data)


def _name_words(apis: Sequence[SourceApi]) -> list[str]:
    words: set[str] = set()
    for api in apis:
        for text in (api.name, api.category.replace("_", " ")):
            for word in _WORD.findall(text):
                if word.lower() not in {"api", "the", "and", "for", "mcp", "server", "amazon"}:
                    words.add(word[0].upper() + word[1:])
    return sorted(words)


def _recombine_fields(
    endpoint: Endpoint,
    rng: random.Random,
    field_pool: Sequence[tuple[OutputField, ...]],
    optimade: Sequence[OutputField],
) -> Endpoint:
    fields = list(endpoint.output_fields)
    roll = rng.random()
    if roll < 0.3 and field_pool:
        donor = rng.choice(field_pool)
        if fields and rng.random() < 0.5:
            del fields[rng.randrange(len(fields))]
        fields.extend(rng.sample(donor, min(len(donor), rng.randint(1, 3))))
    elif roll < 0.4 and optimade:
        fields.extend(rng.sample(list(optimade), rng.randint(1, 3)))
    unique: dict[str, OutputField] = {}
    for item in fields:
        unique.setdefault(item.name, item)
    new = tuple(list(unique.values())[:MAX_FIELDS])
    if new == endpoint.output_fields:
        return endpoint
    return endpoint.model_copy(update={"output_fields": new})


def synth_providers(
    n_routes: int,
    *,
    seed: int = 0,
    data: str | Path | None = None,
    pool: tuple[list[SourceApi], list[OutputField]] | None = None,
) -> list[SynthProvider]:
    """Providers whose endpoints add up to exactly ``n_routes`` routes."""
    apis, optimade = pool if pool is not None else load_pool(shared_data_dir(data))
    if not apis:
        raise ValueError("the shared data holds no endpoints to recombine")
    rng = random.Random(seed)
    words = _name_words(apis)
    field_pool = [e.output_fields for a in apis for e in a.endpoints if e.output_fields]
    names: set[str] = set()
    ids: set[str] = set()
    out: list[SynthProvider] = []
    remaining = n_routes
    while remaining > 0:
        template = rng.choice(apis)
        for _ in range(100):
            picked = rng.sample(words, 2) if rng.random() < 0.6 else [rng.choice(words)]
            name = " ".join([*picked, rng.choice(_SUFFIXES)])
            if name not in names:
                break
        else:  # pragma: no cover - the name space is large
            name = f"{name} {len(out)}"
        names.add(name)
        pid = slugify(name, max_length=60)
        while pid in ids:
            pid = f"{pid[:56]}-{rng.randrange(1000)}"
        ids.add(pid)
        size = min(remaining, len(template.endpoints), rng.randint(1, 50))
        chosen = sorted(rng.sample(range(len(template.endpoints)), size))
        endpoints = [
            _recombine_fields(template.endpoints[i], rng, field_pool, optimade) for i in chosen
        ]
        provider = Provider(
            id=pid,
            display_name=name,
            description=template.description[:500],
            aliases=(template.name[:100],) if rng.random() < 0.2 else (),
        )
        kind = template.kind
        base = (
            f"https://api.{pid.replace('_', '-')}.example.com"
            if kind.value in ("openapi", "http")
            else None
        )
        access = AccessPath(id=kind.value, kind=kind, base_url=base)
        out.append(SynthProvider(provider, access, endpoints))
        remaining -= size
    return out


def _addressable(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` without the output fields a catalog file cannot address: a source's key
    with a dot at an end (G1's ``"Chg."``) leaves an empty path segment, which
    :func:`schemarouter.registry.catalog.load_catalog` refuses as a typo."""
    kept = tuple(
        item for item in endpoint.output_fields if not item.path or "" not in item.path.split(".")
    )
    if len(kept) == len(endpoint.output_fields):
        return endpoint
    return endpoint.model_copy(update={"output_fields": kept})


def catalog_document(providers: Sequence[SynthProvider], *, name: str) -> dict[str, Any]:
    """A catalog file (``schemarouter_catalog: 1``) declaring ``providers``."""
    out = []
    for p in providers:
        spec = p.provider.model_dump(mode="json", exclude_defaults=True)
        access = p.access.model_dump(mode="json", exclude_defaults=True)
        access["endpoints"] = [
            _addressable(e).model_dump(mode="json", exclude_defaults=True) for e in p.endpoints
        ]
        spec["access"] = [access]
        out.append(spec)
    return {
        "schemarouter_catalog": 1,
        "name": name,
        "description": "generated by schemarouter.training.datasets.recombined from ../shared/data",
        "providers": out,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a large catalog from shared data")
    parser.add_argument("--routes", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    providers = synth_providers(args.routes, seed=args.seed, data=args.data)
    document = catalog_document(providers, name=f"synth-{args.routes}-seed{args.seed}")
    Path(args.out).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {args.routes} routes from {len(providers)} providers to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
