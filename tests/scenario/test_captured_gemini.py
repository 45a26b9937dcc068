"""A captured Gemini answer as the neutral reply it says."""

from __future__ import annotations

from mockserver.scenario.captured import captured_reply, error_spec

USAGE = {"promptTokenCount": 7, "candidatesTokenCount": 5, "thoughtsTokenCount": 3}


def chunk(*parts: dict[str, object], finish: str | None = None) -> dict[str, object]:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": list(parts)}}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash"}


def test_a_stream_of_chunks_adds_up_to_its_text_thoughts_and_last_usage() -> None:
    chunks = [
        chunk({"text": "Let me think.", "thought": True}),
        chunk({"text": "Hello "}),
        chunk({"text": "there."}, finish="STOP"),
    ]
    assert captured_reply(chunks) == {
        "text": "Hello there.",
        "reasoning": {"text": "Let me think."},
        "usage": {"prompt_tokens": 7, "completion_tokens": 8, "reasoning_tokens": 3},
    }


def test_function_calls_keep_their_args_as_json_arguments() -> None:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    said = captured_reply(chunk({**call, "thoughtSignature": "c2ln"}, finish="STOP"))
    assert said is not None
    assert said["tool_calls"] == [{"name": "get_weather", "arguments": '{"city": "Paris"}'}]
    assert "text" not in said


def test_max_tokens_and_a_blocked_prompt_say_why_the_answer_ended() -> None:
    cut = captured_reply(chunk({"text": "Once"}, finish="MAX_TOKENS"))
    assert cut is not None
    assert cut["finish_reason"] == "length"
    blocked = captured_reply({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": USAGE})
    assert blocked is not None
    assert blocked["finish_reason"] == "content_filter"


def test_a_google_429_keeps_the_delay_its_retry_info_names_in_an_array_too() -> None:
    error = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted (e.g. check quota).",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}],
        }
    }
    expected = {
        "status": 429,
        "message": "Resource has been exhausted (e.g. check quota).",
        "retry_after": 3.0,
    }
    assert error_spec(429, error, {}) == expected
    assert error_spec(429, [error], {}) == expected
