"""A captured answer of the real API used as a ``fixture``: a ``chat.completion``, a Response,
a Gemini ``GenerateContentResponse``, an Anthropic message (``captured_messages.py``), Ollama's
answers (``captured_ollama.py``), a stream of any of them (its ``data:`` payloads, or the SSE
text itself), or a recording file that
``mockserver record`` wrote. Each becomes the neutral reply it says (text, tool calls,
refusal, reasoning, usage), so it answers every family, streamed or not.

Pure: parsed data in, a reply's data out (the loader validates it as any reply).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mockserver.scenario.captured_gemini import from_gemini, is_gemini, retry_delay
from mockserver.scenario.captured_messages import (
    from_message,
    from_message_events,
    is_message,
    is_message_events,
)
from mockserver.scenario.captured_ollama import is_ollama_answer, ollama_reply
from mockserver.values import Json

__all__ = ["captured_reply", "is_sse_text", "sse_payloads", "usage_of"]

#: An AWS event stream's content type (whose recorded events are named by their message).
EVENTSTREAM = "application/vnd.amazon.eventstream"


def is_sse_text(text: str) -> bool:
    """Does this file's text look like a server-sent event stream?"""
    head = text.lstrip()
    return head.startswith(("data:", "event:", ": ", "id:"))


def sse_payloads(text: str) -> list[Any]:
    """The JSON payloads of an SSE text, in order (``[DONE]`` and comments left out)."""
    payloads: list[Any] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [
            line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")
        ]
        if data and data != ["[DONE]"]:
            payloads.append(json.loads("\n".join(data)))
    return payloads


def captured_reply(value: Any) -> Json | None:
    """The reply a captured answer says, or ``None`` if ``value`` is not one."""
    from mockserver.scenario.captured_bedrock import bedrock_reply

    other = bedrock_reply(value, _reply)
    if other is not None:  # Bedrock's (Converse, invoke's stream)
        return other
    if isinstance(value, Mapping):
        kind = value.get("object")
        if kind == "chat.completion":
            return _from_chat_completion(value)
        if kind == "response":
            return _from_response(value)
        if is_message(value):
            return from_message(value)
        if "status" in value and ("body" in value or "events" in value):
            return _from_recording(value)
        if is_gemini(value):
            return from_gemini([value])
        return ollama_reply([value]) if is_ollama_answer(value) else None
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        if any(v.get("object") == "chat.completion.chunk" for v in value):
            return _from_chunks(value)
        if any(str(v.get("type", "")).startswith("response.") for v in value):
            return _from_response_events(value)
        if any(is_gemini(v) for v in value):
            return from_gemini(value)
        if is_message_events(value):
            return from_message_events(value)
        if all(is_ollama_answer(v) for v in value):
            return ollama_reply(value)
    return None


def usage_of(usage: Any) -> dict[str, int]:
    """A scenario reply's ``usage`` from either API's usage object."""
    if not isinstance(usage, Mapping):
        return {}
    out: dict[str, int] = {}
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    given = (usage.get("completion_tokens_details") or usage.get("output_tokens_details")) or {}
    cached = (usage.get("prompt_tokens_details") or usage.get("input_tokens_details")) or {}
    for key, number in (
        ("prompt_tokens", prompt),
        ("completion_tokens", completion),
        ("reasoning_tokens", given.get("reasoning_tokens")),
        ("cached_tokens", cached.get("cached_tokens")),
    ):
        if isinstance(number, int) and not isinstance(number, bool) and number >= 0:
            out[key] = number
    return out


def _reply(
    *,
    text: str | None,
    refusal: str | None = None,
    calls: Sequence[Json] = (),
    usage: Any = None,
    finish: str | None = None,
    reasoning: Json | None = None,
    hosted: Sequence[Json] = (),
) -> Json:
    reply: Json = {}
    if refusal:
        reply["refusal"] = refusal
    elif text or not calls:
        reply["text"] = text or ""
    if calls:
        reply["tool_calls"] = list(calls)
    if reasoning:
        reply["reasoning"] = reasoning
    if hosted:
        reply["hosted"] = list(hosted)
    if finish in ("length", "content_filter"):
        reply["finish_reason"] = finish
    counted = usage_of(usage)
    if counted:
        reply["usage"] = counted
    return reply


def _chat_call(raw: Mapping[str, Any]) -> Json:
    if raw.get("type") == "custom":
        custom = raw.get("custom") or {}
        name, arguments = custom.get("name", ""), custom.get("input", "")
        call = {"name": name, "arguments": arguments, "kind": "custom"}
    else:
        function = raw.get("function") or {}
        call = {"name": function.get("name", ""), "arguments": function.get("arguments") or "{}"}
    if raw.get("id"):
        call["id"] = raw["id"]
    return call


def _from_chat_completion(body: Mapping[str, Any]) -> Json:
    choices = body.get("choices") or [{}]
    choice = choices[0]
    message = choice.get("message") or {}
    reasoning = message.get("reasoning_content")  # what some compatible servers add
    return _reply(
        text=message.get("content"),
        refusal=message.get("refusal"),
        calls=[_chat_call(c) for c in message.get("tool_calls") or ()],
        usage=body.get("usage"),
        finish=choice.get("finish_reason"),
        reasoning={"text": reasoning} if isinstance(reasoning, str) and reasoning else None,
    )


