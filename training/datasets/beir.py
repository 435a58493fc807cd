"""A generic loader for BEIR-format retrieval sets (many tool-retrieval sets ship this way).

A folder with ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``,
``text``) and ``qrels/<split>.tsv`` (``query-id``, ``corpus-id``, ``score``, with a header
row). Each corpus document becomes one MCP-style tool of one provider (``provider`` or the
folder's name), registered with :meth:`SchemaRouter.add_mcp_tools`: ``name`` the title
(else the id; a repeated title gets `` [<id>]``), ``description`` the text, an empty
``inputSchema``. :attr:`Benchmark.route_keys` maps each route id to its corpus id.

Relevance is binary (score > 0); every relevant document of a query is needed (one need
each), so Recall@k is the usual BEIR recall. Queries without a relevant document in the
corpus are dropped (counted in the notes).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Provider
from schemarouter.training.datasets.suite import (
    Benchmark,
    EvalQuery,
    all_needed,
    route_map,
    unique_slug,
)

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = ["load_beir", "read_jsonl", "read_qrels"]

_MAX_NAME = 200


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not JSON: {exc}") from None


def read_qrels(path: Path) -> dict[str, dict[str, float]]:
    """``query id -> {corpus id: score}`` (a header row, if any, is skipped)."""
    out: dict[str, dict[str, float]] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for n, row in enumerate(csv.reader(handle, delimiter="\t")):
            if not row or (n == 0 and not _is_number(row[-1])):
                continue
            if len(row) < 3:
                raise ValueError(f"{path}:{n + 1}: expected query-id, corpus-id, score")
            out.setdefault(row[0], {})[row[1]] = float(row[2])
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _qrels_file(root: Path, split: str) -> Path:
    path = root / "qrels" / f"{split}.tsv"
    if path.exists():
        return path
    found = sorted((root / "qrels").glob("*.tsv"))
    if len(found) == 1:
        return found[0]
    raise FileNotFoundError(f"{root}/qrels has no {split}.tsv (found {[p.name for p in found]})")


def load_beir(
    router: SchemaRouter,
    folder: str | Path,
    *,
    split: str = "test",
    provider: str | None = None,
) -> Benchmark:
    """Register a BEIR corpus as tools in ``router``; its queries of ``split``."""
    root = Path(folder)
    name = provider or root.name
    taken: set[str] = set(router.snapshot().providers)
    pid = unique_slug(name, taken)
    tools = []
    doc_of_name: dict[str, str] = {}
    for doc in read_jsonl(root / "corpus.jsonl"):
        doc_id = str(doc["_id"])
        title = " ".join(str(doc.get("title") or "").split())[:_MAX_NAME] or doc_id
        tool_name = title if title not in doc_of_name else f"{title[:_MAX_NAME]} [{doc_id}]"
        doc_of_name[tool_name] = doc_id
        tools.append(
            {
                "name": tool_name,
                "description": str(doc.get("text") or "").strip(),
                "inputSchema": {"type": "object", "properties": {}},
            }
        )
    router.add_mcp_tools({"tools": tools}, provider=Provider(id=pid, display_name=name[:256]))
    route_of_doc = {doc_of_name[n]: r for n, r in route_map(router, pid).items()}
    qrels = read_qrels(_qrels_file(root, split))
    queries = []
    dropped = 0
    for item in read_jsonl(root / "queries.jsonl"):
        qid = str(item["_id"])
        if qid not in qrels:
            continue
        docs = sorted((d for d, s in qrels[qid].items() if s > 0), key=lambda d: -qrels[qid][d])
        routes = [route_of_doc[d] for d in docs if d in route_of_doc]
        if not routes:
            dropped += 1
            continue
        queries.append(
            EvalQuery(
                id=qid,
                text=str(item["text"]),
                gold=tuple(routes),
                needs=all_needed(routes),
                split=split,
            )
        )
    route_keys = {r: d for d, r in route_of_doc.items()}
    notes = {"folder": str(root), "documents": len(route_of_doc), "queries_dropped": dropped}
    return Benchmark.checked(
        "beir", router, queries, route_keys, notes, bm25_text="name_description"
    )
