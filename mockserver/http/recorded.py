"""A recorded answer sent as the upstream sent it: its status, its headers, its bytes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mockserver.errors import RecordedAnswer
from mockserver.faults import BodyPlan, StreamPlan, deliver_body, paced
from mockserver.render.sse import text_frame

__all__ = ["RecordedResponse"]

#: Headers that described the recorded connection, not the answer: made anew for this one.
_CONNECTION_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}
)


class RecordedResponse(Response):
    """The answer a ``recorded:`` reply replays; a stream recorded as cut is cut again. At
    once, or (``pace: true``) at the recorded pace, timed by the one pacer (``faults``)."""

    def __init__(
        self,
        answer: RecordedAnswer,
        *,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.answer = answer
        self.sleep = sleep
        self.status_code = answer.status
        self.background = None
        own = {
            k.lower(): v
            for k, v in answer.recorded_headers.items()
            if k.lower() not in _CONNECTION_HEADERS
        }
        own.update(headers or {})
        self.body = b"" if answer.recorded_body is None else answer.recorded_body.encode()
        if answer.events is None:
            own["content-length"] = str(len(self.body))
        self.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in own.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = self.answer
        start = {"type": "http.response.start", "status": self.status_code}
        if answer.events is None:
            body = bytes(self.body)
            if answer.delay:
                body = await deliver_body(body, BodyPlan(delay=answer.delay), sleep=self.sleep)
            await send({**start, "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        await send({**start, "headers": self.raw_headers})
        frames = [text_frame(event, data) for event, data in answer.events]
        # Recorded as cut: the client sees the same cut, after the last event recorded.
        cut = None if answer.complete else ("disconnect", len(frames))
        plan = StreamPlan(waits=answer.waits, cut=cut)
        async for frame in paced(frames, plan, tail=(), error_frames=(), sleep=self.sleep):
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
