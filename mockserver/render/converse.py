"""Reply → a Bedrock Converse answer: the ``ConverseResponse`` body, and the ConverseStream's
events, as botocore's model (``service-2.json``) reads them.

::

    messageStart        {role: assistant}
    contentBlockStart   a tool call's block only: {start: {toolUse: {toolUseId, name}}}
                        (a text or reasoning block has no start: botocore refuses an empty one)
    contentBlockDelta   {delta: {text} | {toolUse: {input: "<fragment>"}} |
                        {reasoningContent: {text} | {signature} | {redactedContent}}}
    contentBlockStop
    messageStop         {stopReason}
    metadata            {usage, metrics: {latencyMs}}, last

Each event's payload is its body, never wrapped in its name (the event's name is its
``:event-type`` header: ``render/eventstream.py``), with the ``p`` padding Bedrock adds to
each event so that lengths say nothing of the text. Keys are in the order the service writes
them.

Where the neutral words become Bedrock's: a tool call's id is a ``tooluse_…`` one (one
already in that style is kept); its arguments the ``input`` object; reasoning (when the
request turned it on) a ``reasoningContent`` block with a signature, or redacted content;
``finish_reason`` a ``stopReason`` (a refusal or filtered answer ``content_filtered``, an
answer a guardrail blocked ``guardrail_intervened``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Final, Literal

from mockserver import ids
from mockserver.render.messages import thinking_text, tool_input
from mockserver.reply.model import Reasoning, Reply, ToolCall
from mockserver.reply.tokens import group_texts, tokenize
from mockserver.values import Json, value_class

__all__ = [
    "ConverseMeta",
    "Event",
    "converse_body",
    "converse_events",
    "stop_reason",
    "tool_use_id",
]

#: One stream event: its ``:event-type`` and payload.
Event = tuple[str, Json]
#: What Bedrock pads each stream event's payload with (a prefix of it).
_PADDING: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@value_class
class ConverseMeta:
    model: str
    #: The request turned reasoning on: the reply's reasoning is a reasoningContent block.
    thinking: bool = False
    #: A guardrail blocked the answer (its blocked message is the reply's text).
    guardrail: bool = False
    latency_ms: int = 0
    #: Stream granularity: one delta per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"


def tool_use_id(call: ToolCall) -> str:
    """The call's ``tooluse_…`` id (one already in that style is kept)."""
    if call.call_id.startswith("tooluse_"):
        return call.call_id
    return ids.opaque_id("tooluse_", call.call_id, length=22)


def _signature(text: str, meta: ConverseMeta) -> str:
    return "Eu" + ids.signature("bedrock", meta.model, text, size=240)


def _redacted(reasoning: Reasoning, meta: ConverseMeta) -> str:
    """Redacted reasoning: an opaque blob (base64, as a JSON body carries bytes)."""
    raw = ids.signature("redacted", meta.model, thinking_text(reasoning), size=192)
    return base64.b64encode(raw.encode()).decode()


def _reasoning_block(reasoning: Reasoning, meta: ConverseMeta) -> Json:
    if reasoning.redacted:
        return {"reasoningContent": {"redactedContent": _redacted(reasoning, meta)}}
    text = thinking_text(reasoning)
    return {
        "reasoningContent": {"reasoningText": {"text": text, "signature": _signature(text, meta)}}
    }


def _said(reply: Reply) -> str | None:
    return reply.refusal if reply.refusal is not None else reply.text


def stop_reason(reply: Reply, meta: ConverseMeta) -> str:
    if meta.guardrail:
        return "guardrail_intervened"
    if reply.refusal is not None or reply.finish_reason == "content_filter":
        return "content_filtered"
    if reply.finish_reason == "length":
        return "max_tokens"
    if reply.finish_reason == "tool_calls" or reply.tool_calls:
        return "tool_use"
    return "stop_sequence" if reply.stop_sequence is not None else "end_turn"


