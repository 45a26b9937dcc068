"""The plain-request shortcut: every request it lets through, the full validation accepts.

``check_chat_body`` skips building the request schema's validator for the simplest requests
(a model, text messages, maybe ``stream``), and ``check_responses_body`` skips running it for
the simplest Responses creates (a model, a text input, maybe ``stream`` and
``max_output_tokens``), as ``check_messages_body`` does for the simplest Anthropic Messages
creates; that is only sound if the schema and the cross-field checks accept each
of them, which these tests check against the real thing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockserver.errors import InvalidRequestError
from mockserver.wire.chat import parse_chat_request
from mockserver.wire.messages import parse_messages_request
from mockserver.wire.plain import (
    check_chat_body,
    check_messages_body,
    check_responses_body,
    is_plain_chat_request,
    is_plain_messages_request,
    is_plain_responses_request,
)
from mockserver.wire.responses import parse_responses_request

ROLES = ("system", "developer", "user", "assistant")

plain_messages = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(ROLES), "content": st.text()}),
    min_size=1,
    max_size=4,
)
plain_requests = st.builds(
    lambda model, messages, stream: {
        "model": model,
        "messages": messages,
        **({} if stream is None else {"stream": stream}),
    },
    st.text(min_size=1),
    plain_messages,
    st.none() | st.booleans(),
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def near_plain_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A plain request with one thing changed: a key added, removed or given another value,
    at the top or in a message."""
    request: dict[str, Any] = draw(plain_requests)
    keys = st.sampled_from(["model", "messages", "stream", "n", "tools", "name", "content", "role"])
    target: dict[str, Any] = request
    if draw(st.booleans()):
        target = draw(st.sampled_from(request["messages"]))
    action = draw(st.sampled_from(["set", "drop"]))
    key = draw(keys)
    if action == "drop":
        target.pop(key, None)
    else:
        target[key] = draw(json_values | plain_messages)
    return request


def accepted(request: dict[str, Any]) -> bool:
    try:
        parse_chat_request(request)
    except InvalidRequestError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(plain_requests)
def test_every_plain_request_is_recognised_and_valid(request: dict[str, Any]) -> None:
    assert is_plain_chat_request(request)
    assert accepted(request)


@settings(max_examples=500, deadline=None)
@given(near_plain_requests())
def test_the_shortcut_never_lets_through_what_validation_rejects(request: dict[str, Any]) -> None:
    if is_plain_chat_request(request):
        assert accepted(request), request


@pytest.mark.parametrize(
    "request_",
    [
        {"model": "m", "messages": []},
        {"model": "", "messages": [{"role": "user", "content": "hi"}]},
        {"model": "m", "messages": [{"role": "tool", "content": "hi"}]},
        {"model": "m", "messages": [{"role": "user", "content": ["hi"]}]},
        {"model": "m", "messages": [{"role": ["user"], "content": "hi"}]},
        {"model": "m", "messages": [{"role": "user", "content": "hi", "name": "x"}]},
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": "true"},
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 2},
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True, "n": 1},
        {"model": "m", "messages": ({"role": "user", "content": "hi"},)},
    ],
)
def test_anything_else_takes_the_full_validation(request_: dict[str, Any]) -> None:
    assert not is_plain_chat_request(request_)


