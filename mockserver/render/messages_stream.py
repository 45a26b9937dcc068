"""Reply → the events of a streamed Anthropic message, in the order the real API sends them.

::

    message_start          the message with no content, stop_reason null, and usage with the
                           input tokens and a first output token
    content_block_start    per block, indices 0, 1, 2…: an empty text or thinking block, a
    ping                   tool_use with ``input: {}``, a whole redacted_thinking block;
                           the ping right after the first block starts, as real streams have it
    content_block_delta    text_delta / thinking_delta / input_json_delta fragments (joined, the
                           block's text or input), then a thinking block's one signature_delta
    content_block_stop
    message_delta          stop_reason, stop_sequence, stop_details, and the cumulative usage
    message_stop

Every event is framed with its ``event:`` line (:func:`frame_event`); the SDK drops a frame
without one, and raises on any event before ``message_start``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from mockserver.render import sse
from mockserver.render.messages import (
    MessageMeta,
    delta_usage,
    message_usage,
    signature_of,
    stop_details,
    stop_reason,
    thinking_block,
    thinking_text,
    tool_input,
    tool_use_id,
)
from mockserver.reply.model import Reply
from mockserver.reply.tokens import group_texts, tokenize
from mockserver.values import Json

__all__ = ["PING", "frame_event", "message_events"]

#: The ping event (the real API writes its data with a space: ``{"type": "ping"}``).
PING: Json = {"type": "ping"}
_PING_FRAME = sse.text_frame("ping", '{"type": "ping"}')
#: What ``message_start`` says of the output so far (the real API's first count).
FIRST_OUTPUT_TOKENS = 1


def frame_event(event: Json) -> bytes:
    """``event: <type>`` + its data, as the real API frames each event."""
    if event is PING:
        return _PING_FRAME
    return sse.event_frame(event["type"], event)


def _start(index: int, block: Json) -> Json:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: Json) -> Json:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> Json:
    return {"type": "content_block_stop", "index": index}


def _thinking(reply: Reply, meta: MessageMeta, index: int) -> Iterator[Json]:
    reasoning = reply.reasoning
    assert reasoning is not None
    if reasoning.redacted:  # arrives whole in its start
        yield _start(index, thinking_block(reasoning, meta))
        yield _stop(index)
        return
    yield _start(index, {"type": "thinking", "thinking": "", "signature": ""})
    text = thinking_text(reasoning)
    for piece in group_texts(tokenize(text), meta.chunk):
        yield _delta(index, {"type": "thinking_delta", "thinking": piece})
    signature = signature_of(text, model=meta.model)
    yield _delta(index, {"type": "signature_delta", "signature": signature})
    yield _stop(index)


def _text(reply: Reply, meta: MessageMeta, index: int) -> Iterator[Json]:
    """The visible text (or refusal) in deltas of the reply's own tokens."""
    yield _start(index, {"type": "text", "text": ""})
    for piece in group_texts(reply.token_texts, meta.chunk):
        yield _delta(index, {"type": "text_delta", "text": piece})
    yield _stop(index)


def _blocks(reply: Reply, meta: MessageMeta) -> Iterator[Json]:
    index = 0
    if meta.thinking and reply.reasoning is not None:
        yield from _thinking(reply, meta, index)
        index += 1
    said = reply.refusal if reply.refusal is not None else reply.text
    if said:
        yield from _text(reply, meta, index)
        index += 1
    for call in reply.tool_calls:
        use = {"type": "tool_use", "id": tool_use_id(call), "name": call.name, "input": {}}
        yield _start(index, use)
        arguments = json.dumps(tool_input(call), separators=(",", ":"), ensure_ascii=False)
        for piece in ("", *tokenize(arguments)):
            yield _delta(index, {"type": "input_json_delta", "partial_json": piece})
        yield _stop(index)
        index += 1


def message_events(reply: Reply, meta: MessageMeta) -> list[Json]:
    """The stream's event payloads, ``message_stop`` last (:data:`PING` stands for the ping)."""
    start: Json = {
        "model": meta.model,
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": message_usage(reply, meta, output_tokens=FIRST_OUTPUT_TOKENS),
    }
    events: list[Json] = [{"type": "message_start", "message": start}]
    blocks = list(_blocks(reply, meta))
    events += blocks[:1]
    events.append(PING)
    events += blocks[1:]
    events.append(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": stop_reason(reply),
                "stop_sequence": reply.stop_sequence,
                "stop_details": stop_details(reply),
            },
            "usage": delta_usage(reply, meta),
        }
    )
    events.append({"type": "message_stop"})
    return events
