"""How the sample recordings beside this file were made (run it to make them again).

The cassettes are real vcrpy recordings of the official openai SDK, made against a mockserver
dressed as the real API: it gzips JSON bodies (so vcrpy keeps them as ``!!binary``), sends the
headers api.openai.com sends (an organization, a cookie, rate limits, request ids) and is
recorded as ``https://api.openai.com``. The HAR file is what Chrome's DevTools export of a
frontend developer's session looks like: the page, its scripts, a CORS preflight, and the app's
calls through its dev server's ``/api`` proxy, one streamed Responses call and one chat
completion whose body the export holds as base64.

vcrpy is not a dependency of mockserver: ``pip install vcrpy`` where you run this,
``python tests/record/samples/make_samples.py``.
"""

from __future__ import annotations

import base64
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import openai
import vcr  # type: ignore[import-not-found, unused-ignore]
import yaml
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings

HERE = Path(__file__).parent
KEY = "sk-proj-SAMPLE0not0a0real0key0000000000"  # what an unfiltered cassette would hold

SCENARIO = """
name: samples
seed: 7
rules:
  - id: weather-tool
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Boston}}]}
  - id: weather
    when: {last_user: {contains: weather}}
    reply: {text: "It is 21 °C and sunny in Boston."}
  - id: haiku
    when: {last_user: {contains: haiku}}
    reply: {text: "Autumn wind rises / the kettle sings on the stove / tea for two, then one"}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited, retry_after: 2}}
"""

#: Headers the real API sends with every answer (the ones an import must drop included).
UPSTREAM_HEADERS = [
    (b"openai-organization", b"user-sample0org"),
    (b"openai-project", b"proj_SAMPLE0project"),
    (b"openai-processing-ms", b"412"),
    (b"openai-version", b"2020-10-01"),
    (b"x-request-id", b"req_5b1c0d7e2a9f4c3b8e6d1a0f9c8b7a6d"),
    (b"x-ratelimit-limit-requests", b"10000"),
    (b"x-ratelimit-remaining-requests", b"9999"),
    (b"x-ratelimit-reset-requests", b"6ms"),
    (b"set-cookie", b"__cf_bm=SAMPLEcookie0value; path=/; domain=.api.openai.com; HttpOnly"),
    (b"cf-ray", b"8f1e2d3c4b5a6978-AMS"),
    (b"server", b"cloudflare"),
]


class Dressed:
    """The upstream's own headers on every answer, as api.openai.com sends them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def dressed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ours = {name for name, _ in UPSTREAM_HEADERS}
                kept = [(k, v) for k, v in message["headers"] if k.lower() not in ours]
                message["headers"] = [*kept, *UPSTREAM_HEADERS]
            await send(message)

        await self.app(scope, receive, dressed)


@contextmanager
def upstream() -> Iterator[BackgroundServer]:
    scenario = Path(tempfile.mkdtemp()) / "samples.yaml"
    scenario.write_text(SCENARIO)
    settings = Settings(port=0, clock="frozen", seed=7, replay=False, scenario=str(scenario))
    app = create_app(settings)
    app.add_middleware(GZipMiddleware, minimum_size=0)  # JSON only: it leaves SSE alone
    app.add_middleware(Dressed)
    server = BackgroundServer(app).start()
    try:
        yield server
    finally:
        server.stop()


def as_the_real_api(base: str) -> Any:
    def rewrite(request: Any) -> Any:
        host = "api.openai.com" if "/v1/" in request.uri else "localhost:8080"
        scheme = "https" if host == "api.openai.com" else "http"
        request.uri = request.uri.replace(base, f"{scheme}://{host}")
        request.headers["host"] = host
        return request

    return rewrite


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def sdk_calls(sdk: openai.OpenAI) -> None:
    """The calls of the YAML cassette: chat and Responses, streamed and not, and a 429."""
    sdk.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the weather?"}]
    )
    for _ in sdk.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Write a haiku about tea"}],
        stream=True,
        stream_options={"include_usage": True},
    ):
        pass
    sdk.responses.create(model="gpt-4o-mini", input="What is the weather in Boston?")
    with sdk.responses.stream(model="gpt-4o-mini", input="A haiku about tea, please") as stream:
        for _ in stream:
            pass
    with suppress(openai.RateLimitError):
        sdk.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Are you busy?"}]
        )


def yaml_cassette(server: BackgroundServer) -> None:
    recorder = vcr.VCR(
        record_mode="all", before_record_request=as_the_real_api(server.url), serializer="yaml"
    )
    path = HERE / "openai_sdk.yaml"
    path.unlink(missing_ok=True)
    with (
        recorder.use_cassette(str(path)),
        openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as sdk,
    ):
        sdk_calls(sdk)
        httpx.get(server.url + "/__mockserver/health")  # the app's own traffic: not OpenAI's


def json_cassette(server: BackgroundServer) -> None:
    """pytest-recording's usual set-up: a JSON serializer, keys filtered, bodies decoded."""
    recorder = vcr.VCR(
        record_mode="all",
        before_record_request=as_the_real_api(server.url),
        serializer="json",
        filter_headers=["authorization"],
        decode_compressed_response=True,
    )
    path = HERE / "openai_sdk.json"
    path.unlink(missing_ok=True)
    with (
        recorder.use_cassette(str(path)),
        openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as sdk,
    ):
        sdk.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "What is the weather in Boston?"}],
            tools=[WEATHER_TOOL],  # type: ignore[list-item]
        )
        sdk.responses.create(model="gpt-4o-mini", input="Write a haiku about tea")


