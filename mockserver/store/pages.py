"""OpenAI's cursor pagination of a list of stored objects (``after``, ``limit``, ``order``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from mockserver.errors import InvalidRequestError
from mockserver.values import Json, value_class

__all__ = ["Page", "PageQuery", "paginate"]

T = TypeVar("T")


@value_class
class Page:
    data: list[Json]
    has_more: bool

    def body(self) -> Json:
        return {
            "object": "list",
            "data": self.data,
            "first_id": self.data[0]["id"] if self.data else None,
            "last_id": self.data[-1]["id"] if self.data else None,
            "has_more": self.has_more,
        }


@value_class
class PageQuery:
    """A list request's cursor: ``after`` (an id), ``limit``, ``order``."""

    after: str | None = None
    limit: int = 20
    order: Literal["asc", "desc"] = "asc"


def paginate(
    items: Sequence[T],
    *,
    key: Callable[[T], str],
    render: Callable[[T], Json],
    query: PageQuery,
) -> Page:
    """OpenAI cursor pagination over ``items`` (given oldest first)."""
    after, limit = query.after, query.limit
    ordered = list(items) if query.order == "asc" else list(reversed(items))
    start = 0
    if after is not None:
        ids = [key(item) for item in ordered]
        if after not in ids:
            raise InvalidRequestError(
                f"Invalid 'after': no object with id '{after}' in this list.",
                param="after",
                code="invalid_value",
            )
        start = ids.index(after) + 1
    window = ordered[start : start + limit]
    return Page(data=[render(item) for item in window], has_more=start + limit < len(ordered))
