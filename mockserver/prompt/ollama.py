"""A checked Ollama ``/api/chat`` or ``/api/generate`` body → :class:`Prompt`.

Reads the body *after* ``wire.ollama`` accepted it. Ollama streams unless ``stream`` is
``false``; ``options`` carries what other APIs put at the top (``num_predict``, ``stop``,
``seed``); ``format`` is ``"json"`` (a JSON object) or a JSON Schema; ``think`` (``true``, or a
level) turns reasoning on. A ``tool`` message names its tool (``tool_name``) rather than a
call id, so each is tied to the earliest unanswered call of that name before it, which is
how the neutral view and the agent-loop policy pair calls with results.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from mockserver import ids
from mockserver.families import Provider
from mockserver.prompt.chat import NOT_CONTENT
from mockserver.prompt.model import Message, OutputFormat, Prompt, Tool, ToolCallRef, ToolChoice

__all__ = [
    "IMAGE_TOKENS",
    "call_id_of",
    "prompt_from_ollama_chat",
    "prompt_from_ollama_generate",
]

#: What an image costs a vision model: LLaVA's 24 × 24 patches, one token each.
IMAGE_TOKENS: Final = 576
#: Fields that do not change what the model would say (``options`` are read one by one).
_NOT_CONTENT: Final = NOT_CONTENT | {"keep_alive", "options", "think"}
#: ``think`` levels as the neutral effort names them (Ollama's ``max`` is the most there is).
_EFFORTS: Final = {"low": "low", "medium": "medium", "high": "high", "max": "high"}


def call_id_of(call: Mapping[str, Any], *, index: int, message: int) -> str:
    """A tool call's id: its own (Ollama's recent servers send ``call_…``), else one drawn
    from where it is in the conversation."""
    own = call.get("id")
    if isinstance(own, str) and own:
        return own
    function = call.get("function") or {}
    return ids.opaque_id("call_", str(function.get("name")), message, index, length=13)


def _arguments(function: Mapping[str, Any]) -> str:
    value = function.get("arguments")
    return json.dumps(value if value is not None else {}, separators=(",", ":"), ensure_ascii=False)


def _messages(raw: list[Mapping[str, Any]]) -> Iterator[Message]:
    waiting: list[ToolCallRef] = []  # calls no tool message has answered yet
    for number, message in enumerate(raw):
        role = str(message.get("role", "user")).lower()
        text = message.get("content") or ""
        images = len(message.get("images") or ()) * IMAGE_TOKENS
        if role == "assistant":
            calls = tuple(
                ToolCallRef(
                    call_id=call_id_of(call, index=index, message=number),
                    name=str(call["function"].get("name", "")),
                    arguments=_arguments(call["function"]),
                )
                for index, call in enumerate(message.get("tool_calls") or ())
            )
            waiting = list(calls)
            yield Message(role="assistant", text=text, tool_calls=calls, image_tokens=images)
        elif role == "tool":
            name = message.get("tool_name")
            call = next((c for c in waiting if name is None or c.name == name), None)
            if call is not None:
                waiting.remove(call)
            call_id = message.get("tool_call_id") or (call.call_id if call else None)
            yield Message(
                role="tool",
                text=text,
                name=name or (call.name if call else None),
                tool_call_id=call_id,
            )
        elif role == "system":
            yield Message(role="system", text=text)
        else:
            yield Message(role="user", text=text, image_tokens=images)


def _tools(raw: Any) -> tuple[Tool, ...]:
    return tuple(
        Tool(
            name=tool["function"]["name"],
            description=tool["function"].get("description"),
            parameters=tool["function"].get("parameters"),
        )
        for tool in raw or ()
    )


def _output_format(raw: Any) -> OutputFormat:
    if raw == "json":
        return OutputFormat(type="json_object", param="format")
    if isinstance(raw, Mapping):
        # Ollama constrains the output to the schema: what it says always validates.
        return OutputFormat(type="json_schema", schema=raw, strict=True, param="format")
    return OutputFormat()


def _effort(raw: Any) -> str | None:
    if raw is True:
        return "medium"
    return _EFFORTS.get(raw) if isinstance(raw, str) else None


def _limit(options: Mapping[str, Any]) -> int | None:
    """``num_predict``: the most tokens to say (-1 no limit, -2 as many as the context has)."""
    value = options.get("num_predict")
    return int(value) if isinstance(value, int | float) and value > 0 else None


def _seed(options: Mapping[str, Any]) -> int | None:
    value = options.get("seed")
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _prompt(
    api: str,
    body: Mapping[str, Any],
    messages: tuple[Message, ...],
    *,
    headers: Mapping[str, str],
    provider: Provider,
) -> Prompt:
    tools = _tools(body.get("tools"))
    options = body.get("options") or {}
    effort = _effort(body.get("think"))
    normalized = {k: v for k, v in body.items() if k not in _NOT_CONTENT}
    return Prompt(
        api=api,  # type: ignore[arg-type]  # one of the two Ollama APIs
        model=body["model"],
        messages=messages,
        tools=tools,
        tool_choice=ToolChoice(mode="auto" if tools else "none"),
        output_format=_output_format(body.get("format")),
        max_output_tokens=_limit(options),
        stop=tuple(options.get("stop") or ()),
        seed=_seed(options),
        reasoning_effort=effort,
        reasoning_summary="auto" if effort else None,
        stream=body.get("stream") is not False,  # Ollama's default is to stream
        headers={k.lower(): v for k, v in headers.items()},
        provider=provider,
        params=body,
        fingerprint=ids.stable_digest(api, orjson.dumps(normalized, option=orjson.OPT_SORT_KEYS)),
    )


def prompt_from_ollama_chat(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "ollama"
) -> Prompt:
    """The neutral view of a ``/api/chat`` body."""
    messages = tuple(_messages(body.get("messages") or []))
    return _prompt("ollama_chat", body, messages, headers=headers, provider=provider)


def prompt_from_ollama_generate(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "ollama"
) -> Prompt:
    """The neutral view of a ``/api/generate`` body: its ``system`` and its ``prompt`` (with
    its images) as a system and a user message."""
    messages = []
    if body.get("system"):
        messages.append(Message(role="system", text=body["system"]))
    images = len(body.get("images") or ()) * IMAGE_TOKENS
    messages.append(Message(role="user", text=body.get("prompt") or "", image_tokens=images))
    return _prompt("ollama_generate", body, tuple(messages), headers=headers, provider=provider)
