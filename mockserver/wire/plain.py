"""Requests simple enough to need no validator.

Most requests a test sends are a model and a few text messages (chat, Anthropic Messages) or a
text input (Responses). Such a request is accepted by the full validation whatever its texts
(``tests/wire/test_plain_requests.py`` checks that claim against it), so
:func:`check_chat_body` and :func:`check_messages_body` let it through without importing the
wire models, and :func:`check_responses_body` without running them (a tenth of a new Responses
request's time); anything else is validated in full, with the API's exact 400s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "check_chat_body",
    "check_messages_body",
    "check_responses_body",
    "is_plain_chat_request",
    "is_plain_messages_request",
    "is_plain_responses_request",
]


#: Roles whose message is complete with a string ``content`` alone.
_PLAIN_ROLES = frozenset({"system", "developer", "user", "assistant"})
_PLAIN_MESSAGE_KEYS = frozenset({"role", "content"})


def is_plain_chat_request(data: Mapping[str, Any]) -> bool:
    """Is ``data`` of the simplest shape: a non-empty ``model`` string, a non-empty list of
    ``{"role", "content"}`` text messages (system, developer, user or assistant), and at most a
    ``stream`` boolean besides? The schema and the cross-field checks accept every such request
    (``tests/wire/test_plain_requests.py`` checks that against them), so it needs no
    validator; any other shape takes the full validation.
    """
    if len(data) > 2 and (len(data) > 3 or type(data.get("stream")) is not bool):
        return False
    model = data.get("model")
    messages = data.get("messages")
    if type(model) is not str or not model or type(messages) is not list or not messages:
        return False
    for message in messages:
        if (
            type(message) is not dict
            or message.keys() != _PLAIN_MESSAGE_KEYS
            or type(message["content"]) is not str
            or type(message["role"]) is not str
            or message["role"] not in _PLAIN_ROLES
        ):
            return False
    return True


def check_chat_body(data: Mapping[str, Any]) -> None:
    """Raise the API's 400 for a request body it would reject. A plain request passes without
    the wire models: importing them, and building the request schema's validator, is most of
    a server's first answer (~20 ms, ~2 MiB) and of no use to it."""
    if not is_plain_chat_request(data):
        from mockserver.wire.chat import parse_chat_request

        parse_chat_request(data)


#: The smallest ``max_output_tokens`` the API takes.
_MIN_OUTPUT_TOKENS = 16


def is_plain_responses_request(data: Mapping[str, Any]) -> bool:
    """Is ``data`` a Responses create of the simplest shape: a non-empty ``model`` string, a
    string ``input``, and at most a ``stream`` boolean and a ``max_output_tokens`` integer
    (16 or more) besides? The schema and the cross-field checks accept every such request
    (``tests/wire/test_plain_requests.py`` checks that against them)."""
    model = data.get("model")
    if type(model) is not str or not model or type(data.get("input")) is not str:
        return False
    for key, value in data.items():
        if key == "stream":
            if type(value) is not bool:
                return False
        elif key == "max_output_tokens":
            if type(value) is not int or value < _MIN_OUTPUT_TOKENS:
                return False
        elif key != "model" and key != "input":
            return False
    return True


def check_responses_body(data: Mapping[str, Any]) -> None:
    """Raise the API's 400 for a Responses create body it would reject; a plain one passes
    without the wire models."""
    if not is_plain_responses_request(data):
        from mockserver.wire.responses import parse_responses_request

        parse_responses_request(data)


_MESSAGES_KEYS = frozenset({"model", "max_tokens", "messages", "stream", "system"})
_MESSAGES_ROLES = frozenset({"user", "assistant"})


def is_plain_messages_request(data: Mapping[str, Any]) -> bool:
    """Is ``data`` an Anthropic Messages create of the simplest shape: a non-empty ``model``
    string, a ``max_tokens`` integer of 1 or more, a non-empty list of ``{"role", "content"}``
    messages (user or assistant) with non-empty string content, and at most a ``stream``
    boolean and a ``system`` string besides? The schema and the conversation's checks accept
    every such request (``tests/wire/test_plain_requests.py`` checks that against them)."""
    if not data.keys() <= _MESSAGES_KEYS:
        return False
    model, max_tokens, messages = data.get("model"), data.get("max_tokens"), data.get("messages")
    if type(model) is not str or not model or type(max_tokens) is not int or max_tokens < 1:
        return False
    if "stream" in data and type(data["stream"]) is not bool:
        return False
    if "system" in data and type(data["system"]) is not str:
        return False
    if type(messages) is not list or not messages:
        return False
    for message in messages:
        if (
            type(message) is not dict
            or message.keys() != _PLAIN_MESSAGE_KEYS
            or type(message["content"]) is not str
            or not message["content"]
            or type(message["role"]) is not str
            or message["role"] not in _MESSAGES_ROLES
        ):
            return False
    return True


def check_messages_body(data: Mapping[str, Any]) -> None:
    """Raise the API's 400 for a Messages create body it would reject; a plain one passes
    without the wire models."""
    if not is_plain_messages_request(data):
        from mockserver.wire.messages import parse_messages_request

        parse_messages_request(data)
