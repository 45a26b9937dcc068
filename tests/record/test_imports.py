"""``mockserver import``: the sample recordings imported as a user does, then served by a real
server to the openai SDK, which gets back what was recorded."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from mockserver.cli import main
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

SAMPLES = Path(__file__).parent / "samples"
SECRETS = ("sk-proj-SAMPLE0not0a0real0key", "SAMPLEcookie", "SAMPLEsession", "proj_SAMPLE")


def _recorded(cassette: str, index: int) -> Any:
    """What the cassette's interaction ``index`` answered, as the recording's own JSON."""
    from mockserver.record.vcr import read_cassette

    exchange = read_cassette(SAMPLES / cassette).exchanges[index]
    if exchange.events is not None:
        return [e.data for e in exchange.events]
    return exchange.body


@pytest.fixture(scope="module")
def vcr_scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "cassettes.yaml"
    samples = [SAMPLES / name for name in ("openai_sdk.yaml", "openai_sdk.json")]
    assert main(["import", "vcr", *map(str, samples), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def served(vcr_scenario: Path) -> Iterator[BackgroundServer]:
    server = start_server(scenario=str(vcr_scenario))
    yield server
    server.stop()


@contextmanager
def _sdk_of(scenario: Path) -> Iterator[openai.OpenAI]:
    """The SDK against a server of its own that serves ``scenario``."""
    server = start_server(scenario=str(scenario))
    try:
        with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            yield client
    finally:
        server.stop()


@pytest.fixture
def sdk(served: BackgroundServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=served.base_url, api_key="sk-ci", max_retries=0) as client:
        yield client


def test_a_recorded_chat_completion_is_served_as_recorded(sdk: openai.OpenAI) -> None:
    completion = sdk.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the weather?"}]
    )
    assert completion.model_dump(mode="json", exclude_unset=True) == _recorded("openai_sdk.yaml", 0)


def test_a_recorded_chat_stream_is_served_event_by_event(served: BackgroundServer) -> None:
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Write a haiku about tea"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    raw = httpx.post(
        served.base_url + "/chat/completions", json=body, headers={"Authorization": "Bearer k"}
    )
    data = [line.removeprefix("data: ") for line in raw.text.split("\n\n") if line]
    assert data == _recorded("openai_sdk.yaml", 1)


def test_the_sdk_reads_a_recorded_chat_stream(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Write a haiku about tea"}],
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Autumn wind rises / the kettle sings on the stove / tea for two, then one"


def test_a_recorded_response_and_its_stream_are_served(sdk: openai.OpenAI) -> None:
    response = sdk.responses.create(model="gpt-4o-mini", input="What is the weather in Boston?")
    assert response.output_text == "It is 21 °C and sunny in Boston."
    assert response.id == _recorded("openai_sdk.yaml", 2)["id"]
    with sdk.responses.stream(model="gpt-4o-mini", input="A haiku about tea, please") as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    recorded = [json.loads(d)["type"] for d in _recorded("openai_sdk.yaml", 3)]
    assert kinds == recorded
    assert final.output_text.startswith("Autumn wind rises")


def test_a_recorded_429_is_served_with_its_retry_after(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.RateLimitError) as limited:
        sdk.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Are you busy?"}]
        )
    assert limited.value.response.headers["retry-after"] == "2"
    assert limited.value.body == _recorded("openai_sdk.yaml", 4)["error"]


def test_a_json_cassettes_tool_call_is_served(sdk: openai.OpenAI) -> None:
    completion = sdk.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "What is the weather in Boston?"}],
        tools=[
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": {"type": "object"}},
            }
        ],
    )
    [call] = completion.choices[0].message.tool_calls or []
    assert call.type == "function"
    assert json.loads(call.function.arguments) == {"city": "Boston"}


def test_a_request_never_recorded_is_the_apis_400_naming_the_nearest(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="What is the weather"):
        sdk.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the weather, eh?"}]
        )


def test_a_chunked_stream_body_is_imported_and_served(tmp_path: Path) -> None:
    out = tmp_path / "chunked.yaml"
    assert main(["import", "vcr", str(SAMPLES / "chunked_stream.yaml"), "--out", str(out)]) == 0
    with _sdk_of(out) as sdk:
        stream = sdk.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "What is the weather?"}],
            stream=True,
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "It is 21 °C and sunny in Boston."


def test_a_har_session_distilled_answers_both_apis_streamed_or_not(tmp_path: Path) -> None:
    out = tmp_path / "session.yaml"
    har = str(SAMPLES / "frontend_session.har")
    assert main(["import", "har", har, "--out", str(out), "--form", "distilled"]) == 0
    haiku = "Autumn wind rises / the kettle sings on the stove / tea for two, then one"
    with _sdk_of(out) as sdk:
        # recorded as a streamed Responses call, asked for as a chat completion
        chat = sdk.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "A haiku about tea, please"}]
        )
        assert chat.choices[0].message.content == haiku
        # recorded as a chat completion, asked for as a streamed Responses call
        with sdk.responses.stream(model="gpt-4o-mini", input="What is the weather?") as stream:
            for _ in stream:
                pass
            assert stream.get_final_response().output_text == "It is 21 °C and sunny in Boston."


def test_a_har_sessions_exact_stream_is_served_as_recorded(tmp_path: Path) -> None:
    out = tmp_path / "session.yaml"
    assert main(["import", "har", str(SAMPLES / "frontend_session.har"), "--out", str(out)]) == 0
    with _sdk_of(out) as sdk:
        with sdk.responses.stream(model="gpt-4o-mini", input="A haiku about tea, please") as stream:
            for _ in stream:
                pass
            assert stream.get_final_response().output_text.startswith("Autumn wind rises")
        chat = sdk.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the weather?"}]
        )
        assert chat.choices[0].message.content == "It is 21 °C and sunny in Boston."


def test_no_key_or_cookie_reaches_any_written_file(vcr_scenario: Path, tmp_path: Path) -> None:
    har_out = tmp_path / "har.yaml"
    assert (
        main(["import", "har", str(SAMPLES / "frontend_session.har"), "--out", str(har_out)]) == 0
    )
    written = [
        *vcr_scenario.parent.rglob("*"),
        *tmp_path.rglob("*"),
    ]
    files = [f for f in written if f.is_file()]
    assert len(files) >= 4
    for file in files:
        text = file.read_text()
        for secret in SECRETS:
            assert secret not in text, f"{secret} in {file}"
        assert file.stat().st_mode & 0o077 == 0, f"{file} is readable by others"


def test_the_import_says_what_it_skipped_and_what_it_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.yaml"
    assert main(["import", "har", str(SAMPLES / "frontend_session.har"), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(
        ": skipped 3 entries: not an OpenAI API call (#0 GET "
        "http://localhost:5173/, #1 GET http://localhost:5173/src/main.ts, "
        "#5 GET http://localhost:5173/favicon.ico)"
    )
    assert lines[-1] == f"wrote {out}: 2 rule(s) from 2 recorded call(s)"


def test_a_malformed_file_is_a_located_error_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "version: 1\ninteractions:\n- request: {method: POST, uri: 'https://api.openai.com/v1/"
        "responses', body: '{}', headers: {}}\n  response: {status: {code: 200}, headers: "
        "{content-encoding: [gzip]}, body: {string: 'not gzip'}}\n"
    )
    out = tmp_path / "out.yaml"
    good = str(SAMPLES / "openai_sdk.yaml")
    assert main(["import", "vcr", good, str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"mockserver: error: {bad}: interaction 0: response.body.string: the body is not "
        "valid gzip data (Not a gzipped file (b'no'))\n"
    )
    assert not out.exists()


def test_an_existing_scenario_is_kept_unless_the_import_appends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.yaml"
    har = str(SAMPLES / "frontend_session.har")
    assert main(["import", "har", har, "--out", str(out)]) == 0
    assert main(["import", "vcr", str(SAMPLES / "openai_sdk.json"), "--out", str(out)]) == 2
    assert "the scenario exists: --append adds to it" in capsys.readouterr().err
    json_cassette = str(SAMPLES / "openai_sdk.json")
    assert main(["import", "vcr", json_cassette, "--out", str(out), "--append"]) == 0
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"wrote {out}: 2 rule(s) from 2 recorded call(s)"
    )


def test_a_recorded_body_is_served_byte_for_byte(served: BackgroundServer) -> None:
    raw = yaml.safe_load((SAMPLES / "openai_sdk.yaml").read_text())
    recorded = gzip.decompress(raw["interactions"][0]["response"]["body"]["string"])
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "What is the weather?"}],
    }
    answer = httpx.post(
        served.base_url + "/chat/completions", json=body, headers={"Authorization": "Bearer k"}
    )
    assert answer.content == recorded


def test_a_key_copied_into_a_body_and_redact_patterns_are_masked(tmp_path: Path) -> None:
    key = "sk-proj-COPIED0into0the0body0000"
    cassette = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.openai.com/v1/chat/completions",
                    "body": json.dumps(
                        {
                            "model": "gpt-4o-mini",
                            "messages": [{"role": "user", "content": f"my key is {key}"}],
                        }
                    ),
                    "headers": {"Authorization": [f"Bearer {key}"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Type": ["application/json"]},
                    "body": {"string": _completion("Call me at 555-0100")},
                },
            }
        ],
    }
    source = tmp_path / "keyed.yaml"
    source.write_text(yaml.safe_dump(cassette))
    out = tmp_path / "out" / "keyed.yaml"
    redact = ["--redact", r"555-\d{4}"]
    assert main(["import", "vcr", str(source), "--out", str(out), *redact]) == 0
    written = "".join(f.read_text() for f in out.parent.rglob("*") if f.is_file())
    assert key not in written
    assert "555-0100" not in written
    assert written.count("[REDACTED]") == 2  # in the recorded request, and in its answer
    [rule] = yaml.safe_load(out.read_text())["rules"]
    assert rule["when"]["last_user"] == {"regex": "^my\\ key\\ is\\ (?s:.+?)$"}


def test_a_redact_pattern_that_is_not_a_regex_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.yaml"
    argv = ["import", "har", str(SAMPLES / "frontend_session.har"), "--out", str(out)]
    assert main([*argv, "--redact", "(unclosed"]) == 2
    assert "--redact '(unclosed' is not a regular expression" in capsys.readouterr().err
    assert not out.exists()


def test_calls_that_are_not_model_turns_are_said_and_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def call(method: str, uri: str) -> dict[str, Any]:
        return {
            "request": {"method": method, "uri": uri, "body": None, "headers": {}},
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"Content-Type": ["application/json"]},
                "body": {"string": '{"object": "list", "data": []}'},
            },
        }

    source = tmp_path / "other.yaml"
    source.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "interactions": [
                    call("GET", "https://api.openai.com/v1/models"),
                    call("POST", "https://api.openai.com/v1/embeddings"),
                ],
            }
        )
    )
    out = tmp_path / "s.yaml"
    assert main(["import", "vcr", str(source), "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{source}: skipped 2 interactions: not a model turn a scenario rule answers "
        "(POST /v1/chat/completions or /v1/responses or /v1/completions or "
        "/v1beta/models/{model}:generateContent or /v1/messages or "
        "/model/{model+}/converse or /model/{model+}/invoke or /api/chat or /api/generate) "
        "(#0 GET /v1/models, #1 POST /v1/embeddings)",
        f"wrote {out}: 0 rule(s) from 0 recorded call(s)",
    ]
    assert yaml.safe_load(out.read_text())["rules"] == []


def _completion(text: str) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )
