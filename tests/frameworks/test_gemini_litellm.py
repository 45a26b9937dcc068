"""litellm's ``gemini/…`` models against the server's Gemini API (``api_base`` is the API's
root with its version, as litellm appends ``/models/…`` to it): a reply, a stream, a tool loop
whose thought signatures ride in the call ids, and structured output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

pytestmark = pytest.mark.filterwarnings(
    # litellm's own TypedDicts, as pydantic builds their schemas on its import
    "ignore:.*`ReadOnly` qualifier:UserWarning",
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


class Forecast(BaseModel):
    city: str
    temperature_c: float


def options(server: BackgroundServer, api_key: str, model: str) -> dict[str, Any]:
    return {"model": f"gemini/{model}", "api_base": server.url + "/v1beta", "api_key": api_key}


def test_completion_replies_streamed_or_not(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    ask = [{"role": "user", "content": "What is sourdough?"}]
    said = litellm.completion(messages=ask, **options(server, api_key, "gemini-2.5-flash"))
    stream = litellm.completion(
        messages=ask, stream=True, **options(server, api_key, "gemini-2.5-flash")
    )
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert said.choices[0].message.content
    assert said.usage.prompt_tokens > 0
    assert streamed == said.choices[0].message.content
    assert [c["path"].rsplit(":", 1)[1] for c in calls()] == [
        "generateContent",
        "streamGenerateContent",
    ]


def test_completion_runs_a_tool_loop_with_thought_signatures(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    given = options(server, api_key, "gemini-3-flash-preview")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = litellm.completion(messages=messages, tools=TOOLS, tool_choice="required", **given)
    (call,) = first.choices[0].message.tool_calls
    assert "city" in json.loads(call.function.arguments)
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "3 °C"},
    ]
    final = litellm.completion(messages=messages, tools=TOOLS, **given)
    assert final.choices[0].finish_reason == "stop"
    assert final.choices[0].message.content
    assert [c["status"] for c in calls()] == [200, 200]  # the signature went back


def test_structured_output_fits_the_model(
    litellm: Any, server: BackgroundServer, api_key: str
) -> None:
    said = litellm.completion(
        messages=[{"role": "user", "content": "The forecast for Oslo."}],
        response_format=Forecast,
        **options(server, api_key, "gemini-2.5-flash"),
    )
    Forecast.model_validate_json(said.choices[0].message.content)
