"""One scenario file, served as ``serve --scenario`` serves it, answers an OpenAI, an Azure
OpenAI, an Anthropic, a Gemini, a Bedrock and an Ollama client alike with each one's official
SDK: the same scripted text, the
same tool call and the same end of the tool loop, and the same 429 with the same delay (where
the family says one) — each in its own family's shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import anthropic
import ollama
import openai
import pytest
from botocore.exceptions import ClientError
from google import genai
from google.genai import errors, types

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.bedrock import access_key_for, bedrock_client

SCENARIO = """
name: three-families
fallback: strict
rules:
  - id: greet
    when: {last_user: {contains: hello}}
    reply: {text: "Hello from the scenario."}
  - id: weather
    when: {last_user: {contains: weather}, last_role: user, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Boston}}]}
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: "It is 21 °C in Boston."}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited, retry_after: 3}}
"""
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
OPENAI_TOOLS: Any = [
    {"type": "function", "function": {"name": "get_weather", "parameters": PARAMETERS}}
]
ANTHROPIC_TOOLS: Any = [{"name": "get_weather", "input_schema": PARAMETERS}]
BEDROCK_TOOLS: Any = {
    "tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": PARAMETERS}}}]
}


class Family(Protocol):
    """One family's client, asked the same things."""

    def text(self, prompt: str) -> str: ...

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        """The call's name and arguments, then the answer to its result."""
        ...

    def limited(self, prompt: str) -> tuple[int, float | None]:
        """The status of the refusal, and the seconds it says to wait (``None``: it says none)."""
        ...


class OpenAIChat:
    def __init__(self, server: BackgroundServer, key: str) -> None:
        self.client = openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0)

    def text(self, prompt: str) -> str:
        chat = self.client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
        )
        return chat.choices[0].message.content or ""

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        asked: list[Any] = [{"role": "user", "content": prompt}]
        chat = self.client.chat.completions.create(
            model="gpt-4o-mini", messages=asked, tools=OPENAI_TOOLS
        )
        assert chat.choices[0].finish_reason == "tool_calls"
        (call,) = chat.choices[0].message.tool_calls or []
        assert call.type == "function"
        asked += [
            chat.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "21"},
        ]
        after = self.client.chat.completions.create(
            model="gpt-4o-mini", messages=asked, tools=OPENAI_TOOLS
        )
        name, arguments = call.function.name, json.loads(call.function.arguments)
        return name, arguments, after.choices[0].message.content or ""

    def limited(self, prompt: str) -> tuple[int, float]:
        with pytest.raises(openai.RateLimitError) as refused:
            self.text(prompt)
        return refused.value.status_code, float(refused.value.response.headers["retry-after"])


class Azure(OpenAIChat):
    """Azure OpenAI's deployment path, the deployment standing for the model."""

    def __init__(self, server: BackgroundServer, key: str) -> None:
        self.client = openai.AzureOpenAI(
            azure_endpoint=server.url,
            azure_deployment="gpt-4o-mini",
            api_key=key,
            api_version="2024-10-21",
            max_retries=0,
        )


class Ollama:
    model = "llama3.2"

    def __init__(self, server: BackgroundServer, key: str) -> None:
        self.client = ollama.Client(host=server.url, headers={"Authorization": f"Bearer {key}"})

    def text(self, prompt: str) -> str:
        said = self.client.chat(model=self.model, messages=[{"role": "user", "content": prompt}])
        return said.message.content or ""

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        asked: list[Any] = [{"role": "user", "content": prompt}]
        said = self.client.chat(model=self.model, messages=asked, tools=OPENAI_TOOLS)
        (call,) = said.message.tool_calls or []
        asked += [said.message, {"role": "tool", "tool_name": call.function.name, "content": "21"}]
        after = self.client.chat(model=self.model, messages=asked, tools=OPENAI_TOOLS)
        return call.function.name, dict(call.function.arguments), after.message.content or ""

    def limited(self, prompt: str) -> tuple[int, float | None]:
        with pytest.raises(ollama.ResponseError) as refused:
            self.text(prompt)
        return refused.value.status_code, None  # Ollama's errors carry no delay


class Claude:
    def __init__(self, server: BackgroundServer, key: str) -> None:
        self.client = anthropic.Anthropic(base_url=server.url, api_key=key, max_retries=0)

    def text(self, prompt: str) -> str:
        message = self.client.messages.create(
            model="claude-haiku-4-5", max_tokens=100, messages=[{"role": "user", "content": prompt}]
        )
        return "".join(block.text for block in message.content if block.type == "text")

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        asked: list[Any] = [{"role": "user", "content": prompt}]
        message = self.client.messages.create(
            model="claude-haiku-4-5", max_tokens=100, messages=asked, tools=ANTHROPIC_TOOLS
        )
        assert message.stop_reason == "tool_use"
        (use,) = [block for block in message.content if block.type == "tool_use"]
        result = {"type": "tool_result", "tool_use_id": use.id, "content": "21"}
        asked += [
            {"role": "assistant", "content": message.content},
            {"role": "user", "content": [result]},
        ]
        after = self.client.messages.create(
            model="claude-haiku-4-5", max_tokens=100, messages=asked, tools=ANTHROPIC_TOOLS
        )
        said = "".join(block.text for block in after.content if block.type == "text")
        return use.name, dict(use.input), said

    def limited(self, prompt: str) -> tuple[int, float]:
        with pytest.raises(anthropic.RateLimitError) as refused:
            self.text(prompt)
        body = refused.value.body
        assert isinstance(body, dict)
        assert body["error"]["type"] == "rate_limit_error"
        return refused.value.status_code, float(refused.value.response.headers["retry-after"])


