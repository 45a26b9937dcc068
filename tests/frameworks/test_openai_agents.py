"""The OpenAI Agents SDK with a tool and an output type, on its Responses and Chat models:
the run ends with a valid output, with the tool called once (``tool_choice: required`` too)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

agents = pytest.importorskip("agents")
from agents import (  # noqa: E402
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
)

pytestmark = pytest.mark.anyio


class Forecast(BaseModel):
    city: str
    temperature_c: float


@pytest.fixture
async def client(server: BackgroundServer, api_key: str) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key=api_key, max_retries=0
    ) as client:
        yield client


def model(kind: str, client: openai.AsyncOpenAI) -> Any:
    if kind == "responses":
        return OpenAIResponsesModel(model="gpt-4o-mini", openai_client=client)
    return OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)


@pytest.mark.parametrize("kind", ["responses", "chat"])
@pytest.mark.parametrize("tool_choice", [None, "required"])
async def test_a_run_with_an_output_type_ends_with_a_valid_output(
    client: openai.AsyncOpenAI, calls: Any, kind: str, tool_choice: str | None
) -> None:
    cities: list[str] = []

    @function_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        cities.append(city)
        return f"21 degrees in {city}"

    agent = Agent(
        name="forecaster",
        instructions="Use get_weather, then give the forecast.",
        tools=[get_weather],
        output_type=Forecast,
        model=model(kind, client),
        model_settings=ModelSettings(tool_choice=tool_choice),
    )
    result = await Runner.run(
        agent, "Weather in Lisbon?", max_turns=4, run_config=RunConfig(tracing_disabled=True)
    )
    assert isinstance(result.final_output, Forecast)
    assert len(cities) == 1
    assert len(calls()) == 2
