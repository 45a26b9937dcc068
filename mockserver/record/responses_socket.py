"""A request made over a Responses socket, captured as the exchange it stands for.

Each ``response.create`` forwarded to an upstream socket is written as the request
``POST /v1/responses`` with ``stream: true`` would be: its body, and the server events of its
response as that stream's events, in order, with the time each arrived. So the cassette writes
it as it writes an HTTP exchange (exact: the events replayed as they came, framed as messages
on a socket or as SSE over HTTP; distilled: the neutral reply, which answers either), and a
recording made over HTTP answers a socket too.

What is a socket's only is translated on the way in: the lane's ``stream_id`` is left out of
each event (a replay adds its own lane's); an ``error`` event that refused the request is the
HTTP error answer it stands for (its ``status``, its details as the body's ``error``, their
``headers`` the answer's); an ``error`` event inside a stream is the SSE stream's ``error``
event at the same ``sequence_number``; steering events are not the request's and are left out.
Pure: the socket's proxy feeds it messages and times; nothing here reads a clock or a socket.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from mockserver.record.exchange import Event, Exchange
from mockserver.record.redact import kept_request, kept_response
from mockserver.values import Json

__all__ = ["SocketCapture"]

#: The events that end a response on a socket (an ``error`` without a ``sequence_number``
#: ends a request that never became one).
TERMINAL: Final = frozenset({"response.completed", "response.failed", "response.incomplete"})
#: The content type of the stream a socket's response stands for.
_STREAM: Final = "text/event-stream; charset=utf-8"


@dataclass
class SocketCapture:
    """The answer to one ``response.create`` on a lane, as its messages arrive."""

    #: The request body (``POST /v1/responses``'s, ``stream: true``).
    request: Json
    query: str = ""
    #: The handshake's request headers (only the ones worth keeping are written).
    request_headers: Iterable[tuple[str, str]] = ()
    #: The handshake's answer's headers (request id, rate limits, ``openai-*``).
    response_headers: Iterable[tuple[str, str]] = ()
    status: int = 200
    #: Set once the answer is whole: a terminal event, or the ``error`` that refused it.
    done: bool = False
    _error: Json | None = None
    _error_headers: dict[str, str] = field(default_factory=dict)
    _events: list[Event] = field(default_factory=list)

    def receive(self, message: str, *, offset_ms: float) -> None:
        """Take one server message of the request's lane (``offset_ms``: since it was sent)."""
        try:
            event = json.loads(message)
        except ValueError:  # not JSON: kept as it came, as an SSE stream keeps a bad event
            self._events.append(Event(round(offset_ms, 1), message))
            return
        if not isinstance(event, dict) or self.done:
            return
        kind = str(event.get("type", ""))
        if kind.startswith("response.steer."):
            return
        if kind == "error" and "sequence_number" not in event:
            self._refused(event)
            return
        data = _stream_error(event) if kind == "error" else _unlaned(message, event)
        self._events.append(Event(round(offset_ms, 1), data, kind or None))
        self.done = kind in TERMINAL

    def _refused(self, event: Json) -> None:
        details = event.get("error")
        details = dict(details) if isinstance(details, Mapping) else {}
        headers = details.pop("headers", None)
        if isinstance(headers, Mapping):
            self._error_headers = {str(k).lower(): str(v) for k, v in headers.items()}
        status = event.get("status")
        self.status = status if isinstance(status, int) and status >= 400 else 500
        self._error = {"error": details}
        self.done = True

    def finish(self, *, complete: bool, elapsed_ms: float) -> Exchange:
        """The exchange captured (``complete``: ``False`` if the socket closed mid-answer)."""
        common: dict[str, Any] = {
            "method": "POST",
            "path": "/v1/responses",
            "request": self.request,
            "query": self.query,
            "request_headers": kept_request(self.request_headers),
            "elapsed_ms": round(elapsed_ms, 1),
        }
        kept = kept_response(self.response_headers)
        if self._error is not None:
            text = _compact(self._error)
            headers = {**kept, "content-type": "application/json", **self._error_headers}
            return Exchange(
                status=self.status,
                response_headers=headers,
                body=self._error,
                body_text=text,
                **common,
            )
        return Exchange(
            status=200,
            response_headers={**kept, "content-type": _STREAM},
            events=tuple(self._events),
            complete=complete and self.done,
            **common,
        )


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _unlaned(message: str, event: Json) -> str:
    """The event's JSON without its lane: the message's own text where the lane was appended
    last (as mockserver sends it), else the event written again without it."""
    if "stream_id" not in event:
        return message
    suffix = ',"stream_id":' + _compact(event["stream_id"]) + "}"
    if message.endswith(suffix):
        return message[: -len(suffix)] + "}"
    return _compact({k: v for k, v in event.items() if k != "stream_id"})


def _stream_error(event: Json) -> str:
    """A socket's in-stream ``error`` event as the SSE stream's (its details at the top)."""
    details = event.get("error")
    details = details if isinstance(details, Mapping) else {}
    return _compact(
        {
            "type": "error",
            "sequence_number": event.get("sequence_number"),
            "code": details.get("code") or details.get("type"),
            "message": details.get("message"),
            "param": details.get("param"),
        }
    )