def test_check_chat_body_still_rejects_what_is_not_plain() -> None:
    check_chat_body({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(InvalidRequestError) as caught:
        check_chat_body({"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": 2})
    assert caught.value.param == "n"


plain_responses_requests = st.builds(
    lambda model, text, extras: {"model": model, "input": text, **extras},
    st.text(min_size=1),
    st.text(),
    st.fixed_dictionaries(
        {},
        optional={
            "stream": st.booleans(),
            "max_output_tokens": st.integers(min_value=16, max_value=2**70),
        },
    ),
)


@st.composite
def near_plain_responses_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A plain Responses create with one key added, removed or given another value."""
    request: dict[str, Any] = draw(plain_responses_requests)
    keys = ["model", "input", "stream", "max_output_tokens", "store", "tools", "stream_options"]
    key = draw(st.sampled_from(keys))
    if draw(st.booleans()):
        request.pop(key, None)
    else:
        request[key] = draw(json_values | st.integers(min_value=-5, max_value=40))
    return request


def responses_accepted(request: dict[str, Any]) -> bool:
    try:
        parse_responses_request(request)
    except InvalidRequestError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(plain_responses_requests)
def test_every_plain_responses_request_is_recognised_and_valid(request: dict[str, Any]) -> None:
    assert is_plain_responses_request(request)
    assert responses_accepted(request)


@settings(max_examples=500, deadline=None)
@given(near_plain_responses_requests())
def test_the_responses_shortcut_never_lets_through_what_validation_rejects(
    request: dict[str, Any],
) -> None:
    if is_plain_responses_request(request):
        assert responses_accepted(request), request


@pytest.mark.parametrize(
    "request_",
    [
        {"model": "", "input": "hi"},
        {"model": "m"},
        {"model": "m", "input": ["hi"]},
        {"model": "m", "input": "hi", "stream": 1},
        {"model": "m", "input": "hi", "max_output_tokens": 15},
        {"model": "m", "input": "hi", "max_output_tokens": True},
        {"model": "m", "input": "hi", "max_output_tokens": 16.0},
        {"model": "m", "input": "hi", "store": False},
        {"model": "m", "input": "hi", "stream": True, "stream_options": {}},
    ],
)
def test_any_other_responses_create_takes_the_full_validation(request_: dict[str, Any]) -> None:
    assert not is_plain_responses_request(request_)


def test_check_responses_body_still_rejects_what_is_not_plain() -> None:
    check_responses_body({"model": "m", "input": "hi", "max_output_tokens": 16})
    with pytest.raises(InvalidRequestError) as caught:
        check_responses_body({"model": "m", "input": "hi", "max_output_tokens": 15})
    assert caught.value.param == "max_output_tokens"


plain_messages_requests = st.builds(
    lambda model, max_tokens, messages, extras: {
        "model": model,
        "max_tokens": max_tokens,
        "messages": messages,
        **extras,
    },
    st.text(min_size=1),
    st.integers(min_value=1, max_value=2**40),
    st.lists(
        st.fixed_dictionaries(
            {"role": st.sampled_from(("user", "assistant")), "content": st.text(min_size=1)}
        ),
        min_size=1,
        max_size=4,
    ),
    st.fixed_dictionaries({}, optional={"stream": st.booleans(), "system": st.text()}),
)


@st.composite
def near_plain_messages_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A plain Messages create with one key added, removed or given another value, at the top
    or in a message."""
    request: dict[str, Any] = draw(plain_messages_requests)
    target: dict[str, Any] = request
    if draw(st.booleans()):
        target = draw(st.sampled_from(request["messages"]))
    keys = ["model", "max_tokens", "messages", "stream", "system", "tools", "role", "content"]
    key = draw(st.sampled_from(keys))
    if draw(st.booleans()):
        target.pop(key, None)
    else:
        target[key] = draw(json_values | st.integers(min_value=-2, max_value=3))
    return request


def messages_accepted(request: dict[str, Any]) -> bool:
    try:
        parse_messages_request(request)
    except InvalidRequestError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(plain_messages_requests)
def test_every_plain_messages_request_is_recognised_and_valid(request: dict[str, Any]) -> None:
    assert is_plain_messages_request(request)
    assert messages_accepted(request)


@settings(max_examples=500, deadline=None)
@given(near_plain_messages_requests())
def test_the_messages_shortcut_never_lets_through_what_validation_rejects(
    request: dict[str, Any],
) -> None:
    if is_plain_messages_request(request):
        assert messages_accepted(request), request


@pytest.mark.parametrize(
    "request_",
    [
        {"model": "m", "max_tokens": 5, "messages": []},
        {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        {"model": "m", "max_tokens": 0, "messages": [{"role": "user", "content": "hi"}]},
        {"model": "m", "max_tokens": True, "messages": [{"role": "user", "content": "hi"}]},
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": ""}]},
        {"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "hi"}]},
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": ["hi"]}]},
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}], "n": 1},
    ],
)
def test_any_other_messages_create_takes_the_full_validation(request_: dict[str, Any]) -> None:
    assert not is_plain_messages_request(request_)


def test_check_messages_body_still_rejects_what_is_not_plain() -> None:
    check_messages_body(
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    )
    with pytest.raises(InvalidRequestError, match="max_tokens: Field required"):
        check_messages_body({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
