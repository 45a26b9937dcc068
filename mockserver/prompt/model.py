"""The API-neutral view of a request: what matching and generation see.

Chat Completions, Responses, legacy Completions and Anthropic Messages requests are all turned
into a :class:`Prompt`; nothing below this layer knows which API a request came through except
by ``api``, nor which provider served it except by ``provider``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any, Literal

from mockserver.families import Provider
from mockserver.values import value_class

__all__ = [
    "Api",
    "CachePrefix",
    "Message",
    "OutputFormat",
    "Prompt",
    "Tool",
    "ToolCallRef",
    "ToolChoice",
]

Api = Literal[
    "chat",
    "responses",
    "moderations",
    "embeddings",
    "gemini",
    "messages",
    "completions",
    "converse",
    "invoke",
    "ollama_chat",
    "ollama_generate",
]
Role = Literal["system", "developer", "user", "assistant", "tool"]


@value_class
class ToolCallRef:
    """A tool call the assistant made earlier in the conversation."""

    call_id: str
    name: str
    arguments: str
    kind: Literal["function", "custom"] = "function"


@value_class
class Message:
    """One turn, reduced to what matching and token counting need."""

    role: Role
    text: str
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: tuple[ToolCallRef, ...] = ()
    #: What the message's images (and documents, where a family sends them) cost (see
    #: ``prompt/images.py``, ``prompt/messages.py``).
    image_tokens: int = 0


@value_class
class Tool:
    """A tool the client offers."""

    name: str
    kind: Literal["function", "custom"] = "function"
    description: str | None = None
    parameters: Mapping[str, Any] | None = None
    grammar: Mapping[str, Any] | None = None
    #: Strict function calling: the model's arguments always validate against ``parameters``.
    strict: bool = False


@value_class
class ToolChoice:
    """``mode`` with the tool names it allows (all offered tools unless narrowed)."""

    mode: Literal["none", "auto", "required"] = "auto"
    allowed: tuple[str, ...] | None = None


@value_class
class OutputFormat:
    type: Literal["text", "json_object", "json_schema"] = "text"
    name: str | None = None
    schema: Mapping[str, Any] | None = None
    strict: bool = False
    #: Where the request gave it (named by an error about its schema).
    param: str = "response_format"


@value_class
class CachePrefix:
    """A prefix of the prompt, in the order a prompt cache reads one (tools, then the
    instructions, then the messages), ending at a boundary the cache may match: what it
    holds, and its digest (the model's, and the content's, whatever marks it)."""

    digest: str
    tools: int
    instructions: str | None
    messages: int
    #: A cache breakpoint ends here (Anthropic's ``cache_control``): how long what it writes
    #: is kept, ``"5m"`` or ``"1h"``; ``None``: a boundary an earlier write may have ended at.
    ttl: str | None = None


@value_class
class Prompt:
    api: Api
    model: str
    messages: tuple[Message, ...]
    #: The Responses API's ``instructions`` (chat keeps system/developer text in ``messages``).
    instructions: str | None = None
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice = field(default_factory=ToolChoice)
    parallel_tool_calls: bool = True
    output_format: OutputFormat = field(default_factory=OutputFormat)
    max_output_tokens: int | None = None
    stop: tuple[str, ...] = ()
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int | None = None
    reasoning_effort: str | None = None
    reasoning_summary: str | None = None
    #: The most tokens the model may think (``None``: as its effort says).
    reasoning_budget: int | None = None
    stream: bool = False
    metadata: Mapping[str, str] = field(default_factory=dict)
    #: Lower-cased request headers.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The request's JSON body as parsed (read-only by convention), for parameter matching.
    params: Mapping[str, Any] = field(default_factory=dict)
    #: Stable digest of the normalised request: what generated content derives from.
    fingerprint: bytes = b""
    #: Who the request was sent to: OpenAI's own API, or Azure OpenAI's (same API, same
    #: answer, each in its provider's shape).
    provider: Provider = "openai"

    #: Where a prompt cache may have been written or read, in order, when the request marks
    #: cache breakpoints (none: it does not); see ``engine/prompt_cache.py``.
    cache_prefixes: tuple[CachePrefix, ...] = ()

    def prefix(self, at: CachePrefix) -> Prompt:
        """The prompt as far as ``at`` goes (what a cache of it holds)."""
        return replace(
            self,
            tools=self.tools[: at.tools],
            instructions=at.instructions,
            messages=self.messages[: at.messages],
        )

    @property
    def last_message(self) -> Message | None:
        return self.messages[-1] if self.messages else None

    @property
    def last_user_text(self) -> str:
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return ""

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def tool_results(self) -> tuple[tuple[str, str], ...]:
        """``(tool name, content)`` of every tool result, in order, named from its call."""
        names = {c.call_id: c.name for m in self.messages for c in m.tool_calls}
        return tuple(
            (names.get(m.tool_call_id or "", m.name or ""), m.text)
            for m in self.messages
            if m.role == "tool"
        )

    def answered_call_ids(self) -> frozenset[str]:
        return frozenset(m.tool_call_id for m in self.messages if m.tool_call_id)
