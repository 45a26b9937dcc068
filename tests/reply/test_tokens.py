from __future__ import annotations

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from mockserver.reply.model import Token
from mockserver.reply.text import TextGenerator
from mockserver.reply.tokens import (
    CHUNK,
    MAX_PIECE,
    count_message_tokens,
    count_tokens,
    group_texts,
    group_tokens,
    tokenize,
)


@given(st.text())
def test_tokens_concatenate_to_the_text(text: str) -> None:
    assert "".join(tokenize(text)) == text


@given(st.text(min_size=1))
def test_no_token_is_empty_or_too_long(text: str) -> None:
    assert all(0 < len(t) <= MAX_PIECE for t in tokenize(text))


def test_words_keep_their_leading_space() -> None:
    assert tokenize("Hello there, world!") == ("Hello", " there", ",", " world", "!")


def test_long_words_cost_several_tokens() -> None:
    word = "internationalization"
    assert len(tokenize(word)) == -(-len(word) // CHUNK)


def test_message_overhead_follows_the_chat_format() -> None:
    # 3 tokens per message, 1 per name, 3 to prime the reply.
    assert count_message_tokens([("Hi", False)]) == 3 + 1 + 3
    assert count_message_tokens([("Hi", True), ("Yo", False)]) == 3 + 3 + 1 + 1 + 3 + 1


# The split as first written (Unicode classes only, match objects): tokenize must agree with
# it exactly, whichever fast path it takes.
_REFERENCE_SPLIT = re.compile(
    r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+|_+"""
)


def _reference_tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for match in _REFERENCE_SPLIT.finditer(text):
        piece = match.group()
        chunks = (
            [piece]
            if len(piece) <= MAX_PIECE
            else [piece[i : i + CHUNK] for i in range(0, len(piece), CHUNK)]
        )
        out += chunks
    return tuple(out)


_ASCII_PROSE = st.lists(
    st.sampled_from([*"abcXYZ019_'.,!- ", "\n", "\t", "\r", "\x0b", "\x1c", "'s", "'ll", "word"]),
    max_size=40,
).map("".join)


@given(_ASCII_PROSE | st.text(max_size=60))
def test_tokens_match_the_reference_split(text: str) -> None:
    assert tokenize(text) == _reference_tokens(text)


def test_generated_prose_tokenizes_like_the_reference() -> None:
    text = TextGenerator().prose(random.Random(3), topic_text="sourdough", sentences=18)
    assert tokenize(text) == _reference_tokens(text)
    assert count_tokens(text) == len(_reference_tokens(text))


token_lists = st.lists(st.sampled_from(["Hi", " there", ",", " world", "!", "\n", " ", "abc"]))


@given(token_lists, st.sampled_from(["token", "word", 1, 2, 3, 7]))
def test_grouped_texts_are_the_grouped_tokens_texts(texts: list[str], size: int | str) -> None:
    tokens = [Token(text=t, logprob=0.0) for t in texts]
    joined = ["".join(t.text for t in group) for group in group_tokens(tokens, size)]
    assert group_texts(texts, size) == joined
    assert "".join(joined) == "".join(texts)


def test_word_groups_start_at_a_leading_space() -> None:
    texts = ["Intern", "ational", "ization", " matters", "."]
    assert group_texts(texts, "word") == ["Internationalization", " matters."]
    assert group_texts([], "word") == []


def test_long_texts_are_not_remembered_so_the_caches_stay_bounded_in_bytes() -> None:
    from mockserver.reply import tokens

    long_text = "weather " * (tokens.CACHED_TEXT // 4)
    caches = (tokens._tokenize_cached, tokens._count_cached)
    before = [cache.cache_info().currsize for cache in caches]
    assert "".join(tokens.tokenize(long_text)) == long_text
    assert tokens.count_tokens(long_text) == len(tokens._tokenize(long_text))
    assert [cache.cache_info().currsize for cache in caches] == before
    short = "a short question about the weather"
    assert tokens.tokenize(short) == tokens._tokenize(short)


def test_a_counted_text_keeps_its_count_not_its_tokens() -> None:
    """A prompt is only counted: its tokens (a string each, several times the text's own size)
    are not kept for it, and its count is what splitting it gives."""
    from mockserver.reply import tokens

    text = "a prompt that is only ever counted, order 8675309?"
    untouched = tokens._tokenize_cached.cache_info()
    hits = tokens._count_cached.cache_info().hits
    assert tokens.count_tokens(text) == len(tokens._tokenize(text))
    assert tokens.count_tokens(text) == len(tokens._tokenize(text))  # remembered: the same
    assert tokens._count_cached.cache_info().hits == hits + 1
    assert tokens._tokenize_cached.cache_info() == untouched  # its tokens were never kept
