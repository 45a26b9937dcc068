"""The Responses API's WebSocket mode: the client events a socket accepts.

A ``response.create`` event is the body of ``POST /v1/responses`` with two envelope fields:
its ``type`` and the WebSocket-only ``stream_id`` (the lane it is answered on). The stream is
implicit (``stream: true`` may be sent, as the official SDKs' examples and the Codex CLI do;
``stream: false`` cannot be honoured, so it is refused) and ``background`` is not supported.
A ``response.steer`` event queues user input for the continuation of a response on the
socket. What these functions accept is checked further by the same validation as the HTTP
endpoint's (:func:`mockserver.wire.plain.check_responses_body`).
"""

from __future__ import annotations

import re
from typing import Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.values import Json, value_class
from mockserver.wire.json_body import parse_json_body

__all__ = ["CLIENT_EVENTS", "Create", "Steer", "client_event"]

#: The client events a Responses socket accepts (the API reference's ``ResponsesClientEvent``).
CLIENT_EVENTS: Final = ("response.create", "response.steer")
#: ``stream_id``: 1 to 256 characters of ``[A-Za-z0-9_.-]`` (the API reference's pattern).
_STREAM_ID: Final = re.compile(r"[A-Za-z0-9_.-]{1,256}")
#: What a steering message may hold (``ResponseSteerInput``: user messages only).
_STEER_MESSAGE_KEYS: Final = frozenset({"type", "role", "content"})
_STEER_PARTS: Final = frozenset({"input_text", "input_image", "input_file"})


@value_class
class Create:
    """A ``response.create`` event: the create body it stands for (``stream: true``, the
    envelope fields left out) and the lane it is answered on."""

    body: dict[str, Any]
    stream_id: str | None


@value_class
class Steer:
    """A ``response.steer`` event: input queued for the continuation of a response."""

    previous_response_id: str
    input: Any


class EventError(InvalidRequestError):
    """A client event refused before it is a request: answered by an ``error`` event (on the
    lane it names, if it names a valid one)."""

    def __init__(self, message: str, *, param: str | None, stream_id: str | None = None) -> None:
        super().__init__(message, param=param, code="invalid_value" if param else None)
        self.stream_id = stream_id


def client_event(raw: bytes) -> Create | Steer:
    """The client event in one text message, or the :class:`EventError` answering it."""
    event = parse_json_body(raw)
    kind = event.get("type")
    if kind == "response.create":
        return _create(event)
    if kind == "response.steer":
        return _steer(event)
    allowed = " and ".join(f"'{name}'" for name in CLIENT_EVENTS)
    shown = kind if isinstance(kind, str) else _shown(kind)
    raise EventError(f"Invalid value: '{shown}'. Supported values are: {allowed}.", param="type")


def _shown(value: object) -> str:
    return "null" if value is None else str(value)


def _create(event: Json) -> Create:
    stream_id = event.get("stream_id")
    if stream_id is not None and not (
        isinstance(stream_id, str) and _STREAM_ID.fullmatch(stream_id)
    ):
        raise EventError(
            f"Invalid 'stream_id': '{_shown(stream_id)}'. Expected 1 to 256 letters, digits, "
            "'_', '.' or '-'.",
            param="stream_id",
        )
    if event.get("background") is True:
        raise EventError(
            "'background' is not supported over a WebSocket connection: responses are "
            "streamed on the socket.",
            param="background",
            stream_id=stream_id,
        )
    if "stream" in event and event["stream"] is not True:
        raise EventError(
            "'stream' is implicit over a WebSocket connection: every response is streamed "
            "on the socket. Leave it out.",
            param="stream",
            stream_id=stream_id,
        )
    body = {k: v for k, v in event.items() if k not in ("type", "stream_id")}
    body["stream"] = True
    return Create(body, stream_id)


def _steer(event: Json) -> Steer:
    extra = sorted(set(event) - {"type", "previous_response_id", "input"})
    if extra:
        raise EventError(
            f"Unknown parameter: '{extra[0]}'. 'response.steer' accepts only 'type', "
            "'previous_response_id' and 'input'.",
            param=extra[0],
        )
    previous = event.get("previous_response_id")
    if not isinstance(previous, str) or not previous:
        raise EventError(
            "Missing required parameter: 'previous_response_id'.", param="previous_response_id"
        )
    given = event.get("input")
    problem = _steer_input_problem(given)
    if problem is not None:
        raise EventError(problem, param="input")
    return Steer(previous, given)


def _steer_input_problem(given: object) -> str | None:
    """Why ``given`` is not steering input (``None``: it is)."""
    if isinstance(given, str):
        return None if given else "Invalid 'input': empty string."
    if not isinstance(given, list) or not given:
        return "Invalid 'input': expected a string or a non-empty array of user messages."
    for index, item in enumerate(given):
        if not (
            isinstance(item, dict)
            and item.get("role") == "user"
            and item.get("type", "message") == "message"
            and set(item) <= _STEER_MESSAGE_KEYS
            and _steer_content_ok(item.get("content"))
        ):
            return (
                f"Invalid 'input[{index}]': steering accepts only user messages with text, "
                "image or file content."
            )
    return None


def _steer_content_ok(content: object) -> bool:
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") in _STEER_PARTS for part in content
    )
