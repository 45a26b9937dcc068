"""The inspector in headless Chromium at 1024 px: responses sent over a Responses WebSocket are
journal rows like any call, marked as the socket's (with their lane), and open on their events:
the answer assembled from the deltas, one timeline mark per event."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from websockets.exceptions import ConnectionClosedError

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.events import until_done
from tests.support.inspector import (
    KEY,
    LAYOUT_CHECK,
    SHOTS,
    entry,
    open_call,
    open_inspector,
    post,
)


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    server = start_server(seed=5)
    yield server
    server.stop()


def row_marks(page: Any) -> list[str]:
    """Each row's socket mark, newest first (``""``: the row has none)."""
    marks: list[str] = page.eval_on_selector_all(
        "#calls tr",
        "rows => rows.map(r => r.querySelector('td.c-reply .socket')?.textContent ?? '')",
    )
    return marks


def test_a_sockets_responses_are_rows_marked_with_their_lane(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock, width=1024)
    sdk = openai.OpenAI(base_url=mock.base_url, api_key=KEY, max_retries=0)
    with sdk.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="hello over a socket")
        until_done(connection)
        connection.response.create(model="gpt-4o-mini", input="and on a lane", stream_id="agent_1")
        until_done(connection)
    post(mock, "/v1/responses", {"model": "gpt-4o-mini", "input": "hello over HTTP"})
    cut = {"text": "one two three four five", "fault": {"disconnect_after": 3}}
    post(mock, "/__mockserver/next", cut)
    with sdk.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="cut me", stream_id="b")
        with pytest.raises(ConnectionClosedError):
            until_done(connection)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 4")
    page.wait_for_selector("#calls tr td.c-reply .stream.cut")
    assert row_marks(page) == ["socket · b", "", "socket · agent_1", "socket"]
    assert page.locator("#calls tr td.c-reply .stream").count() == 1  # the cut's, not "stream"
    summary = httpx.get(
        mock.url + "/__mockserver/calls", headers={"authorization": f"Bearer {KEY}"}
    ).json()["data"]
    assert [c["request_headers"].get("upgrade") for c in summary] == [
        "websocket",
        "websocket",
        None,
        "websocket",
    ]

    open_call(page, 2)
    events = entry(mock, 2)["response"]
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert deltas
    assert page.text_content("#answer-text") == deltas
    assert page.locator("#timeline-svg .mark").count() == len(events)
    assert "(WebSocket, lane agent_1)" in page.text_content("#detail-title")
    assert "and on a lane" in page.inner_text("#conversation")
    page.screenshot(path=str(SHOTS / "inspector-socket-1024.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert errors == []
