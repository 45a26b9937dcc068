"""One Responses API request: resolve the conversation → turn → render → store.

The conversation a response continues (``responses_context.py``) is prepended to this
request's input before the Prompt is built, so matching, token counting and the agent-loop
rule see everything the model would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, fields, replace
from functools import partial
from typing import Any

from mockserver import ids
from mockserver.engine.chat import SERVICE_TIERS
from mockserver.engine.core import Engine
from mockserver.engine.moderated import azure_filtered, moderate_turn
from mockserver.engine.recorded import recorded_response, stored_recorded_response
from mockserver.engine.rendered import body_plan, scripted_error, stream_plan
from mockserver.engine.responses_context import (
    Context,
    Remembered,
    resolve_context,
)
from mockserver.engine.responses_stored import FINISHED, join_conversation, stored_response
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import RecordedAnswer
from mockserver.families import Provider
from mockserver.faults import response_error_code
from mockserver.plans import IMMEDIATE, UNPACED, BodyPlan, StreamPlan
from mockserver.prompt.model import Prompt
from mockserver.prompt.responses import (
    messages_from_items,
    prompt_from_responses,
    seal_compaction,
)
from mockserver.render.azure import azure_headers
from mockserver.render.moderation import responses_moderation
from mockserver.render.responses import (
    ResponseMeta,
    echo_params,
    final_status,
    output_items,
    response_body,
    usage_body,
)
from mockserver.render.responses_items import stored_item
from mockserver.render.responses_stream import response_events
from mockserver.reply.generate import count_prompt_tokens
from mockserver.reply.model import Reply, Usage
from mockserver.reply.tokens import count_tokens
from mockserver.store import Namespace, StoredResponse
from mockserver.values import Json, value_class

__all__ = [
    "ResponseResult",
    "compact",
    "count_input_tokens",
    "create_response",
    "replay_store",
    "response_id",
    "response_ids",
    "stored_response",
]

_TIERS = {**SERVICE_TIERS, "ultrafast": "ultrafast"}


@value_class
class ResponseResult:
    """A rendered response: ``body`` when not streamed, ``events`` when streamed."""

    turn: Turn
    prompt: Prompt
    meta: ResponseMeta
    context: Context
    body: Json | None
    events: list[Json] | None
    headers: dict[str, str] = field(default_factory=dict)
    stream_plan: StreamPlan = UNPACED
    body_plan: BodyPlan = IMMEDIATE
    #: The ``error`` event a scripted in-stream error sends instead of the rest of the stream.
    stream_error: list[Json] = field(default_factory=list)


def _meta(engine: Engine, body: Mapping[str, Any], *, namespace: str, turn: Turn) -> ResponseMeta:
    stream_options = body.get("stream_options") or {}
    tier = _TIERS.get(str(body.get("service_tier") or "auto"), "default")
    return ResponseMeta(
        id=response_id(engine, namespace, turn.counter),
        created_at=engine.now(),
        echo=echo_params(body, service_tier=tier),
        include=frozenset(body.get("include") or ()),
        obfuscation=stream_options.get("include_obfuscation") is not False,
        chunk=turn.latency.chunk if turn.latency else "token",
    )


def response_id(engine: Engine, namespace: str, counter: int) -> str:
    return ids.numbered_hex_id("resp_", engine.settings.seed, namespace, number=counter, length=50)


def response_ids(engine: Engine, namespace: str) -> Callable[[int], str]:
    """:func:`response_id` by counter, its prefix hashed once (a recipe's)."""
    return ids.hex_numbering("resp_", engine.settings.seed, namespace, length=50)


def create_response(
    engine: Engine,
    space: Namespace,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    journal: Journaled | None = None,
    remembered: Remembered | None = None,
    provider: Provider = "openai",
) -> ResponseResult:
    """The response to ``body``, its turn in ``space`` (held by the caller), rendered, and
    stored unless it asks not to be; ``remembered``: the responses the connection keeps (the
    response made joins them, the latest only)."""
    namespace = space.name
    context = resolve_context(engine, space, body, remembered=remembered)
    prompt = prompt_from_responses(body, items=context.items, headers=headers, provider=provider)
    try:
        if body.get("generate") is False:  # state made ready, no output: nothing is matched
            turn = engine.prepare(space, prompt, journal=journal)
        else:
            turn = engine.turn(space, prompt, journal=journal)
    except RecordedAnswer as answer:  # replayed as recorded: kept, for what continues it
        response = recorded_response(answer)
        if response is not None:
            kept = stored_recorded_response(
                response,
                body,
                history=context.history,
                inputs=context.input,
                size=journal.size if journal else 1024,
            )
            _keep(engine, space, body, kept, remembered=remembered)
        raise
    moderation = None
    if provider == "azure":  # its content filter judges every turn (a blocked prompt: raised)
        turn, _ = azure_filtered(turn)
    elif (moderation := moderate_turn(turn, body)) is not None:
        turn = replace(turn, reply=moderation.reply)
    meta = _meta(engine, body, namespace=namespace, turn=turn)
    if moderation is not None:
        verdicts = (moderation.input, moderation.output)
        meta = replace(meta, moderation=responses_moderation(verdicts, model=moderation.model))
    response_headers = engine.request_headers(namespace, turn)
    if provider == "azure":
        response_headers = azure_headers(response_headers, deployment=prompt.model)
    if prompt.stream:
        completed_at = engine.now()
        events = response_events(turn.reply, meta, completed_at=completed_at)
        plan = stream_plan(turn, frames=len(events))
        error, failure = _stream_error(turn, meta, at=plan.cut[1] if plan.cut else len(events))
        cut_by_error = plan.cut is not None and plan.cut[0] == "error"
        stored = _stored(
            engine,
            body,
            context,
            meta=meta,
            reply=turn.reply,
            now=completed_at,
            error=failure if cut_by_error else None,
        )
        stored.size = journal.size if journal else 1024
        _keep(engine, space, body, stored, remembered=remembered)
        return ResponseResult(
            turn,
            prompt,
            meta,
            context,
            None,
            events,
            response_headers,
            stream_plan=plan,
            stream_error=error,
        )
    stored = _stored(engine, body, context, meta=meta, reply=turn.reply)
    stored.size = journal.size if journal else 1024
    _keep(engine, space, body, stored, remembered=remembered)
    rendered = response_body(
        meta, turn.reply, status=stored.status, completed_at=stored.completed_at
    )
    return ResponseResult(
        turn, prompt, meta, context, rendered, None, response_headers, body_plan=body_plan(turn)
    )


def replay_store(engine: Engine, result: ResponseResult) -> Callable[[Namespace, str, int], None]:
    """How a replay of ``result``'s request stores its response (with its own id and time) as
    ``create_response`` stored ``result``'s; what is the same for every replay is read once (a
    repeated stream stores one per request)."""
    body = result.prompt.params
    old, reply, context = result.meta, result.turn.reply, result.context
    if body.get("background") is True or old.echo.get("conversation") is not None:

        def kept(space: Namespace, response_id: str, created: int) -> None:
            meta = replace(old, id=response_id, created_at=created)
            stored = _stored(engine, body, context, meta=meta, reply=reply, now=created)
            _keep(engine, space, body, stored)

        return kept
    # neither background (no retention) nor in a conversation (none to join): stored as is,
    # its meta made positionally (the id and time, then the fields after them, read once)
    names = [f.name for f in fields(old)]
    assert names[:2] == ["id", "created_at"]
    rest = tuple(getattr(old, name) for name in names[2:])
    status, put = final_status(reply), engine.store.put

    def put_again(space: Namespace, response_id: str, created: int) -> None:
        meta = ResponseMeta(response_id, created, *rest)
        items = partial(_built_items, meta, context, reply)
        put(space, "responses", StoredResponse(meta, reply, status, items, False, created))

    return put_again


def _stream_error(turn: Turn, meta: ResponseMeta, *, at: int) -> tuple[list[Json], Json]:
    """What replaces the rest of a stream cut by a scripted error: an ``error`` event (with
    the API error's own code), then ``response.failed`` (as the real API ends a stream that
    fails mid-way); and that response's ``error`` (the closest code a response may have)."""
    error = scripted_error(turn)
    failure = {"code": response_error_code(error), "message": error.message}
    failed = response_body(meta, turn.reply, status="failed", error=failure)
    events = [
        {
            "type": "error",
            "sequence_number": at,
            "code": error.code or error.type,
            "message": error.message,
            "param": error.param,
        },
        {"type": "response.failed", "sequence_number": at + 1, "response": failed},
    ]
    return events, failure


def _stored(
    engine: Engine,
    body: Mapping[str, Any],
    context: Context,
    *,
    meta: ResponseMeta,
    reply: Reply,
    now: int | None = None,
    error: Json | None = None,
) -> StoredResponse:
    background = body.get("background") is True
    queued = background and body.get("stream") is not True

    items = partial(_built_items, meta, context, reply)
    if error is not None:
        return StoredResponse(meta=meta, reply=reply, status="failed", items=items, error=error)

    if queued:
        return StoredResponse(meta=meta, reply=reply, status="queued", items=items, background=True)
    return StoredResponse(
        meta=meta,
        reply=reply,
        status=final_status(reply),
        items=items,
        background=background,
        completed_at=engine.now() if now is None else now,
    )


def _built_items(
    meta: ResponseMeta, context: Context, reply: Reply
) -> tuple[list[Json], list[Json]]:
    """A stored response's input items and context (built when first read)."""
    inputs = [stored_item(item, owner=meta.id, index=n) for n, item in enumerate(context.input)]
    return inputs, [*context.history, *inputs, *output_items(reply, meta)]


def _keep(
    engine: Engine,
    space: Namespace,
    body: Mapping[str, Any],
    stored: StoredResponse,
    *,
    remembered: Remembered | None = None,
) -> None:
    """Store the response (unless ``store: false``) in ``space`` (held by the caller); a
    finished one joins its conversation; the connection remembers it (its latest only: a
    change made again remembers what it made last)."""
    if remembered is not None:
        remembered.clear()
        remembered[stored.meta.id] = stored
    retention = engine.settings.background_retention
    if stored.background and retention is not None and body.get("store") is not True:
        stored.expires_at = engine.now_in(space) + retention
    if body.get("store") is not False:
        engine.store.put(space, "responses", stored)
    if stored.status in FINISHED:
        join_conversation(space, stored)


def count_input_tokens(engine: Engine, body: Mapping[str, Any], *, namespace: str) -> Json:
    """What ``usage.input_tokens`` of a create with this body would be."""
    context = engine.store.transact(namespace, lambda space: resolve_context(engine, space, body))
    prompt = prompt_from_responses(
        {**body, "model": body.get("model") or ""}, items=context.items, headers={}
    )
    return {"object": "response.input_tokens", "input_tokens": count_prompt_tokens(prompt)}


def compact(engine: Engine, body: Mapping[str, Any], *, namespace: str) -> Json:
    """User messages kept as they are, everything else packed into one compaction item."""

    def resolve(space: Namespace) -> tuple[Context, int]:
        return resolve_context(engine, space, body), space.next_counter()

    context, counter = engine.store.transact(namespace, resolve)
    owner = ids.hex_id("resp_", engine.settings.seed, namespace, counter, length=50)
    items = [stored_item(item, owner=owner, index=n) for n, item in enumerate(context.items)]
    kept = [i for i in items if i["type"] == "message" and i.get("role") == "user"]
    packed = [m.text for m in messages_from_items([i for i in items if i not in kept]) if m.text]
    prompt = prompt_from_responses(body, items=context.items, headers={})
    sealed = seal_compaction(packed)
    compaction = {
        "id": ids.hex_id("cmp_", owner, length=50),
        "type": "compaction",
        "encrypted_content": sealed,
    }
    output_tokens = max(1, count_tokens(" ".join(packed)) // 4)
    usage = Usage(prompt_tokens=count_prompt_tokens(prompt), completion_tokens=output_tokens)
    return {
        "id": owner,
        "object": "response.compaction",
        "created_at": engine.now(),
        "output": [*kept, compaction],
        "usage": usage_body(usage),
    }
