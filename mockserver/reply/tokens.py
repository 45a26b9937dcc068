"""A deterministic offline tokenizer that approximates OpenAI's BPE token counts.

The approximation: text is pre-split the way the o200k/cl100k tokenizers pre-split it
(contractions, a word with its leading space, runs of up to three digits, punctuation runs,
whitespace), then any piece longer than :data:`MAX_PIECE` characters is cut into chunks of
:data:`CHUNK` characters — long words cost several tokens, as they do in BPE. For English
prose this lands within roughly ±15 % of tiktoken; it is exact about what matters to a test:
the tokens concatenate to the text, so logprobs, stream deltas and ``usage`` always agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Protocol, TypeVar

__all__ = [
    "MAX_PIECE",
    "count_message_tokens",
    "count_tokens",
    "group_texts",
    "group_tokens",
    "tokenize",
]

MAX_PIECE = 9
CHUNK = 6


def _pre_split(letter: str, digit: str, symbol: str) -> re.Pattern[str]:
    """Contractions, a word with its leading space, up to three digits, a run of symbols,
    whitespace. Words come first: they are most pieces, and no other branch starts alike."""
    return re.compile(
        rf""" ?{letter}+|'(?:[sdmt]|ll|ve|re)| ?{digit}{{1,3}}| ?{symbol}+[\r\n]*|"""
        r"""\s*[\r\n]+|\s+(?!\S)|\s+|_+"""
    )


_PRE_SPLIT = _pre_split(r"[^\W\d_]", r"\d", r"[^\s\w]")
#: The same split for ASCII text, where those classes are exactly these (which the regex
#: engine tests much faster than Unicode categories).
_PRE_SPLIT_ASCII = _pre_split("[A-Za-z]", "[0-9]", r"[^\sA-Za-z0-9_]")

#: Tokens the chat format adds around every message and before the reply (OpenAI's cookbook).
PER_MESSAGE = 3
PER_NAME = 1
REPLY_PRIMING = 3


#: Texts up to this long are tokenized once and remembered (a test suite, a load test, asks the
#: same questions again: a conversation's history and system prompt come back with every
#: turn); a longer one is tokenized each time, so that the caches' memory stays bounded in
#: bytes, not only in entries.
CACHED_TEXT = 16 * 1024
#: Texts whose token count is remembered: mostly prompts, of which only the count is needed.
COUNTS_KEPT = 4096
#: Texts whose tokens are remembered: replies (a scenario's scripted texts, tool arguments).
#: Fewer, because a text's tokens take about ten times its own size (a string each); a
#: generated reply seldom comes back, and an identical request's reply is kept whole anyway.
TOKENS_KEPT = 256


def tokenize(text: str) -> tuple[str, ...]:
    """Split ``text`` into tokens whose concatenation is exactly ``text``."""
    if len(text) <= CACHED_TEXT:
        return _tokenize_cached(text)
    return _tokenize(text)


def _tokenize(text: str) -> tuple[str, ...]:
    split = _PRE_SPLIT_ASCII if text.isascii() else _PRE_SPLIT
    pieces = split.findall(text)  # findall, in C, builds no match objects
    if not pieces or max(map(len, pieces)) <= MAX_PIECE:  # no long word: the common case,
        return tuple(pieces)  # checked in C rather than piece by piece
    out: list[str] = []
    for piece in pieces:
        if len(piece) <= MAX_PIECE:
            out.append(piece)
        else:
            out += [piece[start : start + CHUNK] for start in range(0, len(piece), CHUNK)]
    return tuple(out)


_tokenize_cached = lru_cache(maxsize=TOKENS_KEPT)(_tokenize)


def _count(text: str) -> int:
    return len(_tokenize(text))


_count_cached = lru_cache(maxsize=COUNTS_KEPT)(_count)


def count_tokens(text: str) -> int:
    """How many tokens :func:`tokenize` makes of ``text``."""
    if len(text) <= CACHED_TEXT:
        return _count_cached(text)
    return _count(text)


def count_message_tokens(texts: Iterable[tuple[str, bool]]) -> int:
    """Prompt tokens for messages given as ``(text, has_name)``, with the chat format overhead."""
    total = REPLY_PRIMING
    for text, has_name in texts:
        total += PER_MESSAGE + count_tokens(text) + (PER_NAME if has_name else 0)
    return total


T = TypeVar("T", bound="HasText")


class HasText(Protocol):
    @property
    def text(self) -> str: ...


def group_tokens(tokens: Sequence[T], size: int | str) -> list[tuple[T, ...]]:
    """Tokens grouped per stream chunk: ``"token"`` (one each), ``"word"`` (a word with its
    leading space and trailing punctuation), or ``N`` tokens."""
    return [tuple(tokens[start:end]) for start, end in _groups([t.text for t in tokens], size)]


def group_texts(texts: Sequence[str], size: int | str) -> list[str]:
    """:func:`group_tokens` for tokens' texts: each group's text."""
    if size == "token":
        return list(texts)
    return ["".join(texts[start:end]) for start, end in _groups(texts, size)]


def _groups(texts: Sequence[str], size: int | str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each chunk's tokens (see :func:`group_tokens`)."""
    if not texts:
        return []
    if size == "token":
        return [(i, i + 1) for i in range(len(texts))]
    if isinstance(size, int):
        return [(i, min(i + size, len(texts))) for i in range(0, len(texts), size)]
    starts = [i for i, text in enumerate(texts) if i == 0 or text[:1].isspace()]
    return list(zip(starts, [*starts[1:], len(texts)], strict=True))