def chunked_cassette(server: BackgroundServer) -> None:
    """A stream as a recorder that keeps HTTP/1.1's chunked framing stores it."""
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "What is the weather?"}],
        "stream": True,
    }
    raw = httpx.post(
        server.base_url + "/chat/completions", json=body, headers={"Authorization": "Bearer x"}
    ).content
    chunks = [raw[i : i + 96] for i in range(0, len(raw), 96)]
    framed = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    cassette = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.openai.com/v1/chat/completions",
                    "body": json.dumps(body, separators=(",", ":")),
                    "headers": {"Content-Type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {
                        "Content-Type": ["text/event-stream; charset=utf-8"],
                        "Transfer-Encoding": ["chunked"],
                        "x-request-id": ["req_chunked0sample"],
                    },
                    "body": {"string": framed.decode()},
                },
            }
        ],
    }
    (HERE / "chunked_stream.yaml").write_text(yaml.safe_dump(cassette, sort_keys=False))


def har(server: BackgroundServer) -> None:
    page = "http://localhost:5173"
    headers = {"Authorization": "Bearer x"}
    stream_request = {"model": "gpt-4o-mini", "input": "A haiku about tea, please", "stream": True}
    stream = httpx.post(server.base_url + "/responses", json=stream_request, headers=headers)
    chat_request = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "What is the weather?"}],
    }
    chat = httpx.post(server.base_url + "/chat/completions", json=chat_request, headers=headers)

    def entry(
        method: str,
        url: str,
        status: int,
        mime: str,
        *,
        text: str | None = None,
        encoding: str | None = None,
        posted: dict[str, Any] | None = None,
        extra: list[dict[str, str]] | None = None,
        timings: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        content: dict[str, Any] = {"size": len(text or ""), "mimeType": mime}
        if text is not None:
            content["text"] = text
        if encoding:
            content["encoding"] = encoding
        request: dict[str, Any] = {
            "method": method,
            "url": url,
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Accept", "value": "application/json"},
                {"name": "Authorization", "value": f"Bearer {KEY}"},
                {"name": "Cookie", "value": "session=SAMPLEsession0cookie"},
                {"name": "Origin", "value": page},
            ],
            "queryString": [],
            "cookies": [{"name": "session", "value": "SAMPLEsession0cookie"}],
            "headersSize": -1,
            "bodySize": 0,
        }
        if posted is not None:
            text_posted = json.dumps(posted)
            request["postData"] = {"mimeType": "application/json", "text": text_posted}
            request["bodySize"] = len(text_posted)
            request["headers"].append({"name": "Content-Type", "value": "application/json"})
        times = timings or {"send": 0.1, "wait": 20.0, "receive": 1.0}
        return {
            "_initiator": {"type": "script"},
            "_priority": "High",
            "_resourceType": "fetch" if posted is not None else "document",
            "cache": {},
            "connection": "41235",
            "request": request,
            "response": {
                "status": status,
                "statusText": "",
                "httpVersion": "HTTP/1.1",
                "headers": [
                    {"name": "Content-Type", "value": mime},
                    {"name": "Set-Cookie", "value": "session=SAMPLEsession0cookie; HttpOnly"},
                    *(extra or []),
                ],
                "cookies": [],
                "content": content,
                "redirectURL": "",
                "headersSize": -1,
                "bodySize": -1,
                "_transferSize": 512,
                "_error": None,
            },
            "serverIPAddress": "127.0.0.1",
            "startedDateTime": "2026-11-30T14:02:11.482Z",
            "time": sum(v for v in times.values() if v > 0),
            "timings": {
                "blocked": 1.2,
                "dns": -1,
                "ssl": -1,
                "connect": -1,
                "_blocked_queueing": 0.8,
                **times,
            },
        }

    request_id = [{"name": "x-request-id", "value": "req_har0sample"}]
    entries = [
        entry("GET", page + "/", 200, "text/html", text="<!doctype html><div id=app></div>"),
        entry("GET", page + "/src/main.ts", 200, "application/javascript", text="import './app'"),
        entry("OPTIONS", page + "/api/v1/responses", 204, "text/plain", text=""),
        entry(
            "POST",
            page + "/api/v1/responses",
            200,
            "text/event-stream",
            text=stream.text,
            posted=stream_request,
            extra=[*request_id, {"name": "Cache-Control", "value": "no-cache"}],
            timings={"send": 0.2, "wait": 412.5, "receive": 1380.0},
        ),
        entry(
            "POST",
            page + "/api/v1/chat/completions",
            200,
            "application/json",
            text=base64.b64encode(chat.content).decode(),
            encoding="base64",
            posted=chat_request,
            extra=request_id,
        ),
        entry("GET", page + "/favicon.ico", 404, "text/html", text="Not found"),
    ]
    har_file = {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": [
                {
                    "startedDateTime": "2026-11-30T14:02:10.911Z",
                    "id": "page_1",
                    "title": page + "/",
                    "pageTimings": {"onContentLoad": 180.4, "onLoad": 210.9},
                }
            ],
            "entries": entries,
        }
    }
    (HERE / "frontend_session.har").write_text(json.dumps(har_file, indent=2) + "\n")


def main() -> None:
    with upstream() as server:
        yaml_cassette(server)
        json_cassette(server)
        chunked_cassette(server)
        har(server)


if __name__ == "__main__":
    main()
