"""The default "model": seeded replies that behave like a real one would.

``compose`` is the one finishing path every reply goes through, scripted or generated: it
applies stop sequences and the output-token budget, tokenizes, scores logprobs and counts usage,
so those rules hold whatever produced the content.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mockserver import ids
from mockserver.errors import InvalidRequestError
from mockserver.prompt import Prompt, Tool
from mockserver.reply.logprobs import ScoredTokens
from mockserver.reply.model import (
    Annotation,
    FinishReason,
    Reasoning,
    RefusalDetails,
    Reply,
    Token,
    ToolCall,
    Usage,
)
from mockserver.reply.prompt_schema import schema_in_messages
from mockserver.reply.text import TextGenerator
from mockserver.reply.tokens import count_message_tokens, count_tokens, tokenize
from mockserver.reply.tool_policy import choose_tools
from mockserver.values import value_class

if TYPE_CHECKING:  # imported on the first JSON value: plain prose needs neither
    from faker import Faker

__all__ = ["Content", "Generator", "compose", "count_prompt_tokens"]

_REASONING_BUDGET = {
    "minimal": (8, 32),
    "low": (48, 160),
    "medium": (128, 448),
    "high": (320, 1024),
    "xhigh": (640, 1600),
    "max": (960, 2048),
}


@value_class
class Content:
    """What a reply says before the finishing rules are applied."""

    text: str | None = None
    refusal: str | None = None
    refusal_details: RefusalDetails | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: Reasoning | None = None
    annotations: tuple[Annotation, ...] = ()
    finish_reason: FinishReason | None = None
    usage: Mapping[str, int] = field(default_factory=dict)
    hosted: tuple[Mapping[str, Any], ...] = ()
    #: Scripted tokens with their logprobs (their texts spell ``text``).
    tokens: tuple[Token, ...] | None = None
    #: An embeddings request's scripted vector; ``text`` set instead: embed that text.
    embedding: tuple[float, ...] | None = None


def count_prompt_tokens(prompt: Prompt) -> int:
    if prompt.api == "completions":  # a bare text: no chat format around it
        return sum(count_tokens(m.text) for m in prompt.messages)
    messages = [(m.text, m.name is not None) for m in prompt.messages]
    if prompt.instructions:  # the Responses API's instructions are one more system message
        messages.insert(0, (prompt.instructions, False))
    total = count_message_tokens(messages)
    for message in prompt.messages:
        total += sum(count_tokens(c.name) + count_tokens(c.arguments) for c in message.tool_calls)
        total += message.image_tokens
    for tool in prompt.tools:
        total += count_tokens(tool.name) + count_tokens(tool.description or "")
        total += count_tokens(json.dumps(tool.parameters or {}, separators=(",", ":")))
    return total


def _cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, str | None]:
    """``text`` up to the first stop sequence in it, and that sequence (``None``: none is)."""
    hits = [(at, stop) for stop in stops if stop and (at := text.find(stop)) >= 0]
    if not hits:
        return text, None
    at, stop = min(hits, key=lambda hit: hit[0])
    return text[:at], stop


def compose(
    prompt: Prompt, content: Content, *, rng: random.Random, prompt_tokens: int | None = None
) -> Reply:
    """Apply stop sequences, the token budget, logprobs and usage to ``content``
    (``prompt_tokens``: the prompt's count, if the caller has it already).

    Work that cannot change the reply is skipped (no stop sequences to cut at, no tool calls
    or annotations to count): a plain reply pays for little but tokenizing its text."""
    score_seed = rng.getrandbits(64)
    reasoning = content.reasoning
    cap = prompt.max_output_tokens  # counts reasoning tokens too: thinking can use it all up
    for limit in (prompt.reasoning_budget, cap):
        if reasoning is not None and limit is not None and reasoning.tokens > limit:
            reasoning = replace(reasoning, tokens=max(limit, 0))
    reasoning_tokens = reasoning.tokens if reasoning else 0
    finish: FinishReason = content.finish_reason or ("tool_calls" if content.tool_calls else "stop")
    is_refusal = content.refusal is not None
    visible = content.refusal if is_refusal else content.text
    pieces: tuple[str, ...] = ()
    stopped_by = None
    if visible is not None:
        if not is_refusal and prompt.stop:
            visible, stopped_by = _cut_at_stop(visible, prompt.stop)
        pieces = tuple(t.text for t in content.tokens) if content.tokens else tokenize(visible)
        budget = None if cap is None else cap - reasoning_tokens
        if budget is not None and len(pieces) > max(budget, 0):
            pieces = pieces[: max(budget, 0)]
            visible = "".join(pieces)
            finish = "length"
            stopped_by = None  # the budget ran out before the stop sequence
    top_k = prompt.top_logprobs if prompt.logprobs else 0
    tokens: Sequence[Token]
    if content.tokens:
        tokens = tuple(replace(t, top=t.top[:top_k]) for t in content.tokens[: len(pieces)])
    else:
        tokens = ScoredTokens(pieces, seed=score_seed, top_k=top_k)
    completion_tokens = len(pieces) + reasoning_tokens
    if content.tool_calls:
        completion_tokens += sum(
            count_tokens(c.name) + count_tokens(c.arguments) + 4 for c in content.tool_calls
        )
    given = content.usage  # scripted counts win over the computed ones
    usage = Usage(
        prompt_tokens=given["prompt_tokens"]
        if "prompt_tokens" in given
        else (count_prompt_tokens(prompt) if prompt_tokens is None else prompt_tokens),
        completion_tokens=given.get("completion_tokens", completion_tokens),
        reasoning_tokens=given.get("reasoning_tokens", reasoning_tokens),
        cached_tokens=given.get("cached_tokens", 0),
    )
    return Reply(
        usage=usage,
        text=None if is_refusal else visible,
        refusal=visible if is_refusal else None,
        tokens=tokens,
        tool_calls=content.tool_calls,
        reasoning=reasoning,
        annotations=tuple(a for a in content.annotations if visible and a.end_index <= len(visible))
        if content.annotations
        else (),
        finish_reason=finish,
        stop_sequence=stopped_by if finish == "stop" else None,
        refusal_details=content.refusal_details if is_refusal else None,
        logprobs=prompt.logprobs,
        hosted=content.hosted,
        embedding=content.embedding,
    )


class Generator:
    """The seeded default policy; one per app (it owns the expensive Faker, which only JSON
    values use: prose comes from plain word lists)."""

    def __init__(self, text: TextGenerator | None = None, *, locale: str = "en_US") -> None:
        self.text = text or TextGenerator()
        self._locale = locale

    @cached_property
    def faker(self) -> Faker:
        from faker import Faker

        return Faker(self._locale)

    def reply(self, prompt: Prompt, *, rng: random.Random) -> Reply:
        return compose(prompt, self.content(prompt, rng=rng), rng=rng)

    def content(self, prompt: Prompt, *, rng: random.Random) -> Content:
        if prompt.api == "embeddings":  # the vector is made from the input, not from the rng
            return Content(text="")
        reasoning = self.reasoning(prompt, rng=rng)
        calls = self.tool_calls(prompt, rng=rng) if prompt.tools else ()  # no tools: no draws
        if calls:
            return Content(tool_calls=calls, reasoning=reasoning)
        return Content(text=self.message_text(prompt, rng=rng), reasoning=reasoning)

    def message_text(self, prompt: Prompt, *, rng: random.Random) -> str:
        fmt = prompt.output_format
        if fmt.type == "json_schema" and fmt.schema is not None:
            what = f"response format '{fmt.name}'" if fmt.name else "the output format"
            value = self.json_value(fmt.schema, rng=rng, what=what, param=fmt.param)
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if fmt.type == "json_object" and (schema := schema_in_messages(prompt)) is not None:
            value = self.json_value(
                schema, rng=rng, what="the JSON Schema in the messages", param="messages"
            )
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if fmt.type in ("json_object", "json_schema"):
            answer = self.text.prose(rng, topic_text=prompt.last_user_text, sentences=1)
            return json.dumps({"answer": answer}, separators=(",", ":"), ensure_ascii=False)
        sentences = rng.randint(2, 5)
        return self.text.prose(rng, topic_text=prompt.last_user_text, sentences=sentences)

    def reasoning(self, prompt: Prompt, *, rng: random.Random) -> Reasoning | None:
        effort = prompt.reasoning_effort
        if effort is None or effort == "none":
            return None
        low, high = _REASONING_BUDGET.get(effort, _REASONING_BUDGET["medium"])
        summary: tuple[str, ...] = ()
        if prompt.reasoning_summary not in (None, "none"):
            topic = prompt.last_user_text
            summary = (self.text.prose(rng, topic_text=topic, sentences=2),)
        return Reasoning(summary=summary, tokens=rng.randint(low, high))

    def tool_calls(self, prompt: Prompt, *, rng: random.Random) -> tuple[ToolCall, ...]:
        chosen = self.choose_tools(prompt, rng=rng)
        return tuple(self.call(tool, rng=rng) for tool in chosen)

    def choose_tools(self, prompt: Prompt, *, rng: random.Random) -> list[Tool]:
        return choose_tools(prompt, rng=rng)

    def call(self, tool: Tool, *, rng: random.Random) -> ToolCall:
        call_id = ids.opaque_id("call_", rng.getrandbits(64), length=24)
        if tool.kind == "custom":
            text = self.text.prose(rng, topic_text=tool.description or tool.name, sentences=1)
            return ToolCall(call_id=call_id, name=tool.name, arguments=text, kind="custom")
        schema = tool.parameters or {"type": "object", "properties": {}}
        value = self.json_value(schema, rng=rng, what=f"function '{tool.name}'", param="tools")
        arguments = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return ToolCall(call_id=call_id, name=tool.name, arguments=arguments)

    def json_value(
        self, schema: Mapping[str, Any], *, rng: random.Random, what: str, param: str
    ) -> Any:
        """A value valid for ``schema``; a schema nothing can satisfy is the client's mistake."""
        # Only structured outputs and tool arguments need the schema machinery (five modules
        # and their regexes): a plain chat request, the common case, never imports it.
        from mockserver.reply.schema_values.generate import (
            UnsatisfiableSchemaError,
            value_for_schema,
        )

        try:
            return value_for_schema(schema, rng=rng, faker=self.faker)
        except UnsatisfiableSchemaError as exc:
            raise InvalidRequestError(
                f"Invalid schema for {what}: {exc}", param=param, code="invalid_json_schema"
            ) from None
