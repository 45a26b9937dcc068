"""Drift: where an upstream's answers no longer have the shape they were recorded with — keys
added or gone, a value of another type, events in another order. Values themselves (texts,
ids, numbers) may change freely: only the shape is compared. Pure: recordings in, a list of
differences out."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mockserver.record.exchange import error_message

__all__ = [
    "answer_differences",
    "event_order",
    "rechained",
    "response_id",
    "shape",
    "shape_differences",
]


def shape(value: Any) -> Any:
    """``value``'s shape: objects keep their keys, lists merge their items, scalars become
    their JSON type's name."""
    if isinstance(value, Mapping):
        return {str(k): shape(v) for k, v in value.items()}
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = _merge(merged, shape(item))
        return [merged] if value else []
    return _kind(value)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _merge(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if isinstance(a, dict) and isinstance(b, dict):
        return {
            k: _merge(a.get(k), b.get(k)) if k in a and k in b else a.get(k, b.get(k))
            for k in {**a, **b}
        }
    if isinstance(a, list) and isinstance(b, list):
        return [_merge(a[0] if a else None, b[0] if b else None)] if a or b else []
    return a if a == b else f"{_name(a)}|{_name(b)}"


def _name(s: Any) -> str:
    return "object" if isinstance(s, dict) else "list" if isinstance(s, list) else str(s)


def shape_differences(old: Any, new: Any, path: str = "$") -> list[str]:
    """Where shape ``new`` differs from shape ``old``, one line each."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = [f"{path}.{k}: gone" for k in old if k not in new]
        found += [f"{path}.{k}: new ({_name(new[k])})" for k in new if k not in old]
        for key in old:
            if key in new:
                found += shape_differences(old[key], new[key], f"{path}.{key}")
        return found
    if isinstance(old, list) and isinstance(new, list):
        if old and new:
            return shape_differences(old[0], new[0], f"{path}[]")
        return []
    if _name(old) != _name(new):
        return [f"{path}: was {_name(old)}, now {_name(new)}"]
    return []


def event_order(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """A stream's event names in order, each run of one name counted once (a text streams in
    as many deltas as it has tokens)."""
    names: list[str] = []
    for event in events:
        name = event.get("event") or _payload_name(event.get("data", ""))
        if not names or names[-1] != name:
            names.append(name)
    return names


def _payload_name(data: str) -> str:
    if data == "[DONE]":
        return "[DONE]"
    try:
        value = json.loads(data)
    except ValueError:
        return "(not JSON)"
    if isinstance(value, Mapping):
        return str(value.get("type") or value.get("object") or "(object)")
    return _kind(value)


def _payloads_by_name(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    shapes: dict[str, Any] = {}
    for event in events:
        data = event.get("data", "")
        if data == "[DONE]":
            continue
        try:
            value = json.loads(data)
        except ValueError:
            continue
        name = event.get("event") or _payload_name(data)
        shapes[name] = _merge(shapes.get(name), shape(value))
    return shapes


def answer_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """How recording ``new`` (the same request, answered again) differs in shape from ``old``;
    both as recording files hold them (``status``, ``body`` or ``events``)."""
    if old.get("status") != new.get("status"):
        said = f"status was {old.get('status')}, now {new.get('status')}"
        message = error_message(new.get("body"))
        return [f"{said}: {message}" if message else said]
    if ("events" in old) != ("events" in new):
        kinds = ("a stream" if "events" in r else "a body" for r in (old, new))
        return ["answer was {}, now {}".format(*kinds)]
    if "events" not in old:
        return shape_differences(shape(_parsed(old.get("body"))), shape(_parsed(new.get("body"))))
    found = []
    before, after = event_order(old["events"]), event_order(new["events"])
    if before != after:
        found.append(f"event order was {' > '.join(before)}; now {' > '.join(after)}")
    old_shapes, new_shapes = _payloads_by_name(old["events"]), _payloads_by_name(new["events"])
    for name in old_shapes:
        if name in new_shapes:
            found += shape_differences(old_shapes[name], new_shapes[name], f"{name}$")
    return found


def _parsed(body: Any) -> Any:
    if not isinstance(body, str):
        return body
    try:
        return json.loads(body)
    except ValueError:
        return body


def response_id(recording: Mapping[str, Any]) -> str | None:
    """The id of the Response a recording's answer is (its body's, or its stream's), if any."""
    if "events" not in recording:
        body = _parsed(recording.get("body"))
        is_response = isinstance(body, Mapping) and body.get("object") == "response"
        return str(body["id"]) if is_response and isinstance(body.get("id"), str) else None
    for event in recording["events"]:
        payload = _parsed(event.get("data", ""))
        response = payload.get("response") if isinstance(payload, Mapping) else None
        if isinstance(response, Mapping) and isinstance(response.get("id"), str):
            return str(response["id"])
    return None


def rechained(request: Any, renamed: Mapping[str, str]) -> Any:
    """``request`` with a ``previous_response_id`` that names a recorded response pointed at
    the response the same recording got when it was sent again (``renamed``: recorded id →
    the new one)."""
    if isinstance(request, Mapping) and request.get("previous_response_id") in renamed:
        return {**request, "previous_response_id": renamed[request["previous_response_id"]]}
    return request
