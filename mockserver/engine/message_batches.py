"""Anthropic's Message Batches: create, retrieve, list, cancel, delete, and the results file.

A batch's requests are answered when it is created, each as ``/v1/messages`` would answer it
(the scenario's rule, a generated reply, a scripted error), in one change of the namespace;
what the batch shows is a function of those answers and the namespace's clock, so nothing
runs in the background. Its ``batch_seconds`` are spread evenly over its requests: request
``i`` of ``n`` is done ``batch_seconds × (i + 1) / n`` after creation. A cancel lets the request
in flight finish (the batch is ``canceling`` until then) and cancels the rest; a batch not done
when it expires (24 hours after creation) has its remaining requests expired. Until a batch
ends every request counts as ``processing``, as the API counts them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import orjson

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.messages import message_meta
from mockserver.errors import APIError, InvalidRequestError, NotFoundError, RecordedAnswer
from mockserver.prompt.messages import prompt_from_messages
from mockserver.render.errors import ANTHROPIC
from mockserver.render.messages import message_body
from mockserver.store import Namespace, StoredMessageBatch
from mockserver.values import Json, value_class
from mockserver.wire.message_batches import MessageBatchCreate
from mockserver.wire.plain import check_messages_body

__all__ = [
    "EXPIRY_SECONDS",
    "BatchTimes",
    "batch_object",
    "batch_results",
    "cancel_batch",
    "create_batch",
    "delete_batch",
    "list_batches",
    "retrieve_batch",
]

#: A batch expires (ends, whatever it has not done expired) 24 hours after it is created.
EXPIRY_SECONDS: Final = 24 * 3600
_COUNTS: Final = ("processing", "succeeded", "errored", "canceled", "expired")


@value_class
class BatchTimes:
    """How far a batch has got: when it ends, and how many requests it does by then (the
    rest are canceled, or expired)."""

    ended_at: float
    processed: int


def _done_by(batch: StoredMessageBatch, at: float) -> int:
    """The requests finished by ``at`` (had nothing stopped the batch)."""
    total = len(batch.custom_ids)
    if at >= batch.created_at + batch.seconds:
        return total
    return max(0, min(total, math.floor(total * (at - batch.created_at) / batch.seconds)))


def _finish_time(batch: StoredMessageBatch, done: int) -> float:
    """When the batch's ``done``-th request finishes."""
    return batch.created_at + batch.seconds * done / len(batch.custom_ids)


def batch_times(batch: StoredMessageBatch) -> BatchTimes:
    total = len(batch.custom_ids)
    expires = batch.created_at + EXPIRY_SECONDS
    ended, processed = batch.created_at + batch.seconds, total
    if batch.cancel_initiated_at is not None:  # the request in flight finishes
        processed = min(total, _done_by(batch, batch.cancel_initiated_at) + 1)
        ended = _finish_time(batch, processed)
    if ended > expires:
        ended, processed = expires, _done_by(batch, expires)
    return BatchTimes(ended, processed)


def _status(batch: StoredMessageBatch, now: float) -> str:
    if now >= batch_times(batch).ended_at:
        return "ended"
    return "in_progress" if batch.cancel_initiated_at is None else "canceling"


def _outcome(batch: StoredMessageBatch, index: int, times: BatchTimes) -> Json:
    """Request ``index``'s result in an ended batch."""
    if index < times.processed:
        return batch.results[index]
    return {"type": "canceled" if batch.cancel_initiated_at is not None else "expired"}


def _counts(batch: StoredMessageBatch, now: float) -> Json:
    counts = dict.fromkeys(_COUNTS, 0)
    times = batch_times(batch)
    if now < times.ended_at:
        counts["processing"] = len(batch.custom_ids)
        return counts
    for index in range(len(batch.custom_ids)):
        counts[_outcome(batch, index, times)["type"]] += 1
    return counts


def _when(seconds: float | None) -> str | None:
    return None if seconds is None else ids.rfc3339(seconds)


def results_url(batch: StoredMessageBatch) -> str:
    return f"{batch.root}/v1/messages/batches/{batch.id}/results"


