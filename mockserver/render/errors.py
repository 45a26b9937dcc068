"""What surrounds an answer, written in each API family's shape: its request ids, the headers
on every answer (the rate limits among them), and its errors (status, body, headers).

::

    Shape                 one per error shape of the family table (``families.ErrorShape``)
     ├── OpenAIShape      x-request-id, openai-*, x-ratelimit-* (reset as a duration);
     │                    {"error": {message, type, param, code}}, indented
     ├── AnthropicShape   request-id, anthropic-ratelimit-* (reset as RFC 3339);
     │                    {"type": "error", "error": {type, message}, "request_id"}, compact,
     │                    with Anthropic's statuses (529 overloaded) and x-should-retry
     ├── GoogleShape      server-timing, no request id, no rate limits;
     │                    {"error": {code, message, status, details}}
     ├── AzureShape       OpenAI's API behind Azure's gateway: apim-request-id, x-ms-region,
     │                    x-ratelimit-remaining/limit-*; OpenAI's body compact, the gateway's
     │                    {"error": {code, message}} for a 429, a 404 and a wrong key
     ├── BedrockShape     x-amzn-requestid (a UUID), no rate limits; x-amzn-errortype and
     │                    {"message"}, with each exception's modeled status
     └── OllamaShape      no request id, no service or rate-limit headers;
                          {"error": "…"}, as Go writes it, with Ollama's statuses and words

:data:`SHAPES` is the one dispatch from a family's shape to these: every refusal (a request
the wire layer refuses, a scripted error, a strict miss, an unknown route, an exhausted rate
limit) is written through it, and a family with a shape of its own adds one entry here.
An :class:`~mockserver.errors.APIError` is raised in OpenAI's words (its presets, the wire
layer's messages); a shape that words an error otherwise says so from its ``preset`` and
``facts`` (what the scenario gave itself, the rate limit's numbers, the JSON parser's words).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Final

import orjson

from mockserver import ids
from mockserver.errors import APIError, GatewayError, MethodNotAllowedError, NotFoundError
from mockserver.render.anthropic_errors import (
    ANTHROPIC_ORGANIZATION,
    anthropic_type,
    anthropic_words,
)
from mockserver.render.azure import azure_error_body, gateway_headers
from mockserver.render.bedrock_errors import bedrock_error, stream_exception
from mockserver.render.gemini_errors import google_error
from mockserver.render.ndjson import go_json
from mockserver.render.ollama_errors import ollama_words
from mockserver.values import Json, value_class
from mockserver.wire.json_body import encode_json_pretty

__all__ = [
    "ANTHROPIC",
    "AZURE",
    "BEDROCK",
    "GOOGLE",
    "OLLAMA",
    "OPENAI",
    "OPENAI_SERVICE_HEADERS",
    "SHAPES",
    "AnthropicShape",
    "AzureShape",
    "BedrockShape",
    "ErrorAnswer",
    "GoogleShape",
    "OllamaShape",
    "OpenAIShape",
    "Shape",
    "Standing",
    "duration",
    "error_answer",
]


@value_class
class Standing:
    """Where a namespace's rate limits stand, at ``at`` on its clock (the engine's
    arithmetic): what each family's rate-limit headers say."""

    requests_limit: int
    requests_remaining: int
    #: Seconds until the bucket is full again.
    requests_reset: float
    tokens_limit: int
    tokens_remaining: int
    tokens_reset: float
    at: float


@value_class
class ErrorAnswer:
    """An error as a family's API answers it."""

    status: int
    body: Json
    headers: dict[str, str]
    #: The body's bytes, as that API writes them.
    content: bytes


