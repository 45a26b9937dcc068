"""Scripted connection faults in-process: the SDK sees what it sees over a socket.

A cut stream delivers its frames before the cut, then the SDK raises ``APIConnectionError``
(from the HTTP library's ``RemoteProtocolError``, as over a socket) instead of ending cleanly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import httpx
import httpx2
import openai
import pytest

from pytest_mockserver import MockServer
from pytest_mockserver.transport import AsyncASGITransport, SyncASGITransport

CHAT: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "cut"}]}
RESPONSES: dict[str, Any] = {"model": "gpt-4o", "input": "cut"}
#: ``in_process=``: the socket first, then in-process; a test compares what the SDK saw.
MODES = (False, True)

Outcome = tuple[list[Any], str, str]


def chat_deltas(chunks: Iterable[Any]) -> list[Any]:
    return [c.choices[0].delta.content for c in chunks if c.choices]


def drain(pieces: Iterable[Any], seen: Callable[[Iterable[Any]], list[Any]]) -> Outcome:
    """What arrived before the stream broke, the SDK's error and the library's under it."""
    got: list[Any] = []

    def collect() -> Iterable[Any]:
        for piece in pieces:
            got.append(piece)
            yield piece

    with pytest.raises(openai.APIConnectionError) as info:
        list(collect())
    return seen(got), type(info.value.__cause__).__name__, str(info.value.__cause__)


async def adrain(pieces: Any, seen: Callable[[Iterable[Any]], list[Any]]) -> Outcome:
    got: list[Any] = []

    async def collect() -> None:
        async for piece in pieces:
            got.append(piece)

    with pytest.raises(openai.APIConnectionError) as info:
        await collect()
    return seen(got), type(info.value.__cause__).__name__, str(info.value.__cause__)


def event_types(events: Iterable[Any]) -> list[Any]:
    return [e.type for e in events]


@pytest.fixture
def cut(mockserver: MockServer) -> MockServer:
    mockserver.on(last_user="cut").reply(
        text="one two three four five", fault={"disconnect_after": 3}
    )
    return mockserver


def test_a_disconnect_breaks_the_chat_stream_in_process_as_over_the_socket(
    cut: MockServer,
) -> None:
    outcomes = [
        drain(cut.client(in_process=mode).chat.completions.create(**CHAT, stream=True), chat_deltas)
        for mode in MODES
    ]
    assert outcomes[0] == outcomes[1]
    assert outcomes[1] == (
        ["", "one", " two"],
        "RemoteProtocolError",
        "peer closed connection without sending complete message body (incomplete chunked read)",
    )


@pytest.mark.anyio
async def test_a_disconnect_breaks_the_async_chat_stream_in_process(cut: MockServer) -> None:
    outcomes = []
    for mode in MODES:
        client = cut.async_client(in_process=mode)
        stream = await client.chat.completions.create(**CHAT, stream=True)
        outcomes.append(await adrain(stream, chat_deltas))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == ["", "one", " two"]


def test_a_disconnect_breaks_the_responses_stream_in_process(cut: MockServer) -> None:
    outcomes = [
        drain(cut.client(in_process=mode).responses.create(**RESPONSES, stream=True), event_types)
        for mode in MODES
    ]
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
    ]


@pytest.mark.anyio
async def test_a_disconnect_breaks_the_async_responses_stream_in_process(cut: MockServer) -> None:
    outcomes = []
    for mode in MODES:
        client = cut.async_client(in_process=mode)
        stream = await client.responses.create(**RESPONSES, stream=True)
        outcomes.append(await adrain(stream, event_types))
    assert outcomes[0] == outcomes[1]
    assert len(outcomes[1][0]) == 3


def test_the_responses_stream_helper_breaks_in_process(cut: MockServer) -> None:
    client = cut.client(in_process=True)
    with client.responses.stream(**RESPONSES) as stream:
        assert drain(stream, event_types)[0][0] == "response.created"


def reset_error(error: openai.APIConnectionError) -> tuple[str, str]:
    return type(error.__cause__).__name__, str(error.__cause__)


def test_a_reset_raises_api_connection_error_in_process_as_over_the_socket(
    mockserver: MockServer,
) -> None:
    mockserver.on(last_user="reset").reply(text="hello", fault={"reset": True})
    ask = {**CHAT, "messages": [{"role": "user", "content": "reset"}]}
    errors = []
    for mode in MODES:
        with pytest.raises(openai.APIConnectionError) as info:
            mockserver.client(in_process=mode, max_retries=0).chat.completions.create(**ask)
        errors.append(reset_error(info.value))
    assert errors[0] == errors[1]
    name, message = errors[1]
    assert name == "RemoteProtocolError"
    assert message.startswith("peer closed connection without sending complete message body")
    assert "received 0 bytes, expected" in message


@pytest.mark.anyio
async def test_a_reset_is_retried_by_the_async_sdk_in_process(mockserver: MockServer) -> None:
    mockserver.on(last_user="reset").replies(
        {"text": "lost", "fault": {"reset": True}}, {"text": "recovered"}
    )
    client = mockserver.async_client(in_process=True, max_retries=1)
    ask = {**CHAT, "messages": [{"role": "user", "content": "reset"}]}
    reply = await client.chat.completions.create(**ask)
    assert reply.choices[0].message.content == "recovered"
    assert len(mockserver.calls) == 2


def test_the_stream_cut_scenario_breaks_streams_in_process(mockserver: MockServer) -> None:
    mockserver.use("stream-cut")
    client = mockserver.client(in_process=True)
    assert client.chat.completions.create(**CHAT).choices[0].message.content
    deltas, name, _ = drain(client.chat.completions.create(**CHAT, stream=True), chat_deltas)
    assert (len(deltas), name) == (5, "RemoteProtocolError")


def test_a_stream_without_done_still_ends_quietly_in_process(mockserver: MockServer) -> None:
    mockserver.on(last_user="cut").reply(text="one two", fault={"no_done": True})
    stream = mockserver.client(in_process=True).chat.completions.create(**CHAT, stream=True)
    assert "".join(d or "" for d in chat_deltas(stream)) == "one two"


#: openai-python 1.x speaks httpx, 3.x httpx2: the transport is built for either.
LIBRARIES = pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
STREAM = {"method": "POST", "url": "/v1/chat/completions", "json": {**CHAT, "stream": True}}


@LIBRARIES
def test_each_http_library_raises_its_own_remote_protocol_error(
    cut: MockServer, module: ModuleType
) -> None:
    transport = SyncASGITransport(module, cut.session.app, cut.session.portal())
    got = bytearray()

    def read(response: Any) -> None:
        for chunk in response.iter_bytes():
            got.extend(chunk)

    with (
        module.Client(transport=transport, base_url="http://x", headers=cut.headers) as http,
        http.stream(**STREAM) as response,
        pytest.raises(module.RemoteProtocolError) as info,
    ):
        read(response)
    assert got.count(b"data: ") == 3
    assert info.value.request.url.path == "/v1/chat/completions"


@pytest.mark.anyio
@LIBRARIES
async def test_each_async_http_library_raises_its_own_remote_protocol_error(
    cut: MockServer, module: ModuleType
) -> None:
    transport = AsyncASGITransport(module, cut.session.app)
    got = bytearray()

    async def read(response: Any) -> None:
        async for chunk in response.aiter_bytes():
            got.extend(chunk)

    async with (
        module.AsyncClient(transport=transport, base_url="http://x", headers=cut.headers) as http,
        http.stream(**STREAM) as response,
    ):
        with pytest.raises(module.RemoteProtocolError):
            await read(response)
    assert got.count(b"data: ") == 3


def test_the_in_process_option_breaks_a_cut_stream(
    pytester: pytest.Pytester, run: Callable[..., pytest.RunResult]
) -> None:
    pytester.makepyfile(
        test_cut="""
        import openai
        import pytest

        ASK = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}


        def test_cut(mockserver):
            mockserver.use("stream-cut")
            stream = mockserver.client().chat.completions.create(**ASK, stream=True)
            with pytest.raises(openai.APIConnectionError):
                list(stream)
            assert not mockserver.session.started
        """
    )
    run("--mockserver-in-process").assert_outcomes(passed=1)
