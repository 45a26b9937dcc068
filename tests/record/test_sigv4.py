"""The recording proxy's SigV4 signature is botocore's, byte for byte: the same canonical
request, scope and signature for the same request, credentials and instant."""

from __future__ import annotations

import datetime

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from mockserver.record.sigv4 import AwsCredentials, aws_credentials, resign, signing_scope

NOW = 1_796_428_800.0  # 2026-12-05T00:00:00Z
URL = (
    "https://bedrock-runtime.eu-west-3.amazonaws.com/model/"
    "us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
)
BODY = b'{"messages":[{"role":"user","content":[{"text":"Hello  there"}]}]}'
HEADERS = [
    ("content-type", "application/json"),
    ("user-agent", "Boto3/1.40 md/Botocore#1.40"),
    ("x-amz-date", "20260101T000000Z"),
    ("x-amz-security-token", "the-clients-token"),
    ("x-custom", "  spaced   value "),
    (
        "authorization",
        "AWS4-HMAC-SHA256 Credential=AKIACLIENT/20260101/eu-west-3/bedrock/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64,
    ),
]


def _botocore(credentials: AwsCredentials, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    instant = datetime.datetime.fromtimestamp(NOW, datetime.UTC).replace(tzinfo=None)
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda: instant)
    unsigned = {
        k: v for k, v in HEADERS if k not in ("authorization", "x-amz-date", "x-amz-security-token")
    }
    request = AWSRequest(method="POST", url=URL, data=BODY, headers=unsigned)
    botocore_credentials = Credentials(
        credentials.access_key_id, credentials.secret_access_key, credentials.session_token
    )
    SigV4Auth(botocore_credentials, "bedrock", "eu-west-3").add_auth(request)
    return {k.lower(): v for k, v in request.headers.items()}


@pytest.mark.parametrize("token", [None, "FwoGZXIvYXdzE-session"])
def test_the_signature_is_botocores(monkeypatch: pytest.MonkeyPatch, token: str | None) -> None:
    credentials = AwsCredentials("AKIARECORDER0000001", "the/recorders+secret", token)
    scope = signing_scope(HEADERS, URL)
    assert scope == ("eu-west-3", "bedrock")
    signed = dict(resign("POST", URL, HEADERS, BODY, credentials=credentials, scope=scope, now=NOW))
    expected = _botocore(credentials, monkeypatch)
    assert signed["authorization"] == expected["authorization"]
    assert signed["x-amz-date"] == expected["x-amz-date"] == "20261205T000000Z"
    assert signed.get("x-amz-security-token") == token
    assert "AKIACLIENT" not in str(signed)
    assert "the-clients-token" not in str(signed)


def test_the_region_comes_from_the_clients_scope_else_the_upstream_host() -> None:
    bearer = [("authorization", "Bearer bedrock-api-key")]
    assert signing_scope(HEADERS, "http://127.0.0.1:9/model/m/converse") == ("eu-west-3", "bedrock")
    assert signing_scope(bearer, URL) == ("eu-west-3", "bedrock")
    assert signing_scope(bearer, "http://127.0.0.1:9/model/m/converse") is None
    local = signing_scope(bearer, "http://127.0.0.1:9/model/m/converse", region="ap-south-1")
    assert local == ("ap-south-1", "bedrock")


def test_credentials_come_from_the_usual_variables_and_never_print_the_secret() -> None:
    assert aws_credentials({"AWS_ACCESS_KEY_ID": "AKIA1"}) is None
    found = aws_credentials(
        {"AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s3cret", "AWS_SESSION_TOKEN": ""}
    )
    assert found == AwsCredentials("AKIA1", "s3cret", None)
    regional = aws_credentials(
        {"AWS_ACCESS_KEY_ID": "AKIA1", "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "eu-1"}
    )
    assert regional is not None
    assert regional.region == "eu-1"
    assert "s3cret" not in repr(found)