def _from_chunks(chunks: Sequence[Mapping[str, Any]]) -> Json:
    """A chat stream's chunks, added up into the message they spell (choice 0)."""
    text, refusal, reasoning = [], [], []
    calls: dict[int, Json] = {}
    finish = None
    usage = None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            finish = choice.get("finish_reason") or finish
            delta = choice.get("delta") or {}
            text.append(delta.get("content") or "")
            refusal.append(delta.get("refusal") or "")
            reasoning.append(delta.get("reasoning_content") or "")
            for part in delta.get("tool_calls") or ():
                call = calls.setdefault(part.get("index", 0), {"name": "", "arguments": ""})
                function = part.get("function") or {}
                call["name"] += function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
                if part.get("id"):
                    call["id"] = part["id"]
    return _reply(
        text="".join(text),
        refusal="".join(refusal) or None,
        calls=[calls[i] for i in sorted(calls)],
        usage=usage,
        finish=finish,
        reasoning={"text": "".join(reasoning)} if any(reasoning) else None,
    )


#: Output items a reply says with fields of its own (the rest are hosted tools' items).
_OWN_ITEMS = frozenset({"message", "reasoning", "function_call", "custom_tool_call"})


def _from_response(response: Mapping[str, Any]) -> Json:
    text, refusal, calls, summary, hosted = [], [], [], [], []
    for item in response.get("output") or ():
        kind = item.get("type")
        if kind == "message":
            for part in item.get("content") or ():
                if part.get("type") == "output_text":
                    text.append(part.get("text", ""))
                elif part.get("type") == "refusal":
                    refusal.append(part.get("refusal", ""))
        elif kind == "function_call":
            calls.append(
                {"name": item.get("name", ""), "arguments": item.get("arguments") or "{}"}
                | ({"id": item["call_id"]} if item.get("call_id") else {})
            )
        elif kind == "custom_tool_call":
            calls.append(
                {"name": item.get("name", ""), "arguments": item.get("input", ""), "kind": "custom"}
                | ({"id": item["call_id"]} if item.get("call_id") else {})
            )
        elif kind == "reasoning":
            summary += [s.get("text", "") for s in item.get("summary") or ()]
        elif kind not in _OWN_ITEMS and isinstance(kind, str):
            hosted.append({k: v for k, v in item.items() if k != "id"} | {"type": kind})
    details = response.get("incomplete_details") or {}
    finish = "length" if details.get("reason") == "max_output_tokens" else None
    if details.get("reason") == "content_filter":
        finish = "content_filter"
    return _reply(
        text="".join(text),
        refusal="".join(refusal) or None,
        calls=calls,
        usage=response.get("usage"),
        finish=finish,
        reasoning={"summary": summary} if summary else None,
        hosted=hosted,
    )


def _from_response_events(events: Sequence[Mapping[str, Any]]) -> Json:
    """A Responses stream: the Response its last event carries, else the text its deltas spell
    (a stream cut before its end)."""
    final = [e["response"] for e in events if isinstance(e.get("response"), Mapping)]
    done = [r for r in final if r.get("status") in ("completed", "incomplete", "failed")]
    if done:
        return _from_response(done[-1])
    text = "".join(
        str(e.get("delta", "")) for e in events if e.get("type") == "response.output_text.delta"
    )
    return _reply(text=text)


def _from_recording(recording: Mapping[str, Any]) -> Json | None:
    """A recording file (``mockserver record``'s exact form): its answer, distilled."""
    status = recording.get("status")
    if isinstance(recording.get("events"), list):
        headers = {k.lower(): v for k, v in (recording.get("headers") or {}).items()}
        named = str(headers.get("content-type", "")).startswith(EVENTSTREAM)
        payloads = []
        for event in recording["events"]:
            data = event.get("data") if isinstance(event, Mapping) else None
            if isinstance(data, str) and data != "[DONE]":
                payload = json.loads(data)
                payloads.append({event.get("event"): payload} if named else payload)
        return captured_reply(payloads)
    body = recording.get("body")
    value = json.loads(body) if isinstance(body, str) else body
    if isinstance(status, int) and status >= 400:
        return {"error": error_spec(status, value, recording.get("headers") or {})}
    return captured_reply(value)


def error_spec(status: int, body: Any, headers: Mapping[str, str]) -> Json:
    """A scenario ``error`` that answers as a recorded error did (status, fields, the headers
    a client reads: ``retry-after`` and the rate-limit ones; the delay a Google error names in
    its body, whose streamed array sends it as ``[{"error": …}]``)."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    error = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(error, str):  # Ollama's: the message alone
        error = {"message": error}
    if error is None and isinstance(body, Mapping):  # Bedrock's: {"message": …}
        error = {"message": body["message"]} if isinstance(body.get("message"), str) else None
    error = error if isinstance(error, Mapping) else {}
    spec: Json = {"status": status}
    for key in ("type", "code", "message", "param"):
        if isinstance(error.get(key), str):
            spec[key] = error[key]
    delay = retry_delay(error)
    if delay is not None:
        spec["retry_after"] = delay
    kept = {
        k.lower(): v
        for k, v in headers.items()
        if k.lower().startswith("x-ratelimit-") or k.lower() == "retry-after-ms"
    }
    retry = {k.lower(): v for k, v in headers.items()}.get("retry-after")
    if retry is not None:
        try:
            spec["retry_after"] = float(retry)
        except ValueError:
            kept["retry-after"] = retry
    if kept:
        spec["headers"] = kept
    return spec
