"""The scenario language's fixed words, importable without its models (and so without pydantic):
what the serving path needs of it at start-up."""

from __future__ import annotations

import re
from typing import Literal, get_args

__all__ = ["CATEGORIES", "PLACEHOLDER", "PLACEHOLDERS", "Category", "describe_text"]

#: The moderation model's categories, in the order the real API lists them: a type for the
#: scenario models (``behaviour``), and :data:`CATEGORIES` for the serving path.
Category = Literal[
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
]
CATEGORIES: tuple[str, ...] = get_args(Category)

#: ``{{name}}`` / ``{{name.key}}`` in a reply's text, filled in per request.
PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_-]+)?)\s*\}\}")
PLACEHOLDERS = frozenset(
    {"last_user", "model", "api", "turn", "tool_result", "tool_results", "metadata"}
)


def describe_text(text: str, limit: int = 60) -> str:
    """A quoted, shortened text for miss explanations."""
    flat = text.replace("\n", " ")
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
