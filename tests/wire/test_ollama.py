"""Ollama's request bodies checked as its server checks them, and read into the neutral
Prompt."""

from __future__ import annotations

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.prompt.ollama import prompt_from_ollama_chat, prompt_from_ollama_generate
from mockserver.wire.catalog import ollama_base, ollama_catalog_has, ollama_tagged
from mockserver.wire.ollama import (
    check_chat_body,
    check_embed_body,
    check_generate_body,
    check_show_body,
)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "model is required"),
        (
            {"model": "m", "messages": "hi"},
            "json: cannot unmarshal string into Go struct field ChatRequest.messages of type "
            "[]api.Message",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": ["a"]}]},
            "json: cannot unmarshal array into Go struct field ChatRequest.messages.content of "
            "type string",
        ),
        ({"model": "m", "stream": "yes"}, "json: cannot unmarshal string into Go struct field"),
        ({"model": "m", "think": 3}, "think must be a boolean or string"),
        ({"model": "m", "format": "xml"}, 'invalid format: "xml"; expected "json"'),
        ({"model": "m", "options": {"stop": "x"}}, 'option "stop" must be of type array'),
    ],
)
def test_a_bad_chat_body_gets_ollamas_words(body: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        check_chat_body(body)
    assert raised.value.message.startswith(message)


def test_generate_refuses_raw_with_a_template() -> None:
    with pytest.raises(InvalidRequestError, match="raw mode does not support"):
        check_generate_body({"model": "m", "raw": True, "template": "{{ .Prompt }}"})


def test_embed_and_show_bodies() -> None:
    assert check_embed_body({"model": "m", "input": "a"}) == ["a"]
    assert check_embed_body({"model": "m", "input": ["a", "b"]}) == ["a", "b"]
    with pytest.raises(InvalidRequestError, match="invalid input type"):
        check_embed_body({"model": "m", "input": [1]})
    assert check_show_body({"name": "llama3.2"}) == "llama3.2"


def test_a_chat_streams_unless_told_not_to() -> None:
    assert prompt_from_ollama_chat({"model": "m"}, headers={}).stream is True
    assert prompt_from_ollama_chat({"model": "m", "stream": False}, headers={}).stream is False


def test_options_format_and_think_are_read() -> None:
    prompt = prompt_from_ollama_chat(
        {
            "model": "m",
            "messages": [{"role": "user", "content": "hi", "images": ["AAAA"]}],
            "options": {"num_predict": 5, "stop": ["x"], "seed": 3, "temperature": 0.1},
            "format": {"type": "object"},
            "think": "max",
        },
        headers={},
    )
    assert prompt.max_output_tokens == 5
    assert prompt.stop == ("x",)
    assert prompt.seed == 3
    assert prompt.output_format.type == "json_schema"
    assert prompt.output_format.param == "format"
    assert prompt.reasoning_effort == "high"
    assert prompt.messages[0].image_tokens == 576
    unlimited = prompt_from_ollama_chat({"model": "m", "options": {"num_predict": -1}}, headers={})
    assert unlimited.max_output_tokens is None


def test_a_tool_message_answers_the_earliest_call_of_its_name() -> None:
    prompt = prompt_from_ollama_chat(
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {"name": "a", "arguments": {"x": 1}}},
                        {"function": {"name": "b", "arguments": {}}},
                    ],
                },
                {"role": "tool", "content": "B", "tool_name": "b"},
                {"role": "tool", "content": "A", "tool_name": "a"},
            ],
        },
        headers={},
    )
    assert prompt.tool_results() == (("b", "B"), ("a", "A"))
    calls = prompt.messages[1].tool_calls
    assert calls[0].arguments == '{"x":1}'
    assert prompt.answered_call_ids() == frozenset(call.call_id for call in calls)


def test_generate_reads_system_and_prompt() -> None:
    prompt = prompt_from_ollama_generate(
        {"model": "m", "system": "Be brief.", "prompt": "Why?"}, headers={}
    )
    assert [(m.role, m.text) for m in prompt.messages] == [
        ("system", "Be brief."),
        ("user", "Why?"),
    ]
    assert prompt.api == "ollama_generate"


def test_the_catalog_takes_any_tag() -> None:
    assert ollama_catalog_has("llama3.2")
    assert ollama_catalog_has("llama3.2:1b")
    assert not ollama_catalog_has("llama9")
    assert ollama_base("hf.co/org/model:q4") == "hf.co/org/model"
    assert ollama_tagged("team/model") == "team/model:latest"