def batch_object(batch: StoredMessageBatch, now: float) -> Json:
    """The ``message_batch`` object as it stands at ``now`` (the namespace's clock)."""
    status = _status(batch, now)
    ended = status == "ended"
    return {
        "id": batch.id,
        "type": "message_batch",
        "processing_status": status,
        "request_counts": _counts(batch, now),
        "ended_at": _when(batch_times(batch).ended_at) if ended else None,
        "created_at": ids.rfc3339(batch.created_at),
        "expires_at": ids.rfc3339(batch.created_at + EXPIRY_SECONDS),
        "archived_at": None,
        "cancel_initiated_at": _when(batch.cancel_initiated_at),
        "results_url": results_url(batch) if ended else None,
    }


def _result(engine: Engine, space: Namespace, params: Mapping[str, Any]) -> Json:
    """One request's result: the message ``/v1/messages`` would answer, or its error."""
    try:
        if params.get("stream") is True:
            raise InvalidRequestError("stream: Streaming is not supported in Message Batches")
        check_messages_body(params)
        prompt = prompt_from_messages(params, headers={})
        turn = engine.turn(space, prompt)
        meta = message_meta(engine, space.name, prompt, turn, service_tier="batch")
        return {"type": "succeeded", "message": message_body(turn.reply, meta)}
    except RecordedAnswer as answer:  # an exact replay: the message as recorded
        recorded = answer.body()
        if answer.status == 200 and recorded.get("type") == "message":
            return {"type": "succeeded", "message": recorded}
        return {"type": "errored", "error": recorded}
    except APIError as error:
        return {"type": "errored", "error": ANTHROPIC.stream_error(error)}


def create_batch(engine: Engine, space: Namespace, batch: MessageBatchCreate, *, root: str) -> Json:
    """Answer every request of ``batch`` in ``space`` (held by the caller) and keep the
    batch; it is served with its results file under ``root`` (the server's)."""
    now = engine.now_in(space)
    number = space.next_counter()
    stored = StoredMessageBatch(
        id=ids.numbered_opaque_id(
            "msgbatch_01", engine.settings.seed, space.name, "batch", number=number, length=22
        ),
        created_at=now,
        seconds=engine.settings.batch_seconds,
        custom_ids=[request.custom_id for request in batch.requests],
        results=[_result(engine, space, request.params) for request in batch.requests],
        root=root.rstrip("/"),
    )
    stored.size = len(orjson.dumps(stored.results))
    engine.store.put(space, "message_batches", stored)
    return batch_object(stored, now)


def _stored(space: Namespace, batch_id: str) -> StoredMessageBatch:
    found = space.message_batches.get(batch_id)
    if found is None:
        raise NotFoundError(f"message_batch_id: no batch found with id '{batch_id}'")
    return found


def retrieve_batch(engine: Engine, space: Namespace, batch_id: str) -> Json:
    return batch_object(_stored(space, batch_id), engine.now_in(space))


def cancel_batch(engine: Engine, space: Namespace, batch_id: str) -> Json:
    """Cancel a batch in progress (``space`` held by the caller); one canceling or ended is
    answered as it is, as the API answers it."""
    batch, now = _stored(space, batch_id), engine.now_in(space)
    if _status(batch, now) == "in_progress":
        batch.cancel_initiated_at = now
    return batch_object(batch, now)


def delete_batch(engine: Engine, space: Namespace, batch_id: str) -> Json:
    batch = _stored(space, batch_id)
    if _status(batch, engine.now_in(space)) != "ended":
        raise InvalidRequestError(
            f"Batch '{batch_id}' cannot be deleted while it is in progress; cancel it and "
            "wait for it to end first."
        )
    del space.message_batches[batch_id]
    return {"id": batch_id, "type": "message_batch_deleted"}


def list_batches(engine: Engine, space: Namespace) -> list[Json]:
    """Every batch, newest first, as it stands now."""
    now = engine.now_in(space)
    return [batch_object(batch, now) for batch in reversed(space.message_batches.values())]


def batch_results(engine: Engine, space: Namespace, batch_id: str) -> bytes:
    """The results file: one JSON line per request, ``{custom_id, result}``, in the order
    the requests were sent."""
    batch = _stored(space, batch_id)
    if _status(batch, engine.now_in(space)) != "ended":
        raise InvalidRequestError(
            f"Batch '{batch_id}' has not ended: its results are available once it has."
        )
    times = batch_times(batch)
    lines = (
        orjson.dumps({"custom_id": custom_id, "result": _outcome(batch, index, times)})
        for index, custom_id in enumerate(batch.custom_ids)
    )
    return b"".join(line + b"\n" for line in lines)
