"""boto3's ``bedrock-runtime`` against the plugin's server: ``mockserver.bedrock_client()``, the
variables the session option and ``mockserver_env`` set for a client made elsewhere, and a
failed test's report of its Bedrock calls."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable

import pytest
from botocore.exceptions import ClientError

from pytest_mockserver import MockServer
from tests.plugin.conftest import block

Run = Callable[..., pytest.RunResult]

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
WEATHER = {
    "toolSpec": {
        "name": "get_weather",
        "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
}


def user(text: str) -> list[dict[str, object]]:
    return [{"role": "user", "content": [{"text": text}]}]


def test_the_handle_gives_a_boto3_client_in_its_namespace(mockserver: MockServer) -> None:
    mockserver.on(provider="aws", last_user="capital of France?").reply(text="Paris.")
    bedrock = mockserver.bedrock_client()
    answer = bedrock.converse(modelId=MODEL, messages=user("capital of France?"))
    assert answer["output"]["message"]["content"] == [{"text": "Paris."}]
    [call] = mockserver.calls
    assert (call.api, call.rule, call.model) == ("converse", "inline-1", MODEL)
    assert call.last_user == "capital of France?"
    assert call.path == f"/model/{MODEL}/converse"


def test_its_streams_and_tool_calls_land_there_too(mockserver: MockServer) -> None:
    mockserver.on(tools_offered=["get_weather"]).reply(
        tool_calls=[{"name": "get_weather", "arguments": {"city": "Oslo"}}]
    )
    mockserver.on(last_user="count").reply(text="one two three")
    bedrock = mockserver.bedrock_client()
    events = bedrock.converse_stream(modelId=MODEL, messages=user("count"))["stream"]
    deltas = [e["contentBlockDelta"]["delta"]["text"] for e in events if "contentBlockDelta" in e]
    assert "".join(deltas) == "one two three"
    answer = bedrock.converse(
        modelId=MODEL, messages=user("weather?"), toolConfig={"tools": [WEATHER]}
    )
    assert answer["stopReason"] == "tool_use"
    [block_] = answer["output"]["message"]["content"]
    assert (block_["toolUse"]["name"], block_["toolUse"]["input"]) == (
        "get_weather",
        {"city": "Oslo"},
    )
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "count"}],
    }
    invoked = bedrock.invoke_model(modelId=MODEL, body=json.dumps(body))
    assert json.loads(invoked["body"].read())["content"] == [
        {"type": "text", "text": "one two three"}
    ]
    assert [(c.api, c.rule, c.stream) for c in mockserver.calls] == [
        ("converse", "inline-2", True),
        ("converse", "inline-1", False),
        ("invoke", "inline-2", False),
    ]


def test_its_config_goes_to_botocore(mockserver: MockServer) -> None:
    mockserver.on(last_user="busy?").fail("rate_limited")
    bedrock = mockserver.bedrock_client(retries={"mode": "standard", "total_max_attempts": 1})
    with pytest.raises(ClientError) as refused:
        bedrock.converse(modelId=MODEL, messages=user("busy?"))
    error = refused.value.response
    assert (error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        "ThrottlingException",
        429,
    )
    assert len(mockserver.calls) == 1  # one attempt: no retry


def test_bedrock_clients_are_closed_at_teardown(
    mockserver: MockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bedrock = mockserver.bedrock_client()
    closed: list[bool] = []
    monkeypatch.setattr(bedrock, "close", lambda: closed.append(True))
    mockserver.close()
    assert closed == [True]


def test_without_boto3_it_says_what_to_install(
    mockserver: MockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "boto3" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ModuleNotFoundError, match="need the boto3 package: pip install boto3"):
        mockserver.bedrock_client()


APP = """
import boto3

client = boto3.client("bedrock-runtime")  # at import time: endpoint, credentials, region


def ask(question, *, on=client):
    answer = on.converse(
        modelId="amazon.nova-lite-v1:0",
        messages=[{"role": "user", "content": [{"text": question}]}],
    )
    return answer["output"]["message"]["content"][0]["text"]
"""

TESTS = """
import os

import boto3

import app


def test_the_import_time_client_talks_to_the_session_server(mockserver):
    mockserver.on(last_user="capital of Spain?").reply(text="Madrid.")
    assert app.ask("capital of Spain?") == "Madrid."
    assert [c.api for c in mockserver.calls] == ["converse"]
    assert app.client.meta.region_name == "us-east-1"


def test_no_real_credential_is_left_in_place(mockserver):
    assert os.environ["AWS_ACCESS_KEY_ID"] == mockserver.api_key
    root = os.environ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"]
    assert root == mockserver.root_url == os.environ["AWS_BEDROCK_RUNTIME_ENDPOINT"]
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == "mockserver-secret"
    assert os.environ["AWS_REGION"] == os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
    for gone in ("AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"):
        assert gone not in os.environ


def test_mockserver_env_points_a_new_client_at_the_tests_namespace(mockserver_env):
    mockserver_env.on(last_user="capital of Peru?").reply(text="Lima.")
    assert os.environ["AWS_ACCESS_KEY_ID"] == mockserver_env.api_key
    client = boto3.client("bedrock-runtime")
    try:
        assert app.ask("capital of Peru?", on=client) == "Lima."
    finally:
        client.close()
    [call] = mockserver_env.calls
    assert call.rule == "inline-1"
"""


def test_bedrock_clients_made_elsewhere_reach_the_tests_namespace(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "http://127.0.0.1:9",  # a closed local port
        "AWS_ACCESS_KEY_ID": "AKIAREALLOOKINGKEY00",
        "AWS_SECRET_ACCESS_KEY": "real-looking-secret",
        "AWS_SESSION_TOKEN": "real-looking-session-token",
        "AWS_BEARER_TOKEN_BEDROCK": "real-looking-bedrock-api-key",
        "AWS_DEFAULT_REGION": "eu-west-3",
    }
    for name, value in before.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest("import app  # noqa: F401\n")
    result = run("-p", "no:randomly", "--mockserver-env")
    result.assert_outcomes(passed=3)
    assert any(
        line.startswith("mockserver: AWS_ENDPOINT_URL_BEDROCK_RUNTIME=http://127.0.0.1:")
        for line in result.outlines
    )
    assert {name: os.environ.get(name) for name in before} == before
    assert "AWS_REGION" not in os.environ


STRICT = """
import pytest

MODEL = "amazon.nova-lite-v1:0"


@pytest.mark.mockserver(strict=True)
def test_unexpected(mockserver):
    mockserver.on(id="expected", last_user="expected").reply(text="ok")
    bedrock = mockserver.bedrock_client(retries={"total_max_attempts": 1})
    bedrock.converse(modelId=MODEL, messages=[{"role": "user", "content": [{"text": "surprise"}]}])
"""


def test_a_failed_tests_report_lists_its_bedrock_calls(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_strict=STRICT)
    result = run()
    result.assert_outcomes(failed=1)
    header = next(line for line in result.outlines if line.startswith("1 request in namespace"))
    assert header.startswith("1 request in namespace 'sk-mock-test_unexpected-")
    section = block(result.outlines, header)
    assert section[1].startswith(
        "  call 1: converse amazon.nova-lite-v1:0, last user 'surprise' → no rule matched (strict)"
    )
    assert section[2:] == [
        "    - rule 'expected': last user message 'surprise' does not equal 'expected'"
    ]
