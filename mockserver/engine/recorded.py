"""What an exact replay keeps: the response or completion a recorded answer holds, stored as
the upstream's, so that what follows it in a recorded flow finds it (a ``previous_response_id``
chain, a tool output answering a recorded call, a retrieve by the recorded id, a stored
completion listed).

A recorded answer is sent byte for byte (``http/responses.py``); this reads the same answer
once more for the object in it: a non-streamed body, or a stream's final ``response.*``
event. A cut stream, an error, or an answer that holds no such object stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mockserver.errors import RecordedAnswer
from mockserver.render.responses import ResponseMeta, echo_params
from mockserver.render.responses_items import stored_item
from mockserver.reply.model import Reply, ToolCall, Usage
from mockserver.scenario.captured import captured_reply
from mockserver.store import StoredResponse
from mockserver.values import Json

__all__ = ["recorded_chat_completion", "recorded_response", "stored_recorded_response"]

#: The events that end a Responses stream with the whole response.
_FINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed")


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def recorded_response(answer: RecordedAnswer) -> Json | None:
    """The Response object a recorded Responses answer holds, if it holds a whole one."""
    if answer.status != 200:
        return None
    if answer.events is None:
        body = _json(answer.recorded_body)
        return body if isinstance(body, dict) and body.get("object") == "response" else None
    if not answer.complete:
        return None
    for _, data in reversed(answer.events):
        event = _json(data)
        if isinstance(event, dict) and event.get("type") in _FINAL_EVENTS:
            response = event.get("response")
            return response if isinstance(response, dict) and "id" in response else None
    return None


def recorded_chat_completion(answer: RecordedAnswer) -> Json | None:
    """The chat.completion a recorded, non-streamed Chat Completions answer holds."""
    if answer.status != 200 or answer.events is not None:
        return None
    body = _json(answer.recorded_body)
    return body if isinstance(body, dict) and body.get("object") == "chat.completion" else None


def stored_recorded_response(
    response: Json,
    body: Mapping[str, Any],
    *,
    history: list[Json],
    inputs: list[Json],
    size: int,
) -> StoredResponse:
    """``response`` (as recorded) stored for the request ``body`` that continues ``history``
    with ``inputs``: retrieved as recorded, continued with its recorded output."""
    response_id = str(response["id"])
    stored_inputs = [stored_item(item, owner=response_id, index=n) for n, item in enumerate(inputs)]
    output = [dict(item) for item in response.get("output") or () if isinstance(item, Mapping)]
    meta = ResponseMeta(
        id=response_id,
        created_at=int(response.get("created_at") or 0),
        echo=echo_params(body, service_tier=str(response.get("service_tier") or "default")),
        include=frozenset(body.get("include") or ()),
    )
    return StoredResponse(
        meta=meta,
        reply=_reply(response),
        status=str(response.get("status") or "completed"),
        items=(stored_inputs, [*history, *stored_inputs, *output]),
        completed_at=response.get("completed_at"),
        size=size,
        recorded=response,
    )


def _reply(response: Mapping[str, Any]) -> Reply:
    """The recorded output as a reply (what a stored response's stream is rendered from), read
    as a pasted Response is (``scenario/captured.py``)."""
    said = captured_reply(response) or {}
    usage = said.get("usage") or {}
    calls = tuple(
        ToolCall(
            call_id=str(call.get("id", "")),
            name=str(call.get("name", "")),
            arguments=str(call.get("arguments") or "{}"),
            kind="custom" if call.get("kind") == "custom" else "function",
        )
        for call in said.get("tool_calls") or ()
    )
    return Reply(
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        ),
        text=said.get("text") or None,
        refusal=said.get("refusal"),
        tool_calls=calls,
        finish_reason="length" if said.get("finish_reason") == "length" else "stop",
    )
