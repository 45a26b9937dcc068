"""Checks of a whole Responses event stream, shared by the render unit tests and the SDK
end-to-end tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union, get_args

from openai.types.responses import Response, ResponseStreamEvent
from pydantic import Field, TypeAdapter

__all__ = ["DONE_FIELD", "EVENTS", "TERMINAL", "assert_well_formed", "until_done"]

#: The SDK's event union, discriminated on ``type`` so a mismatch names the one event model.
EVENTS: TypeAdapter[Any] = TypeAdapter(
    Annotated[Union[get_args(get_args(ResponseStreamEvent)[0])], Field(discriminator="type")]  # noqa: UP007
)
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
#: A delta event family → the field of its ``.done`` event holding the whole text.
DONE_FIELD = {
    "response.output_text": "text",
    "response.refusal": "refusal",
    "response.function_call_arguments": "arguments",
    "response.custom_tool_call_input": "input",
    "response.reasoning_summary_text": "text",
    "response.reasoning_text": "text",
    "response.mcp_call_arguments": "arguments",
    "response.code_interpreter_call_code": "code",
    "response.shell_call_command": "command",
}
_SUB_INDEXES = ("content_index", "summary_index", "command_index")


def _family(kind: str) -> str:
    return kind.rsplit(".", 1)[0]


def _key(event: Mapping[str, Any]) -> tuple[Any, ...]:
    return (_family(event["type"]), *(event.get(k) for k in _SUB_INDEXES))


def _check_part(event: Mapping[str, Any], open_parts: set[tuple[str, int]]) -> None:
    """``*.part.added`` opens a sub-part, ``*.part.done`` closes it; events sit inside it."""
    for prefix, index in (("content_part", "content_index"), ("summary_part", "summary_index")):
        if index not in event:
            continue
        part = (prefix, event[index])
        if event["type"].endswith(f"{prefix}.added"):
            assert part not in open_parts
            open_parts.add(part)
        elif event["type"].endswith(f"{prefix}.done"):
            open_parts.remove(part)
        elif prefix == "content_part" and "reasoning_summary" not in event["type"]:
            assert part in open_parts, event


def _check_item_event(
    event: Mapping[str, Any],
    current: Mapping[str, Any],
    deltas: dict[tuple[Any, ...], str],
    open_parts: set[tuple[str, int]],
) -> None:
    assert event["output_index"] == current["index"], event
    if "item_id" in event:
        assert event["item_id"] == current["id"], event
    if event["type"] == "response.function_call_arguments.done":  # 002: name is required
        assert event["name"] == current["name"], event
    _check_part(event, open_parts)
    if event["type"].endswith(".delta"):
        deltas[_key(event)] = deltas.get(_key(event), "") + event["delta"]
    elif event["type"].endswith(".done") and _family(event["type"]) in DONE_FIELD:
        field = DONE_FIELD[_family(event["type"])]
        assert deltas.get(_key(event), "") == event[field], event


def assert_well_formed(events: Sequence[Mapping[str, Any]]) -> Response:
    """Every event valid for the SDK, in order, nested right; returns the final response."""
    for number, event in enumerate(events):
        assert event["sequence_number"] == number
        EVENTS.validate_python(event)
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] in TERMINAL
    ids = {e["response"]["id"] for e in events if "response" in e}
    assert len(ids) == 1
    done: list[Mapping[str, Any]] = []
    current: dict[str, Any] | None = None
    deltas: dict[tuple[Any, ...], str] = {}
    open_parts: set[tuple[str, int]] = set()
    for event in events[1:-1]:
        kind = event["type"]
        if kind in ("response.queued", "response.in_progress"):
            assert current is None
            assert not done
        elif kind == "response.output_item.added":
            assert current is None
            assert event["output_index"] == len(done)
            current = {
                "index": event["output_index"],
                "id": event["item"].get("id"),
                "name": event["item"].get("name"),
            }
            deltas, open_parts = {}, set()
        elif kind == "response.output_item.done":
            assert current is not None
            assert event["output_index"] == current["index"]
            assert event["item"].get("id") == current["id"]
            assert not open_parts
            done.append(event["item"])
            current = None
        else:
            assert current is not None, event
            _check_item_event(event, current, deltas, open_parts)
    assert current is None
    final = events[-1]["response"]
    assert final["output"] == done
    return Response.model_validate(final)


def until_done(connection: Any, *, ends: tuple[str, ...] = (*TERMINAL, "error")) -> list[Any]:
    """The events of one response on a Responses socket (to its terminal event, or an
    ``error``)."""
    events = []
    for event in connection:
        events.append(event)
        if event.type in ends:
            return events
    raise AssertionError(f"the socket closed after {[e.type for e in events]}")
