"""``line_of``: where a contract error's key path is written in a YAML or JSON text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schemarouter.registry.catalog import catalog_problems
from schemarouter.registry.lines import line_of, with_line

YAML = """\
# a comment
providers:
  - id: lab
    routes:
      - id: band_gap
        outputs: {gap: {unit: eV}}
      - id: density
"""


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        ("providers", 2),
        ("providers[0]", 3),
        ("providers[0].routes[1].id", 7),
        ("providers[0].routes[0].outputs.gap.unit", 6),
        ("providers[0].routes[1].outputs", 7),  # missing: the item that should hold it
        ("providers[0].routes[5]", 4),  # past the list: the list's key
        ("nothing_here", None),
    ],
)
def test_the_line_of_a_key_path(loc: str, line: int | None) -> None:
    assert line_of(YAML, loc) == line


def test_json_text_and_text_that_does_not_parse() -> None:
    text = '{\n  "search": {\n    "k": "five"\n  }\n}\n'
    assert line_of(text, "search.k") == 3
    assert line_of("a: [unclosed\n", "a") is None
    assert line_of("", "a") is None
    assert with_line("gw.yaml", text, "search.k") == "gw.yaml:3: search.k"
    assert with_line("gw.yaml", "", "search.k") == "gw.yaml: search.k"


def test_many_problems_in_one_long_catalog_read_it_once(tmp_path: Path) -> None:
    """Trial X4 (medium): each problem of ``catalog_problems`` read and composed the whole file
    again for its line, so 1000 endpoints without ``name`` (a 94 KB file) took 30 s to
    validate (0.0 s without the lines): quadratic on the error path. Now the file is composed
    once; every problem still names its line."""
    endpoints = "".join(
        f"          - id: e{i}\n            operation: {{method: GET, path: /x{i}}}\n"
        "            summary: s\n"
        for i in range(1000)
    )
    path = tmp_path / "many.yaml"
    path.write_text(
        "schemarouter_catalog: 1\nproviders:\n  - id: p\n    display_name: P\n"
        "    license: MIT\n    access:\n      - id: a\n        kind: http\n"
        f"        base_url: https://example.org\n        endpoints:\n{endpoints}"
    )
    started = time.perf_counter()
    problems = catalog_problems(path)
    took = time.perf_counter() - started
    assert len(problems) == 1000
    assert problems[999].where == f"{path}:3008: providers[0].access[0].endpoints[999].name"
    assert took < 5, f"{took:.1f} s for 1000 problems"
