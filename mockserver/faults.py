"""Failures on demand: HTTP error presets (more fault kinds join this module, all pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mockserver.errors import APIError
from mockserver.scenario.model import ErrorSpec

__all__ = ["PRESETS", "ErrorPreset", "error_for"]


@dataclass(frozen=True, slots=True)
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


def error_for(spec: ErrorSpec) -> APIError:
    """The :class:`APIError` a scenario's ``error`` reply stands for."""
    preset = (
        PRESETS[spec.preset]
        if spec.preset
        else ErrorPreset(
            500, "server_error", None, "The server had an error while processing your request."
        )
    )
    status = spec.status or preset.status
    retry_after = spec.retry_after if spec.retry_after is not None else preset.retry_after
    headers = _retry_headers(retry_after) if retry_after is not None else {}
    headers.update({k.lower(): v for k, v in spec.headers.items()})
    return APIError(
        spec.message or preset.message,
        status=status,
        type=spec.type or preset.type,
        code=spec.code if spec.code is not None else preset.code,
        param=spec.param if spec.param is not None else preset.param,
        headers=headers,
        extra=dict(preset.extra),
    )
