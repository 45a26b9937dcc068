"""An openai-agents Runner with a function tool finishes its loop against the mock.

Both model back-ends the Agents SDK ships are driven: the Responses API one and the Chat
Completions one. Tracing is disabled, so nothing is sent anywhere but the mock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import openai
import pytest
from agents import (
    Agent,
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)

from mockserver.http.server import BackgroundServer

pytestmark = pytest.mark.anyio

CALLS: list[str] = []


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    CALLS.append(city)
    return f"It is 21 degrees and sunny in {city}."


@pytest.fixture
async def client(server: BackgroundServer, api_key: str) -> AsyncIterator[openai.AsyncOpenAI]:
    set_tracing_disabled(True)
    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key=api_key, max_retries=0
    ) as client:
        yield client


def _agent(model: Model) -> Agent:
    return Agent(
        name="weather",
        instructions="Answer weather questions with the get_weather tool.",
        tools=[get_weather],
        model=model,
    )


def _models(client: openai.AsyncOpenAI) -> list[Model]:
    return [
        OpenAIResponsesModel(model="gpt-4o-mini", openai_client=client),
        OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client),
    ]


async def test_runner_calls_the_tool_then_answers_on_both_models(
    client: openai.AsyncOpenAI,
) -> None:
    for model in _models(client):
        CALLS.clear()
        result = await Runner.run(
            _agent(model),
            "What is the weather in Boston?",
            run_config=RunConfig(tracing_disabled=True),
        )
        kinds = [item.type for item in result.new_items]
        assert kinds == ["tool_call_item", "tool_call_output_item", "message_output_item"]
        assert len(CALLS) == 1
        assert isinstance(result.final_output, str)
        assert result.final_output


async def test_streamed_runner_on_the_responses_model(client: openai.AsyncOpenAI) -> None:
    CALLS.clear()
    result = Runner.run_streamed(
        _agent(OpenAIResponsesModel(model="gpt-4o-mini", openai_client=client)),
        "What is the weather in Boston?",
        run_config=RunConfig(tracing_disabled=True),
    )
    kinds = [event.type async for event in result.stream_events()]
    assert "raw_response_event" in kinds
    assert len(CALLS) == 1
    assert result.final_output


async def test_runner_continues_a_stored_chain_with_previous_response_id(
    client: openai.AsyncOpenAI,
) -> None:
    agent = _agent(OpenAIResponsesModel(model="gpt-4o-mini", openai_client=client))
    config = RunConfig(tracing_disabled=True)
    first = await Runner.run(agent, "What is the weather in Boston?", run_config=config)
    assert first.last_response_id is not None
    second = await Runner.run(
        agent, "And in Paris?", previous_response_id=first.last_response_id, run_config=config
    )
    assert second.final_output
