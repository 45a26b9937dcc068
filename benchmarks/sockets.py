"""W4s: Responses streams over the WebSocket mode, ``connections`` sockets at once, each sending
W4's request as a ``response.create`` and reading its stream to its last event, again
and again for ``duration`` seconds. Bounded in time, and only ever to ``127.0.0.1``."""

from __future__ import annotations

import asyncio
import time

import orjson

from benchmarks.servers import HOST

__all__ = ["CREATE", "streams_per_second"]

#: W4's request as a client event (the same body: ``max_output_tokens: 16``, 24 events).
CREATE = orjson.dumps(
    {"type": "response.create", "model": "gpt-4o-mini", "input": "Hello", "max_output_tokens": 16}
).decode()
#: How a stream's last message starts (16 tokens end W4's: ``response.incomplete``).
_LAST = tuple('{"type":"response.' + end + '"' for end in ("completed", "incomplete", "failed"))


async def _socket(port: int, deadline: float, counts: list[int]) -> None:
    from websockets.asyncio.client import connect

    url = f"ws://{HOST}:{port}/v1/responses"
    async with connect(url, additional_headers={"Authorization": "Bearer sk-bench"}) as ws:
        while time.monotonic() < deadline:
            await ws.send(CREATE)
            while True:
                message = await ws.recv()
                if isinstance(message, str) and message.startswith(_LAST):
                    break
            counts.append(1)


async def _load(port: int, connections: int, duration: float) -> float:
    counts: list[int] = []
    started = time.monotonic()
    deadline = started + duration
    await asyncio.wait_for(
        asyncio.gather(*(_socket(port, deadline, counts) for _ in range(connections))),
        timeout=duration + 30,
    )
    return len(counts) / (time.monotonic() - started)


def streams_per_second(port: int, *, connections: int, duration: float) -> float:
    """Whole streams a second over ``connections`` sockets to mockserver on ``port``."""
    return asyncio.run(_load(port, connections, duration))
