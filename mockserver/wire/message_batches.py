"""Anthropic Message Batches requests (``POST /v1/messages/batches``) → validated, refused
with the API's own 400s, worded as ``wire/messages.py`` words them.

A batch's envelope is checked here (``requests``, each ``custom_id`` and ``params`` an
object); each request's ``params`` are checked when it is processed, as the API does: a
request it would refuse is an ``errored`` result, not a refusal of the batch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mockserver.errors import InvalidRequestError
from mockserver.wire.messages import refusal_of

__all__ = ["BatchRequest", "MessageBatchCreate", "parse_batch_create"]

#: The most requests one batch may hold (the API's limit).
MAX_REQUESTS: Final = 100_000


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, defer_build=True)


class BatchRequest(_Model):
    custom_id: Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")]
    params: dict[str, Any]


class MessageBatchCreate(_Model):
    requests: Annotated[list[BatchRequest], Field(min_length=1, max_length=MAX_REQUESTS)]


def parse_batch_create(data: Mapping[str, Any]) -> MessageBatchCreate:
    """A batch's body, validated; any failure is the API's 400."""
    try:
        batch = MessageBatchCreate.model_validate(dict(data))
    except ValidationError as exc:
        raise refusal_of(exc) from None
    seen: set[str] = set()
    for request in batch.requests:
        if request.custom_id in seen:
            raise InvalidRequestError(
                f"requests: Found duplicate custom_id '{request.custom_id}'. "
                "Each request must have a unique custom_id."
            )
        seen.add(request.custom_id)
    return batch
