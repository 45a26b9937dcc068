"""Thought signatures: the Gemini API's 400 for a model's own function call sent back without
the signature it came with (Gemini 3 and later models; earlier ones take it either way)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from mockserver.wire.gemini_json import GeminiRequestError

__all__ = ["check_signatures", "needs_signatures"]


def needs_signatures(model: str) -> bool:
    """Does ``model`` refuse its own function calls sent back without their thought signature
    (Gemini 3 and later; earlier models take them either way)?"""
    name = model.rsplit("/", 1)[-1]
    match = re.match(r"gemini-(\d+)", name)
    return match is not None and int(match.group(1)) >= 3


def _current_turn(contents: Sequence[Mapping[str, Any]]) -> int:
    """Where the current turn starts: the last user content that says something (a text, not
    only function results)."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        parts = content.get("parts") or []
        if content.get("role", "user") == "user" and any(
            "functionResponse" not in p for p in parts
        ):
            return index
    return 0


def check_signatures(body: Mapping[str, Any], *, model: str) -> None:
    """The API's 400 for a function call of the current turn sent back without the thought
    signature it came with: the first call of each of the model's steps carries one."""
    if not needs_signatures(model):
        return
    contents = body["contents"]
    for index in range(_current_turn(contents), len(contents)):
        content = contents[index]
        if content.get("role") != "model":
            continue
        calls = [p for p in content["parts"] if "functionCall" in p]
        if calls and not calls[0].get("thoughtSignature"):
            name = calls[0]["functionCall"]["name"]
            raise GeminiRequestError(
                "Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                f"to degraded model performance. Additional data, function call "
                f"`default_api:{name}` , position {index + 1}. Please refer to "
                "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
            )
