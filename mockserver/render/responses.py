"""Reply → Responses API ``response`` object and its output items.

Key order follows what the real API sends, so bodies diff cleanly against recordings. Item ids
derive from the response id and the item's position, so they are stable across renderings (a
retrieve renders the same items as the create did).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from mockserver import ids
from mockserver.prompt.responses import reasoning_settings
from mockserver.render.responses_hosted import hosted_item
from mockserver.reply.model import Reasoning, Reply, Token, ToolCall, Usage
from mockserver.values import Json, value_class

__all__ = [
    "ENCRYPTED_REASONING",
    "LOGPROBS",
    "ResponseMeta",
    "echo_params",
    "final_status",
    "item_id",
    "output_items",
    "response_body",
    "token_logprob",
    "usage_body",
]

LOGPROBS: Final = "message.output_text.logprobs"
ENCRYPTED_REASONING: Final = "reasoning.encrypted_content"

#: The real API's order of a response's keys (optional ones are left out when unset).
_ORDER: Final = (
    "id object created_at status background completed_at conversation error incomplete_details"
    " instructions max_output_tokens max_tool_calls model output parallel_tool_calls"
    " previous_response_id prompt prompt_cache_key prompt_cache_retention reasoning"
    " safety_identifier service_tier store temperature text tool_choice tools top_logprobs"
    " top_p truncation usage user metadata moderation"
).split()
_INCOMPLETE: Final = {"length": "max_output_tokens", "content_filter": "content_filter"}


@value_class
class ResponseMeta:
    """What a response says besides its reply: identity and the echoed parameters."""

    id: str
    created_at: int
    #: :func:`echo_params` of the request (``model`` included).
    echo: Mapping[str, Any]
    include: frozenset[str] = frozenset()
    obfuscation: bool = True
    #: Stream granularity of text deltas: one per token, per word, or per N tokens.
    chunk: int | Literal["token", "word"] = "token"
    #: Verdicts of a moderated request (``moderation`` of the SDK's ``Response``).
    moderation: Mapping[str, Any] | None = None
    #: Ids of output items (default: derived from ``id``, the prefix and the item's position).
    item_id: Callable[[str, int], str] | None = None
    #: The obfuscation padding of stream deltas (default: ``ids.obfuscator`` of ``id``).
    pad: Callable[[int, int], str] | None = None


def _format_echo(raw: Any) -> Json:
    if not isinstance(raw, Mapping) or raw.get("type") in (None, "text"):
        return {"type": "text"}
    if raw["type"] == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "description": raw.get("description"),
        "name": raw.get("name"),
        "schema": raw.get("schema"),
        "strict": bool(raw.get("strict")),
    }


def _tool_echo(raw: Mapping[str, Any]) -> Json:
    if raw.get("type") != "function":
        return dict(raw)
    strict = raw.get("strict")
    return {
        "type": "function",
        "description": raw.get("description"),
        "name": raw["name"],
        "parameters": raw.get("parameters"),
        "strict": True if strict is None else strict,
    }


def _optional_echo(body: Mapping[str, Any]) -> Json:
    echo: Json = {}
    conversation = body.get("conversation")
    if conversation is not None:
        conv_id = conversation if isinstance(conversation, str) else conversation["id"]
        echo["conversation"] = {"id": conv_id}
    prompt = body.get("prompt")
    if isinstance(prompt, Mapping):
        echo["prompt"] = {
            "id": prompt["id"],
            "variables": prompt.get("variables"),
            "version": prompt.get("version"),
        }
    return echo


def echo_params(body: Mapping[str, Any], *, service_tier: str) -> Json:
    """The request parameters a response repeats, with the real API's defaults."""
    effort, summary = reasoning_settings(body)
    text = body.get("text") or {}
    temperature, top_p = body.get("temperature"), body.get("top_p")
    return {
        "background": body.get("background") is True,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": body.get("max_tool_calls"),
        "model": body["model"],
        "parallel_tool_calls": body.get("parallel_tool_calls") is not False,
        "previous_response_id": body.get("previous_response_id"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "prompt_cache_retention": body.get("prompt_cache_retention"),
        "reasoning": {"effort": effort, "summary": summary},
        "safety_identifier": body.get("safety_identifier"),
        "service_tier": service_tier,
        "store": body.get("store") is not False,
        "temperature": 1.0 if temperature is None else float(temperature),
        "text": {
            "format": _format_echo(text.get("format")),
            "verbosity": text.get("verbosity") or "medium",
        },
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": [_tool_echo(t) for t in body.get("tools") or ()],
        "top_logprobs": body.get("top_logprobs") or 0,
        "top_p": 1.0 if top_p is None else float(top_p),
        "truncation": body.get("truncation") or "disabled",
        "user": body.get("user"),
        "metadata": dict(body.get("metadata") or {}),
        **_optional_echo(body),
    }


def usage_body(usage: Usage) -> Json:
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {
            "cached_tokens": usage.cached_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        },
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


def token_logprob(token: Token, *, with_bytes: bool = True) -> Json:
    """A token's logprob entry; stream events carry it without ``bytes``."""

    def entry(text: str, logprob: float) -> Json:
        if with_bytes:
            return {"token": text, "bytes": list(text.encode()), "logprob": logprob}
        return {"token": text, "logprob": logprob}

    return {
        **entry(token.text, token.logprob),
        "top_logprobs": [entry(text, logprob) for text, logprob in token.top],
    }


def final_status(reply: Reply) -> str:
    return "incomplete" if reply.finish_reason in _INCOMPLETE else "completed"


def _item_id(prefix: str, meta: ResponseMeta, index: int) -> str:
    if meta.item_id is not None:
        return meta.item_id(prefix, index)
    return item_id(meta.id, prefix, index)


def item_id(response_id: str, prefix: str, index: int) -> str:
    """The id of a response's output item ``index`` (``msg_…``, ``fc_…``, …)."""
    return ids.child_hex_id(prefix, response_id, index, length=50)


def _encrypted(meta: ResponseMeta, index: int, reasoning: Reasoning) -> str:
    chunks = 1 + reasoning.tokens // 96
    blob = "".join(ids.opaque_id("", meta.id, index, n, length=64) for n in range(chunks))
    return "gAAAAAB" + blob


def _reasoning_item(reasoning: Reasoning, meta: ResponseMeta, index: int) -> Json:
    item: Json = {
        "id": _item_id("rs_", meta, index),
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in reasoning.summary],
    }
    if reasoning.text is not None:
        item["content"] = [{"type": "reasoning_text", "text": reasoning.text}]
    if ENCRYPTED_REASONING in meta.include:
        item["encrypted_content"] = _encrypted(meta, index, reasoning)
    return item


