"""What the recorder writes of what the upstream answered."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

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
