"""``line_of``: where a contract error's key path is written in a YAML or JSON text."""

from __future__ import annotations

import pytest

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
