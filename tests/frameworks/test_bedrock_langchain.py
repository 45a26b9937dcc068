"""langchain-aws against the server's Bedrock Runtime, through boto3: ``ChatBedrockConverse``
(a reply with its usage, a stream, a tool loop, structured output) and ``ChatBedrock`` on
InvokeModel; the access key id names the namespace."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer
from tests.support.bedrock import access_key_for
from tests.support.scenarios import use_scenario

pytest.importorskip("langchain_aws")
import httpx
from langchain_aws import ChatBedrock, ChatBedrockConverse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
SCRIPTED = """
rules:
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: It is 21 degrees in Paris.}
  - id: weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: hello
    when: {last_user: {contains: hello}}
    reply: {text: Hello from Bedrock.}
"""


class Forecast(BaseModel):
    city: str
    temperature_c: float


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"21 °C in {city}"


@pytest.fixture
def api_key(request: pytest.FixtureRequest) -> str:
    """The test's namespace, as an access key id (``control`` and ``calls`` speak for it)."""
    return access_key_for(request.node.nodeid)


@pytest.fixture(autouse=True)
def scripted(control: httpx.Client) -> None:
    use_scenario(control, SCRIPTED)


def credentials(server: BackgroundServer, api_key: str) -> dict[str, Any]:
    return {
        "model": MODEL,
        "region_name": "us-east-1",
        "endpoint_url": server.url,
        "aws_access_key_id": api_key,
        "aws_secret_access_key": "mockserver-secret",
    }


def test_a_reply_and_a_stream(server: BackgroundServer, api_key: str, calls: Any) -> None:
    chat = ChatBedrockConverse(**credentials(server, api_key))
    reply = chat.invoke("Say hello.")
    assert reply.content == "Hello from Bedrock."
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] > 0
    chunks = list(chat.stream("Say hello."))
    assert chunks
    assert "".join(chunk.text for chunk in chunks) == "Hello from Bedrock."
    assert [c["path"].rsplit("/", 1)[1] for c in calls()] == ["converse", "converse-stream"]


def test_a_tool_loop_converges(server: BackgroundServer, api_key: str, calls: Any) -> None:
    chat = ChatBedrockConverse(**credentials(server, api_key)).bind_tools([get_weather])
    messages: list[BaseMessage] = [HumanMessage("What is the weather in Paris?")]
    first = chat.invoke(messages)
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    messages.append(first)
    for call in first.tool_calls:
        messages.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    final = chat.invoke(messages)
    assert isinstance(final, AIMessage)
    assert not final.tool_calls
    assert final.text == "It is 21 degrees in Paris."
    assert [c["rule"] for c in calls()] == ["weather", "answer"]


def test_structured_output_fits_the_model(server: BackgroundServer, api_key: str) -> None:
    structured = ChatBedrockConverse(**credentials(server, api_key)).with_structured_output(
        Forecast
    )
    forecast = structured.invoke("The forecast for Paris, please.")
    assert isinstance(forecast, Forecast)


def test_chat_bedrock_invokes_the_model(server: BackgroundServer, api_key: str, calls: Any) -> None:
    given = credentials(server, api_key)
    chat = ChatBedrock(model_id=given.pop("model"), **given)
    reply = chat.invoke("Say hello.")
    assert reply.content == "Hello from Bedrock."
    streamed = "".join(chunk.text for chunk in chat.stream("Say hello."))
    assert streamed == "Hello from Bedrock."
    assert [c["path"].rsplit("/", 1)[1] for c in calls()] == [
        "invoke",
        "invoke-with-response-stream",
    ]