def _usage(reply: Reply) -> Json:
    usage = reply.usage
    counted: Json = {
        "inputTokens": usage.prompt_tokens,
        "outputTokens": usage.completion_tokens,
        "totalTokens": usage.total_tokens,
    }
    if usage.cached_tokens:
        cached = min(usage.cached_tokens, usage.prompt_tokens)
        counted["inputTokens"] = usage.prompt_tokens - cached
        counted["cacheReadInputTokens"] = cached
        counted["cacheWriteInputTokens"] = 0
    return counted


def content_blocks(reply: Reply, meta: ConverseMeta) -> list[Json]:
    """The message's content: reasoning first, then the text, then each tool call."""
    blocks: list[Json] = []
    if meta.thinking and reply.reasoning is not None:
        blocks.append(_reasoning_block(reply.reasoning, meta))
    said = _said(reply)
    if said:
        blocks.append({"text": said})
    for call in reply.tool_calls:
        use = {"toolUseId": tool_use_id(call), "name": call.name, "input": _input(call)}
        blocks.append({"toolUse": use})
    return blocks


def _input(call: ToolCall) -> Json:
    """The call's arguments as its ``toolUse`` block's ``input`` object."""
    return tool_input(call, must="a Converse toolUse block's input")


def converse_body(reply: Reply, meta: ConverseMeta) -> Json:
    """The non-streamed answer."""
    return {
        "metrics": {"latencyMs": meta.latency_ms},
        "output": {"message": {"content": content_blocks(reply, meta), "role": "assistant"}},
        "stopReason": stop_reason(reply, meta),
        "usage": _usage(reply),
    }


def _delta(index: int, delta: Json) -> Event:
    return "contentBlockDelta", {"contentBlockIndex": index, "delta": delta}


def _stop(index: int) -> Event:
    return "contentBlockStop", {"contentBlockIndex": index}


def _reasoning_events(reasoning: Reasoning, meta: ConverseMeta, index: int) -> Iterator[Event]:
    if reasoning.redacted:
        yield _delta(index, {"reasoningContent": {"redactedContent": _redacted(reasoning, meta)}})
    else:
        text = thinking_text(reasoning)
        for piece in group_texts(tokenize(text), meta.chunk):
            yield _delta(index, {"reasoningContent": {"text": piece}})
        yield _delta(index, {"reasoningContent": {"signature": _signature(text, meta)}})
    yield _stop(index)


def _blocks(reply: Reply, meta: ConverseMeta) -> Iterator[Event]:
    index = 0
    if meta.thinking and reply.reasoning is not None:
        yield from _reasoning_events(reply.reasoning, meta, index)
        index += 1
    if _said(reply):
        for piece in group_texts(reply.token_texts, meta.chunk):
            yield _delta(index, {"text": piece})
        yield _stop(index)
        index += 1
    for call in reply.tool_calls:
        start = {"toolUse": {"toolUseId": tool_use_id(call), "name": call.name}}
        yield "contentBlockStart", {"contentBlockIndex": index, "start": start}
        arguments = json.dumps(_input(call), separators=(",", ":"), ensure_ascii=False)
        for piece in tokenize(arguments):
            yield _delta(index, {"toolUse": {"input": piece}})
        yield _stop(index)
        index += 1


def _padded(events: list[Event]) -> list[Event]:
    """Each payload with its ``p`` padding (its length drawn from the event's place)."""
    return [
        (name, {**payload, "p": _PADDING[: 1 + (7 * number + len(name)) % len(_PADDING)]})
        for number, (name, payload) in enumerate(events)
    ]


def converse_events(reply: Reply, meta: ConverseMeta) -> list[Event]:
    """The stream's events, ``metadata`` last."""
    events: list[Event] = [("messageStart", {"role": "assistant"})]
    events += _blocks(reply, meta)
    events.append(("messageStop", {"stopReason": stop_reason(reply, meta)}))
    metadata = {"usage": _usage(reply), "metrics": {"latencyMs": meta.latency_ms}}
    events.append(("metadata", metadata))
    return _padded(events)
