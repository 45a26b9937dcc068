"""Record & replay of Ollama's API: the ``ollama`` client through a recording proxy in front of
a second mockserver, then the recordings replayed by a fresh server, exact (the NDJSON bytes)
and distilled (the neutral reply, which answers an OpenAI client too, and the reverse)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import ollama
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.support.recording import start_recorder, start_upstream

KEY = "sk-live-0123456789abcdefSECRET"
ASK = [{"role": "user", "content": "Tell me a story"}]


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def _raw_chat(server: BackgroundServer, *, stream: bool) -> bytes:
    answer = httpx.post(
        server.url + "/api/chat",
        json={"model": "llama3.2", "messages": ASK, "stream": stream},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=10,
    )
    assert answer.status_code == 200
    return answer.content


def test_an_exact_recording_replays_the_ndjson_bytes(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "ollama.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        streamed = _raw_chat(recorder, stream=True)
        whole = _raw_chat(recorder, stream=False)
    finally:
        recorder.stop()
    assert KEY not in cassette.read_text() + "".join(
        p.read_text() for p in tmp_path.rglob("*.json")
    )
    replayer = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        assert _raw_chat(replayer, stream=True) == streamed
        assert _raw_chat(replayer, stream=False) == whole
        with ollama.Client(host=replayer.url) as client:
            parts = list(client.chat(model="llama3.2", messages=ASK, stream=True))
        assert parts[-1].done is True
        assert "".join(p.message.content or "" for p in parts)
    finally:
        replayer.stop()
    rules = load_file(cassette).rules
    assert len(rules) == 2
    assert all(rule.when.api == "ollama_chat" for rule in rules)


def test_a_distilled_ollama_recording_answers_an_openai_client(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "distilled.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    try:
        with ollama.Client(host=recorder.url, headers={"Authorization": f"Bearer {KEY}"}) as sdk:
            said = sdk.chat(model="llama3.2", messages=ASK).message.content
    finally:
        recorder.stop()
    assert said
    replayer = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        with openai.OpenAI(base_url=replayer.base_url, api_key="k", max_retries=0) as client:
            chat = client.chat.completions.create(model="llama3.2", messages=ASK)  # type: ignore[arg-type]
        assert chat.choices[0].message.content == said
        with ollama.Client(host=replayer.url) as sdk:
            parts = list(sdk.chat(model="llama3.2", messages=ASK, stream=True))
        assert "".join(p.message.content or "" for p in parts) == said
    finally:
        replayer.stop()


def test_a_distilled_openai_recording_answers_an_ollama_client(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "from-openai.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    try:
        with openai.OpenAI(base_url=recorder.base_url, api_key=KEY, max_retries=0) as client:
            chat = client.chat.completions.create(model="llama3.2", messages=ASK)  # type: ignore[arg-type]
    finally:
        recorder.stop()
    replayer = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        with ollama.Client(host=replayer.url) as sdk:
            local = sdk.chat(model="llama3.2", messages=ASK)
        assert local.message.content == chat.choices[0].message.content
    finally:
        replayer.stop()


def test_a_recorded_ollama_error_replays_as_ollamas(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "errors.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    ask = [{"role": "user", "content": "rate me"}]
    try:
        with (
            ollama.Client(host=recorder.url, headers={"Authorization": f"Bearer {KEY}"}) as sdk,
            pytest.raises(ollama.ResponseError) as recorded,
        ):
            sdk.chat(model="llama3.2", messages=ask)
    finally:
        recorder.stop()
    replayer = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        with (
            ollama.Client(host=replayer.url) as sdk,
            pytest.raises(ollama.ResponseError) as replayed,
        ):
            sdk.chat(model="llama3.2", messages=ask)
    finally:
        replayer.stop()
    assert recorded.value.status_code == replayed.value.status_code == 429
    assert replayed.value.error == recorded.value.error == "rate limit exceeded"
