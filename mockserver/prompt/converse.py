"""Bedrock Runtime requests → :class:`Prompt`: a Converse body (read *after*
``wire.converse`` accepted it), and an Anthropic-on-Bedrock invoke body (read as Anthropic's
Messages body it is, its model the path's).

A Converse conversation puts tool results in user messages (``toolResult`` blocks) and tool
calls in assistant ones (``toolUse``); the neutral view has them as the Chat shape does (a
``tool`` message per result, the assistant's calls on its message), so one rule answers every
family alike. ``system`` is the prompt's instructions; reasoning is asked for through
``additionalModelRequestFields`` (Anthropic's ``thinking``, ``reasoning_config``, Nova's
``reasoningConfig``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from mockserver.families import Provider
from mockserver.ids import stable_digest
from mockserver.prompt.messages import media_tokens, prompt_from_messages
from mockserver.prompt.model import Message, Prompt, Tool, ToolCallRef, ToolChoice

__all__ = ["prompt_from_converse", "prompt_from_invoke"]

#: Fields that do not change what the model would say.
_NOT_CONTENT: Final = frozenset({"requestMetadata", "performanceConfig", "serviceTier"})
#: The ``additionalModelRequestFields`` keys that turn reasoning on.
_REASONING_KEYS: Final = ("thinking", "reasoning_config", "reasoningConfig")


def _media(block: Mapping[str, Any]) -> int:
    """What an image or document block costs, counted as Anthropic's API counts its own."""
    if "image" in block:
        image = block["image"] or {}
        data = (image.get("source") or {}).get("bytes")
        source: dict[str, Any] = {"type": "url"}
        if isinstance(data, str):
            kind = image.get("format", "png")
            source = {"type": "base64", "media_type": f"image/{kind}", "data": data}
        return media_tokens([{"type": "image", "source": source}])
    if "document" in block:
        return media_tokens([{"type": "document", "source": {"type": "file"}}])
    return 0


def _result_text(content: Any) -> str:
    parts = []
    for part in content or ():
        if isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif "json" in part:
            parts.append(json.dumps(part["json"], separators=(",", ":"), ensure_ascii=False))
    return "\n".join(parts)


def _user_messages(content: list[Mapping[str, Any]]) -> Iterator[Message]:
    """A user message: each tool result (a ``tool`` message), then what the user said."""
    said: list[str] = []
    cost = 0
    for block in content:
        if "toolResult" in block:
            result = block["toolResult"]
            yield Message(
                role="tool",
                text=_result_text(result.get("content")),
                tool_call_id=result.get("toolUseId"),
            )
        elif isinstance(block.get("text"), str):
            said.append(block["text"])
        else:
            cost += _media(block)
    if said or cost or not content:
        yield Message(role="user", text="\n".join(said), image_tokens=cost)


def _assistant_message(content: list[Mapping[str, Any]]) -> Message:
    calls = tuple(
        ToolCallRef(
            call_id=str(use.get("toolUseId", "")),
            name=str(use.get("name", "")),
            arguments=json.dumps(use.get("input"), separators=(",", ":"), ensure_ascii=False),
        )
        for use in (block["toolUse"] for block in content if "toolUse" in block)
    )
    text = "\n".join(b["text"] for b in content if isinstance(b.get("text"), str))
    return Message(role="assistant", text=text, tool_calls=calls)


def _messages(raw: list[Mapping[str, Any]]) -> tuple[Message, ...]:
    out: list[Message] = []
    for message in raw:
        content = list(message.get("content") or ())
        if message.get("role") == "assistant":
            out.append(_assistant_message(content))
        else:
            out.extend(_user_messages(content))
    return tuple(out)


def _tools(config: Mapping[str, Any]) -> tuple[Tool, ...]:
    return tuple(
        Tool(
            name=spec["name"],
            description=spec.get("description"),
            parameters=spec["inputSchema"]["json"],
        )
        for spec in (tool["toolSpec"] for tool in config.get("tools") or () if "toolSpec" in tool)
    )


def _tool_choice(config: Mapping[str, Any], tools: tuple[Tool, ...]) -> ToolChoice:
    choice = config.get("toolChoice") or {}
    if "any" in choice:
        return ToolChoice(mode="required")
    if "tool" in choice:
        return ToolChoice(mode="required", allowed=(choice["tool"]["name"],))
    return ToolChoice(mode="auto" if tools else "none")


def _reasoning(body: Mapping[str, Any]) -> tuple[str | None, int | None]:
    """``(effort, budget)`` for the reasoning the request turns on (``None``: off)."""
    extra = body.get("additionalModelRequestFields")
    if not isinstance(extra, Mapping):
        return None, None
    for key in _REASONING_KEYS:
        asked = extra.get(key)
        if isinstance(asked, Mapping) and asked.get("type") in ("enabled", "adaptive"):
            budget = asked.get("budget_tokens")
            effort = asked.get("maxReasoningEffort") or "medium"
            return str(effort), budget if isinstance(budget, int) else None
    return None, None


def _normalized(body: Mapping[str, Any]) -> bytes:
    """What generated content derives from: the body less what does not change it."""
    kept = {k: v for k, v in body.items() if k not in _NOT_CONTENT}
    config = kept.get("inferenceConfig")
    if isinstance(config, Mapping):
        kept["inferenceConfig"] = {
            k: v for k, v in config.items() if k not in ("maxTokens", "stopSequences")
        }
    return orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)


def prompt_from_converse(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    model: str | None = None,
    stream: bool = False,
    provider: Provider = "aws",
) -> Prompt:
    """The neutral view of a Converse body sent for ``model`` (the path's; else the body's
    ``model``, as a recording keeps it)."""
    config = body.get("toolConfig") or {}
    tools = _tools(config)
    inference = body.get("inferenceConfig") or {}
    effort, budget = _reasoning(body)
    system = "\n".join(b["text"] for b in body.get("system") or () if "text" in b)
    metadata = body.get("requestMetadata") or {}
    return Prompt(
        api="converse",
        provider=provider,
        model=model or str(body["model"]),
        messages=_messages(body["messages"]),
        instructions=system or None,
        tools=tools,
        tool_choice=_tool_choice(config, tools),
        max_output_tokens=inference.get("maxTokens"),
        stop=tuple(inference.get("stopSequences") or ()),
        reasoning_effort=effort,
        reasoning_summary="auto" if effort else None,
        reasoning_budget=budget,
        stream=stream,
        metadata={k: v for k, v in metadata.items() if isinstance(v, str)},
        headers={k.lower(): v for k, v in headers.items()},
        params=body,
        fingerprint=stable_digest("converse", _normalized(body)),
    )


def prompt_from_invoke(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    model: str | None = None,
    stream: bool = False,
    provider: Provider = "aws",
) -> Prompt:
    """The neutral view of an Anthropic-on-Bedrock invoke body: Anthropic's Messages body,
    for ``model`` (the path's; else the body's, as a recording keeps it)."""
    named = model or str(body["model"])
    messages_body = {k: v for k, v in body.items() if k != "anthropic_version"}
    prompt = prompt_from_messages({**messages_body, "model": named}, headers=headers)
    return dataclasses.replace(prompt, api="invoke", provider=provider, stream=stream, params=body)
