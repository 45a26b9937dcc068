"""A captured Ollama answer (``/api/chat`` or ``/api/generate``: a whole body, or the objects
of its NDJSON stream) as the neutral reply it says: its text (``message.content`` or
``response``), its thinking, its tool calls (arguments as an object), how it ended
(``done_reason``) and its counts (``prompt_eval_count``, ``eval_count``).

Pure, like ``captured.py``, which hands it what looks like Ollama's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mockserver.values import Json

__all__ = ["is_ollama_answer", "ollama_reply"]


def is_ollama_answer(value: Mapping[str, Any]) -> bool:
    """Is ``value`` one of Ollama's answer objects (a body, or a line of a stream)?"""
    return "done" in value and ("message" in value or "response" in value)


def _call(raw: Mapping[str, Any]) -> Json:
    function = raw.get("function") or {}
    arguments = function.get("arguments")
    call: Json = {
        "name": function.get("name", ""),
        "arguments": json.dumps(arguments if arguments is not None else {}, ensure_ascii=False),
    }
    if raw.get("id"):
        call["id"] = raw["id"]
    return call


def ollama_reply(values: Sequence[Mapping[str, Any]]) -> Json:
    """The reply a body (one object) or a stream's objects say, added up."""
    text, thinking, calls = [], [], []
    for value in values:
        message = value.get("message") or {}
        text.append(message.get("content") or value.get("response") or "")
        thinking.append(message.get("thinking") or value.get("thinking") or "")
        calls += [_call(c) for c in message.get("tool_calls") or value.get("tool_calls") or ()]
    last = values[-1]
    reply: Json = {}
    said = "".join(text)
    if said or not calls:
        reply["text"] = said
    if calls:
        reply["tool_calls"] = calls
    if "".join(thinking):
        reply["reasoning"] = {"text": "".join(thinking)}
    if last.get("done_reason") == "length":
        reply["finish_reason"] = "length"
    usage = {
        key: last[field]
        for key, field in (
            ("prompt_tokens", "prompt_eval_count"),
            ("completion_tokens", "eval_count"),
        )
        if isinstance(last.get(field), int) and not isinstance(last.get(field), bool)
    }
    if usage:
        reply["usage"] = usage
    return reply
