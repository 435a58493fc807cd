"""Korean requests reach an English catalog's lexical channel through a glossary."""

from __future__ import annotations

import pytest

from schemarouter.index.gloss import KOREAN_GLOSSARY, gloss_tokens


@pytest.mark.parametrize(
    "text, words",
    [
        ("고객 JDKY 삭제해 줘", ["customer", "delete"]),
        ("파일을 폴더로 옮겨 줘", ["file", "folder", "move"]),  # particles attached
        ("재생목록 만들어 줘", ["playlist", "create"]),  # the longest word, not 목록 inside it
        ("show my files", []),  # no Hangul: nothing
        ("스퀘어", []),  # a name is not translated
    ],
)
def test_the_korean_words_of_a_request_give_their_english(text: str, words: list[str]) -> None:
    assert gloss_tokens(text) == words


def test_every_gloss_is_plain_english_words() -> None:
    for korean, english in KOREAN_GLOSSARY.items():
        assert korean and all("\uac00" <= c <= "\ud7a3" for c in korean), korean
        assert english and all(w.isascii() and w.isalpha() for w in english.split()), english
