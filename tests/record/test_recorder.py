"""What the recorder writes of what the upstream answered."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mockserver.families import Provider
from mockserver.record.exchange import Exchange
from mockserver.record.recorder import Recorder, Recording

REQUEST = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("status", [401, 403])
def test_an_upstream_refusing_the_key_is_not_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    recorder = Recorder(Recording(tmp_path / "c.yaml", upstream="http://127.0.0.1:9/v1"))
    refusal = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    exchange = Exchange("POST", "/v1/chat/completions", status, request=REQUEST, body=refusal)
    with caplog.at_level(logging.WARNING, logger="mockserver"):
        assert recorder.captured(exchange, secrets=[]) is None
    assert f"the upstream answered {status} to POST /v1/chat/completions: not recorded" in (
        caplog.text
    )
    assert "Its message: Incorrect API key provided" in caplog.text
    assert recorder.refused == 1
    assert recorder.written == 0
    assert not (tmp_path / "c.yaml").exists()
    assert recorder.summary().endswith(
        "; 1 answer(s) of 401/403 not written (the upstream refused the key)"
    )


def test_the_key_for_a_provider_is_the_one_key_else_its_own() -> None:
    keys: dict[Provider, str] = {
        "openai": "sk-openai",
        "anthropic": "sk-ant",
        "google": "g-key",
        "azure": "az-key",
    }
    own = Recording(Path("c.yaml"), keys=keys)
    families: tuple[Provider, ...] = ("openai", "anthropic", "google", "azure")
    assert [own.key_for(p) for p in families] == [
        "sk-openai",
        "sk-ant",
        "g-key",
        "az-key",
    ]
    assert own.key_for("ollama") is None  # none given: the client's goes
    assert own.key_for("aws") is None  # Bedrock's requests are signed again instead
    one = Recording(Path("c.yaml"), api_key="sk-one", keys=keys)
    for provider in (*families, "ollama", "aws"):
        assert one.key_for(provider) == "sk-one"  # every provider's, Bedrock's too
    assert Recording(Path("c.yaml")).key_for("openai") is None
    assert "sk-openai" not in repr(own)


def test_every_key_of_the_recording_is_masked_even_where_no_call_sent_it(tmp_path: Path) -> None:
    keys: dict[Provider, str] = {
        "anthropic": "sk-ant-real-key-0001",
        "openai": "sk-openai-real-0001",
    }
    recorder = Recorder(Recording(tmp_path / "c.yaml", upstream="http://127.0.0.1:9/v1", keys=keys))
    echoed = {"role": "user", "content": "my keys: sk-ant-real-key-0001, sk-openai-real-0001"}
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "you said sk-ant-real-key-0001"},
                "finish_reason": "stop",
            }
        ],
    }
    request = {**REQUEST, "messages": [echoed]}
    exchange = Exchange("POST", "/v1/chat/completions", 200, request=request, body=answer)
    recorder.captured(exchange, secrets=[])  # the call carried neither key
    assert recorder.written == 1
    text = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert "[REDACTED]" in text
    assert "sk-ant-real" not in text
    assert "sk-openai-real" not in text
