"""What an exact replay keeps of a recorded Response: the object as recorded, continued with
its recorded output, and a reply read from it as a pasted Response is read."""

from __future__ import annotations

from mockserver.engine.recorded import recorded_response, stored_recorded_response
from mockserver.errors import RecordedAnswer

RESPONSE = {
    "id": "resp_recorded",
    "object": "response",
    "created_at": 1700000000,
    "status": "completed",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking."}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
    ],
    "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
}


def test_a_recorded_response_is_kept_as_recorded_and_read_as_a_reply() -> None:
    import json

    answer = RecordedAnswer(status=200, headers={}, body=json.dumps(RESPONSE))
    found = recorded_response(answer)
    assert found == RESPONSE
    history = [{"type": "message", "role": "user", "content": "earlier"}]
    kept = stored_recorded_response(
        RESPONSE,
        {"model": "m"},
        history=history,
        inputs=[{"type": "message", "role": "user", "content": "weather?"}],
        size=1024,
    )
    assert kept.id == "resp_recorded"
    assert kept.recorded == RESPONSE
    assert kept.context[0] == history[0]
    assert kept.context[-2:] == RESPONSE["output"]
    assert kept.reply.text == "Checking."
    [call] = kept.reply.tool_calls
    assert (call.call_id, call.name, call.arguments) == (
        "call_1",
        "get_weather",
        '{"city": "Paris"}',
    )
    assert (kept.reply.usage.prompt_tokens, kept.reply.usage.completion_tokens) == (12, 7)


def test_an_answer_that_holds_no_whole_response_keeps_nothing() -> None:
    cut = RecordedAnswer(status=200, headers={}, events=[(None, "{}")], complete=False)
    failed = RecordedAnswer(status=429, headers={}, body="{}")
    assert recorded_response(cut) is None
    assert recorded_response(failed) is None
