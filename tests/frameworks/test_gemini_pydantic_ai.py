"""pydantic-ai's Google model (``GoogleModel`` over google-genai) against the server's Gemini
API: a reply, and an agent's tool loop ending in its structured output."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from google import genai
from google.genai import types
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

pytest.importorskip("pydantic_ai")
from pydantic_ai import Agent
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.usage import UsageLimits

pytestmark = [
    pytest.mark.anyio,
    # google-genai subclasses aiohttp's ClientSession, which aiohttp warns about
    pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning"),
]


class Forecast(BaseModel):
    city: str
    temperature_c: float
    summary: str


@pytest.fixture
async def provider(server: BackgroundServer, api_key: str) -> AsyncIterator[GoogleProvider]:
    """The provider over a google-genai client of the test's own, closed after (its async
    side's connections too)."""
    client = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=server.url))
    yield GoogleProvider(client=client)
    await client.aio.aclose()
    client.close()


async def test_an_agent_replies_in_text(provider: GoogleProvider) -> None:
    agent: Agent[None, str] = Agent(GoogleModel("gemini-2.5-flash", provider=provider))
    result = await agent.run("What is sourdough?")
    assert len(result.output.split()) > 3
    assert result.usage.input_tokens > 0


async def test_an_agent_calls_its_tool_then_gives_the_structured_output(
    provider: GoogleProvider, calls: Any
) -> None:
    agent = Agent(
        GoogleModel("gemini-3-flash-preview", provider=provider),
        output_type=Forecast,
        instructions="Answer with the forecast.",
    )
    cities: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        cities.append(city)
        return f"21 °C and sunny in {city}"

    result = await agent.run(
        "What's the weather in Paris?", usage_limits=UsageLimits(request_limit=4)
    )
    assert isinstance(result.output, Forecast)
    assert len(cities) == 1
    journal = calls()
    assert [c["status"] for c in journal] == [200, 200]  # the tool call, then final_result
    assert {c["api"] for c in journal} == {"gemini"}
