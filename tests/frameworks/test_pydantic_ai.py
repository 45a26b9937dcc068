"""pydantic-ai agents (Chat Completions and Responses models) with a tool and a structured
output: ``tool_choice: required`` over ``[get_weather, final_result]`` ends in three turns."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import openai
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

pydantic_ai = pytest.importorskip("pydantic_ai")
from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402
from pydantic_ai.usage import UsageLimits  # noqa: E402

pytestmark = pytest.mark.anyio


@pytest.fixture
async def provider(server: BackgroundServer, api_key: str) -> AsyncIterator[OpenAIProvider]:
    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key=api_key, max_retries=0
    ) as client:
        yield OpenAIProvider(openai_client=client)


class Forecast(BaseModel):
    city: str
    temperature_c: float
    summary: str


def make_agent(model: Any, cities: list[str]) -> Agent[None, Forecast]:
    agent = Agent(model, output_type=Forecast, instructions="Answer with the forecast.")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        cities.append(city)
        return f"21 °C and sunny in {city}"

    return agent


MODELS: dict[str, Callable[[OpenAIProvider], Any]] = {
    "chat": lambda provider: OpenAIChatModel("gpt-4o-mini", provider=provider),
    "responses": lambda provider: OpenAIResponsesModel("gpt-4o-mini", provider=provider),
}


@pytest.mark.parametrize("api", list(MODELS))
async def test_the_agent_calls_its_tool_then_final_result(
    provider: OpenAIProvider, calls: Any, api: str
) -> None:
    cities: list[str] = []
    result = await make_agent(MODELS[api](provider), cities).run(
        "What's the weather in Paris?", usage_limits=UsageLimits(request_limit=4)
    )
    assert isinstance(result.output, Forecast)
    assert len(cities) == 1
    journal = calls()
    assert len(journal) == 2  # the tool call, then final_result
    assert {c["api"] for c in journal} == {api}
    assert journal[0]["request"]["tool_choice"] == "required"


async def test_the_weather_agent_scenario_serves_pydantic_ais_strict_tool(
    provider: OpenAIProvider, control: httpx.Client, calls: Any
) -> None:
    control.put("/scenario", json={"name": "weather-agent"}).raise_for_status()
    agent: Agent[None, str] = Agent(OpenAIChatModel("gpt-4o-mini", provider=provider))
    cities: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        cities.append(city)
        return "18 °C"

    result = await agent.run("What's the weather like?", usage_limits=UsageLimits(request_limit=3))
    assert cities == ["Boston"]
    assert "18 °C" in result.output
    journal = calls()
    assert [c["rule"] for c in journal] == ["ask-weather", "answer"]
    (tool,) = journal[0]["request"]["tools"]
    assert tool["function"]["strict"] is True
