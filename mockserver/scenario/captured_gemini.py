"""A captured answer of the Gemini API as the neutral reply it says: a
``GenerateContentResponse``, or a stream's chunks (``alt=sse`` events or the streamed array's
elements), added up for candidate 0; and the retry delay a Google error names in its body.

Pure, as ``captured.py`` (which reads the other families' answers and calls this one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mockserver.values import Json

__all__ = ["from_gemini", "is_gemini", "retry_delay"]

#: The finish reasons that say a filter stopped the answer.
_FILTERED: Final = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)
_RETRY_INFO: Final = "type.googleapis.com/google.rpc.RetryInfo"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)s")


def is_gemini(value: Mapping[str, Any]) -> bool:
    """Is ``value`` a ``GenerateContentResponse`` (or one of a stream's chunks)?"""
    return "candidates" in value or "promptFeedback" in value


def from_gemini(chunks: Sequence[Mapping[str, Any]]) -> Json:
    """The reply a Gemini answer's chunks spell (one chunk: a whole answer); the last usage
    counted, as Gemini's counts are cumulative."""
    text: list[str] = []
    thoughts: list[str] = []
    calls: list[Json] = []
    finish = None
    usage: Mapping[str, Any] = {}
    for chunk in chunks:
        usage = chunk.get("usageMetadata") or usage
        if (chunk.get("promptFeedback") or {}).get("blockReason"):
            finish = "content_filter"
        candidates = chunk.get("candidates") or ()
        first = next((c for c in candidates if c.get("index", 0) == 0), None)
        if first is None:
            continue
        finish = _finish(first.get("finishReason")) or finish
        for part in (first.get("content") or {}).get("parts") or ():
            _read_part(part, text=text, thoughts=thoughts, calls=calls)
    reply: Json = {}
    if text or not calls:
        reply["text"] = "".join(text)
    if calls:
        reply["tool_calls"] = calls
    if thoughts:
        reply["reasoning"] = {"text": "".join(thoughts)}
    if finish is not None:
        reply["finish_reason"] = finish
    counted = _usage(usage)
    if counted:
        reply["usage"] = counted
    return reply


def _read_part(
    part: Mapping[str, Any], *, text: list[str], thoughts: list[str], calls: list[Json]
) -> None:
    if "functionCall" in part:
        call = part["functionCall"] or {}
        said: Json = {"name": str(call.get("name", "")), "arguments": json.dumps(call.get("args"))}
        if call.get("args") is None:
            said["arguments"] = "{}"
        if call.get("id"):
            said["id"] = str(call["id"])
        calls.append(said)
    elif isinstance(part.get("text"), str):
        (thoughts if part.get("thought") is True else text).append(part["text"])


def _finish(reason: Any) -> str | None:
    if reason == "MAX_TOKENS":
        return "length"
    return "content_filter" if reason in _FILTERED else None


def _usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """Gemini's counts in the reply's terms (its output tokens count the thoughts too)."""
    counts = {
        name: usage.get(field)
        for name, field in (
            ("prompt", "promptTokenCount"),
            ("candidates", "candidatesTokenCount"),
            ("thoughts", "thoughtsTokenCount"),
            ("cached", "cachedContentTokenCount"),
        )
    }
    number = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    if "prompt" not in number:
        return {}
    out = {"prompt_tokens": number["prompt"]}
    out["completion_tokens"] = number.get("candidates", 0) + number.get("thoughts", 0)
    if number.get("thoughts"):
        out["reasoning_tokens"] = number["thoughts"]
    if number.get("cached"):
        out["cached_tokens"] = number["cached"]
    return out


def retry_delay(error: Mapping[str, Any]) -> float | None:
    """The seconds a Google error's ``RetryInfo`` detail says to wait (``"3s"``), if any."""
    for detail in error.get("details") or ():
        if isinstance(detail, Mapping) and detail.get("@type") == _RETRY_INFO:
            found = _DURATION.fullmatch(str(detail.get("retryDelay", "")))
            if found:
                return float(found.group(1))
    return None
