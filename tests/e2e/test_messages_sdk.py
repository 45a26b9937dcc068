"""The official ``anthropic`` SDK against a real server: messages whole and streamed (its stream
helpers), tool loops, thinking, stop sequences, token limits, refusals, structured output,
count_tokens and the model list — and both generations of its headers."""

from __future__ import annotations

import json

import anthropic
import httpx
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer
from tests.support.scenarios import use_scenario

MODEL = "claude-sonnet-4-6"
HELLO = [{"role": "user", "content": "Hello there"}]
WEATHER = {
    "name": "get_weather",
    "description": "The current weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
        "required": ["city"],
    },
}
TIME = {
    "name": "get_time",
    "description": "The local time in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def test_a_message_is_read_by_the_sdk(claude: anthropic.Anthropic) -> None:
    message = claude.messages.create(model=MODEL, max_tokens=200, messages=HELLO)
    assert message.id.startswith("msg_01")
    assert message.type == "message"
    assert message.role == "assistant"
    assert message.model == MODEL
    assert message.stop_reason == "end_turn"
    assert message.stop_sequence is None
    (block,) = message.content
    assert block.type == "text"
    assert block.text
    assert message.usage.input_tokens > 0
    assert message.usage.output_tokens > 0
    assert message.usage.cache_creation_input_tokens == 0
    assert message.usage.cache_read_input_tokens == 0
    assert message.usage.service_tier == "standard"


def test_the_answer_carries_anthropics_headers(claude: anthropic.Anthropic) -> None:
    raw = claude.messages.with_raw_response.create(model=MODEL, max_tokens=50, messages=HELLO)
    headers = raw.headers
    assert headers["request-id"].startswith("req_011C")
    assert raw.request_id == headers["request-id"]
    for kind in ("requests", "tokens", "input-tokens", "output-tokens"):
        assert int(headers[f"anthropic-ratelimit-{kind}-limit"]) > 0
        assert int(headers[f"anthropic-ratelimit-{kind}-remaining"]) >= 0
        assert headers[f"anthropic-ratelimit-{kind}-reset"].endswith("Z")
    assert "x-request-id" not in headers
    assert raw.parse().content


@pytest.mark.anyio
async def test_the_async_client_gets_the_same_answer(
    server: BackgroundServer, api_key: str, claude: anthropic.Anthropic
) -> None:
    async with anthropic.AsyncAnthropic(
        base_url=server.url, api_key=api_key + "-async", max_retries=0
    ) as sdk:
        first = await sdk.messages.create(model=MODEL, max_tokens=200, messages=HELLO)
        async with sdk.messages.stream(model=MODEL, max_tokens=200, messages=HELLO) as stream:
            streamed = "".join([text async for text in stream.text_stream])
            final = await stream.get_final_message()
    same = claude.messages.create(model=MODEL, max_tokens=200, messages=HELLO)
    assert first.content[0].text == same.content[0].text
    assert streamed == final.content[0].text == first.content[0].text


def test_the_stream_helper_builds_the_message_the_create_call_returns(
    claude: anthropic.Anthropic,
) -> None:
    whole = claude.messages.create(model=MODEL, max_tokens=300, messages=HELLO)
    with claude.messages.stream(model=MODEL, max_tokens=300, messages=HELLO) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert len(pieces) > 1
    assert "".join(pieces) == final.content[0].text
    assert final.content[0].text == whole.content[0].text
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == whole.usage.output_tokens
    assert final.usage.input_tokens == whole.usage.input_tokens


def test_raw_events_come_in_the_apis_order(claude: anthropic.Anthropic) -> None:
    events = list(claude.messages.create(model=MODEL, max_tokens=100, messages=HELLO, stream=True))
    kinds = [event.type for event in events]
    assert kinds[0] == "message_start"
    assert kinds[1] == "content_block_start"
    assert set(kinds[2:-3]) == {"content_block_delta"}
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]


