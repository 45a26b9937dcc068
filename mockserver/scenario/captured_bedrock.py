"""Captured answers of Bedrock Runtime, as the neutral reply they say (``scenario/captured.py``
dispatches here): a Converse body, a ConverseStream's events (``{member: payload}`` each, as
boto3 hands them over), and invoke's ``chunk`` events that carry Anthropic's in base64 (read
as ``captured_messages.py`` reads Anthropic's own; an invoke body is an Anthropic message).

Pure: parsed data in, a reply's data out.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mockserver.scenario.captured_messages import from_message_events
from mockserver.values import Json

__all__ = ["bedrock_reply"]

Reply = Callable[..., Json]


def _arguments(value: Any) -> str:
    return json.dumps(value if value is not None else {}, separators=(",", ":"))


def _converse_usage(usage: Any) -> Json:
    usage = usage if isinstance(usage, Mapping) else {}
    return {"input_tokens": usage.get("inputTokens"), "output_tokens": usage.get("outputTokens")}


def _finish(reason: Any) -> str | None:
    """A stop reason (Converse's or Anthropic's) in the neutral words, where they differ."""
    if reason == "max_tokens":
        return "length"
    if reason in ("content_filtered", "guardrail_intervened"):
        return "content_filter"
    return None


def _from_converse(body: Mapping[str, Any], reply: Reply) -> Json:
    message = (body.get("output") or {}).get("message") or {}
    text, calls, thought = [], [], []
    for block in message.get("content") or ():
        if isinstance(block.get("text"), str):
            text.append(block["text"])
        elif isinstance(block.get("toolUse"), Mapping):
            use = block["toolUse"]
            calls.append(
                {"name": use.get("name", ""), "arguments": _arguments(use.get("input"))}
                | ({"id": use["toolUseId"]} if use.get("toolUseId") else {})
            )
        elif isinstance(block.get("reasoningContent"), Mapping):
            said = block["reasoningContent"].get("reasoningText") or {}
            thought.append(str(said.get("text", "")))
    return reply(
        text="".join(text),
        calls=calls,
        usage=_converse_usage(body.get("usage")),
        finish=_finish(body.get("stopReason")),
        reasoning={"text": "".join(thought)} if any(thought) else None,
    )


def _from_converse_events(events: Sequence[Mapping[str, Any]], reply: Reply) -> Json:
    text, thought = [], []
    calls: dict[int, Json] = {}
    reason, usage = None, None
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            use = (start.get("start") or {}).get("toolUse") or {}
            calls[start.get("contentBlockIndex", 0)] = {
                "name": use.get("name", ""),
                "arguments": "",
                "id": use.get("toolUseId", ""),
            }
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            said = delta.get("delta") or {}
            index = delta.get("contentBlockIndex", 0)
            text.append(said.get("text") or "")
            thought.append((said.get("reasoningContent") or {}).get("text") or "")
            if index in calls:
                calls[index]["arguments"] += (said.get("toolUse") or {}).get("input") or ""
        elif "messageStop" in event:
            reason = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            usage = _converse_usage(event["metadata"].get("usage"))
    return reply(
        text="".join(text),
        calls=[{**calls[i], "arguments": calls[i]["arguments"] or "{}"} for i in sorted(calls)],
        usage=usage,
        finish=_finish(reason),
        reasoning={"text": "".join(thought)} if any(thought) else None,
    )


def _unchunked(events: Sequence[Mapping[str, Any]]) -> list[Any] | None:
    """The events invoke's ``chunk`` events carry (``None``: one is not base64 JSON)."""
    out = []
    for event in events:
        chunk = event.get("chunk")
        if not isinstance(chunk, Mapping):
            continue
        try:
            out.append(json.loads(base64.b64decode(str(chunk.get("bytes", "")))))
        except (binascii.Error, ValueError):
            return None
    return out


def bedrock_reply(value: Any, reply: Reply) -> Json | None:
    """The reply ``value`` says if it is a Bedrock answer (``reply`` builds it); ``None`` if
    it is not one."""
    if isinstance(value, Mapping):
        if "output" in value and "stopReason" in value:
            return _from_converse(value, reply)
        return None
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        return None
    if any("messageStart" in v or "contentBlockDelta" in v for v in value):
        return _from_converse_events(value, reply)
    if any("chunk" in v for v in value):  # invoke's stream: Anthropic's events, wrapped
        unchunked = _unchunked(value)
        return None if unchunked is None else from_message_events(unchunked)
    return None
