"""An exact replay keeps what it replays: a recorded Responses flow that continues its own
responses (``previous_response_id``, a tool output for a recorded call), retrieves them, or
lists a stored completion, replays whole — recorded from a real upstream process on loopback
(another mockserver) through the recording proxy, then replayed with no upstream at all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.support.recording import WEATHER_TOOL, start_recorder, start_upstream

Flow = Callable[[openai.OpenAI], list[Any]]


def _record_then_replay(tmp_path: Path, flow: Flow) -> tuple[list[Any], list[Any]]:
    cassette = tmp_path / "cassette.yaml"
    upstream = start_upstream(tmp_path)
    try:
        recorder = start_recorder(cassette, upstream=upstream.base_url, form="exact")
        try:
            with openai.OpenAI(base_url=recorder.base_url, api_key="sk-rec") as client:
                recorded = flow(client)
        finally:
            recorder.stop()
    finally:
        upstream.stop()
    replayer = start_recorder(cassette, upstream=None, form="exact", mode="none")
    try:
        with openai.OpenAI(base_url=replayer.base_url, api_key="sk-rec", max_retries=0) as client:
            replayed = flow(client)
    finally:
        replayer.stop()
    return recorded, replayed


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_loop_over_previous_response_id_replays_whole(tmp_path: Path, stream: bool) -> None:
    def flow(client: openai.OpenAI) -> list[Any]:
        asked = {"model": "gpt-4o-mini", "tools": [WEATHER_TOOL]}
        if stream:
            with client.responses.stream(input="weather in Paris?", **asked) as events:
                first = events.get_final_response()
        else:
            first = client.responses.create(input="weather in Paris?", **asked)
        call = next(item for item in first.output if item.type == "function_call")
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}
        second = client.responses.create(previous_response_id=first.id, input=[output], **asked)
        again = client.responses.retrieve(first.id)
        return [first.id, call.call_id, second.id, again.model_dump(), second.model_dump()]

    recorded, replayed = _record_then_replay(tmp_path, flow)
    assert replayed == recorded  # the same ids, the same objects, retrieved as recorded


def test_a_stored_completion_replayed_exactly_is_retrieved_and_listed(tmp_path: Path) -> None:
    def flow(client: openai.OpenAI) -> list[Any]:
        made = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "keep this"}], store=True
        )
        listed = [c.id for c in client.chat.completions.list()]
        return [made.id, client.chat.completions.retrieve(made.id).model_dump(), listed]

    recorded, replayed = _record_then_replay(tmp_path, flow)
    assert replayed[0] == recorded[0]
    assert replayed[1]["choices"] == recorded[1]["choices"]
    assert replayed[2] == [recorded[0]]
