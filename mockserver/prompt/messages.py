"""A validated Anthropic Messages request → :class:`Prompt`.

Reads the body *after* ``wire.messages`` accepted it. An Anthropic conversation puts tool
results inside user messages and tool calls inside assistant ones; the neutral view has them
as the Chat shape does (a ``tool`` message per result, the assistant's calls on its message),
so that the same rules, the agent-loop policy and the token count read every family alike.
``system`` is the prompt's instructions; a ``role: "system"`` message (Claude Code sends one)
is a system message in place.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from mockserver.families import Provider
from mockserver.ids import stable_digest
from mockserver.prompt.chat import NOT_CONTENT
from mockserver.prompt.images import image_size
from mockserver.prompt.model import (
    CachePrefix,
    Message,
    OutputFormat,
    Prompt,
    Tool,
    ToolCallRef,
    ToolChoice,
)

__all__ = ["media_tokens", "prompt_from_messages"]

#: Fields that do not change what the model would say (besides the OpenAI families' own).
_NOT_CONTENT: Final = NOT_CONTENT | {"stop_sequences", "container", "context_management"}

#: The most an image is seen at: 1568 px on its long edge, and about 1.19 megapixels (1092 ×
#: 1092, the docs' full-size square, about 1600 tokens); an image whose size cannot be read (a
#: URL, a file) counts as that.
_MAX_EDGE: Final = 1568
_MAX_PIXELS: Final = 1092 * 1092
_DEFAULT_PIXELS: Final = _MAX_PIXELS
#: What a PDF page costs (its text and its image), and a document whose pages cannot be read.
_PAGE_TOKENS: Final = 1500
#: How much of a base64 image is decoded to read its size.
_HEAD_CHARS: Final = 256 * 1024
#: A document's text costs a token per this many characters (the tokenizer is the reply
#: layer's; a document's count needs no more than the rule of thumb).
_CHARS_PER_TOKEN: Final = 4


def _image_tokens(source: Mapping[str, Any]) -> int:
    """``width × height / 750``, after the API's scaling (Anthropic's vision docs)."""
    size = None
    if source.get("type") == "base64":
        head = str(source.get("data", ""))[:_HEAD_CHARS]
        size = image_size(f"data:{source.get('media_type')};base64,{head}")
    pixels = size[0] * size[1] if size else _DEFAULT_PIXELS
    if size is not None and max(size) > _MAX_EDGE:
        scale = _MAX_EDGE / max(size)
        pixels = int(size[0] * scale) * int(size[1] * scale)
    return math.ceil(min(pixels, _MAX_PIXELS) / 750)


def _pdf_pages(data: str) -> int:
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return 1
    return max(1, raw.count(b"/Type /Page") - raw.count(b"/Type /Pages"))


def _document_tokens(source: Mapping[str, Any]) -> int:
    kind = source.get("type")
    if kind == "text":
        return math.ceil(len(str(source.get("data", ""))) / _CHARS_PER_TOKEN)
    if kind == "content":
        inner = source.get("content")
        return math.ceil(len(_text(inner)) / _CHARS_PER_TOKEN) + media_tokens(inner)
    if kind == "base64":
        return _PAGE_TOKENS * _pdf_pages(str(source.get("data", "")))
    return _PAGE_TOKENS


def media_tokens(content: Any) -> int:
    """What the images and documents among ``content``'s blocks cost."""
    if not isinstance(content, list):
        return 0
    total = 0
    for block in content:
        kind = block.get("type")
        if kind == "image":
            total += _image_tokens(block["source"])
        elif kind == "document":
            total += _document_tokens(block["source"])
    return total


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
        return
    for block in content or ():
        if block.get("type") == "text":
            yield block["text"]
        elif block.get("type") == "search_result":
            yield from _texts(block.get("content"))


def _text(content: Any) -> str:
    return "\n".join(_texts(content))


