"""Reply → the Responses API's stream events, numbered by ``sequence_number`` from 0.

The items streamed are exactly :func:`output_items` of the reply, and the terminal event's
``response.output`` is that same list, so a client that reassembles the deltas gets the body a
non-streamed request would. Text deltas are one per token of ``Reply.tokens`` (with that
token's logprobs when asked for) unless a scenario's ``latency.chunk`` groups them; argument
and summary deltas follow the same tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from mockserver import ids
from mockserver.render.responses import (
    LOGPROBS,
    ResponseMeta,
    final_status,
    output_items,
    response_body,
    token_logprob,
)
from mockserver.render.responses_hosted import DELTAS, hosted_kind
from mockserver.reply.model import Reply
from mockserver.reply.tokens import group_texts, group_tokens, tokenize
from mockserver.values import Json

__all__ = ["response_events"]


class _Events:
    """Collects events, numbering them and padding deltas with ``obfuscation``."""

    def __init__(self, meta: ResponseMeta) -> None:
        self.meta = meta
        self.events: list[Json] = []
        self.pad = meta.pad or ids.obfuscator(meta.id)

    def emit(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})

    def delta(self, kind: str, text: str, at: Json, **fields: Any) -> None:
        """A delta event: position (``at``), ``delta``, then ``fields`` and the padding (one
        dict made: a stream has one of these per token)."""
        number = len(self.events)
        event = {"type": kind, "sequence_number": number, **at, "delta": text, **fields}
        if self.meta.obfuscation:
            event["obfuscation"] = self.pad(number, len(text))
        self.events.append(event)

    def text_delta(self, text: str, at: Json) -> None:
        """An ``output_text`` delta without logprobs: :meth:`delta`'s event, made without its
        keyword arguments (a stream has one per chunk of text)."""
        number = len(self.events)
        event = {
            "type": "response.output_text.delta",
            "sequence_number": number,
            **at,
            "delta": text,
            "logprobs": [],
        }
        if self.meta.obfuscation:
            event["obfuscation"] = self.pad(number, len(text))
        self.events.append(event)

    def deltas(self, kind: str, text: str, at: Json) -> None:
        for piece in tokenize(text):
            self.delta(kind, piece, at)


Streamer = Callable[[_Events, int, Json, Reply], None]


def _text_part(events: _Events, at: Json, part: Json, reply: Reply) -> None:
    wanted = LOGPROBS in events.meta.include
    empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    events.emit("response.content_part.added", **at, part=empty)
    if wanted:
        for group in group_tokens(reply.tokens, events.meta.chunk):
            logprobs = [token_logprob(t, with_bytes=False) for t in group]
            text = "".join(t.text for t in group)
            events.delta("response.output_text.delta", text, at, logprobs=logprobs)
    else:  # the tokens' texts alone: logprobs are scored only to be shown
        for text in group_texts(reply.token_texts, events.meta.chunk):
            events.text_delta(text, at)
    for number, annotation in enumerate(part["annotations"]):
        events.emit(
            "response.output_text.annotation.added",
            **at,
            annotation_index=number,
            annotation=annotation,
        )
    logprobs = [token_logprob(t, with_bytes=False) for t in reply.tokens] if wanted else []
    events.emit("response.output_text.done", **at, text=part["text"], logprobs=logprobs)
    events.emit("response.content_part.done", **at, part=part)


def _refusal_part(events: _Events, at: Json, part: Json, reply: Reply) -> None:
    events.emit("response.content_part.added", **at, part={"type": "refusal", "refusal": ""})
    for text in group_texts(reply.token_texts, events.meta.chunk):
        events.delta("response.refusal.delta", text, at)
    events.emit("response.refusal.done", **at, refusal=part["refusal"])
    events.emit("response.content_part.done", **at, part=part)


def _message(events: _Events, index: int, item: Json, reply: Reply) -> None:
    at = {"item_id": item["id"], "output_index": index, "content_index": 0}
    part = item["content"][0]
    if part["type"] == "refusal":
        _refusal_part(events, at, part, reply)
    else:
        _text_part(events, at, part, reply)


def _function_call(events: _Events, index: int, item: Json, reply: Reply) -> None:
    at = {"item_id": item["id"], "output_index": index}
    events.deltas("response.function_call_arguments.delta", item["arguments"], at)
    events.emit(
        "response.function_call_arguments.done",
        item_id=item["id"],
        name=item["name"],
        output_index=index,
        arguments=item["arguments"],
    )


def _custom_tool_call(events: _Events, index: int, item: Json, reply: Reply) -> None:
    at = {"item_id": item["id"], "output_index": index}
    events.deltas("response.custom_tool_call_input.delta", item["input"], at)
    events.emit("response.custom_tool_call_input.done", **at, input=item["input"])


def _reasoning(events: _Events, index: int, item: Json, reply: Reply) -> None:
    at = {"item_id": item["id"], "output_index": index}
    for number, part in enumerate(item["summary"]):
        summary = {**at, "summary_index": number}
        empty = {"type": "summary_text", "text": ""}
        events.emit("response.reasoning_summary_part.added", **summary, part=empty)
        events.deltas("response.reasoning_summary_text.delta", part["text"], summary)
        events.emit("response.reasoning_summary_text.done", **summary, text=part["text"])
        events.emit("response.reasoning_summary_part.done", **summary, part=part)
    for number, part in enumerate(item.get("content") or ()):
        content = {**at, "content_index": number}
        empty = {"type": "reasoning_text", "text": ""}
        events.emit("response.content_part.added", **content, part=empty)
        events.deltas("response.reasoning_text.delta", part["text"], content)
        events.emit("response.reasoning_text.done", **content, text=part["text"])
        events.emit("response.content_part.done", **content, part=part)


def _shell_commands(events: _Events, index: int, item: Json) -> None:
    action = item.get("action")
    commands = action.get("commands") if isinstance(action, Mapping) else None
    for number, command in enumerate(commands or ()):
        at = {"output_index": index, "command_index": number}
        events.emit("response.shell_call_command.added", **at, command="")
        events.deltas("response.shell_call_command.delta", str(command), at)
        events.emit("response.shell_call_command.done", **at, command=str(command))


def _hosted(events: _Events, index: int, item: Json, reply: Reply) -> None:
    if item["type"] == "shell_call":
        _shell_commands(events, index, item)
        return
    kind = hosted_kind(item["type"])
    at = {"item_id": item["id"], "output_index": index}
    for phase in kind.phases:
        if phase == DELTAS and kind.streamed is not None:
            name, prefix = kind.streamed
            value = str(item.get(name) or "")
            events.deltas(f"{prefix}.delta", value, at)
            events.emit(f"{prefix}.done", **at, **{name: value})
        elif phase == "completed" and item.get("error") is not None:
            if kind.events in _HAVE_FAILED:  # the others just end, their item says failed
                events.emit(f"{kind.events}.failed", **at)
        else:
            events.emit(f"{kind.events}.{phase}", **at)


#: The hosted calls with a ``….failed`` event of their own (the API has no other).
_HAVE_FAILED: Final = frozenset({"response.mcp_call", "response.mcp_list_tools"})

_STREAMERS: Final[Mapping[str, Streamer]] = {
    "message": _message,
    "function_call": _function_call,
    "custom_tool_call": _custom_tool_call,
    "reasoning": _reasoning,
}
#: Fields that are empty while an item is being streamed (filled by its deltas).
_OPENING: Final[Mapping[str, Json]] = {
    "message": {"content": []},
    "function_call": {"arguments": ""},
    "custom_tool_call": {"input": ""},
    "reasoning": {"summary": []},
}


def _opening(item: Json) -> Json:
    """The item as ``output_item.added`` announces it: in progress, streamed fields empty."""
    opened = {k: v for k, v in item.items() if k != "encrypted_content"}
    opened.update(_OPENING.get(item["type"], {}))
    if item["type"] == "reasoning" and "content" in item:
        opened["content"] = []
    streamed = hosted_kind(item["type"]).streamed
    if streamed is not None:
        opened[streamed[0]] = ""
    if "status" in opened:
        opened["status"] = "in_progress"
    return opened


def response_events(reply: Reply, meta: ResponseMeta, *, completed_at: int | None) -> list[Json]:
    """Every event of a streamed response, from ``response.created`` to the terminal one."""
    events = _Events(meta)
    background = meta.echo.get("background") is True
    opening = "queued" if background else "in_progress"
    events.emit("response.created", response=response_body(meta, reply, status=opening))
    if background:
        events.emit("response.queued", response=response_body(meta, reply, status="queued"))
    events.emit("response.in_progress", response=response_body(meta, reply, status="in_progress"))
    items = output_items(reply, meta)
    for index, item in enumerate(items):
        events.emit("response.output_item.added", output_index=index, item=_opening(item))
        _STREAMERS.get(item["type"], _hosted)(events, index, item, reply)
        events.emit("response.output_item.done", output_index=index, item=item)
    status = final_status(reply)
    final = response_body(meta, reply, status=status, completed_at=completed_at, output=items)
    events.emit(f"response.{status}", response=final)
    return events.events