class Shape:
    """How one family writes what surrounds its answers (see the module's docstring)."""

    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        """The request id of a namespace's ``number``-th turn (or journal entry: answers that
        are not turns are numbered after their entry)."""
        raise NotImplementedError

    def request_ids(self, seed: int, namespace: str) -> Callable[[int], str]:
        """:meth:`request_id` of a namespace's turns by number (a recipe's, made once: each
        replay is numbered anew)."""
        return partial(self.request_id, seed, namespace, journal=False)

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        """The headers the API puts on an answer: its request id, the service's own headers
        and the rate-limit ones (``limits``, from :meth:`rate_headers`)."""
        raise NotImplementedError

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        """The rate-limit headers for ``standing``."""
        raise NotImplementedError

    def answer_headers_at(
        self, request_id: str, *, processing_ms: int, standing: Standing
    ) -> dict[str, str]:
        """:meth:`answer_headers` with the rate-limit headers of ``standing`` (a shape may
        write them in one go: a replayed answer's headers are made per request)."""
        return self.answer_headers(
            request_id, processing_ms=processing_ms, limits=self.rate_headers(standing)
        )

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        """``error`` as the API answers it (``request_id``: the answer's, if it has one)."""
        raise NotImplementedError

    def unknown_route(self, route: str, *, status: int) -> APIError:
        """The error for ``METHOD /path`` that no route serves (404) or not with that method
        (405)."""
        raise NotImplementedError


#: ``0ms`` to ``1000ms`` (a reset under a second, rounded), written once.
_MILLISECONDS = tuple(f"{n}ms" for n in range(1001))


def duration(seconds: float) -> str:
    """OpenAI's reset format: ``120ms``, ``1.5s``, ``6m0s``, ``1h2m3s``."""
    if seconds < 1:  # (``max`` spelt as a comparison: this runs for every answer's headers)
        milliseconds = round(seconds * 1000)
        return _MILLISECONDS[milliseconds] if milliseconds > 0 else "0ms"
    hours, rest = divmod(seconds, 3600) if seconds >= 3600 else (0.0, seconds)  # (the same)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{text}"
    return f"{int(minutes)}m{text}" if minutes else text


#: Headers the OpenAI API puts on every answer, besides its request id and processing time.
OPENAI_SERVICE_HEADERS: Final = {
    "openai-version": "2020-10-01",
    "openai-organization": "mockserver",
}


class OpenAIShape(Shape):
    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        if journal:
            return ids.numbered_hex_id("req_", seed, namespace, "journal", number=number)
        return ids.numbered_hex_id("req_", seed, namespace, number=number)

    def request_ids(self, seed: int, namespace: str) -> Callable[[int], str]:
        return ids.hex_numbering("req_", seed, namespace)

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return {
            "x-request-id": request_id,
            "openai-processing-ms": str(processing_ms),
            **OPENAI_SERVICE_HEADERS,
            **limits,
        }

    def answer_headers_at(
        self, request_id: str, *, processing_ms: int, standing: Standing
    ) -> dict[str, str]:
        # answer_headers(…, limits=rate_headers(standing)) as one dict (the same, in order)
        return {
            "x-request-id": request_id,
            "openai-processing-ms": str(processing_ms),
            "openai-version": OPENAI_SERVICE_HEADERS["openai-version"],
            "openai-organization": OPENAI_SERVICE_HEADERS["openai-organization"],
            "x-ratelimit-limit-requests": str(standing.requests_limit),
            "x-ratelimit-limit-tokens": str(standing.tokens_limit),
            "x-ratelimit-remaining-requests": str(standing.requests_remaining),
            "x-ratelimit-remaining-tokens": str(standing.tokens_remaining),
            "x-ratelimit-reset-requests": duration(standing.requests_reset),
            "x-ratelimit-reset-tokens": duration(standing.tokens_reset),
        }

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        return {
            "x-ratelimit-limit-requests": str(standing.requests_limit),
            "x-ratelimit-limit-tokens": str(standing.tokens_limit),
            "x-ratelimit-remaining-requests": str(standing.requests_remaining),
            "x-ratelimit-remaining-tokens": str(standing.tokens_remaining),
            "x-ratelimit-reset-requests": duration(standing.requests_reset),
            "x-ratelimit-reset-tokens": duration(standing.tokens_reset),
        }

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        headers = dict(error.headers)
        if request_id:
            headers.setdefault("x-request-id", request_id)
            headers.setdefault("openai-processing-ms", "12")
            headers.update(OPENAI_SERVICE_HEADERS)
        body = error.body()
        return ErrorAnswer(error.status, body, headers, encode_json_pretty(body))

    def unknown_route(self, route: str, *, status: int) -> APIError:
        if status == 405:
            return MethodNotAllowedError(f"Method not allowed: {route}.", code="method_not_allowed")
        return NotFoundError(f"Invalid URL ({route})")


