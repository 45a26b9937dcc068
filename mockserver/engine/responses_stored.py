"""A stored response after its turn: background states, cancel, retrieval, deletion, its
input items, and what a response continuing it sees.

A background response moves one state each time it is looked at (no timers, no threads): the
look that completes it adds its turn to its conversation; a cancelled one keeps no output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import takewhile
from typing import Final

from mockserver.engine.core import Engine
from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.render.responses import final_status, output_items, response_body
from mockserver.render.responses_stream import response_events
from mockserver.store import Namespace, Page, PageQuery, StoredResponse, paginate
from mockserver.values import Json

__all__ = [
    "FINISHED",
    "cancel_response",
    "context_of",
    "delete_response",
    "join_conversation",
    "list_input_items",
    "retrieve_events",
    "retrieve_response",
    "stored_response",
]

_RUNNING: Final = ("queued", "in_progress")
FINISHED: Final = ("completed", "incomplete")
#: What a background response's stream had sent when it was cancelled in each state (the
#: stream has no event for a cancellation, so it ends there).
_SENT_BY: Final[Mapping[str, frozenset[str]]] = {
    "queued": frozenset({"response.created", "response.queued"}),
    "in_progress": frozenset({"response.created", "response.queued", "response.in_progress"}),
}


def stored_response(
    space: Namespace, response_id: str, *, now: float | None = None
) -> StoredResponse:
    """The response stored as ``response_id``, unless it is not, or was forgotten by ``now``
    (the namespace's clock; a background one past its retention)."""
    stored = live_response(space, response_id, now=now)
    if stored is None:
        raise NotFoundError(f"Response with id '{response_id}' not found.")
    return stored


def live_response(
    space: Namespace, response_id: str, *, now: float | None
) -> StoredResponse | None:
    stored = space.responses.get(response_id)
    if stored is not None and stored.expired(now):  # the API deletes it then
        del space.responses[response_id]
        return None
    return stored


def _output_count(stored: StoredResponse) -> int:
    if stored.recorded is not None:
        return len(stored.recorded.get("output") or ())
    return len(output_items(stored.reply, stored.meta))


def context_of(stored: StoredResponse) -> list[Json]:
    """What continues ``stored``: its history and input, and its output once it has one (a
    queued, running or cancelled background response has produced none)."""
    context = stored.context
    if stored.status in FINISHED:
        return list(context)
    return context[: len(context) - _output_count(stored)]


def _own_items(stored: StoredResponse) -> list[Json]:
    """This response's turn in its context: its input, then its output."""
    context = stored.context
    return context[len(context) - len(stored.input_items) - _output_count(stored) :]


def join_conversation(space: Namespace, stored: StoredResponse) -> None:
    """Append a finished response's input and output to its conversation, if it still exists
    (only once it completes: a cancelled response adds nothing, not even its input)."""
    conversation = stored.meta.echo.get("conversation")
    if conversation is None or conversation["id"] not in space.conversations:
        return
    items = space.conversations[conversation["id"]].items
    for item in _own_items(stored):
        items[str(item["id"])] = item


def _advance(engine: Engine, space: Namespace, stored: StoredResponse) -> None:
    """A background response moves one state each time it is looked at (no timers, no
    threads); the look that completes it adds it to its conversation."""
    if not stored.background:
        return
    if stored.status == "queued":
        stored.status = "in_progress"
        stored.started = True
    elif stored.status == "in_progress":
        stored.status = final_status(stored.reply)
        stored.completed_at = engine.now()
        join_conversation(space, stored)


def _render(stored: StoredResponse, include: Sequence[str] = ()) -> Json:
    if stored.recorded is not None:  # an exact replay's: as the upstream sent it
        return dict(stored.recorded)
    meta = replace(stored.meta, include=stored.meta.include | frozenset(include))
    return response_body(
        meta,
        stored.reply,
        status=stored.status,
        completed_at=stored.completed_at,
        error=stored.error,
    )


def retrieve_response(
    engine: Engine, response_id: str, *, namespace: str, include: Sequence[str] = ()
) -> Json:
    def look(space: Namespace) -> Json:
        stored = stored_response(space, response_id, now=engine.now_in(space))
        _advance(engine, space, stored)
        return _render(stored, include)

    return engine.store.transact(namespace, look)


def retrieve_events(
    engine: Engine,
    response_id: str,
    *,
    namespace: str,
    starting_after: int | None = None,
    obfuscation: bool = True,
) -> list[Json]:
    """A stored response's events. A running background response is followed to its end (as
    the real stream stays open until then), so this look completes it like the last poll
    would; a cancelled one's stream ends where it stopped."""

    def follow(space: Namespace) -> list[Json]:
        stored = stored_response(space, response_id, now=engine.now_in(space))
        while stored.status in _RUNNING:
            _advance(engine, space, stored)
        return _events(stored, obfuscation=obfuscation)

    events = engine.store.transact(namespace, follow)
    return [e for e in events if starting_after is None or e["sequence_number"] > starting_after]


def _events(stored: StoredResponse, *, obfuscation: bool) -> list[Json]:
    """What a stored response's stream sends, as far as it got."""
    meta = replace(stored.meta, obfuscation=obfuscation)
    events = response_events(stored.reply, meta, completed_at=stored.completed_at)
    if stored.status == "cancelled":
        sent = _SENT_BY["in_progress" if stored.started else "queued"]
        events = list(takewhile(lambda e: e["type"] in sent, events))
    elif stored.status == "failed":  # what it ended with, not the reply it never sent
        events = list(takewhile(lambda e: e["type"] in _SENT_BY["in_progress"], events))
        failed = _render(stored)
        events.append(
            {"type": "response.failed", "sequence_number": len(events), "response": failed}
        )
    return events


def cancel_response(engine: Engine, response_id: str, *, namespace: str) -> Json:
    def cancel(space: Namespace) -> Json:
        stored = stored_response(space, response_id, now=engine.now_in(space))
        if not stored.background:
            raise InvalidRequestError("Cannot cancel a synchronous response.")
        if stored.status in _RUNNING:
            stored.status = "cancelled"
        return _render(stored)

    return engine.store.transact(namespace, cancel)


def delete_response(engine: Engine, response_id: str, *, namespace: str) -> Json:
    def delete(space: Namespace) -> None:
        stored_response(space, response_id, now=engine.now_in(space))
        del space.responses[response_id]

    engine.store.transact(namespace, delete)
    return {"id": response_id, "object": "response.deleted", "deleted": True}


def list_input_items(
    engine: Engine,
    response_id: str,
    *,
    namespace: str,
    query: PageQuery,
) -> Page:
    def page(space: Namespace) -> Page:  # (a change: a response past its retention goes)
        stored = stored_response(space, response_id, now=engine.now_in(space))
        return paginate(
            stored.input_items,
            key=lambda item: str(item["id"]),
            render=dict,
            query=query,
        )

    return engine.store.transact(namespace, page)
