"""Record & replay end to end: the official SDK through a recording proxy in front of a second
mockserver (another seed) or of an upstream that misbehaves, then the recordings replayed by
a fresh server."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.record.recorder import Recorder, Recording, RecordingError
from mockserver.scenario.loader import load_file
from mockserver.settings import Settings
from tests.conftest import start_server
from tests.support.recording import (
    WEATHER_TOOL,
    MisbehavingUpstream,
    closed_port,
    start_recorder,
    start_upstream,
)

KEY = "sk-live-0123456789abcdefSECRET"


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


@pytest.fixture
def misbehaving() -> Iterator[MisbehavingUpstream]:
    server = MisbehavingUpstream().start()
    yield server
    server.stop()


def sdk(server: BackgroundServer, key: str = KEY) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=10)


def chat_stream_bytes(server: BackgroundServer, text: str, *, key: str = KEY) -> bytes:
    with (
        sdk(server, key) as client,
        client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": text}],
            stream=True,
            stream_options={"include_usage": True},
        ) as response,
    ):
        return b"".join(response.iter_bytes())


def weather_stream_bytes(server: BackgroundServer) -> bytes:
    with (
        sdk(server) as client,
        client.responses.with_streaming_response.create(
            model="gpt-4o-mini", input="Weather in Paris?", tools=[WEATHER_TOOL], stream=True
        ) as response,
    ):
        return b"".join(response.iter_bytes())


def replayer(cassette: Path) -> BackgroundServer:
    """A fresh server that only replays (no upstream at all)."""
    return start_recorder(cassette, upstream=None, mode="none", seed=5)


def test_a_recorded_chat_stream_replays_the_bytes_the_client_saw(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "chat.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        seen = chat_stream_bytes(recorder, "Tell me a story")
    finally:
        recorder.stop()
    server = replayer(cassette)
    try:
        assert chat_stream_bytes(server, "Tell me a story", key="sk-another-key") == seen
    finally:
        server.stop()
    plain = start_server(scenario=str(cassette))  # serve --scenario: the replay lane is on
    try:
        for _ in range(2):
            assert chat_stream_bytes(plain, "Tell me a story") == seen
    finally:
        plain.stop()
    [rule] = load_file(cassette).rules
    assert rule.reply is not None
    assert rule.reply.recorded is not None
    events = rule.reply.recorded.events or []
    assert events[-1].data == "[DONE]"
    assert [e.offset_ms for e in events] == sorted(e.offset_ms for e in events)


def test_a_recorded_responses_stream_with_tool_calls_replays_byte_for_byte(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "agent.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        seen = weather_stream_bytes(recorder)
    finally:
        recorder.stop()
    server = replayer(cassette)
    try:
        assert weather_stream_bytes(server) == seen
        with sdk(server) as client:
            stream = client.responses.create(
                model="gpt-4o-mini", input="Weather in Paris?", tools=[WEATHER_TOOL], stream=True
            )
            done = [e for e in stream if e.type == "response.completed"]
    finally:
        server.stop()
    [call] = done[0].response.output
    assert call.type == "function_call"
    assert json.loads(call.arguments) == {"city": "Paris"}


def test_a_recorded_429_is_replayed_with_its_status_headers_and_body(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "limits.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        with sdk(recorder) as client, pytest.raises(openai.RateLimitError) as recorded:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "rate me"}]
            )
    finally:
        recorder.stop()
    server = replayer(cassette)
    try:
        with sdk(server) as client, pytest.raises(openai.RateLimitError) as replayed:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "rate me"}]
            )
    finally:
        server.stop()
    assert replayed.value.response.content == recorded.value.response.content
    assert replayed.value.response.headers["retry-after"] == "3"
    for name in ("x-ratelimit-remaining-requests", "x-request-id"):
        assert replayed.value.response.headers[name] == recorded.value.response.headers[name]


def test_a_distilled_recording_answers_both_apis_streamed_or_not(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "distilled.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    try:
        with sdk(recorder) as client:
            said = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hello"}]
            )
    finally:
        recorder.stop()
    text = said.choices[0].message.content
    server = replayer(cassette)
    try:
        with sdk(server) as client:
            streamed = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hello"}], stream=True
            )
            joined = "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
            response = client.responses.create(model="gpt-4o-mini", input="hello")
            events = client.responses.create(model="gpt-4o-mini", input="hello", stream=True)
            final = [e.response for e in events if e.type == "response.completed"]
    finally:
        server.stop()
    assert joined == text
    assert response.output_text == text
    assert final[0].output_text == text
    assert response.usage is not None
    assert said.usage is not None
    assert response.usage.output_tokens == said.usage.completion_tokens


def test_mode_once_records_an_absent_cassette_then_only_replays_it(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "once.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, mode="once")
    try:
        first = chat_stream_bytes(recorder, "hello")
    finally:
        recorder.stop()
    again = start_recorder(cassette, upstream=upstream.base_url, mode="once")
    try:
        assert chat_stream_bytes(again, "hello") == first
        with sdk(again) as client, pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "something new"}]
            )
    finally:
        again.stop()
    assert refused.value.code == "mockserver_no_recording"
    assert len(load_file(cassette).rules) == 1


def test_mode_new_episodes_replays_what_is_recorded_and_appends_the_rest(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "episodes.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        first = chat_stream_bytes(recorder, "hello")
    finally:
        recorder.stop()
    server = start_recorder(cassette, upstream=upstream.base_url, mode="new_episodes")
    try:
        assert chat_stream_bytes(server, "hello") == first
        new = chat_stream_bytes(server, "goodbye")
        assert chat_stream_bytes(server, "goodbye") == new  # recorded once, then replayed
    finally:
        server.stop()
    journal = httpx.get(
        upstream.url + "/__mockserver/calls", headers={"authorization": f"Bearer {KEY}"}
    ).json()
    assert [c["request"]["messages"][0]["content"] for c in journal["data"]] == [
        "hello",
        "goodbye",
    ]
    assert [r.id for r in load_file(cassette).rules] == ["chat-001", "chat-002"]


def test_mode_none_answers_an_unrecorded_request_with_the_nearest_recording(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "none.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        chat_stream_bytes(recorder, "hello")
    finally:
        recorder.stop()
    server = replayer(cassette)
    try:
        with sdk(server) as client, pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "helo"}],
                stream=True,
            )
    finally:
        server.stop()
    message = refused.value.message
    assert "no recording in cassette" in message
    assert "Nearest recording: rule 'chat-001'" in message
    assert "'helo' does not equal 'hello'" in message


def test_a_cassette_missed_under_serve_scenario_and_under_mode_none_says_what_the_docs_say(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    """The same cassette, the same unrecorded request: ``serve --scenario`` answers with the
    matcher's explanation, a replay-only recorder with the nearest recording; docs/record.md
    says which gives which."""
    cassette = tmp_path / "twice.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        chat_stream_bytes(recorder, "hello")
    finally:
        recorder.stop()
    refused = {}
    for how, server in (
        ("scenario", start_server(scenario=str(cassette))),
        ("none", replayer(cassette)),
    ):
        try:
            with sdk(server) as client, pytest.raises(openai.BadRequestError) as error:
                client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "helo"}]
                )
        finally:
            server.stop()
        body = error.value.body
        assert isinstance(body, dict)
        refused[how] = (error.value.code, body["message"])
    opening = {"scenario": "No rule of scenario ", "none": "mockserver: no recording in cassette "}
    assert refused["scenario"][0] == "mockserver_no_match"
    assert refused["none"][0] == "mockserver_no_recording"
    docs = (Path(__file__).resolve().parents[2] / "docs" / "record.md").read_text()
    said = " ".join(docs.split("## Exact or distilled")[0].split())  # where cassettes begin
    for how, (code, message) in refused.items():
        assert message.startswith(opening[how])
        assert f"`{code}`" in said
        assert f"`{opening[how]}" in said
    assert said.index("`--record-mode none`") < said.index("`mockserver_no_recording`")
    assert said.index("`serve --scenario PATH`") < said.index("`mockserver_no_match`")


def test_mode_none_without_a_cassette_refuses_to_start(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="does not exist"):
        replayer(tmp_path / "absent.yaml")


def test_mode_all_records_the_cassette_again(tmp_path: Path, upstream: BackgroundServer) -> None:
    cassette = tmp_path / "all.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        chat_stream_bytes(recorder, "hello")
        chat_stream_bytes(recorder, "old question")
    finally:
        recorder.stop()
    other = start_upstream(tmp_path, seed=8)
    again = start_recorder(cassette, upstream=other.base_url, mode="all")
    try:
        fresh = chat_stream_bytes(again, "hello")
    finally:
        again.stop()
        other.stop()
    assert [r.id for r in load_file(cassette).rules] == ["chat-001"]
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == ["chat-001.json"]
    server = replayer(cassette)
    try:
        assert chat_stream_bytes(server, "hello") == fresh
    finally:
        server.stop()


def test_no_written_file_holds_a_credential_cookie_or_redacted_text(
    tmp_path: Path, upstream: BackgroundServer, misbehaving: MisbehavingUpstream
) -> None:
    cassette = tmp_path / "secret" / "redacted.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, redact=(r"acct-\d+",))
    try:
        with sdk(recorder) as client:
            client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": f"my account acct-12345, key {KEY}"}],
                extra_headers={"OpenAI-Organization": "org-private", "Cookie": "sid=cookie-1"},
            )
            client.responses.create(model="gpt-4o-mini", input="acct-999 weather")
    finally:
        recorder.stop()
    flaky = start_recorder(tmp_path / "secret" / "flaky.yaml", upstream=misbehaving.base_url)
    try:
        with sdk(flaky) as client, pytest.raises(openai.RateLimitError):
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "rate"}]
            )
    finally:
        flaky.stop()
    written = [p for p in (tmp_path / "secret").rglob("*") if p.is_file()]
    assert len(written) == 5  # two scenarios, three recordings
    for path in written:
        text = path.read_text()
        for secret in (KEY, "acct-12345", "acct-999", "org-private", "cookie-1", "cookie-secret"):
            assert secret not in text, f"{secret} in {path}"
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    assert "[REDACTED]" in (tmp_path / "secret" / "redacted" / "chat-001.json").read_text()
    # the masked text still matches on replay: the rule's `when` is a regex over it
    server = replayer(cassette)
    try:
        with sdk(server) as client:
            client.responses.create(model="gpt-4o-mini", input="acct-31337 weather")
    finally:
        server.stop()


def test_an_unreachable_upstream_is_a_502_in_the_api_error_shape(tmp_path: Path) -> None:
    cassette = tmp_path / "down.yaml"
    recorder = start_recorder(
        cassette, upstream=f"http://127.0.0.1:{closed_port()}/v1", connect_timeout=2
    )
    try:
        answer = httpx.post(
            recorder.base_url + "/chat/completions",
            json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
            timeout=10,
        )
    finally:
        recorder.stop()
    assert answer.status_code == 502
    error = answer.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == "upstream_unreachable"
    assert not cassette.exists()


def test_a_silent_upstream_is_a_504_once_the_read_timeout_passes(
    tmp_path: Path, misbehaving: MisbehavingUpstream
) -> None:
    recorder = start_recorder(
        tmp_path / "hang.yaml", upstream=misbehaving.base_url, read_timeout=0.2
    )
    try:
        with sdk(recorder) as client, pytest.raises(openai.APIStatusError) as failed:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hang"}]
            )
    finally:
        recorder.stop()
    assert failed.value.status_code == 504
    assert failed.value.code == "upstream_timeout"


def test_a_stream_the_upstream_cuts_is_cut_for_the_client_and_recorded_cut(
    tmp_path: Path, misbehaving: MisbehavingUpstream
) -> None:
    cassette = tmp_path / "cut.yaml"
    request = {
        "model": "gpt-4o-mini",
        "stream": True,
        "messages": [{"role": "user", "content": "cut"}],
    }

    def received(server: BackgroundServer) -> tuple[bytes, bool]:
        got = b""
        with httpx.stream("POST", server.base_url + "/chat/completions", json=request) as answer:
            try:
                for chunk in answer.iter_raw():
                    got += chunk
            except httpx.RemoteProtocolError:
                return got, True
        return got, False

    recorder = start_recorder(cassette, upstream=misbehaving.base_url)
    try:
        seen, cut = received(recorder)
    finally:
        recorder.stop()
    assert cut
    assert seen.count(b"data: ") == 2
    [rule] = load_file(cassette).rules
    assert rule.reply is not None
    assert rule.reply.recorded is not None
    assert rule.reply.recorded.complete is False
    server = replayer(cassette)
    try:
        assert received(server) == (seen, True)
    finally:
        server.stop()


def test_a_misbehaving_429_is_recorded_with_the_headers_a_client_reads(
    tmp_path: Path, misbehaving: MisbehavingUpstream
) -> None:
    cassette = tmp_path / "throttled.yaml"
    recorder = start_recorder(cassette, upstream=misbehaving.base_url, form="distilled")
    try:
        with sdk(recorder) as client, pytest.raises(openai.RateLimitError):
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "rate"}]
            )
    finally:
        recorder.stop()
    recording = json.loads((tmp_path / "throttled" / "chat-001.json").read_text())
    assert recording["status"] == 429
    assert recording["headers"]["retry-after"] == "7"
    assert recording["headers"]["x-ratelimit-remaining-requests"] == "0"
    assert "set-cookie" not in recording["headers"]
    server = replayer(cassette)
    try:
        with sdk(server) as client, pytest.raises(openai.RateLimitError) as replayed:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "rate"}]
            )
    finally:
        server.stop()
    assert replayed.value.code == "rate_limit_exceeded"
    assert replayed.value.response.headers["retry-after"] == "7"
    assert replayed.value.response.headers["x-ratelimit-remaining-requests"] == "0"


def test_other_endpoints_pass_through_while_recording_and_are_ours_on_replay(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "others.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        with sdk(recorder) as client:
            created = client.responses.create(model="gpt-4o-mini", input="remember me")
            retrieved = client.responses.retrieve(created.id)  # the upstream's stored response
            items = client.responses.input_items.list(created.id)
            models = client.models.list()
    finally:
        recorder.stop()
    assert retrieved.id == created.id
    assert retrieved.output_text == created.output_text
    assert [i.type for i in items.data] == ["message"]
    assert models.data
    [rule] = load_file(cassette).rules  # only the model turn is written
    assert rule.id == "responses-001"
    server = replayer(cassette)
    try:
        with sdk(server) as client:
            assert (
                client.responses.create(model="gpt-4o-mini", input="remember me").id == created.id
            )
            assert [m.id for m in client.models.list().data] == [m.id for m in models.data]
    finally:
        server.stop()


def test_an_exchange_that_cannot_be_written_is_still_answered_and_said_lost(
    tmp_path: Path, upstream: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    cassette = tmp_path / "lost.yaml"
    recorder = Recorder(Recording(cassette, upstream=upstream.base_url))
    app = create_app(Settings(port=0, seed=99, clock="frozen"), recorder=recorder)
    server = BackgroundServer(app).start()
    try:
        with sdk(server) as client:
            first = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "kept"}]
            )
            folder = tmp_path / "lost"
            folder.rename(tmp_path / "aside")  # the recordings' folder goes, a file in its place
            folder.write_text("in the way")
            with caplog.at_level(logging.ERROR, logger="mockserver"):
                second = client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "lost"}]
                )
            folder.unlink()
            (tmp_path / "aside").rename(folder)
    finally:
        server.stop()
    assert first.choices[0].message.content
    assert second.choices[0].message.content  # whole, not a dropped connection
    assert "record: POST /v1/chat/completions NOT recorded: cannot write" in caplog.text
    assert recorder.summary().endswith(
        "1 exchange(s) NOT written: the cassette could not be written"
    )
    assert [r.id for r in load_file(cassette).rules if r.recordings] == ["chat-001"]


def _rag(client: openai.OpenAI) -> tuple[list[float], bool, str | None]:
    """What a RAG app asks: embed the question, check it, then chat with what was found."""
    vector = client.embeddings.create(model="text-embedding-3-small", input="Where is Paris?")
    checked = client.moderations.create(input="Where is Paris?")
    answer = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Paris is in France. Where?"}]
    )
    return vector.data[0].embedding, checked.results[0].flagged, answer.choices[0].message.content


@pytest.mark.parametrize("form", ["exact", "distilled"])
def test_a_recorded_rag_flow_replays_with_embeddings_and_moderations_answered_by_mockserver(
    tmp_path: Path, upstream: BackgroundServer, form: str
) -> None:
    cassette = tmp_path / "rag.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form=form)
    try:
        with sdk(recorder) as client:
            _, _, answered = _rag(client)
    finally:
        recorder.stop()
    assert [r.id for r in load_file(cassette).rules] == ["chat-001"]
    for server in (replayer(cassette), start_server(scenario=str(cassette))):
        try:
            with sdk(server) as client:
                vector, flagged, replayed = _rag(client)
                with pytest.raises(openai.BadRequestError, match=r"no recording|No rule"):
                    client.chat.completions.create(  # a model turn never recorded: refused
                        model="gpt-4o-mini", messages=[{"role": "user", "content": "unheard"}]
                    )
        finally:
            server.stop()
        assert len(vector) == 1536  # mockserver's own vector, of the model's size
        assert flagged is False
        assert replayed == answered