def _content_part(reply: Reply, meta: ResponseMeta) -> Json:
    if reply.refusal is not None:
        return {"type": "refusal", "refusal": reply.refusal}
    logprobs = [token_logprob(t) for t in reply.tokens] if LOGPROBS in meta.include else []
    annotations = [
        {
            "type": "url_citation",
            "end_index": a.end_index,
            "start_index": a.start_index,
            "title": a.title,
            "url": a.url,
        }
        for a in reply.annotations
    ]
    return {
        "type": "output_text",
        "annotations": annotations,
        "logprobs": logprobs,
        "text": reply.text or "",
    }


def _message_item(reply: Reply, meta: ResponseMeta, index: int) -> Json:
    return {
        "id": _item_id("msg_", meta, index),
        "type": "message",
        "status": final_status(reply),
        "content": [_content_part(reply, meta)],
        "role": "assistant",
    }


def _call_item(call: ToolCall, meta: ResponseMeta, index: int) -> Json:
    if call.kind == "custom":
        return {
            "id": _item_id("ctc_", meta, index),
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call.call_id,
            "input": call.arguments,
            "name": call.name,
        }
    return {
        "id": _item_id("fc_", meta, index),
        "type": "function_call",
        "status": "completed",
        "arguments": call.arguments,
        "call_id": call.call_id,
        "name": call.name,
    }


def _says_something(reply: Reply) -> bool:
    """A message item is emitted unless the budget ran out before any visible text."""
    if reply.refusal is not None:
        return True
    if reply.text is None:
        return False
    return bool(reply.text) or reply.finish_reason != "length"


def output_items(reply: Reply, meta: ResponseMeta) -> list[Json]:
    """Reasoning, hosted-tool items, the message, then the tool calls (the real API's order)."""
    items: list[Json] = []
    if reply.reasoning is not None:
        items.append(_reasoning_item(reply.reasoning, meta, len(items)))
    for raw in reply.hosted:
        items.append(hosted_item(raw, response_id=meta.id, index=len(items)))
    if _says_something(reply):
        items.append(_message_item(reply, meta, len(items)))
    for call in reply.tool_calls:
        items.append(_call_item(call, meta, len(items)))
    return items


def response_body(
    meta: ResponseMeta,
    reply: Reply,
    *,
    status: str,
    completed_at: int | None = None,
    output: list[Json] | None = None,
    error: Json | None = None,
) -> Json:
    """The ``response`` object in ``status``; only a finished one has output and usage."""
    finished = status in ("completed", "incomplete")
    reason = _INCOMPLETE.get(reply.finish_reason) if status == "incomplete" else None
    if output is None:
        output = output_items(reply, meta) if finished else []
    values: Json = {
        **meta.echo,
        "id": meta.id,
        "object": "response",
        "created_at": meta.created_at,
        "status": status,
        "completed_at": completed_at if status == "completed" else None,
        "error": error,
        "incomplete_details": {"reason": reason} if reason else None,
        "output": output,
        "usage": usage_body(reply.usage) if finished else None,
    }
    if meta.moderation is not None:
        values["moderation"] = meta.moderation
    return {key: values[key] for key in _ORDER if key in values}
