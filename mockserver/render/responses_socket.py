"""The Responses API's WebSocket mode: its server events, as the text messages a socket sends.

A response's events are the stream's own (``render/responses_stream.py``): each message is the
JSON an SSE frame of the same event carries, byte for byte, with the ``stream_id`` of the
request's lane added when it named one. Only a socket sends the rest: the ``error`` event of a
refused request or of a stream cut by an error (its details under ``error``, as
``ResponseWsError`` has them), and the steering events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from mockserver.errors import APIError
from mockserver.render import sse
from mockserver.values import Json

__all__ = [
    "error_event",
    "message",
    "steer_accepted",
    "steer_failed",
    "steer_pending",
    "stream_error",
]


def message(frame: bytes, stream_id: str | None) -> bytes:
    """The message sending the event an SSE ``frame`` sends (on lane ``stream_id``)."""
    data = sse.payload(frame)
    if stream_id is None:
        return data
    return data[:-1] + b',"stream_id":' + orjson.dumps(stream_id) + b"}"


def _laned(event: Json, stream_id: str | None) -> bytes:
    if stream_id is not None:
        event["stream_id"] = stream_id
    return orjson.dumps(event)


def _details(error: APIError, *, type_: str | None = None) -> Json:
    """``ErrorPayload``: type, code, message, param (and the headers that came with it)."""
    details: Json = {
        "type": type_ or error.type,
        "code": error.code,
        "message": error.message,
        "param": error.param,
    }
    details.update(error.extra)
    if error.headers:
        details["headers"] = dict(error.headers)
    return details


def error_event(error: APIError, *, stream_id: str | None) -> bytes:
    """A refused request (or client event): ``error`` with the HTTP status it would have had."""
    return _laned({"type": "error", "status": error.status, "error": _details(error)}, stream_id)


def stream_error(event: Mapping[str, Any], error: APIError, *, stream_id: str | None) -> bytes:
    """The ``error`` event of a stream cut by a scripted error (``event``: the SSE stream's, at
    the same ``sequence_number``)."""
    details = _details(error)
    details["code"] = event.get("code")
    laned: Json = {
        "type": "error",
        "sequence_number": event["sequence_number"],
        "error": details,
    }
    return _laned(laned, stream_id)


def _steer(steer_id: str | None, target: str) -> Json:
    steer: Json = {"id": steer_id} if steer_id is not None else {}
    steer["previous_response_id"] = target
    return steer


def steer_accepted(number: int, steer_id: str, target: str, *, stream_id: str | None) -> bytes:
    event = {
        "type": "response.steer.accepted",
        "sequence_number": number,
        "steer": _steer(steer_id, target),
    }
    return _laned(event, stream_id)


def steer_pending(
    number: int,
    steer_id: str,
    target: str,
    *,
    required: list[Json],
    stream_id: str | None,
) -> bytes:
    """Accepted input still queued: the response stopped for the client's tool results."""
    event = {
        "type": "response.steer.pending",
        "sequence_number": number,
        "reason": "waiting_for_required_input",
        "required_input": required,
        "steer": _steer(steer_id, target),
    }
    return _laned(event, stream_id)


def steer_failed(
    number: int,
    *,
    code: str,
    message: str,
    steer_id: str | None,
    target: str,
    given: Any,
    stream_id: str | None,
) -> bytes:
    """Input returned uncommitted (``steer_id``: ``None`` if it was refused before one was
    given to it)."""
    steer = {"input": given, **_steer(steer_id, target)}
    event = {
        "type": "response.steer.failed",
        "sequence_number": number,
        "error": {"type": "invalid_request_error", "code": code, "message": message},
        "steer": steer,
    }
    return _laned(event, stream_id)
