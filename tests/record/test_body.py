"""Reading recorded bodies back: encodings undone, streams split into events."""

from __future__ import annotations

import gzip
import zlib

import pytest

from mockserver.record import body
from mockserver.record.body import (
    BodyError,
    dechunked,
    decoded,
    events_of,
    read_response,
    stream_complete,
)


def test_gzip_and_deflate_bodies_are_decompressed() -> None:
    assert decoded(gzip.compress(b'{"a": 1}'), "gzip") == b'{"a": 1}'
    assert decoded(zlib.compress(b"zlib"), "deflate") == b"zlib"
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    assert decoded(raw.compress(b"raw") + raw.flush(), "deflate") == b"raw"


def test_codings_are_undone_last_applied_first() -> None:
    twice = gzip.compress(zlib.compress(b"x"))
    assert decoded(twice, "deflate, gzip") == b"x"
    assert decoded(b"plain", "identity") == b"plain"


def test_a_body_that_is_not_what_its_encoding_says_is_an_error_saying_so() -> None:
    with pytest.raises(BodyError, match="not valid gzip data"):
        decoded(b'{"not": "compressed"}', "gzip")
    with pytest.raises(BodyError, match="'zstd' is not one an import reads"):
        decoded(b"", "zstd")


def test_brotli_without_a_binding_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body, "_brotli", lambda: None)
    with pytest.raises(BodyError, match="pip install brotli"):
        decoded(b"\x8b\x00\x80", "br")


def test_brotli_bodies_are_read_with_the_installed_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    class Binding:
        @staticmethod
        def decompress(data: bytes) -> bytes:
            if data != b"compressed":
                raise ValueError("bad data")
            return b"plain"

    monkeypatch.setattr(body, "_brotli", lambda: Binding)
    assert decoded(b"compressed", "br") == b"plain"
    with pytest.raises(BodyError, match="not valid br data"):
        decoded(b"other", "br")


def test_chunked_framing_is_removed_and_plain_bodies_are_left_alone() -> None:
    assert dechunked(b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n") == b"hello world"
    assert dechunked(b'{"a": 1}') is None
    assert dechunked(b"5\r\nhel") is None  # cut: not framing after all


def test_events_are_parsed_as_a_browser_would() -> None:
    text = (
        ": keep-alive\r\n\r\n"
        'event: response.created\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
        "id: 7\nretry: 10\ndata:[DONE]"  # no space after the colon; no blank line at the end
    )
    events = events_of(text, [5.0])
    assert [(e.event, e.data, e.offset_ms) for e in events] == [
        ("response.created", '{"a":\n1}', 5.0),
        (None, "[DONE]", 0.0),
    ]


def test_a_stream_is_complete_when_it_ends_with_its_last_event() -> None:
    assert stream_complete(events_of("data: {}\n\ndata: [DONE]\n\n"))
    assert stream_complete(events_of('event: response.completed\ndata: {"type":"x"}\n\n'))
    assert stream_complete(events_of('data: {"type": "response.failed"}\n\n'))
    assert not stream_complete(events_of('data: {"choices": []}\n\n'))
    assert not stream_complete(())


def test_an_event_stream_is_recognised_without_a_content_type() -> None:
    answer = read_response(b"data: {}\n\ndata: [DONE]\n\n", content_type="")
    assert answer.events is not None
    assert answer.complete
    assert read_response(b'{"a": 1}', content_type="").body == {"a": 1}


def test_a_json_body_that_is_not_json_names_its_start() -> None:
    with pytest.raises(BodyError, match=r"not JSON .*'<html>"):
        read_response(b"<html>oops</html>", content_type="application/json")
