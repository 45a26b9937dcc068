"""One scenario file answers every family alike: the OpenAI and Gemini clients get the same
scripted text, the same tool call and the same 429, each in its own API's shape."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import openai
import pytest
from google import genai
from google.genai import errors, types

from mockserver.http.server import BackgroundServer

SCENARIO = """
name: every-family
fallback: strict
rules:
  - id: greet
    when: {last_user: {contains: hello}}
    reply: {text: "Hello from the scenario."}
  - id: weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Boston}}]}
  - id: limited
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited, retry_after: 3}}
"""

OPENAI_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
GEMINI_TOOL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            parameters=types.Schema(
                type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}
            ),
        )
    ]
)


@pytest.fixture
def clients(server: BackgroundServer, api_key: str) -> Iterator[tuple[openai.OpenAI, genai.Client]]:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {api_key}"}) as h:
        answer = h.put(
            "/__mockserver/scenario",
            content=SCENARIO,
            headers={"content-type": "application/yaml"},
        )
        assert answer.status_code == 200, answer.text
    gpt = openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0)
    gemini = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=server.url))
    yield gpt, gemini
    gpt.close()
    gemini.close()


def test_the_same_text(clients: tuple[openai.OpenAI, genai.Client]) -> None:
    gpt, gemini = clients
    chat = gpt.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hello"}]
    )
    answer = gemini.models.generate_content(model="gemini-2.5-flash", contents="hello")
    assert chat.choices[0].message.content == "Hello from the scenario."
    assert answer.text == "Hello from the scenario."


def test_the_same_tool_call(clients: tuple[openai.OpenAI, genai.Client]) -> None:
    gpt, gemini = clients
    chat = gpt.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": "weather?"}],
        tools=[OPENAI_TOOL],  # type: ignore[list-item]
    )
    calls = chat.choices[0].message.tool_calls
    assert calls is not None
    assert json.loads(calls[0].function.arguments) == {"city": "Boston"}
    assert chat.choices[0].finish_reason == "tool_calls"
    answer = gemini.models.generate_content(
        model="gemini-2.5-flash",
        contents="weather?",
        config=types.GenerateContentConfig(
            tools=[GEMINI_TOOL],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        ),
    )
    assert answer.function_calls is not None
    assert [(c.name, c.args) for c in answer.function_calls] == [
        ("get_weather", {"city": "Boston"})
    ]
    assert answer.candidates[0].finish_reason == types.FinishReason.STOP


def test_the_same_429(clients: tuple[openai.OpenAI, genai.Client]) -> None:
    gpt, gemini = clients
    with pytest.raises(openai.RateLimitError) as limited:
        gpt.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "busy"}])
    assert limited.value.response.headers["retry-after"] == "3"
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(model="gemini-2.5-flash", contents="busy")
    assert (refused.value.code, refused.value.status) == (429, "RESOURCE_EXHAUSTED")
    details = refused.value.details["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"} in details
    assert "retry-after" not in refused.value.response.headers