def tool_loop(claude: anthropic.Anthropic, **options: object) -> list[anthropic.types.Message]:
    """Run the agent loop to its end (at most four turns), answering every call."""
    messages: list[dict[str, object]] = [
        {"role": "user", "content": "What is the weather and the time in Paris?"}
    ]
    turns = []
    for _ in range(4):
        message = claude.messages.create(
            model=MODEL,
            max_tokens=3000,
            tools=[WEATHER, TIME],
            messages=messages,
            **options,
        )
        turns.append(message)
        if message.stop_reason != "tool_use":
            return turns
        calls = [block for block in message.content if block.type == "tool_use"]
        assert calls
        messages.append({"role": "assistant", "content": message.content})
        results = [
            {"type": "tool_result", "tool_use_id": call.id, "content": f"{call.name}: fine"}
            for call in calls
        ]
        messages.append({"role": "user", "content": results})
    raise AssertionError("the tool loop did not converge")


def test_a_tool_loop_converges_as_chats_does(claude: anthropic.Anthropic) -> None:
    turns = tool_loop(claude)
    assert len(turns) == 2
    first, last = turns
    calls = [b for b in first.content if b.type == "tool_use"]
    assert {c.name for c in calls} == {"get_weather", "get_time"}  # parallel, as asked
    for call in calls:
        assert call.id.startswith("toolu_01")
        assert isinstance(call.input, dict)
    weather = next(c for c in calls if c.name == "get_weather")
    assert isinstance(weather.input["city"], str)
    assert last.stop_reason == "end_turn"
    assert last.content[0].type == "text"


def test_disable_parallel_tool_use_makes_one_call_per_turn(claude: anthropic.Anthropic) -> None:
    turns = tool_loop(claude, tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    for turn in turns[:-1]:
        assert len([b for b in turn.content if b.type == "tool_use"]) == 1
    assert turns[-1].stop_reason == "end_turn"


def test_a_named_tool_is_called(claude: anthropic.Anthropic) -> None:
    message = claude.messages.create(
        model=MODEL,
        max_tokens=500,
        tools=[WEATHER, TIME],
        tool_choice={"type": "tool", "name": "get_time"},
        messages=HELLO,
    )
    assert message.stop_reason == "tool_use"
    assert [b.name for b in message.content if b.type == "tool_use"] == ["get_time"]


def test_tool_choice_none_answers_in_text(claude: anthropic.Anthropic) -> None:
    message = claude.messages.create(
        model=MODEL,
        max_tokens=500,
        tools=[WEATHER],
        tool_choice={"type": "none"},
        messages=[{"role": "user", "content": "Weather in Paris?"}],
    )
    assert message.stop_reason == "end_turn"
    assert [b.type for b in message.content] == ["text"]


def test_a_streamed_tool_call_joins_to_its_input(claude: anthropic.Anthropic) -> None:
    with claude.messages.stream(
        model=MODEL,
        max_tokens=500,
        tools=[WEATHER],
        messages=[{"role": "user", "content": "weather in Oslo?"}],
    ) as stream:
        fragments = [event.partial_json for event in stream if event.type == "input_json"]
        final = stream.get_final_message()
    (call,) = [b for b in final.content if b.type == "tool_use"]
    assert fragments
    assert json.loads("".join(fragments)) == call.input
    assert final.stop_reason == "tool_use"


def test_thinking_blocks_come_first_with_a_signature_and_continue_a_tool_loop(
    claude: anthropic.Anthropic,
) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    with claude.messages.stream(
        model=MODEL,
        max_tokens=4000,
        thinking=thinking,
        tools=[WEATHER],
        messages=[{"role": "user", "content": "What's the weather in Rome?"}],
    ) as stream:
        thoughts = [event.thinking for event in stream if event.type == "thinking"]
        final = stream.get_final_message()
    first = final.content[0]
    assert first.type == "thinking"
    assert first.signature
    assert "".join(thoughts) == first.thinking
    assert final.usage.output_tokens_details is not None
    assert 0 < final.usage.output_tokens_details.thinking_tokens <= 1024
    (call,) = [b for b in final.content if b.type == "tool_use"]
    again = claude.messages.create(
        model=MODEL,
        max_tokens=4000,
        thinking=thinking,
        tools=[WEATHER],
        messages=[
            {"role": "user", "content": "What's the weather in Rome?"},
            {"role": "assistant", "content": final.content},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "hot"}],
            },
        ],
    )
    assert again.content[0].type == "thinking"
    assert again.stop_reason == "end_turn"


