"""Record & replay through an Azure OpenAI upstream: ``openai.AzureOpenAI`` through a recording
proxy in front of a second mockserver serving Azure's paths, then the recordings replayed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.support.recording import start_recorder, start_upstream

KEY = "azure-key-0123456789abcdefSECRET"
VERSION = "2024-10-21"
ASK = [{"role": "user", "content": "Tell me a story"}]


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def azure(server: BackgroundServer, key: str = KEY) -> openai.AzureOpenAI:
    return openai.AzureOpenAI(
        azure_endpoint=server.url, api_key=key, api_version=VERSION, max_retries=0, timeout=10
    )


def stream_bytes(client: openai.AzureOpenAI | openai.OpenAI, model: str = "story") -> bytes:
    with client.chat.completions.with_streaming_response.create(
        model=model, messages=ASK, stream=True
    ) as response:
        return b"".join(response.iter_bytes())


def whole_bytes(client: openai.AzureOpenAI | openai.OpenAI, model: str = "story") -> bytes:
    raw = client.chat.completions.with_raw_response.create(model=model, messages=ASK)
    return raw.http_response.content


def replayer(cassette: Path) -> BackgroundServer:
    return start_recorder(cassette, upstream=None, mode="none", seed=5)


def test_an_azure_recording_replays_the_bytes_and_never_keeps_the_key(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "azure.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url)
    try:
        with azure(recorder) as client:
            streamed, whole = stream_bytes(client), whole_bytes(client)
    finally:
        recorder.stop()
    assert streamed.startswith(b'data: {"choices":[],"created":0,"id":""')
    written = cassette.read_text()
    assert KEY not in written
    assert "api-key" not in written
    rules = load_file(cassette).rules
    assert len(rules) == 2
    for rule in rules:
        assert rule.when.model is not None
        assert rule.when.model.equals == "story"  # the deployment, from the path
    server = replayer(cassette)
    try:
        with azure(server, key="another-azure-key") as client:
            assert stream_bytes(client) == streamed
            assert whole_bytes(client) == whole
    finally:
        server.stop()


def test_a_distilled_azure_recording_answers_azure_and_openai_clients_alike(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "distilled.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url, form="distilled")
    try:
        with azure(recorder) as client:
            said = client.chat.completions.create(model="story", messages=ASK)
    finally:
        recorder.stop()
    text = said.choices[0].message.content
    assert text
    assert KEY not in cassette.read_text()
    server = replayer(cassette)
    try:
        with azure(server) as client:
            again = client.chat.completions.create(model="story", messages=ASK)
            chunks = list(client.chat.completions.create(model="story", messages=ASK, stream=True))
        with openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as plain:
            openai_said = plain.chat.completions.create(model="story", messages=ASK)
    finally:
        server.stop()
    assert again.choices[0].message.content == text
    assert "prompt_filter_results" in (again.model_extra or {})
    assert chunks[0].choices == []
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == text
    assert openai_said.choices[0].message.content == text
    assert "prompt_filter_results" not in (openai_said.model_extra or {})


def test_a_recording_key_goes_upstream_as_azures_api_key(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "keyed.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url, api_key="upstream-azure-key")
    try:
        with azure(recorder, key="client-side-key") as client:
            client.chat.completions.create(model="story", messages=ASK)
    finally:
        recorder.stop()
    auth = {"authorization": "Bearer upstream-azure-key"}  # its namespace on the upstream
    calls = httpx.get(f"{upstream.url}/__mockserver/calls", headers=auth).json()["data"]
    assert [c["path"] for c in calls] == ["/openai/deployments/story/chat/completions"]
