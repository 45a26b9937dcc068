"""Replies → the legacy ``text_completion`` body and its stream's payloads.

A request's choices are its prompts' replies, each ``n`` times (choice ``i`` answers prompt
``i // n``). Key order follows what the API sends: a body's ``id, object, created, model,
choices, usage``; a chunk's ``id, object, created, choices, model`` (then ``usage``, null but
in the last one, when the request asked for it). Logprobs are the legacy object: ``tokens``,
``token_logprobs``, ``top_logprobs`` (the ``k`` most likely, as a map) and ``text_offset``
(each token's place in the prompt followed by the completion).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

from mockserver.reply.model import Reply, Token
from mockserver.reply.tokens import group_texts, group_tokens
from mockserver.values import Json, value_class

__all__ = ["Choice", "CompletionMeta", "completion_body", "completion_chunks"]


@value_class
class CompletionMeta:
    id: str
    created: int
    model: str
    include_usage: bool = False
    #: Stream granularity: one chunk per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"


@value_class
class Choice:
    """One choice: a prompt's reply, and what ``echo`` puts in front of it."""

    reply: Reply
    #: The prompt's text, when echoed.
    echo: str | None = None
    #: The echoed prompt's scored tokens (the first has no logprob: nothing comes before it).
    echo_tokens: tuple[Token, ...] = ()
    #: Where the completion starts in the prompt followed by it (``text_offset``'s base).
    offset: int = 0


def _logprobs(tokens: Sequence[Token], *, start: int, unscored_first: bool = False) -> Json:
    offsets, at = [], start
    for token in tokens:
        offsets.append(at)
        at += len(token.text)
    scored: list[float | None] = [t.logprob for t in tokens]
    tops: list[dict[str, float] | None] = [dict(t.top) for t in tokens]
    if unscored_first and tokens:
        scored[0] = tops[0] = None
    return {
        "tokens": [t.text for t in tokens],
        "token_logprobs": scored,
        "top_logprobs": tops,
        "text_offset": offsets,
    }


def _joined(first: Json | None, second: Json) -> Json:
    if first is None:
        return second
    return {key: [*first[key], *second[key]] for key in second}


def _choice_logprobs(choice: Choice) -> Json | None:
    reply = choice.reply
    if not reply.logprobs:
        return None
    echoed = None
    if choice.echo is not None:
        echoed = _logprobs(choice.echo_tokens, start=0, unscored_first=True)
    return _joined(echoed, _logprobs(reply.tokens, start=choice.offset))


def _usage(replies: Sequence[Reply], choices: Sequence[Choice]) -> Json:
    prompt = sum(r.usage.prompt_tokens for r in replies)
    completion = sum(c.reply.usage.completion_tokens for c in choices)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion_body(
    meta: CompletionMeta, choices: Sequence[Choice], replies: Sequence[Reply]
) -> Json:
    """The whole ``text_completion`` (``replies``: one per prompt, for the prompt tokens)."""
    return {
        "id": meta.id,
        "object": "text_completion",
        "created": meta.created,
        "model": meta.model,
        "choices": [
            {
                "text": (choice.echo or "") + (choice.reply.text or ""),
                "index": index,
                "logprobs": _choice_logprobs(choice),
                "finish_reason": choice.reply.finish_reason,
            }
            for index, choice in enumerate(choices)
        ],
        "usage": _usage(replies, choices),
    }


def completion_chunks(
    meta: CompletionMeta, choices: Sequence[Choice], replies: Sequence[Reply]
) -> Iterator[Json]:
    """The payloads of a streamed completion, without framing and without ``[DONE]``: each
    choice's text in pieces (the echoed prompt first), its ``finish_reason`` on its last piece
    when the token limit cut it, else on a piece of its own; then the usage, if asked for."""
    for index, choice in enumerate(choices):
        reply = choice.reply
        pieces: list[tuple[str, Json | None]] = []
        if choice.echo is not None:
            echoed = _logprobs(choice.echo_tokens, start=0, unscored_first=True)
            pieces.append((choice.echo, echoed if reply.logprobs else None))
        if reply.logprobs:
            at = choice.offset
            for group in group_tokens(reply.tokens, meta.chunk):
                text = "".join(t.text for t in group)
                pieces.append((text, _logprobs(group, start=at)))
                at += len(text)
        else:  # the tokens' texts alone: logprobs are scored only to be shown
            pieces += [(text, None) for text in group_texts(reply.token_texts, meta.chunk)]
        last = len(pieces) - 1 if reply.finish_reason == "length" and pieces else None
        for number, (text, logprobs) in enumerate(pieces):
            finish = reply.finish_reason if number == last else None
            yield _chunk(meta, index, text, logprobs, finish)
        if last is None:
            yield _chunk(meta, index, "", None, reply.finish_reason)
    if meta.include_usage:
        yield {
            "id": meta.id,
            "object": "text_completion",
            "created": meta.created,
            "model": meta.model,
            "usage": _usage(replies, choices),
            "choices": [],
        }


def _chunk(
    meta: CompletionMeta, index: int, text: str, logprobs: Json | None, finish: str | None
) -> Json:
    chunk: Json = {
        "id": meta.id,
        "object": "text_completion",
        "created": meta.created,
        "choices": [{"text": text, "index": index, "logprobs": logprobs, "finish_reason": finish}],
        "model": meta.model,
    }
    if meta.include_usage:
        chunk["usage"] = None
    return chunk
