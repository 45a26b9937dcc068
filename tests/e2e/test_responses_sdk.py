"""The official openai SDK cannot tell the mock from the real Responses API."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai.types.responses import Response
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer
from tests.support.events import assert_well_formed

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
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
    "strict": True,
}
QUESTION = "What is a good way to learn sourdough baking?"


def _valid(response: Response) -> Response:
    return Response.model_validate(response.to_dict())


#: Keys the SDK's ``responses.stream()`` helper adds to what it received.
HELPER_KEYS = frozenset({"snapshot", "parsed_arguments", "parsed"})


def _as_received(value: Any) -> Any:
    """An event of ``responses.stream()`` without what the helper added (as on the wire)."""
    if isinstance(value, dict):
        return {k: _as_received(v) for k, v in value.items() if k not in HELPER_KEYS}
    if isinstance(value, list):
        return [_as_received(v) for v in value]
    return value


def test_string_input_gets_a_completed_message(client: openai.OpenAI) -> None:
    response = _valid(client.responses.create(model="gpt-4o-mini", input=QUESTION))
    assert response.id.startswith("resp_")
    assert response.object == "response"
    assert response.status == "completed"
    assert response.completed_at == response.created_at
    assert [item.type for item in response.output] == ["message"]
    assert len(response.output_text.split()) > 5
    assert response.output[0].id.startswith("msg_")
    usage = response.usage
    assert usage is not None
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens


def test_item_list_input_with_every_role_and_part(client: openai.OpenAI) -> None:
    response = client.responses.create(
        model="gpt-4o-mini",
        instructions="Answer in one paragraph.",
        input=[
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": [{"type": "input_text", "text": "No emoji."}]},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is in this picture?"},
                    {"type": "input_image", "detail": "auto", "image_url": "https://x/y.png"},
                    {"type": "input_file", "file_id": "file_123"},
                ],
            },
        ],
        metadata={"suite": "e2e"},
        temperature=0.3,
    )
    _valid(response)
    assert response.instructions == "Answer in one paragraph."
    assert response.metadata == {"suite": "e2e"}
    assert response.temperature == 0.3
    plain = client.responses.create(model="gpt-4o-mini", input="What is in this picture?")
    assert response.usage is not None
    assert plain.usage is not None
    assert response.usage.input_tokens > plain.usage.input_tokens


def test_same_request_gives_same_content_and_new_ids(client: openai.OpenAI) -> None:
    first = client.responses.create(model="gpt-4o-mini", input=QUESTION)
    second = client.responses.create(model="gpt-4o-mini", input=QUESTION)
    assert first.output_text == second.output_text
    assert first.id != second.id
    assert first.output[0].id != second.output[0].id


def test_streamed_events_are_valid_ordered_and_nested(client: openai.OpenAI) -> None:
    with client.responses.create(
        model="gpt-4o-mini",
        input=QUESTION,
        stream=True,
        include=["message.output_text.logprobs"],
        top_logprobs=2,
    ) as stream:
        events = [event.to_dict() for event in stream]
    final = assert_well_formed(events)
    whole = client.responses.create(model="gpt-4o-mini", input=QUESTION)
    assert final.output_text == whole.output_text
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert deltas
    assert all(len(e["logprobs"]) == 1 for e in deltas)


def test_stream_helper_reassembles_tool_calls_and_reasoning(client: openai.OpenAI) -> None:
    with client.responses.stream(
        model="o4-mini",
        input="What is the weather in Boston?",
        tools=[WEATHER_TOOL],
        reasoning={"effort": "low", "summary": "auto"},
    ) as stream:
        events = [_as_received(event.to_dict()) for event in stream]
        final = stream.get_final_response()
    assert_well_formed(events)
    assert [item.type for item in final.output] == ["reasoning", "function_call"]
    call = final.output[1]
    assert call.type == "function_call"
    arguments = json.loads(call.arguments)
    assert set(arguments) == {"city", "unit"}
    assert arguments["unit"] in ("celsius", "fahrenheit")
    assert call.call_id.startswith("call_")
    assert final.usage is not None
    assert final.usage.output_tokens_details.reasoning_tokens > 0


def test_parse_returns_an_instance_of_the_pydantic_model(client: openai.OpenAI) -> None:
    class Recipe(BaseModel):
        name: str
        minutes: int
        steps: list[str]

    response = client.responses.parse(
        model="gpt-4o-mini", input="A quick bread recipe", text_format=Recipe
    )
    assert isinstance(response.output_parsed, Recipe)
    assert response.text is not None
    assert response.text.format is not None
    assert response.text.format.type == "json_schema"


def test_max_output_tokens_reached_is_incomplete(client: openai.OpenAI) -> None:
    response = _valid(
        client.responses.create(model="gpt-4o-mini", input=QUESTION, max_output_tokens=16)
    )
    assert response.status == "incomplete"
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.usage is not None
    assert response.usage.output_tokens == 16
    assert response.output[0].status == "incomplete"


def test_retrieve_returns_the_created_body_and_delete_removes_it(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hi")
    fetched = _valid(client.responses.retrieve(created.id))
    assert fetched.to_dict() == created.to_dict()
    client.responses.delete(created.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(created.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.delete(created.id)


def test_unstored_responses_cannot_be_retrieved(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hi", store=False)
    assert created.store is False
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(created.id)


def test_retrieve_include_adds_encrypted_reasoning(client: openai.OpenAI) -> None:
    created = client.responses.create(
        model="o4-mini", input="Think about it", reasoning={"effort": "low"}
    )
    assert created.output[0].type == "reasoning"
    assert created.output[0].encrypted_content is None
    fetched = client.responses.retrieve(created.id, include=["reasoning.encrypted_content"])
    assert fetched.output[0].type == "reasoning"
    assert fetched.output[0].encrypted_content is not None


def test_input_items_paginate_newest_first_by_default(client: openai.OpenAI) -> None:
    texts = [f"note {n}" for n in range(5)]
    created = client.responses.create(
        model="gpt-4o-mini", input=[{"role": "user", "content": t} for t in texts]
    )
    everything = client.responses.input_items.list(created.id)
    assert [item.content[0].text for item in everything.data] == texts[::-1]  # type: ignore[union-attr]
    page = client.responses.input_items.list(created.id, limit=2, order="asc")
    assert page.has_more is True
    assert page.first_id == page.data[0].id
    assert page.last_id == page.data[1].id
    rest = client.responses.input_items.list(created.id, order="asc", after=page.last_id)
    assert len(rest.data) == 3
    assert rest.has_more is False
    walked = list(client.responses.input_items.list(created.id, limit=2, order="asc"))
    assert [item.id for item in walked] == [item.id for item in everything.data][::-1]


def test_background_response_advances_one_state_per_retrieve(client: openai.OpenAI) -> None:
    created = _valid(client.responses.create(model="gpt-4o-mini", input="Hi", background=True))
    assert created.status == "queued"
    assert created.background is True
    assert created.output == []
    states = [created.status]
    while states[-1] in ("queued", "in_progress"):
        states.append(_valid(client.responses.retrieve(created.id)).status)
    assert states == ["queued", "in_progress", "completed"]
    done = client.responses.retrieve(created.id)
    assert done.output_text
    assert done.completed_at is not None


def test_cancel_stops_a_background_response(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hi", background=True)
    cancelled = _valid(client.responses.cancel(created.id))
    assert cancelled.status == "cancelled"
    assert client.responses.retrieve(created.id).status == "cancelled"
    assert client.responses.cancel(created.id).status == "cancelled"


def test_cancel_of_a_synchronous_response_is_a_400(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hi")
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.cancel(created.id)
    assert info.value.message.endswith("Cannot cancel a synchronous response.")


def test_previous_response_id_chain_converges_to_text(client: openai.OpenAI) -> None:
    first = client.responses.create(
        model="gpt-4o-mini", input="Weather in Boston?", tools=[WEATHER_TOOL]
    )
    call = first.output[0]
    assert call.type == "function_call"
    second = _valid(
        client.responses.create(
            model="gpt-4o-mini",
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "21 C"}],
            tools=[WEATHER_TOOL],
        )
    )
    assert second.previous_response_id == first.id
    assert [item.type for item in second.output] == ["message"]
    assert first.usage is not None
    assert second.usage is not None
    assert second.usage.input_tokens > first.usage.input_tokens
    third = client.responses.create(
        model="gpt-4o-mini",
        previous_response_id=second.id,
        input="And tomorrow?",
        tools=[WEATHER_TOOL],
        tool_choice="none",
    )
    assert third.usage is not None
    assert third.usage.input_tokens > second.usage.input_tokens


def test_unknown_or_deleted_previous_response_is_a_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="gpt-4o-mini", previous_response_id="resp_nope", input="x")
    assert info.value.body["param"] == "previous_response_id"  # type: ignore[index]
    assert info.value.body["code"] == "previous_response_not_found"  # type: ignore[index]
    created = client.responses.create(model="gpt-4o-mini", input="Hi")
    client.responses.delete(created.id)
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="gpt-4o-mini", previous_response_id=created.id, input="x")


def test_item_reference_resolves_a_stored_item(client: openai.OpenAI) -> None:
    first = client.responses.create(model="gpt-4o-mini", input="Remember the word teapot.")
    message_id = first.output[0].id
    second = client.responses.create(
        model="gpt-4o-mini",
        input=[{"type": "item_reference", "id": message_id}, {"role": "user", "content": "Ok?"}],
    )
    items = client.responses.input_items.list(second.id, order="asc")
    assert items.data[0].id == message_id
    with pytest.raises(openai.NotFoundError):
        client.responses.create(
            model="gpt-4o-mini", input=[{"type": "item_reference", "id": "msg_missing"}]
        )


def test_input_token_count_matches_the_create_usage(client: openai.OpenAI) -> None:
    request: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "input": QUESTION,
        "instructions": "Be brief.",
        "tools": [WEATHER_TOOL],
    }
    counted = client.responses.input_tokens.count(**request)
    created = client.responses.create(**request)
    assert created.usage is not None
    assert counted.input_tokens == created.usage.input_tokens
    assert counted.object == "response.input_tokens"


def test_compaction_item_carries_the_conversation_forward(client: openai.OpenAI) -> None:
    first = client.responses.create(model="gpt-4o-mini", input="Plan a trip to Lisbon.")
    compacted = client.responses.compact(model="gpt-4o-mini", previous_response_id=first.id)
    assert compacted.object == "response.compaction"
    assert [item.type for item in compacted.output] == ["message", "compaction"]
    compaction = compacted.output[1]
    assert compaction.type == "compaction"
    assert compaction.encrypted_content.startswith("gAAAAAB")
    # The SDK types compacted user messages as output messages: dump without its warnings.
    kept = [item.to_dict(warnings=False) for item in compacted.output]
    follow_up = client.responses.create(
        model="gpt-4o-mini", input=[*kept, {"role": "user", "content": "Go"}]
    )
    alone = client.responses.create(model="gpt-4o-mini", input="Go")
    assert follow_up.usage is not None
    assert alone.usage is not None
    assert follow_up.usage.input_tokens > alone.usage.input_tokens + 10


def test_conversation_crud_and_use_in_create(client: openai.OpenAI) -> None:
    conversation = client.conversations.create(
        items=[{"role": "user", "content": "My name is Ada."}], metadata={"topic": "intro"}
    )
    assert conversation.id.startswith("conv_")
    assert client.conversations.retrieve(conversation.id).metadata == {"topic": "intro"}
    response = client.responses.create(
        model="gpt-4o-mini", conversation=conversation.id, input="What is my name?"
    )
    assert response.conversation is not None
    assert response.conversation.id == conversation.id
    items = client.conversations.items.list(conversation.id, order="asc")
    assert [item.type for item in items.data] == ["message", "message", "message"]
    assert items.data[-1].id == response.output[0].id
    again = client.responses.create(
        model="gpt-4o-mini", conversation={"id": conversation.id}, input="And my age?"
    )
    assert again.usage is not None
    assert response.usage is not None
    assert again.usage.input_tokens > response.usage.input_tokens
    added = client.conversations.items.create(
        conversation.id, items=[{"role": "user", "content": "extra"}]
    )
    item_id = added.data[0].id
    assert client.conversations.items.retrieve(item_id, conversation_id=conversation.id).id == (
        item_id
    )
    client.conversations.items.delete(item_id, conversation_id=conversation.id)
    with pytest.raises(openai.NotFoundError):
        client.conversations.items.retrieve(item_id, conversation_id=conversation.id)
    updated = client.conversations.update(conversation.id, metadata={"topic": "done"})
    assert updated.metadata == {"topic": "done"}
    deleted = client.conversations.delete(conversation.id)
    assert deleted.deleted is True
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model="gpt-4o-mini", conversation=conversation.id, input="x")


def test_previous_response_id_with_conversation_is_a_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(
            model="gpt-4o-mini", previous_response_id="resp_1", conversation="conv_1", input="x"
        )
    assert info.value.code == "mutually_exclusive_parameters"


def test_streamed_retrieval_replays_a_stored_response(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hi", background=True)
    with client.responses.retrieve(created.id, stream=True) as stream:
        events = [event.to_dict() for event in stream]
    final = assert_well_formed(events)
    assert final.id == created.id
    assert client.responses.retrieve(created.id).status == "completed"
    with client.responses.retrieve(created.id, stream=True, starting_after=2) as stream:
        assert next(iter(stream)).sequence_number == 3


@pytest.mark.anyio
async def test_async_client_streams_the_same_events(server: BackgroundServer, api_key: str) -> None:
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key=api_key) as aclient:
        stream = await aclient.responses.create(model="gpt-4o-mini", input="Hi", stream=True)
        events = [event.to_dict() async for event in stream]
    assert_well_formed(events)


def test_reasoning_counts_against_the_output_token_cap(client: openai.OpenAI) -> None:
    """Both APIs cap output tokens *including* reasoning: a model that thinks past the cap
    stops there, with nothing visible to show."""
    capped = client.responses.create(
        model="o4-mini", input="Hi", reasoning={"effort": "high"}, max_output_tokens=300
    )
    assert capped.status == "incomplete"
    assert capped.incomplete_details is not None
    assert capped.incomplete_details.reason == "max_output_tokens"
    assert capped.usage is not None
    assert capped.usage.output_tokens == capped.usage.output_tokens_details.reasoning_tokens == 300
    assert [item.type for item in capped.output] == ["reasoning"]
    chat = client.chat.completions.create(
        model="o4-mini",
        messages=[{"role": "user", "content": "Hi"}],
        reasoning_effort="high",
        max_completion_tokens=100,
    )
    assert chat.choices[0].finish_reason == "length"
    assert chat.choices[0].message.content == ""
    assert chat.usage is not None
    assert chat.usage.completion_tokens == 100
    assert chat.usage.completion_tokens_details is not None
    assert chat.usage.completion_tokens_details.reasoning_tokens == 100


def test_a_tool_output_with_no_call_before_it_is_refused(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(
            model="gpt-4o-mini",
            input=[
                {"role": "user", "content": "Weather?"},
                {"type": "function_call_output", "call_id": "call_orphan", "output": "sunny"},
            ],
        )
    assert info.value.message.endswith(
        "No tool call found for function call output with call_id call_orphan."
    )
    assert info.value.param == "input"


def test_a_call_left_unanswered_is_refused_on_the_next_turn(client: openai.OpenAI) -> None:
    tool: Any = {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    first = client.responses.create(
        model="gpt-4o-mini", input="Weather in Paris?", tools=[tool], tool_choice="required"
    )
    [call] = [item for item in first.output if item.type == "function_call"]
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(
            model="gpt-4o-mini", input="Never mind.", previous_response_id=first.id
        )
    assert info.value.body == {
        "message": f"No tool output found for function call {call.call_id}.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
    answered = client.responses.create(
        model="gpt-4o-mini",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}],
    )
    assert answered.status == "completed"
    with pytest.raises(openai.BadRequestError, match="No tool output found for function call"):
        client.responses.create(  # the same, sent whole: a call with no output after it
            model="gpt-4o-mini",
            input=[
                {"role": "user", "content": "Weather?"},
                {
                    "type": "function_call",
                    "call_id": "call_x",
                    "name": "get_weather",
                    "arguments": "{}",
                },
                {"role": "user", "content": "Never mind."},
            ],
        )


def test_a_model_that_does_not_reason_refuses_a_reasoning_summary(client: openai.OpenAI) -> None:
    """gpt-4o-mini has no reasoning: asking it for a summary is the API's 400, not a reasoning
    item and hundreds of billed reasoning tokens."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model="gpt-4o-mini", input="Hi", reasoning={"summary": "auto"})
    assert refused.value.code == "unsupported_parameter"
    assert refused.value.param == "reasoning.summary"
