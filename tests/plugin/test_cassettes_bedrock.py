"""A Bedrock cassette recorded by the plugin from Bedrock itself: the session's server signs
each request again with the shell's AWS credentials (the upstream here checks signatures as
AWS does), also when ``--mockserver-env`` has set the SDKs' variables to the mock's, and the
cassette then replays with no upstream and no credentials."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.support.signed_upstream import RECORDER, signed_upstream

Run = Callable[..., pytest.RunResult]

AGENT = """
import pytest

@pytest.mark.mockserver(cassette="story")
def test_tells(mockserver):
    client = mockserver.bedrock_client(retries={"total_max_attempts": 1})
    answer = client.converse(
        modelId="us.anthropic.claude-sonnet-4-20250514-v1:0",
        messages=[{"role": "user", "content": [{"text": "Tell me a story"}]}],
    )
    print("said:", answer["output"]["message"]["content"][0]["text"])
"""


@pytest.mark.parametrize(
    ("env", "keys"),
    [(False, False), (True, False), (False, True)],
    ids=["plain", "mockserver-env", "other-providers-keys"],
)
def test_a_bedrock_cassette_is_recorded_signed_with_the_shells_credentials(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch, env: bool, keys: bool
) -> None:
    pytester.makepyfile(test_agent=AGENT)
    options = ["--mockserver-env"] if env else []
    monkeypatch.delenv("MOCKSERVER_UPSTREAM_KEY", raising=False)
    if keys:  # another provider's key in the shell is not Bedrock's: it is signed all the same
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-real-0001")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-0001")
    with signed_upstream() as (upstream, seen):
        monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.url)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", RECORDER.access_key_id)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", RECORDER.secret_access_key)
        monkeypatch.setenv("AWS_SESSION_TOKEN", str(RECORDER.session_token))
        monkeypatch.setenv("AWS_REGION", "us-east-1")
        recorded = run("-s", "--mockserver-record-mode=once", *options)
    recorded.assert_outcomes(passed=1)
    assert seen == ["valid"]
    folder = pytester.path / "cassettes" / "test_agent"
    written = "".join(p.read_text() for p in folder.rglob("*") if p.is_file())
    assert "Tell me a story" in written
    for secret in (RECORDER.secret_access_key, str(RECORDER.session_token), "Signature="):
        assert secret not in written
    for name in ("MOCKSERVER_UPSTREAM_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    replayed = run("-s", *options)  # mode none: no upstream, no credentials
    replayed.assert_outcomes(passed=1)
    spoken = re.compile(r"said: .+")
    assert spoken.findall(replayed.stdout.str()) == spoken.findall(recorded.stdout.str()) != []
