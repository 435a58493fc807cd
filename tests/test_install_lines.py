"""Install lines users copy (README, docs, error hints) install this project.

The distribution name ``schemarouter`` on the package index belongs to an unrelated project
(its 0.17.0 has none of our extras), so a bare ``pip install schemarouter`` or
``pip install 'schemarouter[serve]'`` installs the wrong thing. Every line names the checkout
(``-e .``, ``-e '.[serve]'``, a path) until a release goes out as ``schemarouter-engine``;
the fresh-venv install of such a line is in tests/test_packaging.py.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from schemarouter.errors import MissingDependencyError, install_hint, require

REPO = Path(__file__).resolve().parents[1]
#: ``pip install`` and what follows on the line (shell or Markdown code)
_LINE = re.compile(r"pip install ([^`\n]*)")
#: our own distribution, bare (released names are not ours yet)
_BARE = re.compile(r"(?<![\w./-])['\"]?(schemarouter(?:-engine)?)(\[[\w,]+\])?['\"]?(?![\w./-])")
_EXTRA = re.compile(r"['\"]?(?:\.|/[^\s'\"\[]*)\[([\w,]+)\]")


def _texts() -> dict[Path, str]:
    files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for folder in ("engine", "index", "training"):
        files += sorted((REPO / folder).rglob("*.py"))
    return {path: path.read_text(encoding="utf-8") for path in files}


def _extras() -> set[str]:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(pyproject["project"]["optional-dependencies"])


def test_no_install_line_names_the_package_index_project() -> None:
    offending: list[str] = []
    seen = 0
    for path, text in _texts().items():
        for number, line in enumerate(text.splitlines(), start=1):
            for match in _LINE.finditer(line):
                seen += 1
                # the README's own warning ("... installs an unrelated project") is no advice
                if _BARE.search(match.group(1)) and "unrelated project" not in line:
                    offending.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert seen >= 8  # the README and docs do have install lines to check
    assert not offending, "install lines that fetch the wrong project:\n" + "\n".join(offending)


def test_every_extra_an_install_line_names_exists() -> None:
    extras = _extras()
    named: set[str] = set()
    for text in _texts().values():
        for match in _LINE.finditer(text):
            for extra in _EXTRA.findall(match.group(1)):
                named.update(extra.split(","))
    assert {"serve", "mcp", "milvus", "langgraph", "llamaindex"} <= named
    assert named <= extras, sorted(named - extras)


def test_missing_dependency_hint_names_this_checkout() -> None:
    hint = install_hint("mcp", extra="serve")
    assert hint == f"pip install -e '{REPO}[serve]'"
    message = str(MissingDependencyError("mcp", extra="serve", purpose="serving"))
    assert hint in message and "schemarouter[" not in message
    assert install_hint("openai-agents") == "pip install 'openai-agents'"


def test_require_imports_or_names_the_distribution_and_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert require("json.decoder").JSONDecoder is not None  # a submodule, imported
    monkeypatch.setitem(sys.modules, "pymilvus", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError) as caught:
        require("pymilvus.client", extra="milvus", purpose="the Milvus index backend")
    message = str(caught.value)
    assert "'pymilvus' is not installed (needed for the Milvus index backend)" in message
    assert install_hint("pymilvus", extra="milvus") in message
    assert isinstance(caught.value, ImportError)  # callers catching ImportError still do
    with pytest.raises(MissingDependencyError, match="'faiss-cpu' is not installed"):
        require("no_such_module_here", package="faiss-cpu")


def test_readme_names_the_release_name() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "schemarouter-engine"
    assert "schemarouter-engine" in text
    assert pyproject["project"]["scripts"]["schemarouter"] == "schemarouter.cli:main"
