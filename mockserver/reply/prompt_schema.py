"""A JSON Schema written into the conversation, for JSON mode (``response_format:
json_object``): instructor's JSON modes and prompts of the kind "answer with JSON matching this
schema: {...}" put the schema in a message, and a model follows it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mockserver.prompt import Prompt

__all__ = ["schema_in_messages"]

#: How many ``{`` of one message are tried as the start of a JSON object (a message of code is
#: full of braces; a schema is near one of the first).
_STARTS_PER_MESSAGE = 64
_DECODER = json.JSONDecoder()


def _is_schema(value: Any) -> bool:
    """An object schema: ``properties`` (an object), with ``type: object`` or no type."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("properties"), Mapping)
        and value.get("type", "object") == "object"
    )


def _schema_in(text: str) -> Mapping[str, Any] | None:
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < _STARTS_PER_MESSAGE:
        tries += 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if _is_schema(value):
            return value  # type: ignore[no-any-return]
        start = text.find("{", end)
    return None


def schema_in_messages(prompt: Prompt) -> Mapping[str, Any] | None:
    """The JSON Schema of the newest message (instructions included) that holds one."""
    texts = [m.text for m in reversed(prompt.messages) if m.role != "assistant"]
    if prompt.instructions:
        texts.append(prompt.instructions)
    for text in texts:
        if "properties" in text:
            found = _schema_in(text)
            if found is not None:
                return found
    return None