class Gemini:
    config = types.GenerateContentConfig(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(name="get_weather", parameters_json_schema=PARAMETERS)
                ]
            )
        ],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )

    def __init__(self, server: BackgroundServer, key: str) -> None:
        self.client = genai.Client(api_key=key, http_options=types.HttpOptions(base_url=server.url))

    def text(self, prompt: str) -> str:
        return (
            self.client.models.generate_content(model="gemini-2.5-flash", contents=prompt).text
            or ""
        )

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        asked: list[Any] = [types.Content(role="user", parts=[types.Part(text=prompt)])]
        answer = self.client.models.generate_content(
            model="gemini-3-flash-preview", contents=asked, config=self.config
        )
        assert answer.candidates is not None
        assert answer.candidates[0].finish_reason == types.FinishReason.STOP
        (call,) = answer.function_calls or []
        result = types.Part.from_function_response(name="get_weather", response={"result": "21"})
        asked += [answer.candidates[0].content, types.Content(role="user", parts=[result])]
        after = self.client.models.generate_content(
            model="gemini-3-flash-preview", contents=asked, config=self.config
        )
        return call.name or "", dict(call.args or {}), after.text or ""

    def limited(self, prompt: str) -> tuple[int, float]:
        with pytest.raises(errors.ClientError) as refused:
            self.text(prompt)
        assert refused.value.status == "RESOURCE_EXHAUSTED"
        assert "retry-after" not in refused.value.response.headers  # the body says when
        (info,) = [
            detail
            for detail in refused.value.details["error"]["details"]
            if detail["@type"] == "type.googleapis.com/google.rpc.RetryInfo"
        ]
        return refused.value.code, float(info["retryDelay"].removesuffix("s"))


class Bedrock:
    model = "us.anthropic.claude-sonnet-4-20250514-v1:0"

    def __init__(self, server: BackgroundServer, key: str) -> None:
        # A SigV4 access key id names the namespace; it cannot carry the test id's "/".
        self.client = bedrock_client(server.url, access_key_for(key))

    def text(self, prompt: str) -> str:
        answer = self.client.converse(
            modelId=self.model, messages=[{"role": "user", "content": [{"text": prompt}]}]
        )
        return "".join(block.get("text", "") for block in answer["output"]["message"]["content"])

    def tool_loop(self, prompt: str) -> tuple[str, dict[str, Any], str]:
        asked: list[Any] = [{"role": "user", "content": [{"text": prompt}]}]
        answer = self.client.converse(modelId=self.model, messages=asked, toolConfig=BEDROCK_TOOLS)
        assert answer["stopReason"] == "tool_use"
        message = answer["output"]["message"]
        (use,) = [block["toolUse"] for block in message["content"] if "toolUse" in block]
        result = {"toolResult": {"toolUseId": use["toolUseId"], "content": [{"text": "21"}]}}
        asked += [message, {"role": "user", "content": [result]}]
        after = self.client.converse(modelId=self.model, messages=asked, toolConfig=BEDROCK_TOOLS)
        said = "".join(block.get("text", "") for block in after["output"]["message"]["content"])
        return use["name"], use["input"], said

    def limited(self, prompt: str) -> tuple[int, float | None]:
        with pytest.raises(ClientError) as refused:
            self.text(prompt)  # one attempt: the test client does not retry
        response = refused.value.response
        assert response["Error"]["Code"] == "ThrottlingException"
        headers = response["ResponseMetadata"]["HTTPHeaders"]
        assert headers["x-amzn-errortype"].startswith("ThrottlingException")
        assert "retry-after" not in headers  # Bedrock says no delay: botocore backs off itself
        return response["ResponseMetadata"]["HTTPStatusCode"], None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    scenario: Path = tmp_path_factory.mktemp("proof") / "three-families.yaml"
    scenario.write_text(SCENARIO)
    server = start_server(scenario=str(scenario))
    yield server
    server.stop()


@pytest.fixture(
    params=[OpenAIChat, Azure, Claude, Gemini, Bedrock, Ollama],
    ids=["openai", "azure", "anthropic", "gemini", "bedrock", "ollama"],
)
def family(
    request: pytest.FixtureRequest, served: BackgroundServer, api_key: str
) -> Iterator[Family]:
    made = request.param(served, api_key)
    yield made
    made.client.close()


def test_the_same_scripted_text(family: Family) -> None:
    assert family.text("hello there") == "Hello from the scenario."


def test_the_same_tool_call_and_the_same_end_of_the_loop(family: Family) -> None:
    assert family.tool_loop("What is the weather?") == (
        "get_weather",
        {"city": "Boston"},
        "It is 21 °C in Boston.",
    )


def test_the_same_429_with_the_same_delay(family: Family) -> None:
    # Bedrock's throttling names no delay; Ollama's error body is its message alone.
    said = None if isinstance(family, Bedrock | Ollama) else 3.0
    assert family.limited("busy now?") == (429, said)
