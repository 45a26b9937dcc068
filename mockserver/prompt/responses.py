"""A validated Responses request (plus the conversation it continues) → :class:`Prompt`.

Items are mapped onto neutral messages so matching, token counting and the agent-loop rule see
the same conversation chat would: a ``function_call`` is an assistant message with a tool call,
a ``function_call_output`` a ``tool`` message answering it (``tool_call_id = call_id``). Hosted
calls and their outputs are mapped the same way, named after their tool.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from mockserver.families import Provider
from mockserver.prompt.chat import NOT_CONTENT, fingerprint, text_of
from mockserver.prompt.images import image_tokens_of
from mockserver.prompt.model import Message, OutputFormat, Prompt, Tool, ToolCallRef, ToolChoice
from mockserver.values import Json

__all__ = [
    "COMPACTION_PREFIX",
    "LOGPROBS_INCLUDE",
    "input_items",
    "messages_from_items",
    "open_compaction",
    "prompt_from_responses",
    "prompt_of_request",
    "reasoning_settings",
    "seal_compaction",
]

LOGPROBS_INCLUDE: Final = "message.output_text.logprobs"
#: Fernet tokens start like this; a compaction item should look like the real opaque blob.
COMPACTION_PREFIX: Final = "gAAAAAB"
#: Fields that only say where the conversation comes from; the resolved items replace them.
_CONTEXT_FIELDS: Final = frozenset(
    {"input", "previous_response_id", "conversation", "provider", "model_routing_config"}
)


def input_items(body: Mapping[str, Any]) -> list[Json]:
    """``input`` as a list of items (a string is one user message)."""
    raw = body.get("input")
    if raw is None:
        return []
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    return [{"type": "message", **item} if "type" not in item else dict(item) for item in raw]


def seal_compaction(texts: Sequence[str]) -> str:
    """The opaque ``encrypted_content`` of a compaction item: what it compacted, packed."""
    packed = zlib.compress(json.dumps(list(texts), ensure_ascii=False).encode(), 9)
    return COMPACTION_PREFIX + base64.urlsafe_b64encode(packed).decode()


def open_compaction(content: str) -> str:
    """The text a compaction item stands for ("" if it is not one of ours)."""
    if not content.startswith(COMPACTION_PREFIX):
        return ""
    try:
        packed = base64.urlsafe_b64decode(content[len(COMPACTION_PREFIX) :])
        texts = json.loads(zlib.decompress(packed))
    except (binascii.Error, zlib.error, ValueError):
        return ""
    return "\n".join(t for t in texts if isinstance(t, str))


def _shell_output(item: Mapping[str, Any]) -> str:
    chunks = item.get("output") or []
    return "\n".join(
        str(c.get("stdout", "")) + str(c.get("stderr", ""))
        for c in chunks
        if isinstance(c, Mapping)
    )


def _plain_output(item: Mapping[str, Any]) -> str:
    return text_of(item.get("output"))


#: Item type → how to read the text of a tool result item.
_RESULTS: Final[dict[str, Callable[[Mapping[str, Any]], str]]] = {
    "function_call_output": _plain_output,
    "custom_tool_call_output": _plain_output,
    "local_shell_call_output": _plain_output,
    "apply_patch_call_output": _plain_output,
    "shell_call_output": _shell_output,
    "computer_call_output": lambda item: "",
}
#: Item type → ``(tool name or None for the item's own name, field holding the arguments)``.
_CALLS: Final[dict[str, tuple[str | None, str]]] = {
    "function_call": (None, "arguments"),
    "custom_tool_call": (None, "input"),
    "shell_call": ("shell", "action"),
    "local_shell_call": ("local_shell", "action"),
    "computer_call": ("computer", "action"),
    "apply_patch_call": ("apply_patch", "operation"),
}


def _call(item: Mapping[str, Any]) -> ToolCallRef:
    kind = item["type"]
    name, field = _CALLS[kind]
    arguments = item.get(field)
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, separators=(",", ":"), sort_keys=True)
    return ToolCallRef(
        call_id=str(item.get("call_id", "")),
        name=name or str(item.get("name", "")),
        arguments=arguments,
        kind="custom" if kind == "custom_tool_call" else "function",
    )


def _item_text(item: Mapping[str, Any]) -> str:
    """Text of an item that is neither a message, a call nor a result."""
    kind = item.get("type")
    if kind == "reasoning":
        parts = [*(item.get("summary") or []), *(item.get("content") or [])]
        return text_of(parts)
    if kind == "compaction":
        return open_compaction(str(item.get("encrypted_content", "")))
    if kind == "mcp_call":
        return str(item.get("output") or "")
    return ""


def _append_call(messages: list[Message], call: ToolCallRef) -> None:
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant" and last.tool_calls:
        messages[-1] = Message(
            role="assistant", text=last.text, tool_calls=(*last.tool_calls, call)
        )
    else:
        messages.append(Message(role="assistant", text="", tool_calls=(call,)))


def messages_from_items(items: Sequence[Mapping[str, Any]]) -> tuple[Message, ...]:
    """The neutral conversation of a list of (already resolved) items."""
    messages: list[Message] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            content = item.get("content")
            messages.append(
                Message(
                    role=item["role"],
                    text=text_of(content),
                    image_tokens=image_tokens_of(content) if isinstance(content, list) else 0,
                )
            )
        elif kind in _CALLS:
            _append_call(messages, _call(item))
        elif kind in _RESULTS:
            call_id = item.get("call_id") or item.get("id")
            text = _RESULTS[kind](item)
            messages.append(Message(role="tool", text=text, tool_call_id=call_id))
        elif (text := _item_text(item)) and kind == "compaction":
            messages.append(Message(role="developer", text=text))
        elif text:
            messages.append(Message(role="assistant", text=text))
    return tuple(messages)


def _tools(body: Mapping[str, Any]) -> tuple[Tool, ...]:
    tools = []
    for raw in body.get("tools") or ():
        if raw.get("type") == "function":
            tools.append(
                Tool(
                    name=raw["name"],
                    description=raw.get("description"),
                    parameters=raw.get("parameters"),
                    strict=raw.get("strict") is not False,  # strict unless said otherwise
                )
            )
        elif raw.get("type") == "custom":
            tools.append(
                Tool(
                    name=raw["name"],
                    kind="custom",
                    description=raw.get("description"),
                    grammar=raw.get("format"),
                )
            )
    return tuple(tools)


def _tool_choice(raw: Any, tools: tuple[Tool, ...]) -> ToolChoice:
    if raw is None:
        return ToolChoice(mode="auto" if tools else "none")
    if isinstance(raw, str):
        return ToolChoice(mode=raw)  # type: ignore[arg-type]  # validated literal
    if raw.get("type") == "allowed_tools":
        names = tuple(
            str(t["name"]) for t in raw.get("tools", ()) if isinstance(t.get("name"), str)
        )
        return ToolChoice(mode=raw.get("mode", "auto"), allowed=names)
    if raw.get("type") in ("function", "custom"):
        return ToolChoice(mode="required", allowed=(str(raw["name"]),))
    # A forced hosted, MCP, shell or apply_patch tool: no function tool may be called instead.
    return ToolChoice(mode="required", allowed=())


def _output_format(text: Any) -> OutputFormat:
    raw = text.get("format") if isinstance(text, Mapping) else None
    if not isinstance(raw, Mapping) or raw.get("type") in (None, "text"):
        return OutputFormat()
    if raw["type"] == "json_object":
        return OutputFormat(type="json_object")
    return OutputFormat(
        type="json_schema",
        name=raw.get("name"),
        schema=raw.get("schema"),
        strict=bool(raw.get("strict")),
        param="text.format",
    )


def reasoning_settings(body: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(effort, summary)``; asking for a summary implies a reasoning model's default effort."""
    reasoning = body.get("reasoning") or {}
    summary = reasoning.get("summary") or reasoning.get("generate_summary")
    effort = reasoning.get("effort")
    if effort is None and summary is not None:
        effort = "medium"
    return effort, summary