class AnthropicShape(Shape):
    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        if journal:
            return ids.numbered_opaque_id(
                "req_011C", seed, namespace, "journal", number=number, length=20
            )
        return ids.numbered_opaque_id("req_011C", seed, namespace, number=number, length=20)

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return {
            "request-id": request_id,
            "anthropic-organization-id": ANTHROPIC_ORGANIZATION,
            **limits,
        }

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        requests = (
            str(standing.requests_limit),
            str(standing.requests_remaining),
            ids.rfc3339(standing.at + standing.requests_reset),
        )
        tokens = (
            str(standing.tokens_limit),
            str(standing.tokens_remaining),
            ids.rfc3339(standing.at + standing.tokens_reset),
        )
        headers: dict[str, str] = {}
        # One token budget stands for the API's three (input, output and their sum).
        for name, (limit, remaining, reset) in (
            ("requests", requests),
            ("tokens", tokens),
            ("input-tokens", tokens),
            ("output-tokens", tokens),
        ):
            headers[f"anthropic-ratelimit-{name}-limit"] = limit
            headers[f"anthropic-ratelimit-{name}-remaining"] = remaining
            headers[f"anthropic-ratelimit-{name}-reset"] = reset
        return headers

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        status, message = anthropic_words(error)
        body: Json = {
            "type": "error",
            "error": {"type": anthropic_type(error, status), "message": message},
            "request_id": request_id,
        }
        headers = {
            k: v
            for k, v in error.headers.items()
            if k != "retry-after-ms" and not k.startswith("x-ratelimit-")
        }
        if request_id:
            headers.setdefault("request-id", request_id)
        retry = status in (408, 409, 429) or status >= 500
        headers.setdefault("x-should-retry", "true" if retry else "false")
        return ErrorAnswer(status, body, headers, orjson.dumps(body))

    def stream_error(self, error: APIError) -> Json:
        """The payload of an ``error`` event that ends a stream after its 200."""
        status, message = anthropic_words(error)
        return {
            "type": "error",
            "error": {"type": anthropic_type(error, status), "message": message},
        }

    def unknown_route(self, route: str, *, status: int) -> APIError:
        if status == 405:
            return MethodNotAllowedError("Method Not Allowed")
        return NotFoundError("Not Found")


class GoogleShape(Shape):
    """Google's APIs (Gemini): no request id and no rate-limit headers on an answer, only the
    time it took; an error is ``{"error": {code, message, status, details}}``
    (``render/gemini_errors.py``)."""

    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        return OPENAI.request_id(seed, namespace, number, journal=journal)

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return {"server-timing": f"gfet4t7; dur={processing_ms}"}

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        return {}

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        status, body, headers = google_error(error)
        return ErrorAnswer(status, body, headers, encode_json_pretty(body))

    def unknown_route(self, route: str, *, status: int) -> APIError:
        return OPENAI.unknown_route(route, status=status)


