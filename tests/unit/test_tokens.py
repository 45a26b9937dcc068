from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mockserver.reply.tokens import CHUNK, MAX_PIECE, count_message_tokens, tokenize


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