def _fingerprint(body: Mapping[str, Any], messages: tuple[Message, ...]) -> bytes:
    """Content derives from the resolved conversation, never from ids of stored objects."""
    normalized: Json = {k: v for k, v in body.items() if k not in _CONTEXT_FIELDS | NOT_CONTENT}
    normalized["context"] = [
        [m.role, m.text, m.tool_call_id, [[c.call_id, c.name, c.arguments] for c in m.tool_calls]]
        for m in messages
    ]
    return fingerprint("responses", normalized)


def prompt_from_responses(
    body: Mapping[str, Any],
    *,
    items: Sequence[Mapping[str, Any]],
    headers: Mapping[str, str],
    provider: Provider = "openai",
) -> Prompt:
    """``items`` is the whole conversation: history (stored chain or conversation) + input."""
    tools = _tools(body)
    messages = messages_from_items(items)
    effort, summary = reasoning_settings(body)
    include = body.get("include") or ()
    return Prompt(
        api="responses",
        model=body["model"],
        messages=messages,
        instructions=body.get("instructions"),
        tools=tools,
        tool_choice=_tool_choice(body.get("tool_choice"), tools),
        parallel_tool_calls=body.get("parallel_tool_calls") is not False,
        output_format=_output_format(body.get("text")),
        max_output_tokens=body.get("max_output_tokens"),
        logprobs=LOGPROBS_INCLUDE in include,
        top_logprobs=int(body.get("top_logprobs") or 0),
        reasoning_effort=effort,
        reasoning_summary=summary,
        stream=body.get("stream") is True,
        metadata=dict(body.get("metadata") or {}),
        headers={k.lower(): v for k, v in headers.items()},
        params=body,
        fingerprint=_fingerprint(body, messages),
        provider=provider,
    )


def prompt_of_request(
    body: Mapping[str, Any], *, headers: Mapping[str, str], provider: Provider = "openai"
) -> Prompt:
    """The Prompt of a Responses request as it came in (its input alone: no stored item of a
    ``previous_response_id`` or conversation is looked up), as recording and importing read it."""
    return prompt_from_responses(body, items=input_items(body), headers=headers, provider=provider)
