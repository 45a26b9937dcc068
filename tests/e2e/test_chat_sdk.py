"""The official openai SDK cannot tell the mock from the real Chat Completions API."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

MESSAGES = [{"role": "user", "content": "What is a good way to learn sourdough baking?"}]

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
    },
}


def test_create_returns_a_valid_chat_completion(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    ChatCompletion.model_validate(completion.model_dump())
    choice = completion.choices[0]
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "gpt-4o-mini"
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content is not None
    assert len(choice.message.content.split()) > 5
    assert completion.usage is not None
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


def test_same_request_gives_same_content(client: openai.OpenAI) -> None:
    first = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    second = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert first.choices[0].message.content == second.choices[0].message.content
    assert first.id != second.id


def test_seed_parameter_changes_the_text(client: openai.OpenAI) -> None:
    texts = {
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, seed=s)
        .choices[0]
        .message.content
        for s in range(4)
    }
    assert len(texts) > 1


def test_stream_iteration_reassembles_the_non_streamed_text(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    for chunk in chunks:
        ChatCompletionChunk.model_validate(chunk.model_dump())
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    assert chunks[-1].choices == []
    assert chunks[-1].usage == whole.usage
    assert all(c.usage is None for c in chunks[:-1])
    assert len({(c.id, c.created, c.model) for c in chunks}) == 1


def test_stream_helper_gives_the_final_completion(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES) as stream:
        events = [e.type for e in stream]
        final = stream.get_final_completion()
    assert "content.delta" in events
    assert final.choices[0].finish_reason == "stop"
    assert final.choices[0].message.content


def test_required_tool_choice_gives_arguments_valid_for_the_schema(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER_TOOL],
        tool_choice="required",
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    call = choice.message.tool_calls[0]
    assert call.type == "function"
    assert call.id.startswith("call_")
    args = json.loads(call.function.arguments)
    assert set(args) == {"city", "unit"}
    assert args["unit"] in ("celsius", "fahrenheit")


def test_auto_tool_loop_converges_to_text(client: openai.OpenAI) -> None:
    messages: list[dict[str, object]] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(
        model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL]
    )
    call = first.choices[0].message.tool_calls[0]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"temp": 21}'})
    second = client.chat.completions.create(
        model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL]
    )
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content


def test_streamed_tool_call_reassembles(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=[WEATHER_TOOL],
        tool_choice="required",
    ) as stream:
        final = stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]
    assert set(json.loads(call.function.arguments)) == {"city", "unit"}


class Recipe(BaseModel):
    title: str
    minutes: int
    ingredients: list[str]


def test_parse_with_a_pydantic_model(client: openai.OpenAI) -> None:
    completion = client.chat.completions.parse(
        model="gpt-4o-mini",
        messages=MESSAGES,
        response_format=Recipe,
    )
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Recipe)


def test_logprobs_match_the_content(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        logprobs=True,
        top_logprobs=3,
    )
    choice = completion.choices[0]
    entries = choice.logprobs.content
    assert "".join(e.token for e in entries) == choice.message.content
    assert len(entries) == completion.usage.completion_tokens
    for entry in entries:
        assert entry.logprob <= 0
        assert entry.bytes == list(entry.token.encode())
        assert len(entry.top_logprobs) == 3
        assert len({t.token for t in entry.top_logprobs}) == 3
        probs = [t.logprob for t in entry.top_logprobs]
        assert probs == sorted(probs, reverse=True)


def test_max_tokens_cuts_with_length(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        max_completion_tokens=5,
    )
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage.completion_tokens == 5


def test_stop_sequence_never_appears(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    text = whole.choices[0].message.content
    stop = text.split()[3]
    cut = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stop=[stop])
    assert cut.choices[0].message.content == text[: text.find(stop)]
    assert cut.choices[0].finish_reason == "stop"


def test_stored_completions_crud(client: openai.OpenAI) -> None:
    created = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        store=True,
        metadata={"topic": "bread"},
    )
    client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)  # not stored
    assert client.chat.completions.retrieve(created.id).id == created.id
    listed = client.chat.completions.list(metadata={"topic": "bread"})
    assert [c.id for c in listed.data] == [created.id]
    updated = client.chat.completions.update(created.id, metadata={"topic": "cake"})
    assert updated.metadata == {"topic": "cake"}
    messages = client.chat.completions.messages.list(created.id)
    assert [m.content for m in messages.data] == [MESSAGES[0]["content"]]
    deleted = client.chat.completions.delete(created.id)
    assert deleted.deleted is True
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.retrieve(created.id)


def test_stored_messages_keep_an_assistants_tool_calls(client: openai.OpenAI) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    conversation: list[Any] = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
    ]
    created = client.chat.completions.create(model="gpt-4o-mini", messages=conversation, store=True)
    user, assistant, tool = client.chat.completions.messages.list(created.id).data
    assert assistant.tool_calls is not None
    assert [c.model_dump(mode="json") for c in assistant.tool_calls] == [call]
    assert user.tool_calls is None
    assert tool.tool_calls is None


def test_a_streamed_completion_is_stored_too(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        store=True,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    stored = client.chat.completions.retrieve(chunks[0].id)
    assert stored.object == "chat.completion"
    assert stored.choices[0].message.content == text
    assert stored.usage == chunks[-1].usage
    assert [c.id for c in client.chat.completions.list()] == [stored.id]


def test_models_list_and_retrieve(client: openai.OpenAI) -> None:
    ids = [m.id for m in client.models.list()]
    assert "gpt-4o-mini" in ids
    assert client.models.retrieve("gpt-4o-mini").id == "gpt-4o-mini"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_n_greater_than_one_is_rejected(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, n=2)
    assert info.value.body["param"] == "n"


def test_a_strict_schema_the_api_refuses_is_a_bad_request(client: openai.OpenAI) -> None:
    schema = {
        "type": "object",
        "properties": {"paths": {"type": "array"}},  # no items
        "required": ["paths"],
        "additionalProperties": False,
    }
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=MESSAGES,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "listing", "schema": schema, "strict": True},
            },
        )
    message = (
        "Invalid schema for response_format 'listing': In context=('properties', 'paths'), "
        "array schema missing items."
    )
    assert info.value.status_code == 400
    assert info.value.body == {
        "message": message,
        "type": "invalid_request_error",
        "param": "response_format",
        "code": None,
    }
    assert message in str(info.value)


@pytest.mark.anyio
async def test_async_client_create_and_stream(server: BackgroundServer, api_key: str) -> None:
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key=api_key) as aclient:
        completion = await aclient.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        stream = await aclient.chat.completions.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True
        )
        text = "".join([c.choices[0].delta.content or "" async for c in stream])
    assert text == completion.choices[0].message.content


TIME_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
}


def test_named_tool_choice_calls_that_tool(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=[WEATHER_TOOL, TIME_TOOL],
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    calls = completion.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["get_time"]
    assert "timezone" in json.loads(calls[0].function.arguments)


def test_allowed_tools_narrow_the_choice(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "What's the weather?"}],
        tools=[WEATHER_TOOL, TIME_TOOL],
        tool_choice={
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "required",
                "tools": [{"type": "function", "function": {"name": "get_time"}}],
            },
        },
    )
    assert [c.function.name for c in completion.choices[0].message.tool_calls] == ["get_time"]


def test_tool_choice_none_answers_in_text(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[WEATHER_TOOL],
        tool_choice="none",
    )
    assert completion.choices[0].message.tool_calls is None
    assert completion.choices[0].finish_reason == "stop"


def test_custom_tools_get_a_custom_tool_call(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Run some SQL"}],
        tools=[{"type": "custom", "custom": {"name": "run_sql", "description": "SQL runner"}}],
        tool_choice="required",
    )
    call = completion.choices[0].message.tool_calls[0]
    assert call.type == "custom"
    assert call.custom.name == "run_sql"
    assert call.custom.input


def test_parallel_calls_for_every_tool_the_user_names(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Get the weather and the time in Oslo"}],
        tools=[WEATHER_TOOL, TIME_TOOL],
    )
    names = [c.function.name for c in completion.choices[0].message.tool_calls]
    assert names == ["get_weather", "get_time"]
    assert len({c.id for c in completion.choices[0].message.tool_calls}) == 2


def test_json_object_mode_returns_a_json_object(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Reply in JSON"}],
        response_format={"type": "json_object"},
    )
    assert isinstance(json.loads(completion.choices[0].message.content), dict)


def test_moderation_request_gets_unflagged_results_by_default(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini",
        messages=MESSAGES,
        extra_body={"moderation": {"model": "omni-moderation-latest"}},
    )
    moderation = raw.http_response.json()["moderation"]
    assert moderation["input"]["results"][0]["flagged"] is False
    assert moderation["output"]["type"] == "moderation_results"
