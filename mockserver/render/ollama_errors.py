"""An error in Ollama's words: the status and message its server answers with
(``server/routes.go``, ``server/sched.go`` and their tests), for ``render/errors.py``'s
``OllamaShape``, which writes them as ``{"error": "…"}``."""

from __future__ import annotations

from typing import Final

from mockserver.errors import APIError

__all__ = ["OLLAMA_PRESETS", "ollama_words"]

#: The scenario presets as Ollama's server says them: ``(status, message)``; a preset not
#: here keeps OpenAI's status and words.
OLLAMA_PRESETS: Final = {
    "rate_limited": (429, "rate limit exceeded"),
    "overloaded": (503, "server busy, please try again.  maximum pending requests exceeded"),
    "invalid_api_key": (401, "unauthorized"),
    "model_not_found": (404, "model '{model}' not found"),
    "server_error": (500, "an error was encountered while running the model"),
}


def _decoder_words(char: str | None) -> str:
    """What Go's JSON decoder says of a body that broke at ``char`` (``""``: it ended early;
    ``None``: there was none)."""
    if char is None:
        return "missing request body"
    if char.strip():
        return f"invalid character '{char}' looking for beginning of value"
    return "unexpected EOF"


def ollama_words(error: APIError) -> tuple[int, str]:
    """The status and message Ollama's server answers ``error`` with: a preset's own (unless
    the scenario gave its own status or message), Go's JSON decoder's words for a body that is
    not JSON, else ``error``'s."""
    status, message = error.status, error.message
    words = OLLAMA_PRESETS.get(error.preset or "")
    if words is not None:
        model = error.facts.get("model", "unknown")
        status, message = error.worded(words[0], words[1].format(model=model))
    if isinstance(error.facts.get("rate_limit"), int):
        message = OLLAMA_PRESETS["rate_limited"][1]
    if "invalid_json" in error.facts:
        message = _decoder_words(error.facts.get("invalid_char"))
    return status, message
