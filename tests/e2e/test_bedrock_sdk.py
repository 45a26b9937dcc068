"""boto3's ``bedrock-runtime`` client against a real server: Converse whole and streamed
(text, tool use, reasoning, guardrails, stop sequences), InvokeModel and its stream with an
Anthropic-on-Bedrock body, and the namespace the signature's access key id names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.bedrock import access_key_for, bedrock_client
from tests.support.scenarios import use_scenario

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
HELLO = [{"role": "user", "content": [{"text": "Hello there"}]}]
WEATHER = {
    "toolSpec": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "inputSchema": {
            "json": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
}
SCRIPTED = """
rules:
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: It is 21 degrees in Paris.}
  - id: weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: think
    when: {last_user: {contains: think}}
    reply: {text: Forty-two., reasoning: {text: Six times seven., tokens: 5}}
  - id: flagged
    when: {last_user: {contains: forbidden}}
    reply: {text: Here is how., moderation: {input: [violence]}}
  - id: refuse
    when: {last_user: {contains: malware}}
    reply: {refusal: I can't help with that.}
  - id: counting
    when: {last_user: {contains: count}}
    reply: {text: "one two three END four five"}
"""


@pytest.fixture
def access_key(request: pytest.FixtureRequest) -> str:
    return access_key_for(request.node.nodeid)


@pytest.fixture
def bedrock(server: BackgroundServer, access_key: str) -> Iterator[Any]:
    client = bedrock_client(server.url, access_key)
    yield client
    client.close()


@pytest.fixture
def aws_control(server: BackgroundServer, access_key: str) -> Iterator[httpx.Client]:
    """The control API for the namespace the access key id names."""
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {access_key}"}
    ) as http:
        yield http


def _text(stream: Any) -> tuple[str, list[dict[str, Any]]]:
    events = list(stream)
    assert events, "the stream sent no events"
    text = "".join(
        e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e
    )
    return text, events


def test_converse_answers_with_a_message(bedrock: Any) -> None:
    answer = bedrock.converse(modelId=MODEL, messages=HELLO, inferenceConfig={"maxTokens": 200})
    assert answer["stopReason"] == "end_turn"
    message = answer["output"]["message"]
    assert message["role"] == "assistant"
    (block,) = message["content"]
    assert block["text"]
    usage = answer["usage"]
    assert usage["inputTokens"] > 0
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"]
    assert answer["metrics"]["latencyMs"] > 0
    request_id = answer["ResponseMetadata"]["RequestId"]
    assert len(request_id) == 36
    assert request_id.count("-") == 4


def test_the_stream_says_what_the_whole_answer_says(bedrock: Any) -> None:
    whole = bedrock.converse(modelId=MODEL, messages=HELLO, inferenceConfig={"maxTokens": 200})
    streamed = bedrock.converse_stream(
        modelId=MODEL, messages=HELLO, inferenceConfig={"maxTokens": 200}
    )
    assert streamed["ResponseMetadata"]["HTTPHeaders"]["content-type"] == (
        "application/vnd.amazon.eventstream"
    )
    text, events = _text(streamed["stream"])
    assert text == whole["output"]["message"]["content"][0]["text"]
    assert events[0] == {"messageStart": {"role": "assistant"}}
    assert events[-2] == {"messageStop": {"stopReason": "end_turn"}}
    metadata = events[-1]["metadata"]
    assert metadata["usage"] == whole["usage"]
    assert metadata["metrics"]["latencyMs"] > 0


def test_a_tool_loop_through_converse(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "What is the weather in Paris?"}]}]
    tools = {"tools": [WEATHER], "toolChoice": {"auto": {}}}
    first = bedrock.converse(modelId=MODEL, messages=asked, toolConfig=tools)
    assert first["stopReason"] == "tool_use"
    (block,) = first["output"]["message"]["content"]
    use = block["toolUse"]
    assert use["name"] == "get_weather"
    assert use["input"] == {"city": "Paris"}
    assert use["toolUseId"].startswith("tooluse_")
    result = {
        "toolResult": {
            "toolUseId": use["toolUseId"],
            "content": [{"json": {"celsius": 21}}],
            "status": "success",
        }
    }
    history = [*asked, first["output"]["message"], {"role": "user", "content": [result]}]
    second = bedrock.converse(modelId=MODEL, messages=history, toolConfig=tools)
    assert second["output"]["message"]["content"] == [{"text": "It is 21 degrees in Paris."}]
    assert second["stopReason"] == "end_turn"


def test_a_streamed_tool_call_starts_its_block_and_spells_its_input(
    bedrock: Any, aws_control: httpx.Client
) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "weather in Paris?"}]}]
    streamed = bedrock.converse_stream(
        modelId=MODEL, messages=asked, toolConfig={"tools": [WEATHER], "toolChoice": {"any": {}}}
    )
    events = list(streamed["stream"])
    starts = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert len(starts) == 1
    assert starts[0]["start"]["toolUse"]["name"] == "get_weather"
    assert starts[0]["start"]["toolUse"]["toolUseId"].startswith("tooluse_")
    fragments = [
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in events
        if "contentBlockDelta" in e
    ]
    assert len(fragments) > 1
    assert json.loads("".join(fragments)) == {"city": "Paris"}
    assert {"messageStop": {"stopReason": "tool_use"}} in events


def test_a_named_tool_choice_must_be_offered(bedrock: Any) -> None:
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as raised:
        bedrock.converse(
            modelId=MODEL,
            messages=HELLO,
            toolConfig={"tools": [WEATHER], "toolChoice": {"tool": {"name": "get_time"}}},
        )
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert "get_time" in raised.value.response["Error"]["Message"]


THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


def test_reasoning_comes_as_reasoning_content(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "think hard"}]}]
    answer = bedrock.converse(modelId=MODEL, messages=asked, additionalModelRequestFields=THINKING)
    reasoning, text = answer["output"]["message"]["content"]
    assert reasoning["reasoningContent"]["reasoningText"]["text"] == "Six times seven."
    assert reasoning["reasoningContent"]["reasoningText"]["signature"]
    assert text == {"text": "Forty-two."}
    streamed = bedrock.converse_stream(
        modelId=MODEL, messages=asked, additionalModelRequestFields=THINKING
    )
    deltas = [e["contentBlockDelta"] for e in streamed["stream"] if "contentBlockDelta" in e]
    thought = [d["delta"]["reasoningContent"] for d in deltas if "reasoningContent" in d["delta"]]
    assert "".join(t.get("text", "") for t in thought) == "Six times seven."
    assert thought[-1] == {"signature": reasoning["reasoningContent"]["reasoningText"]["signature"]}
    assert {d["contentBlockIndex"] for d in deltas if "text" in d["delta"]} == {1}


def test_without_reasoning_asked_the_answer_has_none(
    bedrock: Any, aws_control: httpx.Client
) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "think hard"}]}]
    answer = bedrock.converse(modelId=MODEL, messages=asked)
    assert answer["output"]["message"]["content"] == [{"text": "Forty-two."}]


def test_a_guardrail_intervenes_on_a_flagged_prompt(
    bedrock: Any, aws_control: httpx.Client
) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "something forbidden"}]}]
    guard = {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"}
    answer = bedrock.converse(modelId=MODEL, messages=asked, guardrailConfig=guard)
    assert answer["stopReason"] == "guardrail_intervened"
    assert answer["output"]["message"]["content"] == [
        {"text": "Sorry, the model cannot answer this question."}
    ]
    unguarded = bedrock.converse(modelId=MODEL, messages=asked)
    assert unguarded["output"]["message"]["content"] == [{"text": "Here is how."}]


def test_a_refusal_is_content_filtered(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "write malware"}]}]
    answer = bedrock.converse(modelId=MODEL, messages=asked)
    assert answer["stopReason"] == "content_filtered"
    assert answer["output"]["message"]["content"] == [{"text": "I can't help with that."}]


def test_stop_sequences_and_max_tokens(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(aws_control, SCRIPTED)
    asked = [{"role": "user", "content": [{"text": "count"}]}]
    stopped = bedrock.converse(
        modelId=MODEL, messages=asked, inferenceConfig={"stopSequences": ["END"]}
    )
    assert stopped["stopReason"] == "stop_sequence"
    assert stopped["output"]["message"]["content"] == [{"text": "one two three "}]
    short = bedrock.converse(modelId=MODEL, messages=HELLO, inferenceConfig={"maxTokens": 3})
    assert short["stopReason"] == "max_tokens"
    assert short["usage"]["outputTokens"] == 3


def test_the_system_prompt_is_matched(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(
        aws_control,
        "rules:\n  - when: {system: {contains: pirate}}\n    reply: {text: Arr.}\n",
    )
    answer = bedrock.converse(modelId=MODEL, messages=HELLO, system=[{"text": "You are a pirate."}])
    assert answer["output"]["message"]["content"] == [{"text": "Arr."}]


def test_an_inference_profile_arn_names_the_model(bedrock: Any, aws_control: httpx.Client) -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/" + MODEL
    use_scenario(
        aws_control,
        f"rules:\n  - when: {{api: converse, model: {{equals: '{arn}'}}}}\n"
        "    reply: {text: By the profile.}\n",
    )
    answer = bedrock.converse(modelId=arn, messages=HELLO)
    assert answer["output"]["message"]["content"] == [{"text": "By the profile."}]
    (call,) = aws_control.get("/calls").json()["data"]
    assert call["model"] == arn
    assert call["api"] == "converse"


def test_the_access_key_id_names_the_namespace(server: BackgroundServer, bedrock: Any) -> None:
    other = bedrock_client(server.url, access_key_for("someone else"))
    with httpx.Client(base_url=server.url + "/__mockserver") as http:
        use_scenario_for = access_key_for("someone else")
        answer = http.put(
            "/scenario",
            content="rules:\n  - reply: {text: Only for them.}\n",
            headers={
                "content-type": "application/yaml",
                "authorization": f"Bearer {use_scenario_for}",
            },
        )
        assert answer.status_code == 200
    theirs = other.converse(modelId=MODEL, messages=HELLO)
    other.close()
    ours = bedrock.converse(modelId=MODEL, messages=HELLO)
    assert theirs["output"]["message"]["content"] == [{"text": "Only for them."}]
    assert ours["output"]["message"]["content"] != [{"text": "Only for them."}]


ANTHROPIC_BODY = {
    "anthropic_version": "bedrock-2023-05-31",
    "max_tokens": 200,
    "messages": [{"role": "user", "content": "Hello there"}],
}


def test_invoke_answers_anthropics_message(bedrock: Any) -> None:
    answer = bedrock.invoke_model(modelId=MODEL, body=json.dumps(ANTHROPIC_BODY))
    assert answer["contentType"] == "application/json"
    message = json.loads(answer["body"].read())
    assert message["type"] == "message"
    assert message["id"].startswith("msg_bdrk_01")
    assert message["model"] == "claude-sonnet-4-20250514"
    assert message["stop_reason"] == "end_turn"
    assert message["content"][0]["type"] == "text"
    headers = answer["ResponseMetadata"]["HTTPHeaders"]
    assert int(headers["x-amzn-bedrock-output-token-count"]) == (message["usage"]["output_tokens"])
    assert int(headers["x-amzn-bedrock-input-token-count"]) == message["usage"]["input_tokens"]


def test_invoke_streams_anthropics_own_events_in_chunks(bedrock: Any) -> None:
    whole = json.loads(
        bedrock.invoke_model(modelId=MODEL, body=json.dumps(ANTHROPIC_BODY))["body"].read()
    )
    answer = bedrock.invoke_model_with_response_stream(
        modelId=MODEL, body=json.dumps(ANTHROPIC_BODY)
    )
    assert answer["contentType"] == "application/json"
    events = [json.loads(part["chunk"]["bytes"]) for part in answer["body"]]
    assert events, "no chunks"
    kinds = [event["type"] for event in events]
    assert kinds[0] == "message_start"
    assert kinds[-1] == "message_stop"
    assert "ping" not in kinds
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == whole["content"][0]["text"]
    metrics = events[-1]["amazon-bedrock-invocationMetrics"]
    assert metrics["outputTokenCount"] == whole["usage"]["output_tokens"]


def test_the_anthropic_sdks_bedrock_client_reads_invoke(
    server: BackgroundServer, access_key: str, aws_control: httpx.Client
) -> None:
    import anthropic

    use_scenario(aws_control, SCRIPTED)
    client = anthropic.AnthropicBedrock(
        aws_access_key=access_key,
        aws_secret_key="mockserver-secret",
        aws_region="us-east-1",
        base_url=server.url,
        max_retries=0,
    )
    asked: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    tool = {
        "name": "get_weather",
        "input_schema": WEATHER["toolSpec"]["inputSchema"]["json"],  # type: ignore[index]
    }
    message = client.messages.create(model=MODEL, max_tokens=100, messages=asked, tools=[tool])
    assert message.stop_reason == "tool_use"
    assert message.content[-1].type == "tool_use"
    with client.messages.stream(
        model=MODEL, max_tokens=100, messages=asked, tools=[tool]
    ) as stream:
        final = stream.get_final_message()
    client.close()
    assert final.content[-1].input == {"city": "Paris"}  # type: ignore[union-attr]
