"""What every API endpoint shares: namespaces, body reading, responses, journaling of errors."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mockserver import ids, sse
from mockserver.engine import Engine
from mockserver.errors import (
    APIError,
    InvalidRequestError,
    PayloadTooLargeError,
    UnsupportedMediaTypeError,
)
from mockserver.store import JournalEntry
from mockserver.wire.validation import parse_json_body

__all__ = [
    "SSEResponse",
    "api_endpoint",
    "engine_of",
    "error_response",
    "json_response",
    "namespace_of",
    "read_json",
]

Handler = Callable[[Request], Awaitable[Response]]
SESSION_HEADER = "x-mockserver-session"
DEFAULT_NAMESPACE = "default"


def engine_of(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def namespace_of(request: Request) -> str:
    """The explicit session header, else the bearer token, else the shared default namespace."""
    explicit = request.headers.get(SESSION_HEADER)
    if explicit:
        return explicit
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return DEFAULT_NAMESPACE


def json_response(
    body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        sse.encode_json_pretty(body),
        status_code=status,
        headers=dict(headers or {}),
        media_type="application/json",
    )


def error_response(error: APIError, *, request_id: str | None = None) -> Response:
    headers = dict(error.headers)
    if request_id:
        headers.setdefault("x-request-id", request_id)
    return json_response(error.body(), status=error.status, headers=headers)


class SSEResponse(Response):
    """A whole event stream written in one body message (one socket write, chunked encoding).

    Starlette's ``StreamingResponse`` writes once per event; an unpaced stream has no reason to.
    No ``content-length`` is sent, so the framing on the wire is chunked, like the real API's.
    """

    media_type = "text/event-stream; charset=utf-8"

    def __init__(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> None:
        self.body = body
        self.status_code = 200
        self.background = None
        self._extra = {k.lower(): v for k, v in (headers or {}).items()}
        self.raw_headers = [
            (b"content-type", self.media_type.encode()),
            (b"cache-control", b"no-cache"),
            *((k.encode(), v.encode()) for k, v in self._extra.items()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
        await send(start)
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, with the real API's answers for oversize and non-JSON bodies."""
    limit = engine_of(request).settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    content_type = request.headers.get("content-type", "")
    media = content_type.split(";")[0].strip().lower()
    if media and "json" not in media:
        raise UnsupportedMediaTypeError(
            f"Unsupported content type: '{content_type}'. This API method only accepts "
            f"'application/json' requests, but you specified the header 'Content-Type: "
            f"{content_type}'. Please try again with a supported content type.",
        )
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > limit:
            raise _too_large(limit)
    body = parse_json_body(bytes(chunks))
    request.state.json_body = body
    return body


def _too_large(limit: int) -> APIError:
    return PayloadTooLargeError(
        f"Request body too large. The maximum request size is {limit} bytes.",
        code="request_too_large",
    )


def api_endpoint(handler: Handler) -> Handler:
    """Turn :class:`APIError` into OpenAI's error body, and journal the failed request."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except APIError as error:
            engine = engine_of(request)
            namespace = namespace_of(request)
            request_id = ids.hex_id("req_", "error", namespace, request.url.path, error.message)
            engine.record(
                namespace,
                JournalEntry(
                    seq=0,
                    method=request.method,
                    path=request.url.path,
                    status=error.status,
                    request=getattr(request.state, "json_body", None),
                    response=error.body(),
                    rule=error.rule,
                    miss=error.miss,
                    summary=f"{error.type}: {error.message}",
                ),
            )
            return error_response(error, request_id=request_id)

    return endpoint


def query_int(request: Request, name: str, *, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRequestError(
            f"Invalid type for '{name}': expected an integer, but got a string instead.",
            param=name,
            code="invalid_type",
        ) from None
    if not low <= value <= high:
        raise InvalidRequestError(
            f"Invalid '{name}': integer {'below minimum' if value < low else 'above maximum'} "
            f"value. Expected a value {'>=' if value < low else '<='} "
            f"{low if value < low else high}, but got {value} instead.",
            param=name,
            code="integer_below_min_value" if value < low else "integer_above_max_value",
        )
    return value


def query_order(request: Request) -> Any:
    order = request.query_params.get("order", "asc")
    if order not in ("asc", "desc"):
        raise InvalidRequestError(
            f"Invalid value: '{order}'. Supported values are: 'asc' and 'desc'.",
            param="order",
            code="invalid_value",
        )
    return order
