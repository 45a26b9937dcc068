"""vcrpy / pytest-recording cassettes read as exchanges: the samples beside these tests are
real vcrpy recordings of the openai SDK (see samples/make_samples.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml

from mockserver.record.importing import ImportFailed, api_path
from mockserver.record.vcr import read_cassette

SAMPLES = Path(__file__).parent / "samples"
KEY = "sk-proj-SAMPLE0not0a0real0key0000000000"


def test_a_yaml_cassette_of_the_sdk_gives_its_openai_calls_in_order() -> None:
    imported = read_cassette(SAMPLES / "openai_sdk.yaml")
    calls = [(e.method, e.path, e.status, e.stream) for e in imported.exchanges]
    assert calls == [
        ("POST", "/v1/chat/completions", 200, False),
        ("POST", "/v1/chat/completions", 200, True),
        ("POST", "/v1/responses", 200, False),
        ("POST", "/v1/responses", 200, True),
        ("POST", "/v1/chat/completions", 429, False),
    ]


def test_gzip_bodies_kept_as_binary_are_decompressed_json() -> None:
    raw = yaml.safe_load((SAMPLES / "openai_sdk.yaml").read_text())
    assert isinstance(raw["interactions"][0]["response"]["body"]["string"], bytes)  # !!binary
    chat = read_cassette(SAMPLES / "openai_sdk.yaml").exchanges[0]
    assert chat.body["object"] == "chat.completion"
    assert chat.body["choices"][0]["message"]["content"] == "It is 21 °C and sunny in Boston."
    assert chat.request["messages"] == [{"role": "user", "content": "What is the weather?"}]


def test_stream_bodies_are_split_into_events_at_offset_zero() -> None:
    exchanges = read_cassette(SAMPLES / "openai_sdk.yaml").exchanges
    chat, responses = exchanges[1], exchanges[3]
    assert chat.events is not None
    assert responses.events is not None
    assert chat.events[-1].data == "[DONE]"
    assert json.loads(chat.events[-2].data)["usage"]["total_tokens"] > 0  # include_usage
    assert responses.events[0].event == "response.created"
    assert responses.events[-1].event == "response.completed"
    assert {e.offset_ms for e in chat.events + responses.events} == {0.0}
    assert chat.complete
    assert responses.complete


def test_an_upstream_error_is_imported_with_its_rate_limit_headers() -> None:
    limited = read_cassette(SAMPLES / "openai_sdk.yaml").exchanges[4]
    assert limited.body["error"]["type"] == "rate_limit_error"
    assert limited.response_headers["retry-after"] == "2"
    assert limited.response_headers["x-ratelimit-limit-requests"] == "10000"


def test_credentials_and_cookies_never_leave_the_cassette() -> None:
    exchanges = read_cassette(SAMPLES / "openai_sdk.yaml").exchanges
    assert exchanges
    for exchange in exchanges:
        headers = {**exchange.request_headers, **exchange.response_headers}
        for name in ("authorization", "openai-organization", "openai-project", "set-cookie"):
            assert name not in headers
        assert KEY not in repr(exchange)
        assert "SAMPLEcookie" not in repr(exchange)
        # what described the recorded bytes does not describe the decoded body
        assert "content-encoding" not in headers
        assert "transfer-encoding" not in headers


def test_other_traffic_in_the_cassette_is_skipped_with_a_line_saying_why() -> None:
    imported = read_cassette(SAMPLES / "openai_sdk.yaml")
    assert imported.skipped_lines() == [
        f"{SAMPLES / 'openai_sdk.yaml'}: skipped 1 interaction: not an OpenAI API call "
        "(#5 GET http://localhost:8080/__mockserver/health)"
    ]


def test_a_json_serializer_cassette_with_decoded_bodies_is_read() -> None:
    chat, responses = read_cassette(SAMPLES / "openai_sdk.json").exchanges
    [call] = chat.body["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert chat.request["tools"][0]["function"]["name"] == "get_weather"
    assert responses.body["object"] == "response"


def test_a_stream_body_stored_with_its_chunked_framing_is_unframed() -> None:
    [stream] = read_cassette(SAMPLES / "chunked_stream.yaml").exchanges
    raw = yaml.safe_load((SAMPLES / "chunked_stream.yaml").read_text())
    assert raw["interactions"][0]["response"]["body"]["string"].startswith("60\r\n")
    assert stream.events is not None
    assert stream.events[-1].data == "[DONE]"
    text = "".join(
        json.loads(e.data)["choices"][0]["delta"].get("content") or ""
        for e in stream.events[:-1]
        if json.loads(e.data)["choices"]
    )
    assert text == "It is 21 °C and sunny in Boston."


def _cassette(tmp_path: Path, interactions: object, *, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"version": 1, "interactions": interactions}))
    return path


def _chat(response: dict[str, object], **request: object) -> dict[str, object]:
    return {
        "request": {
            "method": "POST",
            "uri": "https://gateway.example/openai/v1/chat/completions?trace=1",
            "body": '{"model": "gpt-4o-mini", "messages": []}',
            "headers": {"Authorization": "Bearer sk-x", "OpenAI-Beta": "assistants=v2"},
            **request,
        },
        "response": response,
    }


_OK = {
    "status": {"code": 200, "message": "OK"},
    "headers": {"Content-Type": ["application/json"]},
    "body": {"string": '{"object": "chat.completion"}'},
}


def test_a_gateway_prefix_is_cut_to_the_api_path_and_the_query_kept(tmp_path: Path) -> None:
    [exchange] = read_cassette(_cassette(tmp_path, [_chat(_OK)])).exchanges
    assert (exchange.path, exchange.query) == ("/v1/chat/completions", "trace=1")
    assert exchange.request_headers == {"openai-beta": "assistants=v2"}


def test_older_shapes_are_read(tmp_path: Path) -> None:
    """httpx responses as vcrpy < 6 wrote them, header lines, a bare list (before version 1)."""
    old_httpx = {
        "status_code": 200,
        "headers": ["Content-Type: application/json\r\n", "x-request-id: req_1\r\n"],
        "content": '{"object": "chat.completion"}',
        "http_version": "HTTP/1.1",
    }
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump([_chat(old_httpx)]))
    [exchange] = read_cassette(path).exchanges
    assert exchange.body == {"object": "chat.completion"}
    assert exchange.response_headers == {
        "content-type": "application/json",
        "x-request-id": "req_1",
    }


def test_python_2_string_tags_are_read_and_object_tags_refused(tmp_path: Path) -> None:
    text = yaml.safe_dump({"version": 1, "interactions": [_chat(_OK)]})
    path = tmp_path / "py2.yaml"
    path.write_text(text.replace("method: POST", "method: !!python/unicode 'POST'"))
    assert len(read_cassette(path).exchanges) == 1
    path.write_text(text.replace("method: POST", "method: !!python/object/apply:os.getcwd []"))
    with pytest.raises(ImportFailed, match=r"py2.yaml:7: a YAML tag a safe loader refuses"):
        read_cassette(path)


@pytest.mark.parametrize(
    ("interaction", "where"),
    [
        ({"request": _chat(_OK)["request"]}, "interaction 0: response: expected the response"),
        (
            _chat(
                {**_OK, "body": {"string": b"not gzip"}, "headers": {"content-encoding": "gzip"}}
            ),
            "interaction 0: response.body.string: the body is not valid gzip data",
        ),
        (
            _chat({**_OK, "status": {"code": "200"}}),
            "interaction 0: response.status.code: expected an HTTP status code, got '200'",
        ),
        (
            _chat(_OK, body="model=gpt-4o"),
            "interaction 0: request.body: the request body is not JSON",
        ),
        (_chat(_OK, uri=None), "interaction 0: request.uri: expected text, got nothing"),
        (
            _chat({**_OK, "headers": {"content-type": [{"a": 1}]}}),
            "interaction 0: response.headers.content-type: expected text, got a mapping",
        ),
    ],
)
def test_a_malformed_interaction_is_a_located_error(
    tmp_path: Path, interaction: dict[str, object], where: str
) -> None:
    path = _cassette(tmp_path, [_chat(_OK), interaction][1:])
    with pytest.raises(ImportFailed) as failed:
        read_cassette(path)
    assert str(failed.value).startswith(f"{path}: {where}")


def test_a_later_interaction_is_named_by_its_index(tmp_path: Path) -> None:
    path = _cassette(tmp_path, [_chat(_OK), _chat(_OK), "oops"])
    with pytest.raises(ImportFailed, match=r"interaction 2: expected an interaction as a mapping"):
        read_cassette(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("interactions: [\n  - {", r"bad.yaml:2: not valid YAML"),
        ("version: 1\n", "not a vcrpy cassette"),
        ("version: 2\ninteractions: []\n", "version: cassette format version 2"),
    ],
)
def test_a_file_that_is_not_a_cassette_says_so(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ImportFailed, match=message):
        read_cassette(path)


def test_a_json_cassette_that_is_not_json_says_so(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"interactions": [')
    with pytest.raises(ImportFailed, match=r"bad\.json: not valid JSON"):
        read_cassette(path)


def test_a_missing_cassette_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="cannot read the cassette"):
        read_cassette(tmp_path / "absent.yaml")


def test_a_gzip_body_as_text_is_still_read_when_it_is_gzip(tmp_path: Path) -> None:
    gz = gzip.compress(b'{"object": "chat.completion"}')
    response = {**_OK, "headers": {"Content-Encoding": ["gzip"]}, "body": {"string": gz}}
    [exchange] = read_cassette(_cassette(tmp_path, [_chat(response)])).exchanges
    assert exchange.body == {"object": "chat.completion"}


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("https://api.openai.com/v1/chat/completions", ("/v1/chat/completions", "")),
        ("http://localhost:5173/api/v1/responses?x=1", ("/v1/responses", "x=1")),
        ("https://gw.example/v1/tenant/openai/v1/responses", ("/v1/responses", "")),
        ("https://api.openai.com/v1/responses/resp_1", ("/v1/responses/resp_1", "")),
        ("https://api.openai.com/v1/embeddings", ("/v1/embeddings", "")),
        ("https://api.openai.com/v1/images/generations", "mockserver does not serve /v1/images"),
        ("https://api.github.com/v1/users", "not an OpenAI API call"),
        ("https://api.openai.com/chat/completions", "not an OpenAI API call"),
    ],
)
def test_an_api_path_is_found_after_any_prefix(url: str, target: object) -> None:
    assert api_path(url) == target


def test_the_credentials_an_unfiltered_cassette_holds_are_collected_for_masking() -> None:
    assert KEY in read_cassette(SAMPLES / "openai_sdk.yaml").secrets
    assert read_cassette(SAMPLES / "openai_sdk.json").secrets == ()  # filter_headers did it
