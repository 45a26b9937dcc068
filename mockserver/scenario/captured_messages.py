"""A captured Anthropic answer — a ``message``, or its stream's events — as the neutral reply
it says (text, tool calls, refusal, thinking, usage), so that a distilled recording of
Anthropic's API answers every family, as ``captured.py`` does for OpenAI's.

Pure: parsed data in, a reply's data out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mockserver.values import Json

__all__ = ["from_message", "from_message_events", "is_message", "is_message_events"]

#: An Anthropic stop reason as the neutral reply's ``finish_reason`` (the rest are ``stop``).
_FINISH = {"max_tokens": "length", "refusal": "content_filter"}


def is_message(value: Mapping[str, Any]) -> bool:
    return value.get("type") == "message" and isinstance(value.get("content"), list)


def is_message_events(values: Sequence[Mapping[str, Any]]) -> bool:
    return any(v.get("type") == "message_start" for v in values)


def _usage(usage: Any) -> dict[str, int]:
    """The neutral usage of Anthropic's (its input excludes what the cache read and wrote)."""
    if not isinstance(usage, Mapping):
        return {}
    counts = {
        key: usage.get(key)
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        )
    }
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        counts = {k: v if isinstance(v, int) else 0 for k, v in counts.items()}
    read, written = counts["cache_read_input_tokens"] or 0, counts["cache_creation_input_tokens"]
    out = {
        "prompt_tokens": (counts["input_tokens"] or 0) + read + (written or 0),
        "completion_tokens": counts["output_tokens"] or 0,
    }
    if read:
        out["cached_tokens"] = read
    thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
    if isinstance(thinking, int) and thinking > 0:
        out["reasoning_tokens"] = thinking
    return out


def _reply(blocks: Sequence[Mapping[str, Any]], stop: Any, usage: Any, details: Any) -> Json:
    texts, calls, thinking = [], [], []
    redacted = False
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            call = {"name": block.get("name", ""), "arguments": block.get("input") or {}}
            if block.get("id"):
                call["id"] = block["id"]
            calls.append(call)
        elif kind == "thinking":
            thinking.append(str(block.get("thinking", "")))
        elif kind == "redacted_thinking":
            redacted = True
    reply: Json = {}
    text = "".join(texts)
    if stop == "refusal":
        reply["refusal"] = text
        if isinstance(details, Mapping) and (details.get("category") or details.get("explanation")):
            reply["refusal_details"] = {
                k: details[k] for k in ("category", "explanation") if details.get(k)
            }
    elif text or not calls:
        reply["text"] = text
    if calls:
        reply["tool_calls"] = calls
    if thinking or redacted:
        reply["reasoning"] = {"text": "".join(thinking)} | ({"redacted": True} if redacted else {})
    if _FINISH.get(str(stop)) == "length":
        reply["finish_reason"] = "length"
    counted = _usage(usage)
    if counted:
        reply["usage"] = counted
    return reply


def from_message(body: Mapping[str, Any]) -> Json:
    return _reply(
        body.get("content") or (),
        body.get("stop_reason"),
        body.get("usage"),
        body.get("stop_details"),
    )


def from_message_events(events: Sequence[Mapping[str, Any]]) -> Json:
    """A stream's events, added up into the message they spell."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    usage: dict[str, Any] = {}
    stop = details = None
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            usage.update((event.get("message") or {}).get("usage") or {})
        elif kind == "content_block_start":
            index = int(event.get("index", len(blocks)))
            blocks[index] = dict(event.get("content_block") or {})
        elif kind == "content_block_delta":
            _add(blocks, partial, event)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            stop, details = delta.get("stop_reason") or stop, delta.get("stop_details") or details
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
    for index, parts in partial.items():
        try:
            blocks[index]["input"] = json.loads("".join(parts) or "{}")
        except ValueError:
            blocks[index]["input"] = {}
    return _reply([blocks[i] for i in sorted(blocks)], stop, usage, details)


def _add(
    blocks: dict[int, dict[str, Any]], partial: dict[int, list[str]], event: Mapping[str, Any]
) -> None:
    index = int(event.get("index", 0))
    block = blocks.setdefault(index, {"type": "text", "text": ""})
    delta = event.get("delta") or {}
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "input_json_delta":
        partial.setdefault(index, []).append(str(delta.get("partial_json", "")))
