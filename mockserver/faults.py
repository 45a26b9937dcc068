"""Failures on demand: HTTP error presets, stream plans, and the pacing of a stream."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any, Final

from mockserver import ids
from mockserver.errors import APIError, StreamAborted
from mockserver.render import ndjson, sse
from mockserver.values import value_class

if TYPE_CHECKING:  # read, never built here: start-up does not import the scenario models
    from mockserver.scenario.behaviour import ErrorSpec, FaultSpec, LatencySpec

__all__ = [
    "IMMEDIATE",
    "NDJSON_FRAMING",
    "PRESETS",
    "REAL_TIME",
    "RESPONSE_ERROR_CODES",
    "SSE_FRAMING",
    "UNPACED",
    "BodyPlan",
    "ErrorPreset",
    "Framing",
    "PacedStream",
    "Pacer",
    "Step",
    "StreamPlan",
    "deliver_body",
    "error_for",
    "paced",
    "plan_body",
    "plan_stream",
    "response_error_code",
    "timeline",
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


# Streams and timing. Planning is pure (decided from the seed); ``timeline`` is the one function
# in the project that decides when a stream writes, cuts or aborts.


@value_class
class StreamPlan:
    """What happens to a list of frames on the socket."""

    #: Seconds to wait before each frame (empty: write everything at once).
    waits: tuple[float, ...] = ()
    delay: float = 0.0
    #: ``(kind, after)``: after ``after`` frames, ``disconnect`` | ``stall`` | ``malformed`` |
    #: ``error`` | ``no_done``.
    cut: tuple[str, int] | None = None
    stall_for: float = 0.0
    keepalive: float | None = None

    @property
    def unpaced(self) -> bool:
        """Nothing to time or break: the stream can be written in one go."""
        return not self.waits and not self.delay and self.cut is None


#: The plan of a stream with no latency and no fault (one is shared: plans are values).
UNPACED = StreamPlan()


def _interval(latency: LatencySpec, *, frames: int, tokens: int) -> float:
    if latency.chunk_interval is not None:
        return latency.chunk_interval
    if latency.tokens_per_second:
        return tokens / latency.tokens_per_second / max(frames - 1, 1)
    return 0.0


def plan_stream(
    latency: LatencySpec | None,
    fault: FaultSpec | None,
    *,
    frames: int,
    tokens: int,
    seed: int,
) -> StreamPlan:
    """Waits per frame (``ttft`` first, then an even share of ``tokens`` at the rate, with
    jitter seeded by the turn's ``seed``) and the first scripted cut."""
    if latency is None and fault is None:
        return UNPACED
    waits: tuple[float, ...] = ()
    delay = 0.0
    if latency is not None and latency.paced:
        rng = ids.derive_rng(seed, "pacing")
        delay = latency.delay
        gap = _interval(latency, frames=frames, tokens=tokens)
        jitter = latency.jitter
        waits = tuple(
            (latency.ttft if i == 0 else gap) * (1 + rng.uniform(-jitter, jitter))
            for i in range(frames)
        )
    cut = _first_cut(fault)
    return StreamPlan(
        waits=waits,
        delay=delay,
        cut=cut,
        stall_for=fault.stall_for if fault else 0.0,
        keepalive=fault.keepalive if fault else None,
    )


def _first_cut(fault: FaultSpec | None) -> tuple[str, int] | None:
    if fault is None:
        return None
    cuts = [
        (kind, after)
        for kind, after in (
            ("disconnect", fault.disconnect_after),
            ("stall", fault.stall_after),
            ("malformed", fault.malformed_after),
            ("error", fault.error_after),
        )
        if after is not None
    ]
    if cuts:
        return min(cuts, key=lambda c: c[1])
    return ("no_done", 0) if fault.no_done else None


@value_class
class Framing:
    """What a transport sends for the parts of a stream that are not its events: a keep-alive
    while a stream waits (``None``: nothing, a WebSocket keeps itself alive), and an event
    broken for a ``malformed`` fault."""

    keepalive: bytes | None
    malformed: Callable[[bytes], bytes]


#: Server-sent events: a comment line keeps the connection alive.
SSE_FRAMING = Framing(sse.comment("keep-alive"), sse.malformed)
#: Newline-delimited JSON (Ollama's streams): nothing keeps it alive (a blank line is no JSON
#: object, and Ollama's client would fail on it).
NDJSON_FRAMING = Framing(None, ndjson.malformed)


@value_class
class Pacer:
    """The clock a stream is timed by and the sleep it waits with.

    A stream keeps to its schedule: each frame is due at its planned offset from the stream's
    start, and each wait lasts until then. A wake-up that comes late under load is made up by
    the next wait, instead of pushing every later frame back by it (a sleep per gap would add
    the event loop's lateness up over the stream)."""

    now: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]


#: Real time: the process's monotonic clock and the event loop's sleep.
REAL_TIME = Pacer(ids.monotonic, asyncio.sleep)


#: What a stream's timeline gives its driver at each step: bytes to write now, or how many
#: seconds to wait before asking for the next step.
Step = bytes | float


def _waits(
    due: float, keepalive: float | None, framing: Framing, now: float
) -> Generator[Step, float, float]:
    """Wait until ``due``, with the framing's keep-alive every ``keepalive`` seconds meanwhile;
    the clock's time once it is due."""
    while (left := due - now) > 0:
        if keepalive is not None and left > keepalive:
            now = yield keepalive
            if framing.keepalive is not None:
                now = yield framing.keepalive
            continue
        return (yield left)
    return now


