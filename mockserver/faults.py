"""Failures on demand: the HTTP error presets and the errors they make (a stream's and a body's
plans, and their pacing, are ``plans.py``'s)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

from mockserver.errors import APIError
from mockserver.values import value_class

if TYPE_CHECKING:  # read, never built here: start-up does not import the scenario models
    from mockserver.scenario.behaviour import ErrorSpec

__all__ = [
    "PRESETS",
    "RESPONSE_ERROR_CODES",
    "ErrorPreset",
    "error_for",
    "response_error_code",
]


@value_class
class ErrorPreset:
    status: int
    type: str
    code: str | None
    message: str
    param: str | None = None
    retry_after: float | None = None
    extra: tuple[tuple[str, Any], ...] = ()


#: Named errors, with the real API's wording (the seed's, where it gives one).
PRESETS: dict[str, ErrorPreset] = {
    "rate_limited": ErrorPreset(
        429,
        "rate_limit_error",
        "slow_down",
        "Your request rate increased too quickly. Please reduce the request rate and gradually "
        "increase it again.",
        retry_after=1,
    ),
    "insufficient_quota": ErrorPreset(
        429,
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    "overloaded": ErrorPreset(
        503,
        "service_unavailable_error",
        "server_is_overloaded",
        "The model is temporarily overloaded. Please retry your request after a brief delay.",
        retry_after=1,
    ),
    "bad_request": ErrorPreset(400, "invalid_request_error", None, "Bad request."),
    "invalid_api_key": ErrorPreset(
        401,
        "invalid_request_error",
        "invalid_api_key",
        "Incorrect API key provided. You can find your API key in your account settings.",
    ),
    "permission_denied": ErrorPreset(
        403,
        "invalid_request_error",
        "unsupported_country_region_territory",
        "Country, region, or territory not supported.",
    ),
    "model_not_found": ErrorPreset(
        404,
        "invalid_request_error",
        "model_not_found",
        "The model does not exist or you do not have access to it.",
        param="model",
    ),
    "conflict": ErrorPreset(
        409,
        "invalid_request_error",
        "conflict",
        "The request conflicts with the current state of the resource.",
    ),
    "unprocessable": ErrorPreset(
        422, "invalid_request_error", None, "The request could not be processed."
    ),
    "server_error": ErrorPreset(
        500,
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
    "bad_gateway": ErrorPreset(502, "server_error", "bad_gateway", "Bad gateway."),
    "gateway_timeout": ErrorPreset(
        504, "server_error", "gateway_timeout", "Gateway timeout. The request took too long."
    ),
    "misalignment": ErrorPreset(
        400,
        "invalid_request_error",
        "misalignment",
        "This request was blocked because the action may be unintended.",
        extra=(
            (
                "misalignment",
                {
                    "error_type": "potentially_unintended_destructive_activity",
                    "detailed_explanation": "The requested action could irreversibly delete data.",
                    "steer": {"message": "Ask the user to confirm before deleting anything."},
                },
            ),
        ),
    ),
}


def _retry_headers(seconds: float) -> dict[str, str]:
    # Retry-After is whole seconds ≥ 1 (the seed); retry-after-ms carries the exact delay.
    return {
        "retry-after": str(max(1, math.ceil(seconds))),
        "retry-after-ms": str(max(0, round(seconds * 1000))),
    }


def _preset_for(status: int) -> tuple[str | None, ErrorPreset]:
    """What an error given only its status says, and the preset's name: the first preset with
    that status (a 429 is ``rate_limited``), else the API's generic words for a client or a
    server error."""
    for name, preset in PRESETS.items():
        if preset.status == status:
            return name, preset
    if status >= 500:
        return "server_error", PRESETS["server_error"]
    return None, ErrorPreset(status, "invalid_request_error", None, "The request was not accepted.")


def error_for(spec: ErrorSpec | None) -> APIError:
    """The :class:`APIError` a scenario's ``error`` reply stands for; ``None`` is a plain
    ``server_error`` (what a stream's ``error_after`` sends when its fault names no error)."""
    if spec is None:
        name: str | None = "server_error"
        preset = PRESETS["server_error"]
        status, message, type_, code, param = preset.status, None, None, None, None
        retry_after, own_headers = preset.retry_after, {}
    else:
        if spec.preset:
            name, preset = spec.preset, PRESETS[spec.preset]
        else:
            name, preset = _preset_for(spec.status or 500)
        status, message, type_ = spec.status or preset.status, spec.message, spec.type
        code, param, own_headers = spec.code, spec.param, spec.headers
        retry_after = spec.retry_after if spec.retry_after is not None else preset.retry_after
    headers = _retry_headers(retry_after) if retry_after is not None else {}
    headers.update({k.lower(): v for k, v in own_headers.items()})
    error = APIError(
        message or preset.message,
        status=status,
        type=type_ or preset.type,
        code=code if code is not None else preset.code,
        param=param if param is not None else preset.param,
        headers=headers,
        extra=dict(preset.extra),
    )
    error.preset = name
    if spec is not None:  # what the scenario said itself, which no family's words replace
        error.facts["given"] = tuple(sorted(spec.model_fields_set))
    return error


#: The codes a Responses ``response.error`` may carry (the API's ``ResponseErrorCode``).
RESPONSE_ERROR_CODES: Final = frozenset(
    {
        "server_error",
        "rate_limit_exceeded",
        "invalid_prompt",
        "data_residency_mismatch",
        "bio_policy",
        "vector_store_timeout",
        "invalid_image",
        "invalid_image_format",
        "invalid_base64_image",
        "invalid_image_url",
        "image_too_large",
        "image_too_small",
        "image_parse_error",
        "image_content_policy_violation",
        "invalid_image_mode",
        "image_file_too_large",
        "unsupported_image_media_type",
        "empty_image_file",
        "failed_to_download_image",
        "image_file_not_found",
    }
)


def response_error_code(error: APIError) -> str:
    """``error``'s code as a failed response states it: its own if the API has it for a
    response, else the nearest (a 429 is ``rate_limit_exceeded``, a client error
    ``invalid_prompt``, anything else ``server_error``)."""
    if error.code in RESPONSE_ERROR_CODES:
        return error.code
    if error.status == 429:
        return "rate_limit_exceeded"
    return "invalid_prompt" if 400 <= error.status < 500 else "server_error"
