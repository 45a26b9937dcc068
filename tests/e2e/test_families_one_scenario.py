"""One scenario file answers every family alike: the OpenAI and Gemini clients, and Azure
OpenAI's (its deployments and its v1 API), get the same scripted text, the same tool call and
the same 429, each in its own API's shape; OpenAI's three APIs (Chat Completions, Responses,
legacy Completions) alike on each of OpenAI's and Azure's paths."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

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


RESPONSES_TOOL = {"type": "function", "name": "get_weather", **OPENAI_TOOL["function"]}  # type: ignore[dict-item]


@pytest.fixture
def providers(
    clients: tuple[openai.OpenAI, genai.Client], server: BackgroundServer, api_key: str
) -> Iterator[dict[str, openai.OpenAI]]:
    """OpenAI's client, Azure's on its deployments, and OpenAI's on Azure's v1 API, in the
    namespace the scenario was served to."""
    made = {
        "openai": clients[0],
        "azure": openai.AzureOpenAI(
            azure_endpoint=server.url, api_key=api_key, api_version="2024-10-21", max_retries=0
        ),
        "azure-v1": openai.OpenAI(
            base_url=f"{server.url}/openai/v1/", api_key=api_key, max_retries=0
        ),
    }
    yield made
    made["azure"].close()
    made["azure-v1"].close()


Ask = Callable[[openai.OpenAI, str, bool], Any]


def chat(client: openai.OpenAI, text: str, tools: bool) -> Any:
    extra: dict[str, Any] = {"tools": [OPENAI_TOOL]} if tools else {}
    reply = client.chat.completions.create(
        model="my-model", messages=[{"role": "user", "content": text}], **extra
    )
    message = reply.choices[0].message
    if tools:
        (call,) = message.tool_calls or []
        return call.function.name, json.loads(call.function.arguments)  # type: ignore[union-attr]
    return message.content


def responses(client: openai.OpenAI, text: str, tools: bool) -> Any:
    extra: dict[str, Any] = {"tools": [RESPONSES_TOOL]} if tools else {}
    response = client.responses.create(model="my-model", input=text, **extra)
    if tools:
        (call,) = response.output
        return call.name, json.loads(call.arguments)  # type: ignore[union-attr]
    return response.output_text


def completions(client: openai.OpenAI, text: str, tools: bool) -> Any:
    return client.completions.create(model="my-model", prompt=text, max_tokens=50).choices[0].text


CASES = [
    pytest.param(provider, ask, id=f"{provider}-{ask.__name__}")
    for provider in ("openai", "azure", "azure-v1")
    for ask in (chat, responses, completions)
]
TOOLED = [case for case in CASES if case.values[1] is not completions]


@pytest.mark.parametrize(("provider", "ask"), CASES)
def test_the_same_text_on_every_path(
    providers: dict[str, openai.OpenAI], provider: str, ask: Ask
) -> None:
    assert ask(providers[provider], "hello", False) == "Hello from the scenario."


@pytest.mark.parametrize(("provider", "ask"), TOOLED)
def test_the_same_tool_call_on_every_path(
    providers: dict[str, openai.OpenAI], provider: str, ask: Ask
) -> None:
    assert ask(providers[provider], "weather?", True) == ("get_weather", {"city": "Boston"})


@pytest.mark.parametrize(("provider", "ask"), CASES)
def test_the_same_429_on_every_path(
    providers: dict[str, openai.OpenAI], provider: str, ask: Ask
) -> None:
    with pytest.raises(openai.RateLimitError) as caught:
        ask(providers[provider], "busy", False)
    headers = caught.value.response.headers
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("3", "3000")
