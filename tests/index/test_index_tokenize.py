"""The lexical tokenizer: case and punctuation splitting, digits, CJK and Hangul, stopwords."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemarouter.index.tokenize import TokenizerSettings, is_cjk, tokenize

RAW = TokenizerSettings(stopwords=False, stem_plurals=False)


def test_snake_kebab_dot_and_slash_split() -> None:
    assert tokenize("elastic_modulus", RAW) == ["elastic", "modulus"]
    assert tokenize("band-gap.value/unit", RAW) == ["band", "gap", "value", "unit"]


def test_camel_pascal_and_acronyms_split() -> None:
    assert tokenize("getUserByID", RAW) == ["get", "user", "by", "id"]
    assert tokenize("HTTPServerError", RAW) == ["http", "server", "error"]
    assert tokenize("DescribeFileSystems", RAW) == ["describe", "file", "systems"]


def test_digits_split_from_letters() -> None:
    assert tokenize("mp-149", RAW) == ["mp", "149"]
    assert tokenize("v2beta3", RAW) == ["v", "2", "beta", "3"]
    assert tokenize("utf8", RAW) == ["utf", "8"]


def test_lowercase_and_full_width_forms_fold() -> None:
    assert tokenize("ＡＢＣ１２３ Weather", RAW) == ["abc", "123", "weather"]


def test_hangul_bigrams_match_words_with_particles() -> None:
    doc = tokenize("서울의 날씨를 알려주는 도구")
    query = tokenize("날씨")
    assert query == ["날씨"]
    assert "날씨" in doc


def test_han_bigrams_and_single_characters() -> None:
    assert tokenize("天气预报") == ["天气", "气预", "预报"]
    assert tokenize("书") == ["书"]
    assert "北京" in tokenize("查询北京的天气")


def test_mixed_scripts_split_at_script_boundaries() -> None:
    assert tokenize("MCP工具list", RAW) == ["mcp", "工具", "list"]


def test_other_scripts_keep_words() -> None:
    assert tokenize("Москва погода") == ["москва", "погода"]


def test_stopwords_and_plurals() -> None:
    assert tokenize("the list of movies and cities") == ["list", "movy", "city"]
    assert tokenize("movie") == tokenize("movies")
    assert tokenize("address") == tokenize("addresses")
    assert tokenize("status") == ["status"]


def test_nothing_to_match_gives_no_tokens() -> None:
    assert tokenize("") == []
    assert tokenize("   ...!!! ??? ___") == []
    assert tokenize("the of and") == []


def test_is_cjk() -> None:
    assert is_cjk("한") and is_cjk("漢") and is_cjk("カ")
    assert not is_cjk("a") and not is_cjk("я")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_tokenizes_to_lowercase_nonempty_tokens(text: str) -> None:
    tokens = tokenize(text)
    assert all(tokens)
    assert all(t == t.casefold() or not t.isascii() for t in tokens)
    assert all(len(t) <= 40 for t in tokens)