def test_adaptive_thinking_with_display_omitted_keeps_only_the_signature(
    claude: anthropic.Anthropic,
) -> None:
    message = claude.messages.create(
        model=MODEL,
        max_tokens=4000,
        thinking={"type": "adaptive", "display": "omitted"},
        messages=HELLO,
    )
    first = message.content[0]
    assert first.type == "thinking"
    assert first.thinking == ""
    assert first.signature


SCRIPTED = """
rules:
  - id: stopper
    when: {last_user: {contains: count}}
    reply: {text: "one two three END four five"}
  - id: refuse
    when: {last_user: {contains: malware}}
    reply:
      refusal: I can't help with that.
      refusal_details: {category: cyber, explanation: It could enable malware.}
  - id: redacted
    when: {last_user: {contains: secret}}
    reply:
      text: Done.
      reasoning: {text: hidden, tokens: 40, redacted: true}
"""


def test_a_stop_sequence_is_named_where_it_stopped(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(control, SCRIPTED)
    message = claude.messages.create(
        model=MODEL,
        max_tokens=100,
        stop_sequences=["END"],
        messages=[{"role": "user", "content": "count"}],
    )
    assert message.stop_reason == "stop_sequence"
    assert message.stop_sequence == "END"
    assert message.content[0].text == "one two three "
    with claude.messages.stream(
        model=MODEL,
        max_tokens=100,
        stop_sequences=["END"],
        messages=[{"role": "user", "content": "count"}],
    ) as stream:
        final = stream.get_final_message()
    assert (final.stop_reason, final.stop_sequence) == ("stop_sequence", "END")


def test_max_tokens_cuts_the_message(claude: anthropic.Anthropic) -> None:
    message = claude.messages.create(model=MODEL, max_tokens=3, messages=HELLO)
    assert message.stop_reason == "max_tokens"
    assert message.usage.output_tokens == 3


def test_a_refusal_says_why(claude: anthropic.Anthropic, control: httpx.Client) -> None:
    use_scenario(control, SCRIPTED)
    asked = [{"role": "user", "content": "write malware"}]
    message = claude.messages.create(model=MODEL, max_tokens=100, messages=asked)
    assert message.stop_reason == "refusal"
    assert message.stop_details is not None
    assert message.stop_details.category == "cyber"
    assert message.stop_details.explanation == "It could enable malware."
    with claude.messages.stream(model=MODEL, max_tokens=100, messages=asked) as stream:
        final = stream.get_final_message()
    assert final.stop_details == message.stop_details


def test_redacted_thinking_arrives_whole(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(control, SCRIPTED)
    with claude.messages.stream(
        model=MODEL,
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[{"role": "user", "content": "tell me a secret"}],
    ) as stream:
        final = stream.get_final_message()
    first = final.content[0]
    assert first.type == "redacted_thinking"
    assert first.data
    assert final.content[1].type == "text"


class Weather(BaseModel):
    city: str
    celsius: int


def test_structured_output_parses_into_the_type(claude: anthropic.Anthropic) -> None:
    parsed = claude.messages.parse(
        model=MODEL,
        max_tokens=500,
        output_format=Weather,
        messages=[{"role": "user", "content": "Weather in Lisbon as JSON"}],
    )
    assert isinstance(parsed.parsed_output, Weather)
    assert parsed.parsed_output.city


def test_count_tokens_says_what_the_message_reports(claude: anthropic.Anthropic) -> None:
    conversation = {
        "model": MODEL,
        "system": "You are terse.",
        "tools": [WEATHER],
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
    }
    counted = claude.messages.count_tokens(**conversation)
    message = claude.messages.create(max_tokens=300, **conversation)
    assert counted.input_tokens == message.usage.input_tokens > 0


def test_count_tokens_with_beta_true_as_claude_code_sends_it(
    server: BackgroundServer, api_key: str
) -> None:
    answer = httpx.post(
        server.url + "/v1/messages/count_tokens?beta=true",
        json={"model": MODEL, "messages": HELLO},
        headers={"x-api-key": api_key, "anthropic-version": "2023-06-01"},
    )
    assert answer.status_code == 200
    assert answer.json() == {"input_tokens": answer.json()["input_tokens"]}
    assert answer.json()["input_tokens"] > 0
    assert answer.headers["request-id"].startswith("req_011C")


def test_the_model_list_pages_as_the_api_does(claude: anthropic.Anthropic) -> None:
    page = claude.models.list(limit=3)
    assert len(page.data) == 3
    assert page.has_more
    assert page.first_id == page.data[0].id
    assert page.last_id == page.data[-1].id
    everything = list(claude.models.list(limit=3))  # the SDK follows after_id
    assert len(everything) > 3
    assert len({m.id for m in everything}) == len(everything)
    created = [m.created_at for m in everything]
    assert created == sorted(created, reverse=True)  # newest first
    back = claude.models.list(limit=2, before_id=everything[4].id)
    assert [m.id for m in back.data] == [everything[2].id, everything[3].id]
    model = claude.models.retrieve(everything[0].id)
    assert model.display_name.startswith("Claude")
    with pytest.raises(anthropic.NotFoundError):
        claude.models.retrieve("gpt-4o")


def test_openais_clients_still_get_openais_model_list(
    server: BackgroundServer, api_key: str
) -> None:
    listed = httpx.get(server.base_url + "/models", headers={"Authorization": f"Bearer {api_key}"})
    assert listed.json()["object"] == "list"


def test_both_header_generations_name_the_same_namespace(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    """The SDK's 2.x line sends ``Authorization: Bearer`` and its own API version; older
    clients send ``x-api-key`` and ``2023-06-01``: either names the key's namespace."""
    with anthropic.Anthropic(base_url=server.url, api_key=api_key, max_retries=0) as sdk:
        raw = sdk.messages.with_raw_response.create(model=MODEL, max_tokens=50, messages=HELLO)
    sent = raw.http_request.headers
    assert sent["authorization"] == f"Bearer {api_key}"
    assert sent["anthropic-version"] == anthropic._constants.ANTHROPIC_API_VERSION
    older = httpx.post(
        server.url + "/v1/messages",
        json={"model": MODEL, "max_tokens": 50, "messages": HELLO, "temperature": 0.2},
        headers={
            "x-api-key": api_key,
            "anthropic-version": "2023-06-01",
            "anthropic-beta": "interleaved-thinking-2025-05-14,some-future-beta-2027-01-01",
        },
    )
    assert older.status_code == 200, older.text
    calls = control.get("/calls").json()["data"]
    assert [(c["path"], c["status"], c["api"]) for c in calls] == [
        ("/v1/messages", 200, "messages"),
        ("/v1/messages", 200, "messages"),
    ]


def test_images_and_documents_count_in_input_tokens(claude: anthropic.Anthropic) -> None:
    plain = claude.messages.count_tokens(
        model=MODEL, messages=[{"role": "user", "content": "Describe"}]
    )
    with_image = claude.messages.count_tokens(
        model=MODEL,
        messages=[
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.test/a.png"},
                    },
                    {"type": "text", "text": "Describe"},
                ],
            }
        ],
    )
    assert with_image.input_tokens > plain.input_tokens + 1000
