"""A browser's HAR export read as exchanges: the sample is a DevTools export of a frontend
developer's session (see samples/make_samples.py)."""

from __future__ import annotations

import base64
import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from mockserver.record.har import read_har
from mockserver.record.importing import ImportFailed

SAMPLE = Path(__file__).parent / "samples" / "frontend_session.har"


def _sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SAMPLE.read_text())
    return data


def test_the_apps_openai_calls_are_imported_through_its_dev_proxy() -> None:
    imported = read_har(SAMPLE)
    calls = [(e.method, e.path, e.status, e.stream) for e in imported.exchanges]
    assert calls == [
        ("POST", "/v1/responses", 200, True),
        ("POST", "/v1/chat/completions", 200, False),
    ]
    assert imported.exchanges[0].request["input"] == "A haiku about tea, please"


def test_the_page_its_scripts_and_preflights_are_skipped_with_lines_saying_why() -> None:
    lines = read_har(SAMPLE).skipped_lines()
    assert lines == [
        f"{SAMPLE}: skipped 3 entries: not an OpenAI API call (#0 GET http://localhost:5173/, "
        "#1 GET http://localhost:5173/src/main.ts, #5 GET http://localhost:5173/favicon.ico)",
        f"{SAMPLE}: skipped 1 entry: a CORS preflight (OPTIONS) "
        "(#2 OPTIONS http://localhost:5173/api/v1/responses)",
    ]


def test_a_streamed_response_is_split_into_events_paced_by_the_timings() -> None:
    stream = read_har(SAMPLE).exchanges[0]
    assert stream.events is not None
    assert stream.complete
    assert stream.events[-1].event == "response.completed"
    offsets = [e.offset_ms for e in stream.events]
    # blocked 1.2 + send 0.2 + wait 412.5 to the first byte; receive 1380 to the last
    assert offsets[0] == pytest.approx(413.9)
    assert offsets[-1] == pytest.approx(413.9 + 1380)
    assert offsets == sorted(offsets)
    assert stream.elapsed_ms == pytest.approx(1793.9 - 1.2)  # entry.time: without blocking


def test_a_base64_body_is_decoded() -> None:
    chat = read_har(SAMPLE).exchanges[1]
    assert _sample()["log"]["entries"][4]["response"]["content"]["encoding"] == "base64"
    assert chat.body["choices"][0]["message"]["content"] == "It is 21 °C and sunny in Boston."


def test_cookies_and_keys_in_the_export_never_reach_an_exchange() -> None:
    exchanges = read_har(SAMPLE).exchanges
    assert exchanges
    for exchange in exchanges:
        assert "SAMPLE" not in repr(exchange)
        assert set(exchange.request_headers) <= {"content-type", "openai-beta", "user-agent"}


def test_event_source_messages_give_the_events_and_their_times(tmp_path: Path) -> None:
    data = _sample()
    entry = data["log"]["entries"][3]
    del entry["response"]["content"]["text"]
    entry["_eventSourceMessages"] = [
        {"time": 100.5, "eventName": "message", "eventId": "", "data": '{"choices": []}'},
        {"time": 100.75, "eventName": "message", "eventId": "", "data": "[DONE]"},
    ]
    path = tmp_path / "messages.har"
    path.write_text(json.dumps(data))
    stream = read_har(path).exchanges[0]
    assert stream.events is not None
    assert [(e.event, e.offset_ms) for e in stream.events] == [(None, 413.9), (None, 663.9)]
    assert stream.complete


def test_gzip_bytes_a_proxy_exported_are_decompressed(tmp_path: Path) -> None:
    data = _sample()
    response = data["log"]["entries"][4]["response"]
    plain = base64.b64decode(response["content"]["text"])
    response["content"]["text"] = base64.b64encode(gzip.compress(plain)).decode()
    response["headers"].append({"name": "Content-Encoding", "value": "gzip"})
    path = tmp_path / "proxy.har"
    path.write_text(json.dumps(data))
    assert read_har(path).exchanges[1].body == json.loads(plain)


def test_an_entry_without_a_body_or_an_answer_is_skipped_and_said(tmp_path: Path) -> None:
    data = _sample()
    entries = data["log"]["entries"]
    del entries[4]["response"]["content"]["text"]
    cancelled = copy.deepcopy(entries[3])
    cancelled["response"]["status"] = 0
    entries.append(cancelled)
    path = tmp_path / "partial.har"
    path.write_text(json.dumps(data))
    lines = read_har(path).skipped_lines()
    assert any("no response body (no response.content.text) (#4 POST" in line for line in lines)
    assert any(
        "no answer (status 0: the call was cancelled or blocked) (#6" in line for line in lines
    )


def _broken(tmp_path: Path, change: Any) -> Path:
    data = _sample()
    change(data["log"]["entries"][3])
    path = tmp_path / "broken.har"
    path.write_text(json.dumps(data))
    return path


def _set(entry: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for key in parents:
        entry = entry[key]
    entry[last] = value


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("response.content.encoding", "base64", "response.content.text: not valid base64"),
        ("response.content.encoding", "hex", "response.content.encoding: content encoding 'hex'"),
        ("response.status", "200", "response.status: expected an HTTP status code, got '200'"),
        ("request.postData", {"mimeType": "application/json"}, "request.postData.text: the export"),
        (
            "request.postData.text",
            "input=hi",
            "request.postData.text: the request body is not JSON",
        ),
        ("request.headers", {"a": "b"}, "request.headers: expected a list of {name, value}"),
        ("response.content", None, "response.content: expected the content as an object"),
    ],
)
def test_a_malformed_entry_is_a_located_error(
    tmp_path: Path, field: str, value: Any, message: str
) -> None:
    path = _broken(tmp_path, lambda entry: _set(entry, field, value))
    with pytest.raises(ImportFailed) as failed:
        read_har(path)
    assert str(failed.value).startswith(f"{path}: entry 3: {message}")


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not valid JSON"), ('{"log": {}}', "log.entries: not a HAR file"), ("[]", "not a HAR")],
)
def test_a_file_that_is_not_a_har_says_so(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.har"
    path.write_text(text)
    with pytest.raises(ImportFailed, match=message):
        read_har(path)
