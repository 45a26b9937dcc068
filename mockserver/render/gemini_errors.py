"""An :class:`~mockserver.errors.APIError` as Google's APIs (the Gemini API, Developer and
Vertex) write it: ``{"error": {code, message, status, details}}``. ``status`` is the gRPC
code's name for the HTTP status, ``details`` Google's typed messages (``ErrorInfo``,
``RetryInfo``…), and a 429 says when to retry only in its body (``RetryInfo.retryDelay``):
Google sends no ``Retry-After`` and no rate-limit headers. The ``google`` shape of the one
dispatch (``render/errors.py``) writes its errors with :func:`google_error`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mockserver.errors import APIError
from mockserver.values import Json, value_class

__all__ = ["error_info", "google_error", "google_status"]

#: The gRPC status names Google's JSON errors carry, by HTTP status.
_GRPC_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    412: "FAILED_PRECONDITION",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    422: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_TYPE = "type.googleapis.com/google.rpc."
_SERVICE = "generativelanguage.googleapis.com"
#: Headers only OpenAI's answers carry (Google's 429 names its delay in the body alone).
_OPENAI_ONLY = ("retry-after", "retry-after-ms", "x-ratelimit-")


def google_status(status: int) -> str:
    """The gRPC status name Google writes for an HTTP ``status``."""
    if status in _GRPC_STATUS:
        return _GRPC_STATUS[status]
    return "INTERNAL" if status >= 500 else "INVALID_ARGUMENT"


def error_info(reason: str, **metadata: str) -> Json:
    """A ``google.rpc.ErrorInfo`` detail (why, machine-readable: ``API_KEY_INVALID``…)."""
    return {
        "@type": _TYPE + "ErrorInfo",
        "reason": reason,
        "domain": "googleapis.com",
        "metadata": {"service": _SERVICE, **metadata},
    }


def _retry_info(seconds: float) -> Json:
    whole = round(seconds)
    delay = f"{whole}s" if abs(seconds - whole) < 1e-9 else f"{seconds:.3f}".rstrip("0") + "s"
    return {"@type": _TYPE + "RetryInfo", "retryDelay": delay}


def _quota_failure() -> Json:
    return {
        "@type": _TYPE + "QuotaFailure",
        "violations": [
            {
                "quotaMetric": f"{_SERVICE}/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            }
        ],
    }


def _help() -> Json:
    return {
        "@type": _TYPE + "Help",
        "links": [
            {
                "description": "Learn more about Gemini API quotas",
                "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
            }
        ],
    }


@value_class
class _Words:
    """How Google's API says one of the named errors."""

    status: int
    message: str
    details: Callable[[], list[Json]] = list


#: The named errors (``faults.PRESETS``) as the Gemini API words them.
_GOOGLE_PRESETS: Mapping[str, _Words] = {
    "rate_limited": _Words(429, "Resource has been exhausted (e.g. check quota)."),
    "insufficient_quota": _Words(
        429,
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
        lambda: [_quota_failure(), _help()],
    ),
    "overloaded": _Words(503, "The model is overloaded. Please try again later."),
    "bad_request": _Words(400, "Request contains an invalid argument."),
    "unprocessable": _Words(400, "Request contains an invalid argument."),
    "misalignment": _Words(400, "Request contains an invalid argument."),
    "invalid_api_key": _Words(
        400,
        "API key not valid. Please pass a valid API key.",
        lambda: [error_info("API_KEY_INVALID")],
    ),
    "permission_denied": _Words(403, "The caller does not have permission"),
    "model_not_found": _Words(
        404,
        "Requested entity was not found. Call ListModels to see the list of available models "
        "and their supported methods.",
    ),
    "conflict": _Words(409, "The operation was aborted."),
    "server_error": _Words(
        500,
        "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
    ),
    "bad_gateway": _Words(502, "The service is currently unavailable."),
    "gateway_timeout": _Words(504, "The request timed out. Please try again."),
}


def _retry_delay(headers: Mapping[str, str]) -> float | None:
    """The delay an error's ``Retry-After`` headers name (the exact one if given)."""
    if "retry-after-ms" in headers:
        return int(headers["retry-after-ms"]) / 1000
    if headers.get("retry-after", "").isdigit():
        return float(headers["retry-after"])
    return None


def _parser_words(char: str | None) -> str:
    """What Google's JSON parser says of a body that broke at ``char`` (``""`` or ``None``: it
    ended before the JSON did, or there was none)."""
    if char:
        return "Invalid JSON payload received. Unexpected token."
    return "Invalid JSON payload received. Unexpected end of string."


def google_error(error: APIError) -> tuple[int, Json, dict[str, str]]:
    """``error``'s status, body and headers as Google's APIs answer it."""
    words = _GOOGLE_PRESETS.get(error.preset or "")
    status, message = error.status, error.message
    if words is not None:
        status, message = error.worded(words.status, words.message)
    if "invalid_json" in error.facts:  # not OpenAI's sentence about its help center
        message = _parser_words(error.facts.get("invalid_char"))
    given: Any = error.extra.get("details")
    details: list[Json] = list(given) if isinstance(given, list) else []
    if words is not None and not details:
        details = words.details()
    delay = _retry_delay(error.headers)
    if (
        delay is not None
        and status in (429, 503)
        and not any("RetryInfo" in str(d) for d in details)
    ):
        details.append(_retry_info(delay))
    body: Json = {"code": status, "message": message, "status": google_status(status)}
    if details:
        body["details"] = details
    headers = {k: v for k, v in error.headers.items() if not k.lower().startswith(_OPENAI_ONLY)}
    return status, {"error": body}, headers
