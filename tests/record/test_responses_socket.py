"""A socket's request captured as the exchange of the HTTP stream it stands for."""

from __future__ import annotations

import json

from mockserver.record.responses_socket import SocketCapture

ASK = {"model": "gpt-4o-mini", "input": "hi", "stream": True}


def test_each_event_is_kept_without_its_lane_byte_for_byte() -> None:
    capture = SocketCapture(ASK)
    capture.receive('{"type":"response.created","sequence_number":0,"stream_id":"a"}', offset_ms=1)
    capture.receive(
        '{"type":"response.completed","sequence_number":1,"stream_id":"a"}', offset_ms=2
    )
    assert capture.done
    exchange = capture.finish(complete=True, elapsed_ms=2.04)
    assert exchange.events is not None
    assert [(e.event, e.data) for e in exchange.events] == [
        ("response.created", '{"type":"response.created","sequence_number":0}'),
        ("response.completed", '{"type":"response.completed","sequence_number":1}'),
    ]
    assert (exchange.method, exchange.path, exchange.status) == ("POST", "/v1/responses", 200)
    assert exchange.response_headers["content-type"].startswith("text/event-stream")
    assert exchange.complete
    assert exchange.request == ASK


def test_a_refusing_error_event_is_the_http_error_it_stands_for() -> None:
    capture = SocketCapture(ASK, response_headers=[("x-request-id", "req_1"), ("set-cookie", "x")])
    error = {
        "type": "error",
        "status": 429,
        "error": {
            "type": "rate_limit_error",
            "code": "slow_down",
            "message": "Slow down.",
            "param": None,
            "headers": {"Retry-After": "3"},
        },
    }
    capture.receive(json.dumps(error), offset_ms=1)
    assert capture.done
    exchange = capture.finish(complete=True, elapsed_ms=1)
    assert exchange.status == 429
    assert exchange.events is None
    assert exchange.body == {
        "error": {
            "type": "rate_limit_error",
            "code": "slow_down",
            "message": "Slow down.",
            "param": None,
        }
    }
    assert exchange.response_headers == {
        "x-request-id": "req_1",
        "content-type": "application/json",
        "retry-after": "3",
    }


def test_an_error_inside_a_stream_is_the_sse_streams_error_event() -> None:
    capture = SocketCapture(ASK)
    error = {
        "type": "error",
        "sequence_number": 4,
        "error": {"type": "server_error", "code": "server_is_overloaded", "message": "Busy."},
    }
    capture.receive(json.dumps(error), offset_ms=1)
    assert not capture.done  # response.failed follows
    capture.receive('{"type":"response.failed","sequence_number":5}', offset_ms=2)
    exchange = capture.finish(complete=True, elapsed_ms=2)
    assert exchange.events is not None
    assert json.loads(exchange.events[0].data) == {
        "type": "error",
        "sequence_number": 4,
        "code": "server_is_overloaded",
        "message": "Busy.",
        "param": None,
    }


def test_steering_events_are_not_the_requests() -> None:
    capture = SocketCapture(ASK)
    capture.receive('{"type":"response.steer.accepted","sequence_number":0}', offset_ms=1)
    capture.receive('{"type":"response.created","sequence_number":0}', offset_ms=2)
    exchange = capture.finish(complete=False, elapsed_ms=2)
    assert exchange.events is not None
    assert [e.event for e in exchange.events] == ["response.created"]
    assert not exchange.complete


def test_an_answer_without_its_terminal_event_is_cut() -> None:
    capture = SocketCapture(ASK)
    capture.receive('{"type":"response.created","sequence_number":0}', offset_ms=1)
    assert not capture.finish(complete=True, elapsed_ms=1).complete
