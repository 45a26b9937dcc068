"""litellm's ``bedrock/…`` models against the server's Bedrock Runtime: Converse
(``bedrock/converse/…``, and plain ``bedrock/…``, which litellm sends to Converse too) and
InvokeModel (``bedrock/invoke/…``, an Anthropic-on-Bedrock body), signed with SigV4 by litellm
itself, whose access key id names the namespace. The endpoint is ``aws_bedrock_runtime_endpoint``
(or ``api_base``, or litellm's ``AWS_BEDROCK_RUNTIME_ENDPOINT``): litellm builds the URL
``{endpoint}/model/{modelId}/converse`` itself, so the server's root is all it needs."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from pytest_mockserver.env import aws_variables
from tests.support.bedrock import access_key_for
from tests.support.scenarios import use_scenario

pytestmark = [
    pytest.mark.filterwarnings(
        # litellm's own TypedDicts, as pydantic builds their schemas on its import
        "ignore:.*`ReadOnly` qualifier:UserWarning",
    ),
    pytest.mark.filterwarnings(
        # litellm's stream handler reads every attribute of a Bedrock delta, pydantic's
        # deprecated ones too (raised as an error, litellm would end the stream with it)
        "ignore:Accessing the 'model_(computed_)?fields' attribute:DeprecationWarning",
    ),
]

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
#: litellm's routes: Converse by name, its default (Converse, for this model), InvokeModel.
ROUTES = {"converse": "bedrock/converse/", "default": "bedrock/", "invoke": "bedrock/invoke/"}
SCRIPTED = """
rules:
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: It is 3 degrees in Oslo.}
  - id: weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited, retry_after: 2}}
  - id: hello
    reply: {text: Hello from Bedrock.}
"""
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


@pytest.fixture
def api_key(request: pytest.FixtureRequest) -> str:
    """The test's namespace: an access key id (a test's id has ``/``, which a SigV4
    credential cannot carry); ``control`` and ``calls`` speak for it."""
    return access_key_for(request.node.nodeid)


@pytest.fixture(autouse=True)
def scripted(control: httpx.Client) -> None:
    use_scenario(control, SCRIPTED)


def options(server: BackgroundServer, api_key: str, route: str) -> dict[str, Any]:
    return {
        "model": ROUTES[route] + MODEL,
        "aws_bedrock_runtime_endpoint": server.url,
        "aws_access_key_id": api_key,
        "aws_secret_access_key": "mockserver-secret",
        "aws_region_name": "us-east-1",
    }


def paths(calls: Any) -> list[str]:
    return [c["path"].removeprefix(f"/model/{MODEL}/") for c in calls()]


@pytest.mark.parametrize("route", ROUTES)
def test_completion_replies_streamed_or_not(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any, route: str
) -> None:
    ask = [{"role": "user", "content": "Say hello."}]
    said = litellm.completion(messages=ask, **options(server, api_key, route))
    stream = litellm.completion(messages=ask, stream=True, **options(server, api_key, route))
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert said.choices[0].message.content == "Hello from Bedrock."
    assert said.choices[0].finish_reason == "stop"
    assert said.usage.prompt_tokens > 0
    assert streamed == "Hello from Bedrock."
    api = "invoke" if route == "invoke" else "converse"
    stream_path = "invoke-with-response-stream" if route == "invoke" else "converse-stream"
    assert paths(calls) == [api, stream_path]
    assert [c["status"] for c in calls()] == [200, 200]


@pytest.mark.parametrize("route", ["converse", "invoke"])
def test_completion_runs_a_tool_loop(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any, route: str
) -> None:
    given = options(server, api_key, route)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the weather in Oslo?"}]
    first = litellm.completion(messages=messages, tools=TOOLS, **given)
    assert first.choices[0].finish_reason == "tool_calls"
    (call,) = first.choices[0].message.tool_calls
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "get_weather",
        {"city": "Oslo"},
    )
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "3 °C"},
    ]
    final = litellm.completion(messages=messages, tools=TOOLS, **given)
    assert final.choices[0].message.content == "It is 3 degrees in Oslo."
    assert [c["rule"] for c in calls()] == ["weather", "answer"]


def test_a_streamed_tool_call_joins_its_input(
    litellm: Any, server: BackgroundServer, api_key: str
) -> None:
    stream = litellm.completion(
        messages=[{"role": "user", "content": "What is the weather in Oslo?"}],
        tools=TOOLS,
        stream=True,
        **options(server, api_key, "converse"),
    )
    chunks = list(stream)
    assert chunks
    deltas = [d for chunk in chunks for d in chunk.choices[0].delta.tool_calls or []]
    assert deltas
    assert deltas[0].function.name == "get_weather"
    assert json.loads("".join(d.function.arguments or "" for d in deltas)) == {"city": "Oslo"}


def test_a_throttled_call_is_litellms_rate_limit_error(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    with pytest.raises(litellm.RateLimitError) as refused:
        litellm.completion(
            messages=[{"role": "user", "content": "busy?"}],
            num_retries=0,
            **options(server, api_key, "converse"),
        )
    assert refused.value.status_code == 429
    assert [c["status"] for c in calls()] == [429]


def test_api_base_names_the_endpoint_too(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    given = options(server, api_key, "converse")
    given["api_base"] = given.pop("aws_bedrock_runtime_endpoint")
    said = litellm.completion(messages=[{"role": "user", "content": "Hi"}], **given)
    assert said.choices[0].message.content == "Hello from Bedrock."
    assert paths(calls) == ["converse"]


def test_the_plugins_variables_are_enough(
    litellm: Any,
    server: BackgroundServer,
    api_key: str,
    calls: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ``mockserver_env`` sets: litellm needs no endpoint, key or region of its own."""
    for name, value in aws_variables(server.url, api_key).items():
        assert value is not None  # tests/conftest.py left no AWS variable to unset
        monkeypatch.setenv(name, value)
    said = litellm.completion(
        model=ROUTES["converse"] + MODEL, messages=[{"role": "user", "content": "Hi"}]
    )
    assert said.choices[0].message.content == "Hello from Bedrock."
    assert paths(calls) == ["converse"]
