"""What a Responses request continues: the conversation so far and its input, resolved.

The conversation is data in the store: the stored chain of a ``previous_response_id`` (its
inputs and outputs, or a connection's ``store: false`` response it remembers), or a
conversation's items; an ``item_reference`` in the input names a stored item. Every
``function_call`` must be answered, and every output answer a call, before the model is asked
again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockserver.engine.core import Engine
from mockserver.engine.responses_stored import context_of, live_response
from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.prompt.responses import input_items
from mockserver.store import Namespace, StoredResponse
from mockserver.values import Json, value_class

__all__ = ["Context", "Remembered", "conversation_of", "resolve_context"]


@value_class
class Context:
    """The conversation so far (stored form) and this request's input (references resolved)."""

    history: list[Json]
    input: list[Json]

    @property
    def items(self) -> list[Json]:
        return [*self.history, *self.input]


def conversation_of(body: Mapping[str, Any]) -> str | None:
    raw = body.get("conversation")
    if raw is None:
        return None
    return raw if isinstance(raw, str) else str(raw["id"])


#: The responses a connection keeps in memory for what continues them, stored or not (the
#: Responses API's WebSocket mode keeps a socket's latest response: a chain of ``store: false``
#: responses continues on the socket that made them).
Remembered = dict[str, StoredResponse]


def _previous(
    space: Namespace, response_id: str, *, now: float, remembered: Remembered | None
) -> list[Json]:
    stored = live_response(space, response_id, now=now)
    if stored is None and remembered is not None:
        stored = remembered.get(response_id)
    if stored is None:  # a 400, not a 404: the request names it, the path does not
        raise InvalidRequestError(
            f"Previous response with id '{response_id}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    return context_of(stored)


def _conversation_items(space: Namespace, conversation_id: str) -> list[Json]:
    stored = space.conversations.get(conversation_id)
    if stored is None:
        raise NotFoundError(
            f"Conversation with id '{conversation_id}' not found.", param="conversation"
        )
    return list(stored.items.values())


def _referenced(space: Namespace, item_id: str, index: int, *, now: float) -> Json:
    """The stored item an ``item_reference`` names (newest owner first)."""
    for conversation in reversed(space.conversations.values()):
        if item_id in conversation.items:
            return dict(conversation.items[item_id])
    for response in reversed(space.responses.values()):
        if response.expired(now):
            continue  # forgotten, and its items with it
        for item in context_of(response):
            if item.get("id") == item_id:
                return dict(item)
    raise NotFoundError(f"Item with id '{item_id}' not found.", param=f"input[{index}].id")


def resolve_context(
    engine: Engine,
    space: Namespace,
    body: Mapping[str, Any],
    *,
    remembered: Remembered | None = None,
) -> Context:
    """History from ``previous_response_id`` (stored, or ``remembered`` by the connection) or
    ``conversation``, and the resolved input, as ``space`` (held by the caller) keeps them."""
    history: list[Json] = []
    if body.get("previous_response_id") is not None:
        previous = str(body["previous_response_id"])
        now = engine.now_in(space)
        history = _previous(space, previous, now=now, remembered=remembered)
    conversation = conversation_of(body)
    if conversation is not None:
        history = _conversation_items(space, conversation)
    raw = input_items(body)
    resolved = [
        _referenced(space, str(item["id"]), n, now=engine.now_in(space))
        if item["type"] == "item_reference"
        else item
        for n, item in enumerate(raw)
    ]
    _outputs_answer_calls([*history, *resolved])
    return Context(history, resolved)


def _outputs_answer_calls(items: list[Json]) -> None:
    """A ``function_call_output`` answers a ``function_call`` earlier in the conversation, and
    every ``function_call`` is answered before the model is asked again."""
    calls: dict[object, None] = {}  # the calls not answered yet, in order
    answered: set[object] = set()
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            calls[item.get("call_id")] = None
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in calls and call_id not in answered:
                raise InvalidRequestError(
                    f"No tool call found for function call output with call_id {call_id}.",
                    param="input",
                )
            calls.pop(call_id, None)
            answered.add(call_id)
    if calls:
        first = next(iter(calls))
        raise InvalidRequestError(f"No tool output found for function call {first}.", param="input")
