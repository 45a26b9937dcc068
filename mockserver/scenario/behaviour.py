"""How a reply is delivered, beyond what it says: pacing, faults, moderation, rate limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from mockserver.scenario.terms import Category

__all__ = [
    "Category",
    "ErrorSpec",
    "FaultSpec",
    "LatencySpec",
    "ModerationSpec",
    "RateLimitSpec",
    "Strict",
]


class Strict(BaseModel):
    """A scenario model: unknown keys are an error, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, allow_inf_nan=False)


class LatencySpec(Strict):
    """Timing on the socket. Streams: ``ttft`` then one chunk per ``chunk`` tokens."""

    delay: float = Field(default=0, ge=0, le=3600, description="seconds before the answer starts")
    ttft: float = Field(default=0, ge=0, le=3600, description="stream: time to first chunk")
    tokens_per_second: float | None = Field(default=None, gt=0)
    chunk_interval: float | None = Field(
        default=None, ge=0, le=3600, description="stream: seconds between chunks"
    )
    jitter: float = Field(default=0, ge=0, le=1, description="± fraction, seeded")
    chunk: StrictInt | Literal["token", "word"] = Field(
        default="token", description="stream granularity: token, word, or N tokens per chunk"
    )

    @model_validator(mode="after")
    def _one_rate(self) -> LatencySpec:
        if self.tokens_per_second is not None and self.chunk_interval is not None:
            raise ValueError("give tokens_per_second or chunk_interval, not both")
        if isinstance(self.chunk, int) and self.chunk < 1:
            raise ValueError("chunk must be token, word or a positive number of tokens")
        return self

    @property
    def paced(self) -> bool:
        return bool(self.delay or self.ttft or self.tokens_per_second or self.chunk_interval)


class ErrorSpec(Strict):
    """An HTTP error instead of a reply: a preset, with any field overridden by hand."""

    preset: (
        Literal[
            "rate_limited",
            "insufficient_quota",
            "overloaded",
            "bad_request",
            "invalid_api_key",
            "permission_denied",
            "model_not_found",
            "conflict",
            "unprocessable",
            "server_error",
            "bad_gateway",
            "gateway_timeout",
            "misalignment",
        ]
        | None
    ) = None
    status: StrictInt | None = Field(default=None, ge=400, le=599)
    type: str | None = None
    code: str | None = None
    message: str | None = None
    param: str | None = None
    retry_after: float | None = Field(default=None, ge=0)
    headers: dict[str, str] = Field(default_factory=dict)


class FaultSpec(Strict):
    """Breaking the answer after it started (streams) or instead of it (non-streamed)."""

    disconnect_after: StrictInt | None = Field(
        default=None, ge=0, description="stream: drop the connection after N events"
    )
    stall_after: StrictInt | None = Field(
        default=None, ge=0, description="stream: stop sending after N events"
    )
    stall_for: float = Field(
        default=3600, gt=0, le=86400, description="how long a stall lasts before the stream goes on"
    )
    malformed_after: StrictInt | None = Field(
        default=None, ge=0, description="stream: a frame of broken JSON after N events"
    )
    error_after: StrictInt | None = Field(
        default=None, ge=0, description="stream: an in-stream error after N events"
    )
    error: ErrorSpec | None = Field(
        default=None, description="the in-stream error (default: a 500 server_error)"
    )
    no_done: StrictBool = Field(
        default=False, description="stream: end without [DONE] / the terminal event"
    )
    keepalive: float | None = Field(
        default=None, gt=0, description="stream: an SSE comment every N seconds of wait"
    )
    reset: StrictBool = Field(default=False, description="close the connection without an answer")
    truncate: float | None = Field(
        default=None, gt=0, lt=1, description="non-streamed: send only this fraction of the body"
    )


class ModerationSpec(Strict):
    """Categories the moderation model flags, on the request's input and/or the reply."""

    input: list[Category] = Field(default_factory=list)
    output: list[Category] = Field(default_factory=list)
    error: Literal["input", "output"] | None = Field(
        default=None, description="report a moderation error object for that side instead"
    )


class RateLimitSpec(Strict):
    """Per-namespace budgets; exceeding one gives a real 429 with a correct Retry-After."""

    requests_per_minute: StrictInt | None = Field(default=None, ge=1)
    tokens_per_minute: StrictInt | None = Field(default=None, ge=1)
