"""What Anthropic's API says of an error: its type for a status, and the words of a scenario
preset, a rate limit or a body that is not JSON (``errors.AnthropicShape`` writes them)."""

from __future__ import annotations

from typing import Final

from mockserver.errors import APIError

__all__ = [
    "ANTHROPIC_ORGANIZATION",
    "ANTHROPIC_PRESETS",
    "ANTHROPIC_TYPES",
    "anthropic_type",
    "anthropic_words",
]

#: Anthropic's error types by status (any other 4xx is an ``invalid_request_error``, any
#: other 5xx an ``api_error``).
ANTHROPIC_TYPES: Final = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
#: The types only Anthropic's API has: a scenario that names one means it (OpenAI's own
#: ``invalid_request_error`` and ``rate_limit_error`` are the status's, whatever it is).
_ANTHROPIC_ONLY_TYPES: Final = frozenset(ANTHROPIC_TYPES.values()) - {
    "invalid_request_error",
    "rate_limit_error",
}

_RATE_LIMIT_HELP = (
    "For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the "
    "response headers for current usage. Please reduce the prompt length or the maximum tokens "
    "requested, or try again later. You may also contact sales at "
    "https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."
)

#: The scenario presets as Anthropic's API says them: ``(status, message)``; a preset not
#: here keeps OpenAI's status and words.
ANTHROPIC_PRESETS: Final = {
    "rate_limited": (
        429,
        "This request would exceed your organization's rate limit. " + _RATE_LIMIT_HELP,
    ),
    "insufficient_quota": (
        400,
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
    ),
    "overloaded": (529, "Overloaded"),
    "invalid_api_key": (401, "invalid x-api-key"),
    "permission_denied": (
        403,
        "Your API key does not have permission to use the specified resource.",
    ),
    "model_not_found": (404, "model: {model}"),
    "server_error": (500, "Internal server error"),
    "gateway_timeout": (504, "Request timed out"),
}

#: The organization every answer names (the real API sends the key's organization's UUID).
ANTHROPIC_ORGANIZATION: Final = "00000000-0000-4000-8000-6d6f636b7372"


def anthropic_type(error: APIError, status: int) -> str:
    """The error's own type if only Anthropic's API has it, else its status's."""
    if error.type in _ANTHROPIC_ONLY_TYPES:
        return error.type
    known = ANTHROPIC_TYPES.get(status)
    if known is not None:
        return known
    return "api_error" if status >= 500 else "invalid_request_error"


def anthropic_words(error: APIError) -> tuple[int, str]:
    """The status and message Anthropic's API answers ``error`` with: a preset's own (unless
    the scenario gave its own status or message), the rate-limit arithmetic's, a reworded
    OpenAI sentence, else ``error``'s."""
    status, message = error.status, error.message
    words = ANTHROPIC_PRESETS.get(error.preset or "")
    if words is not None:
        model = error.facts.get("model", "unknown")
        status, message = error.worded(words[0], words[1].format(model=model))
    limit = error.facts.get("rate_limit")
    if isinstance(limit, int):
        unit = error.facts.get("rate_unit", "requests")
        message = (
            f"This request would exceed the rate limit for your organization (mockserver) of "
            f"{limit:,} {unit} per minute. {_RATE_LIMIT_HELP}"
        )
    reason = error.facts.get("invalid_json")
    if isinstance(reason, str):
        message = f"The request body is not valid JSON: {reason}"
    return status, message
