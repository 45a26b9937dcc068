"""The API-neutral Reply: what the "model" said, before any wire shape is chosen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from mockserver.values import value_class

__all__ = [
    "Annotation",
    "FinishReason",
    "Reasoning",
    "RefusalDetails",
    "Reply",
    "Token",
    "ToolCall",
    "Usage",
]

FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]


@value_class
class Token:
    """One output token; ``top`` holds ``(token, logprob)`` alternatives, best first."""

    text: str
    logprob: float = 0.0
    top: tuple[tuple[str, float], ...] = ()


@value_class
class ToolCall:
    call_id: str
    name: str
    #: JSON text for function tools; free-form input for custom tools.
    arguments: str
    kind: Literal["function", "custom"] = "function"


@value_class
class Annotation:
    """A URL citation over ``text[start_index:end_index]``."""

    url: str
    title: str
    start_index: int
    end_index: int


@value_class
class Reasoning:
    summary: tuple[str, ...] = ()
    text: str | None = None
    tokens: int = 0
    #: The reasoning was withheld (flagged by a safety system): a family that can say so sends
    #: an opaque blob in its place (Anthropic's ``redacted_thinking``).
    redacted: bool = False


@value_class
class RefusalDetails:
    """Why the model refused, where the API says (Anthropic's ``stop_details``)."""

    category: str | None = None
    explanation: str | None = None


@value_class
class Usage:
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int = 0
    #: Prompt tokens read from a prompt cache.
    cached_tokens: int = 0
    #: Prompt tokens written to a prompt cache, and those of them kept an hour (the rest
    #: five minutes).
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@value_class
class Reply:
    """Everything a renderer needs; text and refusal are exclusive."""

    usage: Usage
    text: str | None = None
    refusal: str | None = None
    #: A tuple, or (from ``compose``) a ``ScoredTokens`` that draws the logprobs when read.
    tokens: Sequence[Token] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: Reasoning | None = None
    annotations: tuple[Annotation, ...] = ()
    finish_reason: FinishReason = "stop"
    #: The stop sequence that ended the text (``finish_reason`` is then ``stop``).
    stop_sequence: str | None = None
    #: Why a refusal refused, if the reply says.
    refusal_details: RefusalDetails | None = None
    #: Whether the request asked for logprobs (``tokens`` carry them either way).
    logprobs: bool = False
    #: Responses API hosted-tool output items (web search, MCP, …) scripted by a scenario,
    #: as ``{"type": ..., **fields}``; renderers of APIs without such items ignore them.
    hosted: tuple[Mapping[str, Any], ...] = ()
    #: An embeddings request's scripted vector (``None``: made from the input).
    embedding: tuple[float, ...] | None = None

    @property
    def token_texts(self) -> tuple[str, ...]:
        """The tokens' texts, without scoring them (a ``ScoredTokens`` scores on first read:
        a stream that shows no logprobs never needs them)."""
        texts: tuple[str, ...] | None = getattr(self.tokens, "texts", None)
        return texts if texts is not None else tuple(t.text for t in self.tokens)
