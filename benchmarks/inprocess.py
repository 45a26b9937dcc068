"""``python -m benchmarks --inprocess``: what one request costs in Python, without sockets.

The table's rows say how fast the server is; this says where a request's time goes before any
byte reaches a socket. Each path is driven in this process, the way the server drives it: the
lane's paths with the ``(path, body, headers, query)`` key the HTTP protocol makes of a
request, the full path as an ASGI call on the app (no HTTP parsing, no socket), and the two
lane paths once more through the HTTP protocol itself (the request's bytes parsed by httptools
and answered by the protocol ``serve`` runs, into a transport that only counts: no socket).
Each line is the best of ``rounds`` runs of ``requests`` requests, after a warm-up; every
answer is checked (status 200, answered by the path the line names), so a line never times an
error.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.types import Message
from uvicorn.server import ServerState

from mockserver.http.app import create_app
from mockserver.http.lane.lane import Lane
from mockserver.http.lane.recipes import Answered, Key
from mockserver.http.protocol import http_protocol
from mockserver.settings import Settings

__all__ = ["PATHS", "Path", "protocol_batches", "run"]

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
GEMINI = "/v1beta/models/gemini-2.5-flash:"
CONVERSE = "/model/anthropic.claude-3-haiku-20240307-v1:0/"
OLLAMA = "/api/chat"
HEADERS = (
    (b"host", b"127.0.0.1:8000"),
    (b"content-type", b"application/json"),
    (b"authorization", b"Bearer sk-bench"),
)


def _chat(number: int, *, stream: bool = False) -> bytes:
    tail = b',"stream":true' if stream else b""
    return (
        b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Tell me about order %d'
        b' and where it ships next week"}]%s}' % (number, tail)
    )


def _responses(number: int, *, stream: bool = False) -> bytes:
    tail = b',"stream":true' if stream else b""
    return b'{"model":"gpt-4o-mini","input":"Tell me about order %d and where it ships"%s}' % (
        number,
        tail,
    )


def _gemini(number: int) -> bytes:
    return (
        b'{"contents":[{"role":"user","parts":[{"text":"Tell me about order %d and where it '
        b'ships"}]}],"generationConfig":{"thinkingConfig":{"thinkingBudget":0}}}' % number
    )


def _converse(number: int) -> bytes:
    return (
        b'{"messages":[{"role":"user","content":[{"text":"Tell me about order %d and where it '
        b'ships"}]}]}' % number
    )


def _ollama(number: int, *, stream: bool = False) -> bytes:
    return (
        b'{"model":"llama3.2","stream":%b,"messages":[{"role":"user","content":"Tell me about '
        b'order %d and where it ships"}]}' % (b"true" if stream else b"false", number)
    )


@dataclass(frozen=True)
class Path:
    label: str
    #: Makes the request numbered ``n`` (the same ``n`` gives the same request).
    body: Callable[[int], bytes]
    target: str = CHAT
    #: ``"replayed"`` / ``"fresh"``: answered by the lane's recipe or its fresh turn;
    #: ``"asgi"``: the full path, the lane off; ``"protocol"``: the request's HTTP bytes
    #: handed to the server's HTTP protocol.
    via: str = "fresh"
    repeat: bool = False


PATHS = (
    Path("chat, the same request (replay lane)", _chat, via="replayed", repeat=True),
    Path("chat, a new message each (fresh turn in the lane)", _chat),
    Path("chat stream, a new message each (fresh turn)", lambda n: _chat(n, stream=True)),
    Path("Responses, a new input each (fresh turn)", _responses, target=RESPONSES),
    Path(
        "Responses stream, a new input each (fresh turn)",
        lambda n: _responses(n, stream=True),
        target=RESPONSES,
    ),
    Path(
        "chat stream, the same request (replay lane)",
        lambda n: _chat(n, stream=True),
        via="replayed",
        repeat=True,
    ),
    Path("Gemini, a new message each (fresh turn)", _gemini, target=GEMINI + "generateContent"),
    Path(
        "Gemini stream (alt=sse), the same request (replay)",
        _gemini,
        target=GEMINI + "streamGenerateContent?alt=sse",
        via="replayed",
        repeat=True,
    ),
    Path("Converse, a new message each (fresh turn)", _converse, target=CONVERSE + "converse"),
    Path(
        "ConverseStream, the same request (replay lane)",
        _converse,
        target=CONVERSE + "converse-stream",
        via="replayed",
        repeat=True,
    ),
    Path("Ollama chat, a new message each (fresh turn)", _ollama, target=OLLAMA),
    Path(
        "Ollama chat stream, the same request (replay lane)",
        lambda n: _ollama(n, stream=True),
        target=OLLAMA,
        via="replayed",
        repeat=True,
    ),
    Path("chat, a new message each, lane off (ASGI app)", _chat, via="asgi"),
    Path("chat, the same request, HTTP bytes in", _chat, via="protocol", repeat=True),
    Path("chat, a new message each, HTTP bytes in", _chat, via="protocol"),
    Path(
        "chat stream, the same request, HTTP bytes in",
        lambda n: _chat(n, stream=True),
        via="protocol",
        repeat=True,
    ),
    Path(
        "Responses stream, the same request (replay lane)",
        lambda n: _responses(n, stream=True),
        target=RESPONSES,
        via="replayed",
        repeat=True,
    ),
    Path(
        "Responses stream, the same request, HTTP bytes in",
        lambda n: _responses(n, stream=True),
        target=RESPONSES,
        via="protocol",
        repeat=True,
    ),
)


def _numbers(path: Path) -> Iterator[int]:
    return itertools.repeat(1) if path.repeat else itertools.count(1)


def _key(path: Path, number: int) -> Key:
    """The lane's key of the request numbered ``number``, as the HTTP protocol makes it."""
    target, _, query = path.target.partition("?")
    return (target, path.body(number), HEADERS, query.encode())


