"""Start-up imports only what the first chat request needs; other route families load on use."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import import_module
from typing import Any

import anyio
import httpx
import pytest
from starlette.routing import Mount, Route, WebSocketRoute

from mockserver.http.app import create_app
from mockserver.http.routes.lazy import LazyRoutes
from mockserver.settings import Settings

CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}]}

_FIRST_REQUEST = """
import json, sys
import anyio, httpx
from mockserver.http.app import create_app
from mockserver.http.server import serve
from mockserver.settings import Settings

async def first() -> httpx.Response:
    transport = httpx.ASGITransport(app=create_app(Settings(clock="frozen")))
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
        return await client.post("/v1/chat/completions", json=json.loads(sys.argv[1]))

response = anyio.run(first)
streamed = response.headers["content-type"].startswith("text/event-stream")
print(json.dumps({"status": response.status_code,
                  "body": response.text if streamed else response.json(),
                  "modules": sorted(sys.modules)}))
"""


def first_request(body: dict[str, Any]) -> tuple[int, Any, set[str]]:
    """A fresh interpreter's first chat request: its status, body and the modules it loaded."""
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_REQUEST, json.dumps(body)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    return result["status"], result["body"], set(result["modules"])


#: Modules the first chat request must not need.
NOT_AT_START = (
    "faker",
    "yaml",
    "mockserver.scenario.loader",
    "mockserver.scenario.problems",
    "mockserver.http.routes.responses",
    "mockserver.http.routes.conversations",
    "mockserver.http.routes.moderations",
    "mockserver.http.routes.models",
    "mockserver.http.routes.control",
    "mockserver.http.routes.inspector",
    "mockserver.wire.responses",
    # A plain request needs none of the wire models (see wire/plain.py).
    "mockserver.wire.validation",
    "mockserver.wire.chat",
    "mockserver.wire.chat_messages",
    "mockserver.wire.chat_tools",
    "mockserver.wire.validation_errors",
    "mockserver.wire.validation_issues",
    # JSON Schema values: only structured outputs and tool arguments need them.
    "mockserver.reply.schema_values.generate",
    "mockserver.reply.schema_values.check",
    "mockserver.reply.schema_values.formats",
    "mockserver.reply.schema_values.keywords",
    "mockserver.reply.schema_values.regex",
    "mockserver.reply.schema_values.costs",
    "mockserver.reply.schema_values.scalars",
    # No pydantic at all: settings are a dataclass, a plain request is checked without the wire
    # models, and the built-in default scenario is served from records (scenario/records.py).
    "pydantic",
    "mockserver.scenario.model",
    "mockserver.scenario.behaviour",
    "mockserver.scenario.lookups",
)


#: What the ``serve`` verb itself must not load before its first answer, on top of the above:
#: each costs the cold start milliseconds that only another verb, a flag or a scenario needs.
NOT_IN_SERVE = (
    # ``--version`` reads the distribution's metadata (and email, zipfile) when asked.
    "importlib.metadata",
    "zipfile",
    # Only a scenario with a ``regex`` lookup compiles one.
    "regex",
    "mockserver.scenario.lookups",
    # Recording, reports, shared state and the upstream's client: their flags load them.
    "httpx",
    "redis",
    "mockserver.record",
    "mockserver.report",
    "mockserver.http.proxy",
    "mockserver.http.drift",
    "mockserver.http.reload",
    "mockserver.http.inspector",
    # A server nobody opens a socket to imports no WebSocket library.
    "websockets",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
)

_SERVE_FIRST = """
import json, os, signal, socket, sys, threading, time
from mockserver.cli import main

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
body = sys.argv[1].encode()
request = (
    f"POST /v1/chat/completions HTTP/1.1\\r\\nHost: 127.0.0.1:{port}\\r\\n"
    f"Content-Type: application/json\\r\\nContent-Length: {len(body)}\\r\\n\\r\\n"
).encode() + body
seen = {}

def first() -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                sock.sendall(request)
                seen["status"] = int(sock.recv(65536).split(b" ", 2)[1])
                break
        except ConnectionRefusedError:
            time.sleep(0.01)
    seen["modules"] = sorted(sys.modules)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=first, daemon=True).start()
seen["code"] = main(["serve", "--port", str(port), "--log-level", "warning"])
print(json.dumps(seen))
"""


