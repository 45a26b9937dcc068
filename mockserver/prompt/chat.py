"""A validated Chat Completions request → :class:`Prompt`.

Reads the request body *after* ``wire.chat`` has validated it, so shapes can be trusted here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from mockserver.families import Provider
from mockserver.ids import stable_digest
from mockserver.prompt.images import image_tokens_of
from mockserver.prompt.model import (
    Message,
    OutputFormat,
    Prompt,
    Tool,
    ToolCallRef,
    ToolChoice,
)

__all__ = ["NOT_CONTENT", "fingerprint", "prompt_from_chat", "text_of"]

#: Request fields that do not change what the model would say: streamed or not, stored or
#: not, cut by ``stop`` or a token limit or not, a request gets the same underlying content.
NOT_CONTENT = frozenset(
    (
        "stream stream_options store metadata user safety_identifier prompt_cache_key"
        " prompt_cache_retention prompt_cache_options service_tier background include stop"
        " max_tokens max_completion_tokens max_output_tokens logprobs top_logprobs"
    ).split()
)


def fingerprint(api: str, body: Mapping[str, Any]) -> bytes:
    normalized = {k: v for k, v in body.items() if k not in NOT_CONTENT}
    return stable_digest(api, orjson.dumps(normalized, option=orjson.OPT_SORT_KEYS))


def text_of(content: Any) -> str:
    """The text a content value carries (string, or the text/refusal parts of a list)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if isinstance(part, Mapping):
            value = part.get("text") or part.get("refusal")
            if isinstance(value, str):
                texts.append(value)
    return "\n".join(texts)


def _name(raw: Mapping[str, Any]) -> str | None:
    """``name`` where the role has one (a tool message's is an ignored unknown key)."""
    name = raw.get("name")
    return name if isinstance(name, str) and raw["role"] != "tool" else None


def _calls(raw_calls: Any) -> tuple[ToolCallRef, ...]:
    """An assistant message's tool calls (only the fields the wire model validated for the role
    are read: a ``tool_calls`` on a user message, say, is an ignored unknown key there, and
    here)."""
    return tuple(
        ToolCallRef(
            call_id=str(c.get("id", "")),
            name=str((c.get("function") or c.get("custom") or {}).get("name", "")),
            arguments=str(
                (c.get("function") or {}).get("arguments")
                or (c.get("custom") or {}).get("input")
                or ""
            ),
            kind="custom" if c.get("type") == "custom" else "function",
        )
        for c in raw_calls
    )


def _message(raw: Mapping[str, Any]) -> Message:
    role = raw["role"]
    calls: tuple[ToolCallRef, ...] = ()
    if role == "assistant" and raw.get("tool_calls"):
        calls = _calls(raw["tool_calls"])
    if role == "function":  # the deprecated function message is a tool result
        return Message(
            role="tool",
            text=text_of(raw.get("content")),
            name=raw.get("name"),
            tool_call_id=raw.get("name"),
        )
    content = raw.get("content")
    return Message(
        role=role,
        text=text_of(content),
        name=_name(raw),
        tool_call_id=raw.get("tool_call_id") if role == "tool" else None,
        tool_calls=calls,
        image_tokens=image_tokens_of(content) if isinstance(content, list) else 0,
    )


def _tool(raw: Mapping[str, Any]) -> Tool:
    if raw.get("type") == "custom":
        custom = raw.get("custom") or {}
        return Tool(
            name=custom["name"],
            kind="custom",
            description=custom.get("description"),
            grammar=custom.get("format"),
        )
    function = raw["function"]
    return Tool(
        name=function["name"],
        description=function.get("description"),
        parameters=function.get("parameters"),
        strict=function.get("strict") is True,
    )


#: The common choices and format, made once (they are values).
_AUTO, _NONE, _TEXT = ToolChoice(mode="auto"), ToolChoice(mode="none"), OutputFormat()


def _tool_choice(raw: Any, tools: tuple[Tool, ...]) -> ToolChoice:
    if raw is None:
        return _AUTO if tools else _NONE
    if isinstance(raw, str):
        return ToolChoice(mode=raw)  # type: ignore[arg-type]  # validated literal
    if raw.get("type") == "allowed_tools":
        allowed = raw["allowed_tools"]
        names = tuple(
            str((t.get("function") or t.get("custom") or {}).get("name") or t.get("name"))
            for t in allowed.get("tools", ())
        )
        return ToolChoice(mode=allowed.get("mode", "auto"), allowed=names)
    named = raw.get("function") or raw.get("custom") or {}
    return ToolChoice(mode="required", allowed=(str(named.get("name")),))


def _output_format(raw: Any) -> OutputFormat:
    if not isinstance(raw, Mapping) or raw.get("type") in (None, "text"):
        return _TEXT
    if raw["type"] == "json_object":
        return OutputFormat(type="json_object")
    spec = raw.get("json_schema") or {}
    return OutputFormat(
        type="json_schema",
        name=spec.get("name"),
        schema=spec.get("schema"),
        strict=bool(spec.get("strict")),
    )


def _functions_as_tools(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [{"type": "function", "function": f} for f in body.get("functions") or ()]


def prompt_from_chat(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "openai"
) -> Prompt:
    tools: tuple[Tool, ...] = ()
    if body.get("tools") or body.get("functions"):  # most requests offer none
        tools = tuple(_tool(t) for t in [*(body.get("tools") or ()), *_functions_as_tools(body)])
    choice = body.get("tool_choice")
    if choice is None and isinstance(body.get("function_call"), (str, Mapping)):
        legacy = body["function_call"]
        choice = legacy if isinstance(legacy, str) else {"type": "function", "function": legacy}
    stop = body.get("stop")
    max_tokens = body.get("max_completion_tokens")
    return Prompt(
        api="chat",
        model=body["model"],
        messages=tuple(_message(m) for m in body["messages"]),
        tools=tools,
        tool_choice=_tool_choice(choice, tools),
        parallel_tool_calls=body.get("parallel_tool_calls") is not False,
        output_format=_output_format(body.get("response_format")),
        max_output_tokens=max_tokens if max_tokens is not None else body.get("max_tokens"),
        stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
        logprobs=body.get("logprobs") is True,
        top_logprobs=int(body.get("top_logprobs") or 0),
        seed=body.get("seed"),
        reasoning_effort=body.get("reasoning_effort"),
        stream=body.get("stream") is True,
        metadata=dict(body.get("metadata") or {}),
        headers={k.lower(): v for k, v in headers.items()},
        params=body,
        fingerprint=fingerprint("chat", body),
        provider=provider,
    )
