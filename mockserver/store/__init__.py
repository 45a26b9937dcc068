"""The one gateway to mutable state, per namespace: the :class:`Store` interface (``base``; the
operations the control API and the plugin perform on it, ``operations``),
its memory backend (``memory``), the values it holds (``model``, the stored objects
``stored``, their pages ``pages``) and its change feed."""

from mockserver.store.base import Store
from mockserver.store.feed import Change, Feed
from mockserver.store.memory import MemoryStore
from mockserver.store.model import (
    Exchange,
    Journal,
    JournalEntry,
    Namespace,
    Unparsed,
    current_exchange,
)
from mockserver.store.pages import Page, PageQuery, paginate
from mockserver.store.stored import (
    Shelf,
    StoredChatCompletion,
    StoredConversation,
    StoredMessageBatch,
    StoredPromptCache,
    StoredResponse,
)

__all__ = [
    "Change",
    "Exchange",
    "Feed",
    "Journal",
    "JournalEntry",
    "MemoryStore",
    "Namespace",
    "Page",
    "PageQuery",
    "Shelf",
    "Store",
    "StoredChatCompletion",
    "StoredConversation",
    "StoredMessageBatch",
    "StoredPromptCache",
    "StoredResponse",
    "Unparsed",
    "current_exchange",
    "paginate",
]
