"""One Chat Completions request: turn → render → store."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.moderated import azure_filtered, moderate_turn
from mockserver.engine.recorded import recorded_chat_completion
from mockserver.engine.rendered import Rendered, as_raised, streamed, whole
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import RecordedAnswer
from mockserver.prompt import Prompt
from mockserver.render.azure import (
    AzureFilters,
    azure_body,
    azure_chunks,
    azure_headers,
)
from mockserver.render.chat import ChatMeta, chat_chunks, chat_completion
from mockserver.render.moderation import chat_moderation
from mockserver.store import Namespace, StoredChatCompletion
from mockserver.values import Json

__all__ = ["ChatResult", "chat_id", "chat_ids", "complete_chat"]


#: What the real API answers for the requested ``service_tier``.
SERVICE_TIERS = {
    "auto": "default",
    "default": "default",
    "flex": "flex",
    "scale": "scale",
    "priority": "priority",
    "fast": "priority",
}


#: A rendered completion: ``body`` when not streamed, ``chunks`` when streamed; a scripted
#: in-stream error sends ``{"error": {...}}``, as the real API does.
ChatResult = Rendered[ChatMeta]


def complete_chat(
    engine: Engine, space: Namespace, prompt: Prompt, *, journal: Journaled | None = None
) -> ChatResult:
    """The turn of a chat request in ``space`` (held by the caller), rendered, and stored if
    it asks to be."""
    namespace = space.name
    try:
        turn = engine.turn(space, prompt, journal=journal)
    except RecordedAnswer as answer:  # replayed as recorded: a stored one kept as recorded
        recorded = recorded_chat_completion(answer)
        if recorded is not None and prompt.params.get("store") is True:
            _store(engine, space, recorded, prompt, size=journal.size if journal else 1024)
        raise
    turn, moderation_body, filters = _moderated(turn, prompt)
    meta = _meta(engine, prompt, namespace=namespace, turn=turn, moderation=moderation_body)
    headers = engine.request_headers(namespace, turn)
    if filters is not None:
        headers = azure_headers(headers, deployment=prompt.model)
    if prompt.stream:
        chunks = list(chat_chunks(turn.reply, meta))
        if filters is not None:
            chunks = list(azure_chunks(chunks, filters))
        result: ChatResult = streamed(turn, meta, chunks, headers, words=as_raised)
        cut = result.stream_plan.cut
        failed = cut is not None and cut[0] == "error"  # no completion to keep
        if prompt.params.get("store") is True and not failed:  # as the chunks spell it
            body = chat_completion(turn.reply, meta)
            _store(engine, space, body, prompt, size=journal.size if journal else 1024)
        return result
    body = chat_completion(turn.reply, meta)
    if filters is not None:
        body = azure_body(body, filters)
    if prompt.params.get("store") is True:
        _store(engine, space, body, prompt, size=journal.size if journal else 1024)
    return whole(turn, meta, body, headers)


def _moderated(turn: Turn, prompt: Prompt) -> tuple[Turn, Json | None, AzureFilters | None]:
    """The turn as moderation leaves it, with what the answer says of it: OpenAI's
    ``moderation`` (when the request asks), or Azure's content filter results (always; a
    prompt its filter blocks is refused, raised)."""
    if prompt.provider == "azure":
        turn, filters = azure_filtered(turn)
        return turn, None, filters
    moderation = moderate_turn(turn, prompt.params)
    if moderation is None:
        return turn, None, None
    verdicts = (moderation.input, moderation.output)
    body = chat_moderation(verdicts, model=moderation.model)
    return dataclasses.replace(turn, reply=moderation.reply), body, None


@lru_cache(maxsize=256)
def fingerprint_of(model: str) -> str:
    """The ``system_fingerprint`` a model answers with (stable per model)."""
    return ids.hex_id("fp_", model, length=10)


def chat_id(engine: Engine, namespace: str, counter: int) -> str:
    return ids.numbered_opaque_id("chatcmpl-", engine.settings.seed, namespace, number=counter)


def chat_ids(engine: Engine, namespace: str) -> Callable[[int], str]:
    """:func:`chat_id` by counter, its prefix hashed once (a recipe's)."""
    return ids.opaque_numbering("chatcmpl-", engine.settings.seed, namespace)


def _meta(
    engine: Engine, prompt: Prompt, *, namespace: str, turn: Turn, moderation: Json | None
) -> ChatMeta:
    params = prompt.params
    stream_options = params.get("stream_options") or {}
    return ChatMeta(
        id=chat_id(engine, namespace, turn.counter),
        created=engine.now(),
        model=prompt.model,
        system_fingerprint=fingerprint_of(prompt.model),
        service_tier=SERVICE_TIERS.get(str(params.get("service_tier") or "auto"), "default"),
        include_usage=bool(stream_options.get("include_usage")),
        obfuscation=prompt.provider == "openai"
        and stream_options.get("include_obfuscation", True) is not False,
        moderation=moderation,
        chunk=turn.latency.chunk if turn.latency else "token",
    )


def _store(engine: Engine, space: Namespace, body: Json, prompt: Prompt, *, size: int) -> None:
    stored = dict(body)
    metadata = dict(prompt.metadata)
    stored["metadata"] = metadata
    messages = [
        _stored_message(stored["id"], index, message)
        for index, message in enumerate(prompt.params.get("messages") or [])
    ]
    kept = StoredChatCompletion(stored, messages, metadata, size=size)
    engine.store.put(space, "chat", kept)


def _stored_message(completion_id: str, index: int, message: Mapping[str, Any]) -> Json:
    content = message.get("content")
    parts = None
    if isinstance(content, list):
        parts = [
            p for p in content if isinstance(p, Mapping) and p.get("type") in ("text", "image_url")
        ]
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    stored = {
        "id": f"{completion_id}-{index}",
        "role": message.get("role"),
        "content": content,
        "name": message.get("name"),
        "content_parts": parts,
    }
    if message.get("tool_calls"):  # an assistant's calls, as its response message has them
        stored["tool_calls"] = message["tool_calls"]
    return stored
