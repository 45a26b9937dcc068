"""Reply → an Anthropic ``message``: its content blocks, stop reason and usage.

Key order follows what the real API sends (``model`` first, ``stop_details`` after
``stop_sequence``), so bodies diff cleanly against recordings. The stream's events are
``messages_stream.py``'s, made of the same blocks.

Where the reply's neutral words become Anthropic's: a reasoning reply (when the request turned
thinking on) is a ``thinking`` block with a signature drawn from its text, or, redacted, a
``redacted_thinking`` block; a tool call's id is a ``toolu_…`` one (an id the scenario wrote
in that style is kept; others are drawn from the neutral id); its arguments are the ``input``
object; ``finish_reason`` is a ``stop_reason``.
"""

from __future__ import annotations

from typing import Literal

from mockserver import ids
from mockserver.reply.arguments import arguments_object
from mockserver.reply.model import Reasoning, Reply, ToolCall
from mockserver.values import Json, value_class

__all__ = [
    "MessageMeta",
    "content_blocks",
    "delta_usage",
    "message_body",
    "message_usage",
    "signature_of",
    "stop_details",
    "stop_reason",
    "thinking_block",
    "thinking_text",
    "tool_input",
    "tool_use_id",
]


@value_class
class MessageMeta:
    id: str
    model: str
    #: The request turned thinking on: the reply's reasoning is a thinking block.
    thinking: bool = False
    service_tier: str = "standard"
    #: Stream granularity: one delta per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"


def thinking_text(reasoning: Reasoning) -> str:
    """What a thinking block says: the reasoning's text, else its summary."""
    if reasoning.text is not None:
        return reasoning.text
    return "\n\n".join(reasoning.summary)


def signature_of(text: str, *, model: str) -> str:
    """A thinking block's signature: opaque, and the same for the same thinking."""
    return "Eu" + ids.signature("anthropic", model, text, size=240)


def _redacted_data(reasoning: Reasoning, *, model: str) -> str:
    return "Ep" + ids.signature("redacted", model, thinking_text(reasoning), size=192)


def thinking_block(reasoning: Reasoning, meta: MessageMeta) -> Json:
    if reasoning.redacted:
        return {"type": "redacted_thinking", "data": _redacted_data(reasoning, model=meta.model)}
    text = thinking_text(reasoning)
    return {"type": "thinking", "thinking": text, "signature": signature_of(text, model=meta.model)}


def tool_use_id(call: ToolCall) -> str:
    """The call's ``toolu_…`` id (one already in that style is kept)."""
    if call.call_id.startswith("toolu_"):
        return call.call_id
    return ids.opaque_id("toolu_01", call.call_id, length=22)


def tool_input(call: ToolCall, *, must: str = "an Anthropic tool_use block's input") -> Json:
    """The call's arguments as the ``input`` object the API sends (``must``: what the refusal
    of arguments that are no JSON object calls it)."""
    return arguments_object(call, must=must)


def _said(reply: Reply) -> str | None:
    return reply.refusal if reply.refusal is not None else reply.text


def content_blocks(reply: Reply, meta: MessageMeta) -> list[Json]:
    """The message's content: thinking first, then the text, then each tool call."""
    blocks: list[Json] = []
    if meta.thinking and reply.reasoning is not None:
        blocks.append(thinking_block(reply.reasoning, meta))
    said = _said(reply)
    if said:
        blocks.append({"type": "text", "text": said})
    for call in reply.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": tool_use_id(call),
                "name": call.name,
                "input": tool_input(call),
            }
        )
    return blocks


def stop_reason(reply: Reply) -> str:
    if reply.refusal is not None or reply.finish_reason == "content_filter":
        return "refusal"
    if reply.finish_reason == "length":
        return "max_tokens"
    if reply.finish_reason == "tool_calls" or reply.tool_calls:
        return "tool_use"
    return "stop_sequence" if reply.stop_sequence is not None else "end_turn"


def stop_details(reply: Reply) -> Json | None:
    """A refusal's ``{type: refusal, category, explanation}``; ``None`` otherwise."""
    if stop_reason(reply) != "refusal":
        return None
    details = reply.refusal_details
    return {
        "type": "refusal",
        "category": details.category if details else None,
        "explanation": details.explanation if details else None,
    }


def _counts(reply: Reply) -> tuple[int, int, int, int]:
    """``(input, cache read, cache write, output)`` tokens: what is read from a prompt cache
    or written to it is not counted as input."""
    usage = reply.usage
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    written = min(usage.cache_write_tokens, usage.prompt_tokens - cached)
    return usage.prompt_tokens - cached - written, cached, written, usage.completion_tokens


def _cache_creation(reply: Reply) -> Json:
    usage = reply.usage
    hour = min(usage.cache_write_1h_tokens, usage.cache_write_tokens)
    return {
        "ephemeral_5m_input_tokens": usage.cache_write_tokens - hour,
        "ephemeral_1h_input_tokens": hour,
    }


def message_usage(reply: Reply, meta: MessageMeta, *, output_tokens: int | None = None) -> Json:
    """A message's ``usage`` (``output_tokens``: what a stream's start says so far)."""
    input_tokens, cached, written, output = _counts(reply)
    usage: Json = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": cached,
        "cache_creation": _cache_creation(reply),
        "output_tokens": output if output_tokens is None else output_tokens,
    }
    if meta.thinking and output_tokens is None:
        usage["output_tokens_details"] = {"thinking_tokens": reply.usage.reasoning_tokens}
    usage["service_tier"] = meta.service_tier
    usage["inference_geo"] = "global"
    return usage


def delta_usage(reply: Reply, meta: MessageMeta) -> Json:
    """The cumulative usage a stream's ``message_delta`` reports."""
    input_tokens, cached, written, output = _counts(reply)
    usage: Json = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": cached,
        "output_tokens": output,
    }
    if meta.thinking:
        usage["output_tokens_details"] = {"thinking_tokens": reply.usage.reasoning_tokens}
    return usage


def message_body(reply: Reply, meta: MessageMeta) -> Json:
    """The non-streamed answer."""
    return {
        "model": meta.model,
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "content": content_blocks(reply, meta),
        "stop_reason": stop_reason(reply),
        "stop_sequence": reply.stop_sequence,
        "stop_details": stop_details(reply),
        "usage": message_usage(reply, meta),
    }
