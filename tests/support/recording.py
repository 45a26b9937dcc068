"""Servers for record & replay tests: an upstream mockserver, a recording proxy in front of it,
and an upstream that misbehaves (a 429 with headers, a cut stream, a hang)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from pathlib import Path
from typing import Any

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.record.recorder import Recorder, Recording
from mockserver.settings import Settings

#: What an upstream mockserver answers besides generated text: a 429, and a tool call.
UPSTREAM_SCENARIO = """
name: upstream
rules:
  - id: rate
    when: {last_user: {contains: rate}}
    reply: {error: {preset: rate_limited, retry_after: 3}}
  - id: slow
    when: {last_user: {contains: slow}}
    reply: {text: "late, very late", latency: {ttft: 60}}
  - id: weather
    when: {tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
"""

WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def start_upstream(directory: Path, *, seed: int = 7) -> BackgroundServer:
    scenario = directory / "upstream.yaml"
    scenario.write_text(UPSTREAM_SCENARIO)
    settings = Settings(port=0, seed=seed, clock="frozen", scenario=str(scenario))
    return BackgroundServer(create_app(settings)).start()


def start_recorder(
    path: Path, *, upstream: str | None, seed: int = 99, **options: Any
) -> BackgroundServer:
    """A recording proxy on a loopback port, set up as ``mockserver record`` sets it up."""
    recorder = Recorder(Recording(path, upstream=upstream, **options))
    settings = Settings(port=0, seed=seed, clock="frozen")
    if recorder.scenario is not None:
        settings = settings.replace(scenario=str(path))
    return BackgroundServer(create_app(settings, recorder=recorder)).start()


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class MisbehavingUpstream:
    """A raw HTTP/1.1 server on loopback whose chat completions misbehave, chosen by the last
    user message: ``rate`` (a 429 with rate-limit headers and a cookie), ``cut`` (a stream
    dropped after two events), ``hang`` (never answers); anything else gets a chat.completion
    whose shape is not the API's (no ``system_fingerprint``, a token count as a string)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()

    def start(self) -> MisbehavingUpstream:
        self._thread.start()
        self._ready.wait(5)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()

    async def _shutdown(self) -> None:
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*(w.wait_closed() for w in self._writers), return_exceptions=True)
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        body = json.loads(await reader.readexactly(length))
        said = body["messages"][-1]["content"]
        if said == "hang":
            await asyncio.sleep(3600)
        elif said == "rate":
            error = {
                "error": {
                    "message": "Rate limit reached for requests",
                    "type": "requests",
                    "param": None,
                    "code": "rate_limit_exceeded",
                }
            }
            payload = json.dumps(error).encode()
            writer.write(
                b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
                b"retry-after: 7\r\nx-ratelimit-remaining-requests: 0\r\n"
                b"set-cookie: __cf_bm=upstream-cookie-secret; path=/\r\n"
                b"content-length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
            )
            await writer.drain()
        elif said not in ("cut",):  # a chat.completion of another shape than the API's
            answer = {
                "id": "chatcmpl-other",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "hi"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": "7", "completion_tokens": 1, "total_tokens": 8},
            }
            payload = json.dumps(answer).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                b"content-length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
            )
            await writer.drain()
        elif said == "cut":
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            for text in ("Hel", "lo"):
                chunk = {
                    "id": "chatcmpl-cut",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body["model"],
                    "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
                }
                frame = b"data: " + json.dumps(chunk).encode() + b"\n\n"
                writer.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
            await writer.drain()
        writer.close()
