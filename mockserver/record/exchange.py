"""One recorded HTTP exchange with an upstream (any family's API): what recording captures and
what the importers (vcr cassettes, HAR files) produce, before it is written as a scenario."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from mockserver.values import value_class

__all__ = ["Event", "Exchange", "error_message"]


@value_class
class Event:
    """One server-sent event, as it arrived."""

    #: Milliseconds since the request was sent (0 where the source does not say).
    offset_ms: float
    #: The event's ``data:`` payload: JSON text, or ``[DONE]``.
    data: str
    #: The ``event:`` field, if the stream names its events (Responses streams do).
    event: str | None = None


@value_class
class Exchange:
    """A request and the upstream's answer: a JSON body, or a stream's events."""

    method: str
    #: The request path with no host or query, e.g. ``/v1/chat/completions``.
    path: str
    status: int
    #: The request's JSON body (``None`` for a request without one).
    request: Any = None
    #: The query string, without ``?`` (``""``: none).
    query: str = ""
    #: Request headers worth keeping (lower-case names); never credentials.
    request_headers: Mapping[str, str] = field(default_factory=dict)
    #: Response headers that matter to a client (lower-case names): content type,
    #: ``retry-after``, ``x-ratelimit-*``, ``x-request-id``, ``openai-*``; never cookies.
    response_headers: Mapping[str, str] = field(default_factory=dict)
    #: The JSON answer of a non-streamed exchange (``None`` for a stream).
    body: Any = None
    #: A stream's events in order (``None`` for a non-streamed answer).
    events: tuple[Event, ...] | None = None
    #: ``False`` when the stream ended before its last event (the upstream cut it).
    complete: bool = True
    #: How long the whole answer took, in milliseconds.
    elapsed_ms: float = 0.0
    #: That answer's text exactly as it arrived, when known (an exact replay sends it as is).
    body_text: str | None = None
    #: A stream whose lines ended in CRLF (the Gemini API's do): an exact replay ends them so.
    crlf: bool = False

    @property
    def stream(self) -> bool:
        return self.events is not None


def error_message(body: Any) -> str | None:
    """The ``error.message`` of an API's error body (parsed, or its JSON text), if it has one."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return None
    error = body.get("error") if isinstance(body, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) else None
