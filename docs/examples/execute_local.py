"""Retrieve -> plan -> execute against a local server, end to end, in a few seconds.

The bundled materials catalog is registered as shipped, except that the Materials Project
provider is pointed at a small Materials-Project-shaped server this script starts on
127.0.0.1 (it checks the ``X-API-KEY`` header and honours ``_fields``). Retrieval uses the
deterministic hashing encoder, so nothing is downloaded.

Run: ``python docs/examples/execute_local.py``
"""

from __future__ import annotations

import json
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from schemarouter import SchemaRouter, bundled_catalog, load_catalog
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.execution.invokers import HttpTarget
from schemarouter.index import HashingEncoder

API_KEY = "demo-key-not-a-secret"
DOCS = [  # as https://api.materialsproject.org/materials/summary/ serves them
    {
        "material_id": "mp-19770",
        "formula_pretty": "Fe2O3",
        "band_gap": 2.03,
        "bulk_modulus": {"voigt": 165.0, "reuss": 155.0, "vrh": 160.0},
    },
    {
        "material_id": "mp-149",
        "formula_pretty": "Si",
        "band_gap": 0.61,
        "bulk_modulus": {"voigt": 88.5, "reuss": 87.5, "vrh": 88.0},
    },
]
SEEN: list[str] = []


class MaterialsProject(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        SEEN.append(self.path)
        if self.headers.get("X-API-KEY") != API_KEY:
            status, body = 401, {"detail": "invalid API key"}
        else:
            docs = [
                d for d in DOCS if d["formula_pretty"] == query.get("formula", d["formula_pretty"])
            ]
            keep = query.get("_fields", "").split(",")
            status, body = 200, {"data": [{k: v for k, v in d.items() if k in keep} for d in docs]}
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def catalog_pointing_at(base_url: str, folder: Path) -> list[Path]:
    """The bundled catalog files, with the Materials Project access path moved to ``base_url``."""
    bundled = bundled_catalog()
    files = sorted(p for p in bundled.glob("*.yaml"))
    mp = yaml.safe_load((bundled / "materials_project.yaml").read_text(encoding="utf-8"))
    for access in mp["providers"][0]["access"]:
        access["base_url"] = base_url
    local = folder / "materials_project.yaml"
    local.write_text(yaml.safe_dump(mp, allow_unicode=True), encoding="utf-8")
    return [local if f.name == "materials_project.yaml" else f for f in files]


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), MaterialsProject)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
            router.register(load_catalog(catalog_pointing_at(base_url, Path(tmp))))
        for route in router.snapshot():  # bind only the routes this script can serve
            if route.provider.id == "materials_project":
                router.bind(route.route_id, HttpTarget(base_url))

        query = "bulk modulus and band gap of Fe2O3 from Materials Project"
        print(f"query: {query}\n\nretrieve (top 3 of {len(router.snapshot())} routes):")
        for item in router.retrieve(query, k=3).candidates:
            matched = list(item.matched_fields)
            print(f"  {item.rank}. {item.route_id}  score {item.score:.3f}  matched {matched}")

        plan = router.plan(query, projection="minimal")
        step = plan.steps[0]
        print(f"\nplan: {step.route_id}\n  fields {list(step.fields)}  arguments {step.arguments}")
        fallbacks = len(step.fallbacks)
        print(
            f"  covers {list(step.covers)}; {fallbacks} conservative "
            f"fallback{'s' * (fallbacks != 1)} listed"
        )

        result = router.execute(plan, credentials=MappingCredentials({"MP_API_KEY": API_KEY}))
        print(
            f"\nexecute: {result.calls} call, {result.bytes} bytes; the server saw:\n  {SEEN[-1]}"
        )
        for name, value in result.steps[0].fields.items():
            print(f"\n  {name} ({value.semantic_id})")
            if value.normalized:
                raw = f"{value.raw_value} {value.source_unit}"
                print(f"    {raw} -> {value.value} {value.unit}  [{value.dimension}]")
            else:
                print(f"    {value.value}" + (f" {value.unit}" if value.unit else ""))
            if value.qualifiers:
                print(f"    qualifiers: {value.qualifiers}")
            print(f"    provenance: {value.source_type}, {value.provider}; license {value.license}")
            print(f"    route {value.route_id} @ {value.fingerprint[:19]}...")
        assert API_KEY not in result.model_dump_json()
        print("\nthe API key went in the X-API-KEY header and appears nowhere in the result")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":
    main()
