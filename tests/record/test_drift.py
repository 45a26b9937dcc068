"""Drift is a change of shape (keys, types, event order), never of values."""

from __future__ import annotations

import json

from mockserver.record.drift import answer_differences, event_order, shape, shape_differences


def test_values_may_change_but_keys_and_types_may_not() -> None:
    old = shape({"id": "a", "choices": [{"text": "x"}], "usage": {"total": 1}})
    assert shape_differences(old, shape({"id": "b", "choices": [], "usage": {"total": 9}})) == []
    assert shape_differences(old, shape({"id": 1, "choices": [{"text": "y", "new": True}]})) == [
        "$.usage: gone",
        "$.id: was string, now number",
        "$.choices[].new: new (boolean)",
    ]


def test_event_order_counts_a_run_of_deltas_once() -> None:
    events = [{"event": "a"}, {"event": "delta"}, {"event": "delta"}, {"data": '{"type": "z"}'}]
    assert event_order(events) == ["a", "delta", "z"]


def test_a_stream_whose_events_come_in_another_order_has_drifted() -> None:
    def stream(*names: str) -> dict[str, object]:
        return {
            "status": 200,
            "events": [{"event": n, "data": json.dumps({"type": n})} for n in names],
        }

    assert answer_differences(stream("a", "b", "b", "c"), stream("a", "b", "c")) == []
    assert answer_differences(stream("a", "b", "c"), stream("a", "c", "b")) == [
        "event order was a > b > c; now a > c > b"
    ]


def test_another_status_or_kind_of_answer_is_drift() -> None:
    body = {"status": 200, "body": "{}"}
    assert answer_differences(body, {"status": 500, "body": "{}"}) == ["status was 200, now 500"]
    assert answer_differences(body, {"status": 200, "events": []}) == [
        "answer was a body, now a stream"
    ]


def test_another_status_quotes_the_upstreams_error_message() -> None:
    refused = {"error": {"message": "Previous response with id 'resp_1' not found.", "code": None}}
    for body in (refused, json.dumps(refused)):  # parsed, or the text as it came
        assert answer_differences({"status": 200, "body": {}}, {"status": 400, "body": body}) == [
            "status was 200, now 400: Previous response with id 'resp_1' not found."
        ]
