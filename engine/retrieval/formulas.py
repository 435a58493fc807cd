"""Chemical formulas and element symbols in a request's text ("band gap of GaN",
"Fe2O3의 밴드갭", "containing Si and O"): what query analysis binds as ``chemical.formula``
and what an OPTIMADE filter is built from (:mod:`schemarouter.planning.optimade_filter`)."""

from __future__ import annotations

import re

__all__ = ["formulas", "is_element"]

# fmt: off
_ELEMENTS = frozenset((
    "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S",
    "Cl", "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga",
    "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd",
    "Ag", "Cd", "In", "Sn", "Sb", "Te", "I", "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm",
    "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W", "Re", "Os",
    "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa",
    "U", "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr",
))
# fmt: on

#: A formula; Hangul right after it does not end it (a particle: Fe2O3의, GaN을), as for ids.
_FORMULA = re.compile(
    r"(?<![\w\-/.])((?:[A-Z][a-z]?\d*(?:\.\d+)?|\((?:[A-Z][a-z]?\d*)+\)\d*)+)"
    r"(?![^\W\uac00-\ud7a3]|-)"
)
_FORMULA_PART = re.compile(r"([A-Z][a-z]?)(\d*(?:\.\d+)?)")
#: Element symbols that are also English words, abbreviations or units: never a formula alone.
_COMMON_WORDS = frozenset(
    {
        "I",
        "In",
        "As",
        "At",
        "He",
        "Be",
        "No",
        "Ho",
        "Pa",
        "Co",
        "Am",
        "Es",
        "Re",
        "Pm",
        "Md",
        "Ca",
        "Sc",
        "Ga",
        "Mt",
        "Db",
    }
)


def is_element(symbol: str, *, alone: bool = False) -> bool:
    """Whether ``symbol`` is a chemical element's; ``alone``: also when it stands by itself,
    not an English word or abbreviation that is one too ("In", "No", "I")."""
    return symbol in _ELEMENTS and not (alone and symbol in _COMMON_WORDS)


def formulas(text: str) -> list[tuple[str, int, int]]:
    found = []
    for match in _FORMULA.finditer(text):
        token = match.group(1)
        elements = [m.group(1) for m in _FORMULA_PART.finditer(token)]
        if not elements or any(e not in _ELEMENTS for e in elements):
            continue
        has_digit = any(ch.isdigit() for ch in token)
        # A bare element symbol is a formula only with two letters that are not also an
        # English word or abbreviation ("Si", "Fe", not "I", "In", "K", "Co");
        # two or more elements, or a count, is enough.
        if len(elements) == 1 and not has_digit and (len(token) != 2 or token in _COMMON_WORDS):
            continue
        found.append((token, match.start(1), match.end(1)))
    return found
