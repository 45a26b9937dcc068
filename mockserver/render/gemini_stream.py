"""Reply → the chunks of a ``streamGenerateContent`` stream, without framing.

Each chunk is a ``GenerateContentResponse`` of its own: the candidate's new parts (thoughts,
then text in pieces, then the function calls in one chunk), ``usageMetadata`` counted so far
on every chunk, ``modelVersion`` and ``responseId``. Only the last chunk of a candidate has its
``finishReason`` (and its safety ratings, citations, logprobs). Framing — SSE (``alt=sse``) or
one JSON array — is ``render/sse.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mockserver.render.gemini import (
    GeminiMeta,
    call_parts,
    candidate_body,
    gemini_response,
    response_tail,
    thought_text,
    usage_metadata,
)
from mockserver.reply.model import Reply
from mockserver.reply.tokens import group_texts
from mockserver.values import Json

__all__ = ["gemini_chunks"]


def _text_pieces(reply: Reply, text: str, chunk: int | str) -> list[tuple[str, int]]:
    """The text in stream pieces, each with the number of tokens it holds (one piece if the
    reply was not cut into tokens)."""
    texts = reply.token_texts
    if not texts:
        return [(text, 0)]
    pieces: list[tuple[str, int]] = []
    at = 0
    for group in group_texts(texts, chunk):  # whole tokens, in order: count them back
        taken, length = 0, 0
        while length < len(group) and at < len(texts):
            length += len(texts[at])
            at += 1
            taken += 1
        pieces.append((group, taken))
    return pieces


def _steps(reply: Reply, meta: GeminiMeta, *, index: int) -> list[tuple[list[Json], int]]:
    """A candidate's chunks as ``(parts, candidate tokens once sent)``."""
    steps: list[tuple[list[Json], int]] = []
    thought = thought_text(reply)
    if thought is not None:
        steps.append(([{"text": thought, "thought": True}], 0))
    sent = 0
    text = reply.text if reply.text is not None else reply.refusal
    if text:
        for piece, count in _text_pieces(reply, text, meta.chunk):
            sent += count
            steps.append(([{"text": piece}], sent))
    if reply.tool_calls:
        steps.append((call_parts(reply, meta, candidate=index), sent))
    if not steps:
        steps.append(([], 0))
    return steps


def gemini_chunks(replies: Sequence[Reply], meta: GeminiMeta) -> Iterator[Json]:
    """The payloads of a streamed answer (one candidate after the other); a blocked prompt is
    one chunk with its ``promptFeedback``."""
    if meta.safety is not None and meta.safety.blocked == "input":
        yield gemini_response(replies, meta)
        return
    usages = [r.usage for r in replies]
    done = 0  # the tokens of the candidates already sent
    for index, reply in enumerate(replies):
        steps = _steps(reply, meta, index=index)
        total = reply.usage.completion_tokens - reply.usage.reasoning_tokens
        for number, (parts, sent) in enumerate(steps):
            last = number == len(steps) - 1
            if last:
                candidate = candidate_body(reply, meta, index=index, parts=parts)
                sent = total
            else:
                candidate = {"content": {"parts": parts, "role": "model"}, "index": index}
            usage = usage_metadata(usages[: index + 1], meta, candidates=done + sent)
            yield {"candidates": [candidate], **response_tail(meta, usage)}
        done += total
