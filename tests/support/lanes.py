"""A server with the replay lane on against one with it off: the same requests sent to each,
and everything a client or a test can see of them, to compare (statuses, headers, bodies, the
journal, the scenario's rule hits)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

import httpx

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

__all__ = ["TOOL_AND_ERROR", "Send", "lane_pair", "lane_session", "served_by_lane"]

#: A scenario of a tool call and a scripted error (the rest generated), for every family.
TOOL_AND_ERROR = """
rules:
  - id: weather
    when: {last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: overloaded}}
"""

#: Headers that differ between two servers whatever they answer.
VOLATILE = {"date", "server"}


class Send(NamedTuple):
    """One request: where, with what query parameters, body and headers."""

    path: str
    body: Any
    params: Mapping[str, str] = {}
    headers: Mapping[str, str] = {}
    #: Move the namespace's clock on by this many seconds first.
    advance: float = 0.0


@contextmanager
def lane_pair() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    """Two servers with the same seed: the lane on, and off."""
    on, off = start_server(seed=7), start_server(seed=7, replay=False)
    try:
        yield on, off
    finally:
        on.stop()
        off.stop()


def lane_session(
    server: BackgroundServer,
    sends: list[Send],
    *,
    key: str,
    scenario: str,
    headers: Mapping[str, str],
) -> list[Any]:
    """Each request sent in turn (with ``headers``) in the namespace of API key ``key``, with
    ``scenario`` loaded; what came back, then the journal and the scenario's rule hits."""
    seen: list[Any] = []
    control = {"authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=10) as http:
        answer = http.put(
            "/__mockserver/scenario",
            content=scenario,
            headers={**control, "content-type": "application/yaml"},
        )
        assert answer.status_code == 200, answer.text
        for send in sends:
            if send.advance:
                moved = http.post(
                    "/__mockserver/clock", json={"advance": send.advance}, headers=control
                )
                assert moved.status_code == 200, moved.text
            answer = http.post(
                send.path, json=send.body, params=send.params, headers={**headers, **send.headers}
            )
            kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, kept, answer.content))
        calls = http.get("/__mockserver/calls", headers=control).json()["data"]
        seen.append(http.get("/__mockserver/scenario", headers=control).json())
    assert len(calls) == len(sends)
    for call in calls:
        assert call.pop("duration_ms") is not None, call  # every entry was completed
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]  # its own port
    seen.append(calls)
    return seen


def served_by_lane(server: BackgroundServer) -> tuple[int, int]:
    """How many requests ``server``'s lane answered: from a recipe, and by a fresh turn."""
    served: int = server.app.state.replays.served
    lane = server.app.state.lane
    fresh: int = 0 if lane is None else lane.fresh_answers
    return served, fresh
