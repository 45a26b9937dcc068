"""langchain-google-genai against the server's Gemini API: a reply, a tool loop on a model
that requires its thought signatures back, and structured output."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

pytest.importorskip("langchain_google_genai")
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI


class Forecast(BaseModel):
    city: str
    temperature_c: float


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"21 °C in {city}"


def chat(server: BackgroundServer, api_key: str, model: str) -> ChatGoogleGenerativeAI:
    return ChatGoogleGenerativeAI(
        model=model, google_api_key=api_key, base_url=server.url, max_retries=0
    )


def test_a_reply_comes_back_with_its_usage(server: BackgroundServer, api_key: str) -> None:
    reply = chat(server, api_key, "gemini-2.5-flash").invoke("What is sourdough?")
    assert isinstance(reply.content, str)
    assert len(reply.content.split()) > 3
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] > 0


def test_a_tool_loop_converges_with_its_thought_signatures_sent_back(
    server: BackgroundServer, api_key: str, calls: Any
) -> None:
    model = chat(server, api_key, "gemini-3-flash-preview").bind_tools([get_weather])
    messages: list[BaseMessage] = [HumanMessage("What is the weather in Paris?")]
    for _ in range(4):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            messages.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    final = messages[-1]
    assert isinstance(final, AIMessage)
    assert not final.tool_calls
    assert final.text  # Gemini 3's content is a list of blocks: its text joined
    journal = calls()
    assert len(journal) >= 2
    assert {c["status"] for c in journal} == {200}  # no 400 for a signature left out


def test_structured_output_fits_the_model(server: BackgroundServer, api_key: str) -> None:
    structured = chat(server, api_key, "gemini-2.5-flash").with_structured_output(Forecast)
    forecast = structured.invoke("The forecast for Paris, please.")
    assert isinstance(forecast, Forecast)