def _lane_cost(path: Path, requests: int, rounds: int) -> float:
    app = create_app(Settings())
    lane: Lane = app.state.lane
    numbers = _numbers(path)

    def batch(size: int) -> float:
        keys = [_key(path, next(numbers)) for _ in range(size)]
        served, fresh = lane.replays.served, lane.fresh_answers
        started = time.perf_counter()
        for key in keys:
            answered = lane.answer(key)
            if not isinstance(answered, Answered):
                raise RuntimeError(f"{path.label}: the lane did not answer {key[1]!r}")
            lane.complete(answered, started)
        elapsed = time.perf_counter() - started
        by_recipe = lane.replays.served - served
        by_turn = lane.fresh_answers - fresh
        wanted = by_recipe if path.via == "replayed" else by_turn
        if wanted != size:
            raise RuntimeError(
                f"{path.label}: {by_recipe} replayed and {by_turn} fresh answers of {size}"
            )
        return elapsed / size

    # The first request of a repeated one files its recipe from the second time it is asked.
    lane.answer(_key(path, 0))
    for _ in range(2):
        if path.repeat:
            answered = lane.answer(_key(path, 1))
            assert isinstance(answered, Answered)
    batch(max(requests // 5, 1))  # warm-up
    return min(batch(requests) for _ in range(rounds))


def _asgi_cost(path: Path, requests: int, rounds: int) -> float:
    app = create_app(Settings(replay=False))
    numbers = _numbers(path)
    statuses: list[int] = []
    target, _, query = path.target.partition("?")

    async def call(body: bytes) -> None:
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": target,
            "raw_path": target.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [*HEADERS, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        await app(scope, receive, send)

    async def batch(size: int) -> float:
        bodies = [path.body(next(numbers)) for _ in range(size)]
        statuses.clear()
        started = time.perf_counter()
        for body in bodies:
            await call(body)
        elapsed = time.perf_counter() - started
        if statuses != [200] * size:
            wrong = sorted(set(statuses) - {200})
            raise RuntimeError(f"{path.label}: answered {wrong or 'too few'}, not 200s")
        return elapsed / size

    async def measure() -> float:
        async with app.router.lifespan_context(app):
            await batch(max(requests // 5, 1))
            return min([await batch(requests) for _ in range(rounds)])

    return asyncio.run(measure())


class _Counting(asyncio.Transport):
    """A transport that keeps nothing: it counts the answers written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0
        #: Set while a request waits for an answer written later (a turn awaited on Redis).
        self.answered: asyncio.Future[None] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes += 1
        if self.answered is not None and not self.answered.done():
            self.answered.set_result(None)

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        pass


Batch = Callable[[int], Awaitable[float]]


async def protocol_batches(path: Path, settings: Settings | None = None) -> Batch:
    """In the running loop: an app and the HTTP protocol ``serve`` runs, on a transport that
    only counts, and what hands it ``size`` requests of ``path`` as HTTP bytes and checks
    that the lane answered each (the seconds each took, on average). On a shared store (Redis
    state) the loop serves as ``serve``'s does, and each answer is awaited before the next
    request: it is written once Redis has written the turn."""
    app = create_app(Settings() if settings is None else settings)
    turns = app.state.engine.store.turns
    if turns is not None:
        turns.loop_starts()
    config = uvicorn.Config(app, log_level="warning", lifespan="off", ws="none")
    config.http = http_protocol(app.state.lane)
    if isinstance(config.http, str):
        raise RuntimeError(f"{path.label}: this uvicorn gets plain ASGI, not our protocol")
    config.load()
    numbers = _numbers(path)

    def request(number: int) -> bytes:
        body = path.body(number)
        head = b"POST %b HTTP/1.1\r\n%b" % (
            path.target.encode(),
            b"".join(b"%b: %b\r\n" % pair for pair in HEADERS),
        )
        return b"%bcontent-length: %d\r\n\r\n%b" % (head, len(body), body)

    repeated = request(1)
    state = ServerState()
    state.default_headers = [(b"date", b"Thu, 03 Dec 2026 12:00:00 GMT")]
    protocol = config.http_protocol_class(config=config, server_state=state, app_state={})
    transport = _Counting()
    protocol.connection_made(transport)
    lane: Lane = app.state.lane

    async def batch(size: int) -> float:
        # a repeated request's bytes made once (not counted as the server's work)
        sent = [repeated] * size if path.repeat else [request(next(numbers)) for _ in range(size)]
        writes, served, fresh = transport.writes, lane.replays.served, lane.fresh_answers
        started = time.perf_counter()
        for data in sent:
            written = transport.writes
            protocol.data_received(data)
            if turns is not None and transport.writes == written:
                transport.answered = asyncio.get_running_loop().create_future()
                await transport.answered
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0)  # the timers and writes the step left
        answered = (lane.replays.served - served) + (lane.fresh_answers - fresh)
        if transport.writes - writes != size or answered != size:
            raise RuntimeError(f"{path.label}: {answered} of {size} answered by the lane")
        return elapsed / size

    if path.repeat:  # the recipe is filed the second time the request is asked
        await batch(2)
    return batch


def _protocol_cost(path: Path, requests: int, rounds: int) -> float:
    async def measure() -> float:
        batch = await protocol_batches(path)
        await batch(max(requests // 5, 1))
        return min([await batch(requests) for _ in range(rounds)])

    return asyncio.run(measure())


_COSTS: dict[str, Callable[[Path, int, int], float]] = {
    "asgi": _asgi_cost,
    "protocol": _protocol_cost,
}


def run(*, requests: int = 5000, rounds: int = 3) -> int:
    print(
        f"in-process cost of one request, in Python (no socket; HTTP parsing only where a "
        f"line says HTTP bytes in): "
        f"best of {rounds} × {requests:,} requests per path"
    )
    print(f"{'path':54}  {'µs/request':>10}  {'CPU-bound rate (req/s)':>22}")
    for path in PATHS:
        cost = _COSTS.get(path.via, _lane_cost)(path, requests, rounds)
        print(f"{path.label:54}  {cost * 1e6:10.1f}  {1 / cost:22,.0f}", flush=True)
    return 0
