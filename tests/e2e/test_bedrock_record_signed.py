"""Recording from Bedrock itself: boto3 signs for the recording proxy's host, and the proxy
signs again with the recording shell's AWS credentials, for the region the client signed
for. The upstream here checks each signature as AWS does (botocore's own signer, over the
headers the signature names) and refuses a wrong one with AWS's 403."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore.exceptions
import pytest

from mockserver.http.drift import check_cassette
from mockserver.http.server import BackgroundServer
from tests.support.bedrock import bedrock_client
from tests.support.recording import start_recorder
from tests.support.signed_upstream import RECORDER, signed_upstream

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
CLIENT_KEY = "AKIACLIENTKEY0000001"


@pytest.fixture
def aws_upstream() -> Iterator[tuple[BackgroundServer, list[str]]]:
    with signed_upstream() as made:
        yield made


def _asked(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": text}]}]


def test_the_proxy_signs_bedrock_requests_again_with_the_recorders_credentials(
    tmp_path: Path, aws_upstream: tuple[BackgroundServer, list[str]]
) -> None:
    upstream, seen = aws_upstream
    cassette = tmp_path / "bedrock.yaml"
    recording = start_recorder(cassette, upstream=upstream.url, mode="once", aws=RECORDER)
    try:
        client = bedrock_client(recording.url, CLIENT_KEY)
        whole = client.converse(modelId=MODEL, messages=_asked("Tell me a story"))
        streamed = client.converse_stream(modelId=MODEL, messages=_asked("And another"))
        events = list(streamed["stream"])
        client.close()
    finally:
        recording.stop()
    assert seen == ["valid", "valid"]
    assert whole["output"]["message"]["content"][0]["text"]
    assert events[-1]["metadata"]["usage"]["outputTokens"] > 0
    written = cassette.read_text() + "".join(
        p.read_text() for p in (tmp_path / "bedrock").iterdir()
    )
    for secret in (RECORDER.secret_access_key, RECORDER.session_token, "Signature="):
        assert secret not in written
    report = check_cassette(cassette, upstream=upstream.url, aws=RECORDER)
    assert report.failed == []
    assert len(report.checked) == 2
    assert seen == ["valid"] * 4  # the drift check signs its requests too


def test_without_the_recorders_credentials_the_clients_signature_goes_upstream(
    tmp_path: Path, aws_upstream: tuple[BackgroundServer, list[str]]
) -> None:
    upstream, seen = aws_upstream
    recording = start_recorder(tmp_path / "unsigned.yaml", upstream=upstream.url, mode="once")
    try:
        client = bedrock_client(recording.url, CLIENT_KEY)
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            client.converse(modelId=MODEL, messages=_asked("Tell me a story"))
        client.close()
    finally:
        recording.stop()
    assert seen == [f"signed by {CLIENT_KEY}"]
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