def _user_messages(content: Any) -> Iterator[Message]:
    """A user message: each tool result (a ``tool`` message), then what the user said."""
    if isinstance(content, str):
        yield Message(role="user", text=content)
        return
    said = []
    for block in content:
        if block.get("type") == "tool_result":
            result = block.get("content")
            yield Message(
                role="tool",
                text=_text(result),
                tool_call_id=block["tool_use_id"],
                image_tokens=media_tokens(result),
            )
        else:
            said.append(block)
    if said or not content:
        yield Message(role="user", text=_text(said), image_tokens=media_tokens(said))


def _assistant_message(content: Any) -> Message:
    if isinstance(content, str):
        return Message(role="assistant", text=content)
    calls = tuple(
        ToolCallRef(
            call_id=block["id"],
            name=block["name"],
            arguments=json.dumps(block["input"], separators=(",", ":"), ensure_ascii=False),
        )
        for block in content
        if block.get("type") == "tool_use"
    )
    return Message(role="assistant", text=_text(content), tool_calls=calls)


def _messages(raw: list[Mapping[str, Any]]) -> tuple[Message, ...]:
    out: list[Message] = []
    for message in raw:
        role, content = message["role"], message["content"]
        if role == "user":
            out.extend(_user_messages(content))
        elif role == "assistant":
            out.append(_assistant_message(content))
        else:
            out.append(Message(role="system", text=_text(content)))
    return tuple(out)


def _tools(raw: Any) -> tuple[Tool, ...]:
    """The tools the model may call: the client's own (the API's server tools run on its side,
    and are not the scenario's to call)."""
    return tuple(
        Tool(
            name=tool["name"],
            description=tool.get("description"),
            parameters=tool["input_schema"],
            strict=tool.get("strict") is True,
        )
        for tool in raw or ()
        if tool.get("type") in (None, "custom")
    )


def _tool_choice(raw: Any, tools: tuple[Tool, ...]) -> tuple[ToolChoice, bool]:
    """The choice, and whether calls may go in parallel."""
    if not isinstance(raw, Mapping):
        return ToolChoice(mode="auto" if tools else "none"), True
    parallel = raw.get("disable_parallel_tool_use") is not True
    kind = raw["type"]
    if kind == "any":
        return ToolChoice(mode="required"), parallel
    if kind == "tool":
        return ToolChoice(mode="required", allowed=(raw["name"],)), parallel
    return ToolChoice(mode="none" if kind == "none" else "auto"), parallel


def _output_format(body: Mapping[str, Any]) -> OutputFormat:
    config = body.get("output_config") or {}
    if config.get("format") is not None:
        raw, param = config["format"], "output_config.format"
    elif body.get("output_format") is not None:
        raw, param = body["output_format"], "output_format"
    else:
        return OutputFormat()
    return OutputFormat(type="json_schema", schema=raw["schema"], strict=True, param=param)


def _reasoning(body: Mapping[str, Any]) -> tuple[str | None, str | None, int | None]:
    """``(effort, summary, budget)`` for the request's ``thinking``: the effort its
    ``output_config`` asks (else medium), a summary unless its display is ``omitted``."""
    thinking = body.get("thinking") or {}
    if thinking.get("type") not in ("enabled", "adaptive"):
        return None, None, None
    effort = (body.get("output_config") or {}).get("effort") or "medium"
    summary = None if thinking.get("display") == "omitted" else "auto"
    return effort, summary, thinking.get("budget_tokens")


def _marks(blocks: Any) -> str | None:
    """The ttl of the last ``cache_control`` among ``blocks`` (``None``: none marks one)."""
    ttl = None
    for block in blocks if isinstance(blocks, list) else ():
        control = block.get("cache_control") if isinstance(block, Mapping) else None
        if isinstance(control, Mapping):
            ttl = str(control.get("ttl") or "5m")
    return ttl


