"""One tooltrain request (:class:`TrainRecord`): what the corpus reader
(:mod:`.tooltrain`) yields and the request composer (:mod:`.composed`) combines."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TrainRecord"]


@dataclass(frozen=True)
class TrainRecord:
    """One request: its positives and (where the source gives them) its candidates."""

    query: str
    source: str
    split_key: str
    #: keys (:attr:`TrainTool.key`) of the tools that serve the request (empty: none does)
    positives: tuple[str, ...]
    #: keys of the candidates given with the request (inline sources), else ()
    candidates: tuple[str, ...] = ()
    #: split keys of every positive (multi-tool requests have several)
    positive_keys: tuple[str, ...] = ()
    split: str = "train"