def timeline(
    frames: Sequence[bytes],
    plan: StreamPlan,
    *,
    tail: Sequence[bytes],
    error_frames: Sequence[bytes],
    framing: Framing,
    now: float,
) -> Generator[Step, float, None]:
    """What a stream does, step by step, from its start at ``now``: ``frames`` then ``tail``
    (the terminator) as ``plan`` says, each frame at its offset from the start (see
    :class:`Pacer`). Each step is sent the clock's time when the driver takes the next one.

    ``error_frames`` replace the rest of the stream at an ``error`` cut; a ``disconnect``
    raises :class:`StreamAborted`. A delay and a stall last their whole length from when they
    begin, however late that is. Both drivers, :func:`paced` (a sleep per wait) and the
    server's one timer for every paced stream (``http/pacing.py``), follow this one timeline.
    """
    kind, after = plan.cut or ("", len(frames) + 1)
    keepalive = plan.keepalive
    due = now + plan.delay
    now = yield from _waits(due, keepalive, framing, now)
    for index, frame in enumerate(frames):
        if index == after:
            if kind == "disconnect":
                raise StreamAborted(f"scripted disconnect after {after} events")
            if kind == "error":
                yield from _each(error_frames)
                return
            if kind == "stall":
                due = max(due, now) + plan.stall_for
                now = yield from _waits(due, keepalive, framing, now)
            if kind == "malformed":
                now = yield framing.malformed(frame)
        if plan.waits:
            due += plan.waits[index]
            now = yield from _waits(due, keepalive, framing, now)
        now = yield frame
    if kind == "disconnect" and after >= len(frames):
        raise StreamAborted("scripted disconnect at the end of the stream")
    if kind != "no_done":
        yield from _each(tail)


def _each(frames: Sequence[bytes]) -> Generator[Step, float, None]:
    """``frames`` as steps, one by one (``yield from`` a list would pass the driver's clock
    on to the list's iterator, which takes none)."""
    for frame in frames:  # noqa: UP028 (the docstring says why)
        yield frame


@value_class
class PacedStream:
    """A stream to be written as its plan says: its frames, its terminator (``tail``), the
    frames a scripted ``error`` sends instead of the rest, and how its transport frames what is
    not an event."""

    frames: Sequence[bytes]
    plan: StreamPlan
    tail: Sequence[bytes] = ()
    error_frames: Sequence[bytes] = ()
    framing: Framing = SSE_FRAMING

    def timeline(self, now: float) -> Generator[Step, float, None]:
        """The stream's :func:`timeline`, started at ``now``."""
        return timeline(
            self.frames,
            self.plan,
            tail=self.tail,
            error_frames=self.error_frames,
            framing=self.framing,
            now=now,
        )

    def paced(self, pacer: Pacer = REAL_TIME) -> AsyncIterator[bytes]:
        """The stream's frames, each yielded when due (:func:`paced`)."""
        return _driven(self.timeline(pacer.now()), pacer)


async def paced(
    frames: Sequence[bytes],
    plan: StreamPlan,
    *,
    tail: Sequence[bytes],
    error_frames: Sequence[bytes],
    pacer: Pacer = REAL_TIME,
    framing: Framing = SSE_FRAMING,
) -> AsyncIterator[bytes]:
    """Yield ``frames`` then ``tail`` (the terminator) as ``plan`` says (see :func:`timeline`),
    sleeping on ``pacer`` between them."""
    steps = timeline(
        frames, plan, tail=tail, error_frames=error_frames, framing=framing, now=pacer.now()
    )
    async for frame in _driven(steps, pacer):
        yield frame


async def _driven(steps: Generator[Step, float, None], pacer: Pacer) -> AsyncIterator[bytes]:
    """A timeline's bytes, a sleep on ``pacer`` for each of its waits."""
    step = next(steps, None)
    while step is not None:
        if isinstance(step, bytes):
            yield step
        else:
            await pacer.sleep(step)
        try:
            step = steps.send(pacer.now())
        except StopIteration:
            return


@value_class
class BodyPlan:
    """What happens to a non-streamed answer: a delay, a reset, a truncated body."""

    delay: float = 0.0
    reset: bool = False
    truncate: float | None = None

    @property
    def plain(self) -> bool:
        return not self.delay and not self.reset and self.truncate is None


#: The plan of an answer with no latency and no fault.
IMMEDIATE = BodyPlan()


def plan_body(latency: LatencySpec | None, fault: FaultSpec | None, *, seed: int) -> BodyPlan:
    if latency is None and fault is None:
        return IMMEDIATE
    delay = 0.0
    if latency is not None and latency.delay:
        rng = ids.derive_rng(seed, "pacing")
        delay = latency.delay * (1 + rng.uniform(-latency.jitter, latency.jitter))
    return BodyPlan(
        delay=delay, reset=bool(fault and fault.reset), truncate=fault.truncate if fault else None
    )


async def deliver_body(body: bytes, plan: BodyPlan, *, pacer: Pacer = REAL_TIME) -> bytes:
    """Wait as planned, then the bytes to send (cut short for ``truncate``)."""
    if plan.delay:
        await pacer.sleep(plan.delay)
    if plan.truncate is not None:
        return body[: int(len(body) * plan.truncate)]
    return body