class AzureShape(OpenAIShape):
    """Azure OpenAI: OpenAI's API behind Azure's gateway (``render/azure.py``), which names a
    request by UUIDs, says its region, sends only the rate limits' ``remaining`` and ``limit``
    and writes every body compact."""

    # its own answer_headers and rate_headers, together (not OpenAI's in one go), and its own
    # request ids
    answer_headers_at = Shape.answer_headers_at
    request_ids = Shape.request_ids

    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        return ids.uuid_id(super().request_id(seed, namespace, number, journal=journal))

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return gateway_headers(request_id, limits)

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        headers = super().rate_headers(standing)
        return {k: v for k, v in headers.items() if not k.startswith("x-ratelimit-reset-")}

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        headers = {k: v for k, v in error.headers.items() if not k.startswith("x-ratelimit-reset-")}
        if request_id:
            headers = {**gateway_headers(request_id, {}), **headers}
        body = azure_error_body(error)
        return ErrorAnswer(error.status, body, headers, orjson.dumps(body))

    def unknown_route(self, route: str, *, status: int) -> APIError:
        if status == 405:
            return super().unknown_route(route, status=status)
        return GatewayError("Resource not found", status=404)


class BedrockShape(Shape):
    """Bedrock Runtime (AWS): a UUID request id, no rate-limit headers; an error is its
    exception's name in ``x-amzn-errortype`` and ``{"message": …}``
    (``render/bedrock_errors.py``), a stream's failure an exception message of the event
    stream."""

    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        parts = ("journal",) if journal else ()
        raw = ids.numbered_hex_id("", seed, namespace, "aws", *parts, number=number)
        return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-8{raw[17:20]}-{raw[20:32]}"

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return {"x-amzn-requestid": request_id}

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        return {}

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        status, body, headers = bedrock_error(error)
        if request_id:
            headers.setdefault("x-amzn-requestid", request_id)
        return ErrorAnswer(status, body, headers, orjson.dumps(body))

    def stream_error(self, error: APIError) -> tuple[str, Json]:
        """The stream member and payload of the exception that ends a stream after its 200."""
        return stream_exception(error)

    def unknown_route(self, route: str, *, status: int) -> APIError:
        return NotFoundError(f"Unable to find operation for {route}", status=status)


class OllamaShape(Shape):
    """Ollama's server: no request id and no headers of its own on an answer; an error is
    ``{"error": "…"}`` (``render/ollama_errors.py``), a mid-stream one the same object as the
    stream's last line."""

    def request_id(self, seed: int, namespace: str, number: int, *, journal: bool) -> str:
        return OPENAI.request_id(seed, namespace, number, journal=journal)

    def answer_headers(
        self, request_id: str, *, processing_ms: int, limits: Mapping[str, str]
    ) -> dict[str, str]:
        return {}

    def rate_headers(self, standing: Standing) -> dict[str, str]:
        return {}

    def error(self, error: APIError, *, request_id: str | None) -> ErrorAnswer:
        status, message = ollama_words(error)
        body: Json = {"error": message}
        headers = {
            k: v
            for k, v in error.headers.items()
            if k != "retry-after-ms" and not k.startswith("x-ratelimit-")
        }
        return ErrorAnswer(status, body, headers, go_json(body))

    def stream_error(self, error: APIError) -> Json:
        """The line that ends a stream a scripted error breaks, after its 200."""
        return {"error": ollama_words(error)[1]}

    def unknown_route(self, route: str, *, status: int) -> APIError:
        # gin answers any path it does not route, whatever the method, the same way
        return NotFoundError("404 page not found")


OPENAI: Final = OpenAIShape()
ANTHROPIC: Final = AnthropicShape()
GOOGLE: Final = GoogleShape()
AZURE: Final = AzureShape()
BEDROCK: Final = BedrockShape()
OLLAMA: Final = OllamaShape()

#: The one dispatch from a family's error shape to how its answers are framed.
SHAPES: Final[dict[str, Shape]] = {
    "openai": OPENAI,
    "anthropic": ANTHROPIC,
    "google": GOOGLE,
    "azure": AZURE,
    "bedrock": BEDROCK,
    "ollama": OLLAMA,
}


def error_answer(error: APIError, shape: str, *, request_id: str | None = None) -> ErrorAnswer:
    """``error`` as a family whose errors are written the ``shape`` way answers it."""
    return SHAPES[shape].error(error, request_id=request_id)
