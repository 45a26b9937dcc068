"""The Conversations API: per-namespace conversations whose items responses read and extend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.errors import NotFoundError
from mockserver.prompt.responses import input_items
from mockserver.render.responses_items import stored_item
from mockserver.store import Namespace, Page, PageQuery, StoredConversation, paginate
from mockserver.values import Json

__all__ = [
    "add_items",
    "conversation_body",
    "create_conversation",
    "delete_conversation",
    "delete_item",
    "list_items",
    "retrieve_conversation",
    "retrieve_item",
    "update_conversation",
]


def conversation_body(stored: StoredConversation) -> Json:
    return {
        "id": stored.id,
        "object": "conversation",
        "created_at": stored.created_at,
        "metadata": dict(stored.metadata),
    }


def _stored(space: Namespace, conversation_id: str) -> StoredConversation:
    stored = space.conversations.get(conversation_id)
    if stored is None:
        raise NotFoundError(f"Conversation with id '{conversation_id}' not found.")
    return stored


def _append(space: Namespace, stored: StoredConversation, raw: Sequence[Json]) -> list[Json]:
    """Store ``raw`` items; ids derive from the namespace counter, so they are never reused."""
    added = []
    for item in raw:
        kept = stored_item(item, owner=stored.id, index=space.next_counter())
        stored.items[str(kept["id"])] = kept
        added.append(kept)
    return added


def create_conversation(engine: Engine, body: Mapping[str, Any], *, namespace: str) -> Json:
    def create(space: Namespace) -> Json:
        counter = space.next_counter()
        stored = StoredConversation(
            id=ids.hex_id("conv_", engine.settings.seed, namespace, counter, length=48),
            created_at=engine.now(),
            metadata=dict(body.get("metadata") or {}),
        )
        _append(space, stored, input_items({"input": body.get("items") or []}))
        engine.store.put(space, "conversations", stored)
        return conversation_body(stored)

    return engine.store.transact(namespace, create)


def retrieve_conversation(engine: Engine, conversation_id: str, *, namespace: str) -> Json:
    with engine.store.view(namespace) as space:
        return conversation_body(_stored(space, conversation_id))


def update_conversation(
    engine: Engine, conversation_id: str, metadata: Mapping[str, str] | None, *, namespace: str
) -> Json:
    def update(space: Namespace) -> Json:
        stored = _stored(space, conversation_id)
        stored.metadata = dict(metadata or {})
        return conversation_body(stored)

    return engine.store.transact(namespace, update)


def delete_conversation(engine: Engine, conversation_id: str, *, namespace: str) -> Json:
    def delete(space: Namespace) -> None:
        _stored(space, conversation_id)
        del space.conversations[conversation_id]

    engine.store.transact(namespace, delete)
    return {"id": conversation_id, "object": "conversation.deleted", "deleted": True}


def list_items(
    engine: Engine,
    conversation_id: str,
    *,
    namespace: str,
    query: PageQuery,
) -> Page:
    with engine.store.view(namespace) as space:
        stored = _stored(space, conversation_id)
        return paginate(
            list(stored.items.values()),
            key=lambda item: str(item["id"]),
            render=dict,
            query=query,
        )


def add_items(engine: Engine, conversation_id: str, raw: Sequence[Json], *, namespace: str) -> Json:
    def add(space: Namespace) -> list[Json]:
        return _append(space, _stored(space, conversation_id), input_items({"input": raw}))

    added = engine.store.transact(namespace, add)
    return Page(data=added, has_more=False).body()


def _item(stored: StoredConversation, item_id: str) -> Json:
    item = stored.items.get(item_id)
    if item is None:
        raise NotFoundError(f"Item with id '{item_id}' not found.")
    return item


def retrieve_item(engine: Engine, conversation_id: str, item_id: str, *, namespace: str) -> Json:
    with engine.store.view(namespace) as space:
        return dict(_item(_stored(space, conversation_id), item_id))


def delete_item(engine: Engine, conversation_id: str, item_id: str, *, namespace: str) -> Json:
    def delete(space: Namespace) -> Json:
        stored = _stored(space, conversation_id)
        _item(stored, item_id)
        del stored.items[item_id]
        return conversation_body(stored)

    return engine.store.transact(namespace, delete)
