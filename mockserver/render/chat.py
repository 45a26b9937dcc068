"""Reply → ``chat.completion`` body and ``chat.completion.chunk`` stream payloads.

Key order follows what the real API sends, so bodies diff cleanly against recordings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from mockserver import ids
from mockserver.reply.model import Reply, Token, ToolCall, Usage
from mockserver.reply.tokens import group_texts, group_tokens, tokenize
from mockserver.values import Json, value_class

__all__ = ["ChatMeta", "chat_chunks", "chat_completion", "usage_body"]


@value_class
class ChatMeta:
    id: str
    created: int
    model: str
    system_fingerprint: str
    service_tier: str
    include_usage: bool = False
    obfuscation: bool = True
    moderation: Json | None = None
    #: Stream granularity: one chunk per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"
    #: The obfuscation padding (default: ``ids.obfuscator`` of the id).
    pad: Callable[[int, int], str] | None = None


def usage_body(usage: Usage) -> Json:
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _token_body(token: Token) -> Json:
    return {
        "token": token.text,
        "logprob": token.logprob,
        "bytes": list(token.text.encode()),
        "top_logprobs": [
            {"token": text, "logprob": logprob, "bytes": list(text.encode())}
            for text, logprob in token.top
        ],
    }


def _logprobs(reply: Reply, tokens: Sequence[Token]) -> Json | None:
    if not reply.logprobs:
        return None
    entries = [_token_body(t) for t in tokens]
    if reply.refusal is not None:
        return {"content": None, "refusal": entries}
    return {"content": entries, "refusal": None}


def _tool_call_body(call: ToolCall) -> Json:
    if call.kind == "custom":
        return {
            "id": call.call_id,
            "type": "custom",
            "custom": {"name": call.name, "input": call.arguments},
        }
    return {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def _annotations(reply: Reply) -> list[Json]:
    return [
        {
            "type": "url_citation",
            "url_citation": {
                "end_index": a.end_index,
                "start_index": a.start_index,
                "url": a.url,
                "title": a.title,
            },
        }
        for a in reply.annotations
    ]


def _message(reply: Reply) -> Json:
    message: Json = {"role": "assistant", "content": reply.text, "refusal": reply.refusal}
    if reply.tool_calls:
        message["tool_calls"] = [_tool_call_body(c) for c in reply.tool_calls]
    message["annotations"] = _annotations(reply)
    return message


def chat_completion(reply: Reply, meta: ChatMeta) -> Json:
    body: Json = {
        "id": meta.id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "choices": [
            {
                "index": 0,
                "message": _message(reply),
                "logprobs": _logprobs(reply, reply.tokens),
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": usage_body(reply.usage),
        "service_tier": meta.service_tier,
        "system_fingerprint": meta.system_fingerprint,
    }
    if meta.moderation is not None:
        body["moderation"] = meta.moderation
    return body


class _Chunks:
    """Builds successive chunks sharing id/created/model, numbering them for obfuscation."""

    def __init__(self, reply: Reply, meta: ChatMeta) -> None:
        self.reply = reply
        self.meta = meta
        self.count = 0
        self.pad = meta.pad or ids.obfuscator(meta.id)
        #: What every chunk starts with, in the real API's key order.
        self.head: Json = {
            "id": meta.id,
            "object": "chat.completion.chunk",
            "created": meta.created,
            "model": meta.model,
            "service_tier": meta.service_tier,
            "system_fingerprint": meta.system_fingerprint,
        }

    def chunk(
        self,
        choices: list[Json],
        *,
        usage: Usage | None = None,
        moderation: Json | None = None,
        size: int | None = None,
    ) -> Json:
        """A chunk of ``choices``; ``size``, if the caller knows it, is the length of the
        text their deltas carry (what the obfuscation padding is measured against)."""
        meta = self.meta
        body: Json = {**self.head, "choices": choices}
        if moderation is not None:
            body["moderation"] = moderation
        if meta.include_usage:
            body["usage"] = usage_body(usage) if usage is not None else None
        if meta.obfuscation:
            if size is None:
                size = sum(len(v) for c in choices for v in c["delta"].values() if type(v) is str)
            body["obfuscation"] = self.pad(self.count, size)
        self.count += 1
        return body

    def delta(
        self,
        delta: Json,
        *,
        tokens: tuple[Token, ...] = (),
        finish: str | None = None,
        moderation: Json | None = None,
    ) -> Json:
        choice = {
            "index": 0,
            "delta": delta,
            "logprobs": _logprobs(self.reply, tokens) if tokens else None,
            "finish_reason": finish,
        }
        return self.chunk([choice], moderation=moderation)

    def text(self, field: str, text: str) -> Json:
        """A chunk of ``text`` in ``field`` (content or refusal), without logprobs."""
        choice = {"index": 0, "delta": {field: text}, "logprobs": None, "finish_reason": None}
        return self.chunk([choice], size=len(text))


def _tool_call_chunks(chunks: _Chunks, reply: Reply, *, opened: bool) -> Iterator[Json]:
    for index, call in enumerate(reply.tool_calls):
        head: Json = {"index": index, "id": call.call_id, "type": call.kind}
        if call.kind == "custom":
            head["custom"] = {"name": call.name, "input": ""}
        else:
            head["function"] = {"name": call.name, "arguments": ""}
        delta: Json = {"tool_calls": [head]}
        if index == 0 and not opened:
            delta = {"role": "assistant", "content": None, **delta, "refusal": None}
        yield chunks.delta(delta)
        key, field = ("custom", "input") if call.kind == "custom" else ("function", "arguments")
        for piece in tokenize(call.arguments):
            yield chunks.delta({"tool_calls": [{"index": index, key: {field: piece}}]})


def chat_chunks(reply: Reply, meta: ChatMeta) -> Iterator[Json]:
    """The payloads of a streamed completion, without framing and without ``[DONE]``."""
    chunks = _Chunks(reply, meta)
    field = "refusal" if reply.refusal is not None else "content"
    if reply.tool_calls and reply.text is None and reply.refusal is None:
        yield from _tool_call_chunks(chunks, reply, opened=False)
    else:
        opener: Json = {"role": "assistant", "content": "", "refusal": None}
        if field == "refusal":
            opener = {"role": "assistant", "content": None, "refusal": ""}
        yield chunks.delta(opener)
        if reply.logprobs:
            for group in group_tokens(reply.tokens, meta.chunk):
                yield chunks.delta({field: "".join(t.text for t in group)}, tokens=group)
        else:  # the tokens' texts alone: logprobs are scored only to be shown
            for text in group_texts(reply.token_texts, meta.chunk):
                yield chunks.text(field, text)
        if reply.annotations:
            yield chunks.delta({"annotations": _annotations(reply)})
        if reply.tool_calls:
            yield from _tool_call_chunks(chunks, reply, opened=True)
    yield chunks.delta({}, finish=reply.finish_reason, moderation=meta.moderation)
    if meta.include_usage:
        yield chunks.chunk([], usage=reply.usage)
