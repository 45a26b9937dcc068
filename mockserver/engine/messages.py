"""What an Anthropic message is made of beyond its turn: its id, and the message a turn
renders to (a batch's results are these, as ``/v1/messages`` would have answered)."""

from __future__ import annotations

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.turn import Turn
from mockserver.prompt import Prompt
from mockserver.render.messages import MessageMeta

__all__ = ["message_id", "message_meta"]


def message_id(engine: Engine, namespace: str, counter: int) -> str:
    """``msg_01…``: a namespace's ``counter``-th message."""
    return ids.numbered_opaque_id(
        "msg_01", engine.settings.seed, namespace, number=counter, length=22
    )


def message_meta(
    engine: Engine, namespace: str, prompt: Prompt, turn: Turn, *, service_tier: str = "standard"
) -> MessageMeta:
    """How ``turn``'s message for ``prompt`` is written."""
    return MessageMeta(
        id=message_id(engine, namespace, turn.counter),
        model=prompt.model,
        thinking=prompt.reasoning_effort is not None,
        service_tier=service_tier,
        chunk=turn.latency.chunk if turn.latency else "token",
    )