def test_serve_answers_its_first_request_without_what_other_verbs_and_flags_need() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SERVE_FIRST, json.dumps(CHAT)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    seen = json.loads(out.stdout.splitlines()[-1])
    assert (seen["status"], seen["code"]) == (200, 0)
    loaded = set(seen["modules"])
    assert "mockserver.http.server" in loaded  # the script did serve
    unwanted = {*NOT_AT_START, *NOT_IN_SERVE}
    assert loaded.isdisjoint(unwanted), sorted(loaded & unwanted)


def lazy_groups() -> list[LazyRoutes]:
    return [
        group
        for mount in create_app().routes
        if isinstance(mount, Mount)
        for group in mount.routes
        if isinstance(group, LazyRoutes)
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_first_chat_request_imports_only_what_it_needs(stream: bool) -> None:
    status, body, loaded = first_request({**CHAT, "stream": stream})
    assert status == 200
    assert body.endswith("data: [DONE]\n\n") if stream else body["object"] == "chat.completion"
    assert loaded.isdisjoint(NOT_AT_START), sorted(loaded & set(NOT_AT_START))


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
RECIPE = {
    "type": "json_schema",
    "json_schema": {
        "name": "recipe",
        "schema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "minutes": {"type": "integer"}},
            "required": ["title", "minutes"],
        },
    },
}


def test_tool_arguments_load_the_schema_machinery_on_first_use() -> None:
    status, body, loaded = first_request({**CHAT, "tools": [WEATHER], "tool_choice": "required"})
    assert status == 200
    (call,) = body["choices"][0]["message"]["tool_calls"]
    assert set(json.loads(call["function"]["arguments"])) == {"city"}
    assert {
        "mockserver.reply.schema_values.generate",
        "mockserver.wire.chat",
        "pydantic.plugin._loader",
    } <= loaded


def test_structured_output_loads_the_schema_machinery_on_first_use() -> None:
    status, body, loaded = first_request({**CHAT, "response_format": RECIPE})
    assert status == 200
    content = json.loads(body["choices"][0]["message"]["content"])
    assert set(content) == {"title", "minutes"}
    assert "mockserver.reply.schema_values.generate" in loaded


def test_a_rejected_first_request_loads_the_error_translation() -> None:
    status, body, loaded = first_request({"model": "gpt-4o-mini", "messages": "Hello"})
    assert status == 400
    assert body["error"]["param"] == "messages"
    assert {"mockserver.wire.validation_issues", "mockserver.wire.validation_errors"} <= loaded


@pytest.mark.parametrize("group", lazy_groups(), ids=repr)
def test_lazy_prefixes_cover_every_route_of_the_group(group: LazyRoutes) -> None:
    assert group.modules
    for module in group.modules:
        routes = import_module(module).routes()
        assert routes, module
        for route in routes:
            assert isinstance(route, Route | WebSocketRoute)
            assert route.path.startswith(group.prefixes), (module, route.path)


def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
    app = create_app(Settings(clock="frozen"))

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, url, **kwargs)

    return anyio.run(go)


def test_lazy_route_answers_like_a_listed_one() -> None:
    assert request("GET", "/v1/models/gpt-4o-mini").json()["id"] == "gpt-4o-mini"
    assert request("GET", "/__mockserver/health").status_code == 200


def test_wrong_method_on_a_lazy_route_is_405() -> None:
    response = request("GET", "/v1/moderations")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_path_under_a_lazy_prefix_that_no_route_serves_is_404() -> None:
    response = request("POST", "/v1/responses/a/b/c")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Invalid URL (POST /v1/responses/a/b/c)"
