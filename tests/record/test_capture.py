"""Capturing an exchange as its bytes arrive: events cut anywhere, bodies kept as sent."""

from __future__ import annotations

from mockserver.record.capture import Capture, EventReader


def test_events_split_across_reads_and_line_endings_are_read_whole() -> None:
    reader = EventReader()
    got = reader.feed(b"event: response.created\r\nda")
    got += reader.feed(b'ta: {"a":1}\r\n\r\ndata: line one\ndata: line two\n')
    assert got == [("response.created", '{"a":1}')]
    assert reader.feed(b"\n: a comment\n\ndata: [DONE]\n\n") == [
        (None, "line one\nline two"),
        (None, "[DONE]"),
    ]


def test_a_stream_is_captured_event_by_event_with_its_offsets() -> None:
    capture = Capture("POST", "/v1/chat/completions", "", [], b'{"model":"m","stream":true}')
    capture.respond(200, [("Content-Type", "text/event-stream"), ("Set-Cookie", "a=b")])
    capture.receive(b"data: {}\n\n", offset_ms=12.34)
    capture.receive(b"data: [DONE]\n\n", offset_ms=20.0)
    exchange = capture.finish(complete=True, elapsed_ms=21.0)
    assert exchange.request == {"model": "m", "stream": True}
    assert [(e.offset_ms, e.data) for e in exchange.events or ()] == [
        (12.3, "{}"),
        (20.0, "[DONE]"),
    ]
    assert exchange.response_headers == {"content-type": "text/event-stream"}
    assert exchange.body_text is None


def test_a_body_is_kept_as_the_exact_text_that_arrived() -> None:
    capture = Capture("POST", "/v1/responses", "", [("Authorization", "Bearer sk-1")], b"{}")
    capture.respond(429, [("content-type", "application/json"), ("retry-after", "1")])
    capture.receive(b'{\n  "error": ', offset_ms=1)
    capture.receive(b'{"message": "slow"}}', offset_ms=2)
    exchange = capture.finish(complete=True, elapsed_ms=2)
    assert exchange.body_text == '{\n  "error": {"message": "slow"}}'
    assert exchange.body == {"error": {"message": "slow"}}
    assert exchange.status == 429
    assert exchange.request_headers == {}
