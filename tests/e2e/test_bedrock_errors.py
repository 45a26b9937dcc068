"""Bedrock's errors through boto3: the modeled exception classes (``x-amzn-errortype`` and
``{"message"}``), botocore's retry of throttling, and failures after a stream's 200 as the
event stream's exception messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError, EventStreamError

from mockserver.http.server import BackgroundServer
from tests.support.bedrock import access_key_for, bedrock_client
from tests.support.scenarios import use_scenario

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
HELLO = [{"role": "user", "content": [{"text": "Hello"}]}]


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
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {access_key}"}
    ) as http:
        yield http


@pytest.mark.parametrize(
    ("error", "status", "code", "message"),
    [
        ("{preset: rate_limited}", 429, "ThrottlingException", "Too many requests"),
        ("{preset: overloaded}", 503, "ServiceUnavailableException", "Bedrock is unable"),
        ("{preset: model_not_found}", 400, "ValidationException", "model identifier is invalid"),
        ("{preset: permission_denied}", 403, "AccessDeniedException", "don't have access"),
        ("{preset: gateway_timeout}", 408, "ModelTimeoutException", "timed out"),
        (
            "{status: 429, type: ModelNotReadyException, message: warming}",
            429,
            "ModelNotReadyException",
            "warming",
        ),
    ],
)
def test_a_scripted_error_is_bedrocks_exception(
    bedrock: Any, aws_control: httpx.Client, error: str, status: int, code: str, message: str
) -> None:
    use_scenario(aws_control, f"rules:\n  - reply: {{error: {error}}}\n")
    with pytest.raises(ClientError) as raised:
        bedrock.converse(modelId=MODEL, messages=HELLO)
    response = raised.value.response
    assert response["Error"]["Code"] == code
    assert message in response["Error"]["Message"]
    assert response["ResponseMetadata"]["HTTPStatusCode"] == status
    headers = response["ResponseMetadata"]["HTTPHeaders"]
    assert headers["x-amzn-errortype"].startswith(code + ":")
    assert "retry-after" not in headers
    assert len(headers["x-amzn-requestid"]) == 36


def test_the_raw_error_is_a_message_body(server: BackgroundServer, access_key: str) -> None:
    answer = httpx.post(
        server.url + f"/model/{MODEL}/converse",
        json={"messages": [{"role": "assistant", "content": [{"text": "hi"}]}]},
        headers={"x-mockserver-session": access_key},
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "message": "A conversation must start with a user message. Try again with a "
        "conversation that starts with a user message."
    }
    assert answer.headers["x-amzn-errortype"] == (
        "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"
    )


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "Value null at 'messages' failed to satisfy constraint"),
        (
            {"messages": [{"role": "robot", "content": []}]},
            "at 'messages.1.member.role' failed to satisfy constraint: Member must satisfy "
            "enum value set: [user, assistant]",
        ),
        (
            {"messages": [{"role": "user", "content": [{"text": "a"}]}] * 2},
            "A conversation must alternate between user and assistant roles.",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"toolResult": {"toolUseId": "t", "content": []}}],
                    }
                ]
            },
            "The toolConfig field must be defined when using toolUse and toolResult",
        ),
        (
            {
                "messages": [{"role": "user", "content": [{"text": "a"}]}],
                "inferenceConfig": {"maxTokens": 0},
            },
            "Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member "
            "must have value greater than or equal to 1",
        ),
    ],
)
def test_a_bad_converse_body_is_refused_in_bedrocks_words(
    server: BackgroundServer, access_key: str, body: dict[str, Any], words: str
) -> None:
    answer = httpx.post(
        server.url + f"/model/{MODEL}/converse",
        json=body,
        headers={"x-mockserver-session": access_key},
    )
    assert answer.status_code == 400
    assert words in answer.json()["message"]
    assert answer.headers["x-amzn-errortype"].startswith("ValidationException:")


def test_an_invoke_body_naming_its_model_is_refused(bedrock: Any) -> None:
    body = b'{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 9, "model": "x",'
    body += b' "messages": [{"role": "user", "content": "hi"}]}'
    with pytest.raises(ClientError) as raised:
        bedrock.invoke_model(modelId=MODEL, body=body)
    assert raised.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "Malformed input request: #: extraneous key [model] is not permitted, "
        "please reformat your input and try again.",
    }


def test_botocore_retries_a_throttled_request(
    server: BackgroundServer, access_key: str, aws_control: httpx.Client
) -> None:
    use_scenario(
        aws_control,
        "rules:\n  - replies:\n      - error: {preset: rate_limited}\n      - text: At last.\n",
    )
    patient = bedrock_client(server.url, access_key, retries=2)
    answer = patient.converse(modelId=MODEL, messages=HELLO)
    patient.close()
    assert answer["output"]["message"]["content"] == [{"text": "At last."}]
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1
    statuses = [call["status"] for call in aws_control.get("/calls").json()["data"]]
    assert sorted(statuses) == [200, 429]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("{preset: rate_limited}", "throttlingException"),
        ("{preset: server_error}", "internalServerException"),
        ("{status: 424, message: the model failed}", "modelStreamErrorException"),
    ],
)
def test_a_failure_after_the_200_is_an_exception_message(
    bedrock: Any, aws_control: httpx.Client, error: str, code: str
) -> None:
    use_scenario(
        aws_control,
        "rules:\n  - reply:\n      text: one two three four five six\n"
        f"      fault: {{error_after: 3, error: {error}}}\n",
    )
    answer = bedrock.converse_stream(modelId=MODEL, messages=HELLO)
    events = iter(answer["stream"])
    seen = [next(events) for _ in range(3)]
    with pytest.raises(EventStreamError) as raised:
        next(events)
    answer["stream"].close()
    assert len(seen) == 3
    assert raised.value.response["Error"]["Code"] == code


def test_an_invoke_stream_fails_the_same_way(bedrock: Any, aws_control: httpx.Client) -> None:
    use_scenario(
        aws_control,
        "rules:\n  - reply:\n      text: one two three four five six\n"
        "      fault: {error_after: 2, error: {preset: overloaded}}\n",
    )
    body = b'{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 50,'
    body += b' "messages": [{"role": "user", "content": "hi"}]}'
    answer = bedrock.invoke_model_with_response_stream(modelId=MODEL, body=body)
    with pytest.raises(EventStreamError) as raised:
        list(answer["body"])
    answer["body"].close()
    assert raised.value.response["Error"]["Code"] == "serviceUnavailableException"


def test_a_broken_checksum_stops_botocore(bedrock: Any, aws_control: httpx.Client) -> None:
    from botocore.eventstream import ChecksumMismatch

    use_scenario(
        aws_control, "rules:\n  - reply: {text: one two three, fault: {malformed_after: 1}}\n"
    )
    answer = bedrock.converse_stream(modelId=MODEL, messages=HELLO)
    with pytest.raises(ChecksumMismatch):
        list(answer["stream"])
    answer["stream"].close()
