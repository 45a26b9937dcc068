"""The yardstick: a bare Starlette app on uvicorn that answers with fixed bytes.

``POST /v1/chat/completions`` returns a fixed ``chat.completion`` body (the size and shape of
mockserver's answer to the benchmark's request); ``POST /v1/stream`` returns a fixed 20-event
SSE stream through Starlette's ``StreamingResponse`` (one write per event), which is how a
hand-written mock streams. Neither reads the request body.

Run as ``python -m benchmarks.baseline --port N``; uvicorn is configured like mockserver's
(``http``/``loop`` auto, no access log), so the ratio measures the apps, not the settings.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

__all__ = ["BODY", "FRAMES", "app", "main"]

_TEXT = (
    "It helps to keep the baseball temporary and the pound simple. One field trials officer I "
    "spoke with put it well: start small and hit often. Teams in Georgia often deploy "
    "customized ROI to get there faster. You could also facilitate integrated solutions, which "
    "tends to pay off within 21 days. Here is a short overview of hello."
)
_ID = "chatcmpl-RzdlJHI4XGw2WgNd8rVVbesfOhV84"
_HEAD = {"id": _ID, "created": 1_795_969_151, "model": "gpt-4o-mini"}

BODY = json.dumps(
    {
        **_HEAD,
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": _TEXT,
                    "refusal": None,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 7,
            "completion_tokens": 70,
            "total_tokens": 77,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_51f3e5351c",
    },
    indent=2,
).encode()


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    payload = {
        **_HEAD,
        "object": "chat.completion.chunk",
        "service_tier": "default",
        "system_fingerprint": "fp_51f3e5351c",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "obfuscation": "D94CjRNeu",
    }
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


#: 20 events: an opener, 17 content deltas, the finish chunk and ``[DONE]``.
FRAMES: tuple[bytes, ...] = (
    _chunk({"role": "assistant", "content": "", "refusal": None}),
    *(_chunk({"content": word}) for word in (_TEXT.split(" ") * 2)[:17]),
    _chunk({}, "stop"),
    b"data: [DONE]\n\n",
)


async def _frames() -> AsyncIterator[bytes]:
    for frame in FRAMES:
        yield frame


async def _stream(request: Request) -> Response:
    return StreamingResponse(_frames(), media_type="text/event-stream")


async def _chat(request: Request) -> Response:
    return Response(BODY, media_type="application/json")


app = Starlette(
    routes=[
        Route("/v1/chat/completions", _chat, methods=["POST"]),
        Route("/v1/stream", _stream, methods=["POST"]),
    ]
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
