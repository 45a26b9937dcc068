"""Ollama's rendering without a server: NDJSON lines as Go writes them, the counters, the
order of keys, tool calls, thinking, and its error shape."""

from __future__ import annotations

import orjson
import pytest

from mockserver import ids
from mockserver.errors import APIError, InvalidRequestError
from mockserver.families import errors_at, family_at
from mockserver.faults import error_for
from mockserver.render import ndjson
from mockserver.render.errors import OLLAMA, error_answer
from mockserver.render.ollama import (
    OllamaMeta,
    chat_body,
    chat_chunks,
    generate_chunks,
    ollama_call_id,
    timings_of,
)
from mockserver.reply.model import Reasoning, Reply, ToolCall, Usage


def _reply(**fields: object) -> Reply:
    return Reply(usage=Usage(prompt_tokens=9, completion_tokens=3), **fields)  # type: ignore[arg-type]


def _meta(reply: Reply, **fields: object) -> OllamaMeta:
    timings = timings_of(reply, started=ids.DEFAULT_FROZEN_EPOCH, seed=1)
    return OllamaMeta(model="llama3.2", timings=timings, **fields)  # type: ignore[arg-type]


def test_a_line_is_gos_compact_json_with_its_html_escapes() -> None:
    value = {"text": "a <b> & c\u2028", "n": 1}
    assert ndjson.line(value) == b'{"text":"a \\u003cb\\u003e \\u0026 c\\u2028","n":1}\n'
    assert orjson.loads(ndjson.line(value)) == value


def test_decode_lines_skips_what_was_cut() -> None:
    stream = ndjson.line({"a": 1}) + ndjson.malformed(ndjson.line({"b": 2, "c": "long"}))
    assert ndjson.decode_lines(stream) == [{"a": 1}]


def test_the_counters_are_derived_and_add_up() -> None:
    reply = _reply(text="one two three")
    first, again = timings_of(reply, started=0, seed=3), timings_of(reply, started=0, seed=3)
    assert first == again
    assert first.total > first.load + first.prompt_eval + first.eval - 1
    fast = timings_of(reply, started=0, seed=3, tokens_per_second=1000)
    assert fast.per_token == 1_000_000


def test_a_whole_chat_answer_in_the_structs_key_order() -> None:
    reply = _reply(text="Hi.", reasoning=Reasoning(summary=("Thought.",)))
    body = chat_body(reply, _meta(reply, thinking=True))
    assert list(body) == [
        "model",
        "created_at",
        "message",
        "done",
        "done_reason",
        "total_duration",
        "load_duration",
        "prompt_eval_count",
        "prompt_eval_duration",
        "eval_count",
        "eval_duration",
    ]
    assert body["message"] == {"role": "assistant", "content": "Hi.", "thinking": "Thought."}
    assert body["created_at"].startswith("2026-01-01T00:00:00.")


def test_tool_calls_carry_an_id_an_index_and_object_arguments() -> None:
    reply = _reply(tool_calls=(ToolCall("call_abc", "get_weather", '{"city":"Paris"}'),))
    (*_, call_line, last) = chat_chunks(reply, _meta(reply))
    (call,) = call_line["message"]["tool_calls"]
    assert call["id"].startswith("call_")
    assert len(call["id"]) == 13
    assert call["function"] == {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}
    assert last["done"] is True
    assert ollama_call_id(ToolCall("call_12345678", "f", "{}")) == "call_12345678"


def test_arguments_that_are_not_an_object_are_the_scenarios_mistake() -> None:
    reply = _reply(tool_calls=(ToolCall("c", "f", "[1]"),))
    with pytest.raises(InvalidRequestError, match="not a JSON object"):
        chat_body(reply, _meta(reply))


def test_a_cut_reply_ends_with_length_and_a_load_with_load() -> None:
    cut = _reply(text="one two", finish_reason="length")
    assert chat_body(cut, _meta(cut))["done_reason"] == "length"
    loaded = chat_body(cut, _meta(cut, load="load"))
    assert loaded["done_reason"] == "load"
    assert "eval_count" not in loaded
    assert loaded["message"] == {"role": "assistant", "content": ""}


def test_generate_streams_thinking_before_the_text_and_ends_with_its_context() -> None:
    reply = _reply(text="Blue.", reasoning=Reasoning(summary=("Hmm.",)))
    chunks = generate_chunks(reply, _meta(reply, thinking=True, context=(1, 2)))
    assert chunks[0]["thinking"] == "Hmm"
    assert chunks[0]["response"] == ""
    assert list(chunks[-1])[:6] == [
        "model",
        "created_at",
        "response",
        "done",
        "done_reason",
        "context",
    ]
    stamps = [chunk["created_at"] for chunk in chunks]
    assert stamps == sorted(stamps)


@pytest.mark.parametrize(
    ("preset", "status", "message"),
    [
        ("rate_limited", 429, "rate limit exceeded"),
        ("overloaded", 503, "server busy, please try again.  maximum pending requests exceeded"),
        ("server_error", 500, "an error was encountered while running the model"),
        ("bad_request", 400, "Bad request."),
    ],
)
def test_presets_in_ollamas_words(preset: str, status: int, message: str) -> None:
    from mockserver.scenario.behaviour import ErrorSpec

    answer = error_answer(error_for(ErrorSpec(preset=preset)), "ollama")
    assert answer.status == status
    assert answer.body == {"error": message}
    assert answer.content == ndjson.go_json({"error": message})


def test_a_scenarios_own_message_wins() -> None:
    from mockserver.scenario.behaviour import ErrorSpec

    spec = ErrorSpec(preset="rate_limited", message="slow down <now>")
    answer = error_answer(error_for(spec), "ollama")
    assert answer.content == b'{"error":"slow down \\u003cnow\\u003e"}'
    assert OLLAMA.stream_error(APIError("x", status=500, type="server_error")) == {"error": "x"}


def test_ollamas_paths_are_its_shape() -> None:
    assert errors_at("/api/chat") == errors_at("/api/tags") == errors_at("/api/nope") == "ollama"
    assert errors_at("/v1/chat/completions") == "openai"
    chat = family_at("POST", "/api/chat")
    assert chat is not None
    assert chat.api == "ollama_chat"
    assert family_at("POST", "/api/generate").api == "ollama_generate"  # type: ignore[union-attr]
