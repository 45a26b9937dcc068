"""The one gateway to mutable state, per namespace (see ``memory``)."""

from mockserver.store.feed import Change, Feed
from mockserver.store.memory import (
    Exchange,
    JournalEntry,
    Namespace,
    Page,
    PageQuery,
    Store,
    StoredChatCompletion,
    StoredConversation,
    StoredResponse,
    Unparsed,
    current_exchange,
    paginate,
)

__all__ = [
    "Change",
    "Exchange",
    "Feed",
    "JournalEntry",
    "Namespace",
    "Page",
    "PageQuery",
    "Store",
    "StoredChatCompletion",
    "StoredConversation",
    "StoredResponse",
    "Unparsed",
    "current_exchange",
    "paginate",
]