def _strip_marks(value: Any) -> Any:
    """``value`` (a tool, a system block or a message) without its cache marks and its
    content blocks' (they say where to cache, not what)."""
    if isinstance(value, Mapping):
        value = {k: v for k, v in value.items() if k != "cache_control"}
        if isinstance(value.get("content"), list):
            value["content"] = [_strip_marks(b) for b in value["content"]]
    return value


def _unmarked(value: Any) -> bytes:
    """``value``'s JSON without its cache marks."""
    return orjson.dumps(_strip_marks(value), option=orjson.OPT_SORT_KEYS)


def _content_of(body: Mapping[str, Any]) -> dict[str, Any]:
    """What the request asks, for its fingerprint: not how it is sent, and not where its
    prompt may be cached (a ``cache_control`` mark leaves the answer as it was)."""
    normalized = {k: v for k, v in body.items() if k not in _NOT_CONTENT}
    for key in ("tools", "messages", "system"):
        if isinstance(normalized.get(key), list):
            normalized[key] = [_strip_marks(item) for item in normalized[key]]
    return normalized


def _cache_prefixes(body: Mapping[str, Any]) -> tuple[CachePrefix, ...]:
    """Every boundary a prompt cache may end at (each tool, each system block, each
    message), in the cache's order, the ones a ``cache_control`` marks with its ttl; none if
    nothing is marked."""
    tools = list(body.get("tools") or ())
    system = body.get("system")
    system_blocks = system if isinstance(system, list) else ([] if system is None else [system])
    raw = list(body["messages"])
    marked = [_marks([t]) for t in tools] + [_marks([b]) for b in system_blocks]
    marked += [_marks(m.get("content")) for m in raw]
    if not any(marked):
        return ()
    running = hashlib.blake2b(str(body["model"]).encode(), digest_size=16)
    found: list[CachePrefix] = []
    counted = messages = 0
    for index, tool in enumerate(tools):
        running.update(_unmarked(tool))
        counted += tool.get("type") in (None, "custom")  # the neutral view's tools
        found.append(CachePrefix(running.hexdigest(), counted, None, 0, marked[index]))
    for index, block in enumerate(system_blocks):
        running.update(_unmarked(block))
        said = _system(system_blocks[: index + 1])
        found.append(CachePrefix(running.hexdigest(), counted, said, 0, marked[len(tools) + index]))
    said = _system(system)
    for index, message in enumerate(raw):
        running.update(_unmarked(message))
        messages += len(_messages([message]))
        ttl = marked[len(tools) + len(system_blocks) + index]
        found.append(CachePrefix(running.hexdigest(), counted, said, messages, ttl))
    return tuple(found)


def _system(raw: Any) -> str | None:
    text = _text(raw) if raw is not None else ""
    return text or None


def prompt_from_messages(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    provider: Provider = "anthropic",
) -> Prompt:
    """The neutral view of a ``/v1/messages`` (or ``count_tokens``) body (``provider``: who
    serves it)."""
    tools = _tools(body.get("tools")) if body.get("tools") else ()
    choice, parallel = _tool_choice(body.get("tool_choice"), tools)
    effort, summary, budget = _reasoning(body)
    metadata = body.get("metadata") or {}
    user = metadata.get("user_id")
    normalized = _content_of(body)
    return Prompt(
        api="messages",
        provider=provider,
        model=body["model"],
        messages=_messages(body["messages"]),
        instructions=_system(body.get("system")),
        tools=tools,
        tool_choice=choice,
        parallel_tool_calls=parallel,
        output_format=_output_format(body),
        max_output_tokens=body.get("max_tokens"),
        stop=tuple(body.get("stop_sequences") or ()),
        reasoning_effort=effort,
        reasoning_summary=summary,
        reasoning_budget=budget,
        stream=body.get("stream") is True,
        metadata={"user_id": user} if isinstance(user, str) else {},
        headers={k.lower(): v for k, v in headers.items()},
        params=body,
        fingerprint=stable_digest(
            "messages", orjson.dumps(normalized, option=orjson.OPT_SORT_KEYS)
        ),
        cache_prefixes=_cache_prefixes(body),
    )
