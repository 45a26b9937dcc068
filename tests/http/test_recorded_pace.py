"""A recorded answer replayed at once, or (``pace: true``) at the pace it was recorded: the
waits the one pacer is asked for are the recorded gaps (a clock of the test's own: nothing
here measures time)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from mockserver.engine.turn import recorded_answer
from mockserver.errors import StreamAborted
from mockserver.http.responses import RecordedResponse
from mockserver.plans import Pacer
from mockserver.scenario.loader import load_file
from mockserver.scenario.model import RecordedSpec

EVENTS = [
    {"data": '{"n": 1}', "offset_ms": 0},
    {"data": '{"n": 2}', "offset_ms": 200},
    {"data": '{"n": 3}', "offset_ms": 450},
]


def _replay(spec: RecordedSpec) -> tuple[list[float], list[bytes], bool]:
    """What the replay sends, the sleeps it asks for, and whether it was cut."""
    slept: list[float] = []
    sent: list[bytes] = []
    clock = [100.0]

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        clock[0] += seconds

    async def send(message: Any) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            sent.append(message["body"])

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    response = RecordedResponse(recorded_answer(spec), pacer=Pacer(lambda: clock[0], sleep))
    try:
        asyncio.run(response({"type": "http"}, receive, send))
    except StreamAborted:
        return slept, sent, True
    return slept, sent, False


def test_a_recorded_stream_replays_at_once_by_default() -> None:
    slept, sent, cut = _replay(RecordedSpec(events=EVENTS))
    assert slept == []
    assert sent == [b'data: {"n": 1}\n\n', b'data: {"n": 2}\n\n', b'data: {"n": 3}\n\n']
    assert not cut


def test_pace_replays_each_event_at_its_recorded_offset() -> None:
    slept, sent, cut = _replay(RecordedSpec(events=EVENTS, pace=True))
    assert slept == [0.2, 0.25]
    assert len(sent) == 3
    assert not cut


def test_a_paced_stream_recorded_as_cut_is_cut_after_its_last_event() -> None:
    slept, sent, cut = _replay(RecordedSpec(events=EVENTS[:2], complete=False, pace=True))
    assert (slept, len(sent), cut) == ([0.2], 2, True)


def test_a_paced_body_comes_after_its_recorded_time() -> None:
    spec = RecordedSpec(body='{"ok": true}', elapsed_ms=1500, pace=True)
    assert _replay(spec)[:2] == ([1.5], [b'{"ok": true}'])
    assert _replay(spec.model_copy(update={"pace": False}))[0] == []


@pytest.mark.parametrize("pace", [True, False])
def test_pace_may_be_set_beside_a_recordings_file(tmp_path: Path, pace: bool) -> None:
    (tmp_path / "chat-001.json").write_text(json.dumps({"status": 200, "events": EVENTS}))
    scenario = tmp_path / "cassette.yaml"
    scenario.write_text(
        "name: cassette\nrules:\n  - id: chat-001\n    reply:\n      recorded:\n"
        f"        fixture: chat-001.json\n        pace: {str(pace).lower()}\n"
    )
    [rule] = load_file(scenario).rules
    assert rule.reply is not None
    assert rule.reply.recorded is not None
    assert rule.reply.recorded.pace is pace
    assert [e.offset_ms for e in rule.reply.recorded.events or ()] == [0, 200, 450]
