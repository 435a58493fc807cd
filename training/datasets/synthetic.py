"""Generated catalogs of a given size, registered through the public API (latency vs size).

:func:`register_synthetic` writes the catalog of
:func:`schemarouter.training.datasets.recombined.synth_providers` (real endpoints of the shared
data, recombined deterministically per ``(size, seed)``) to a temporary catalog file and registers
it with :meth:`SchemaRouter.add_catalog`. There are no labelled queries: the catalogs serve latency
and build-time measurements only.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.training.datasets.suite import shared_data_dir

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = ["register_synthetic"]


def register_synthetic(
    router: SchemaRouter, size: int, *, seed: int = 0, data: str | Path | None = None
) -> dict[str, Any]:
    """Register a generated catalog of ``size`` routes; returns what was registered."""
    from schemarouter.training.datasets.recombined import catalog_document, synth_providers

    providers = synth_providers(size, seed=seed, data=shared_data_dir(data))
    name = f"synthetic-{size}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.json"
        document = catalog_document(providers, name=f"{name}-seed{seed}")
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        start = time.perf_counter()
        router.add_catalog(path)
        register_s = time.perf_counter() - start
    return {"catalog": name, "providers": len(providers), "register_s": register_s}
