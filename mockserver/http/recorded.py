"""A recorded answer sent as the upstream sent it: its status, its headers, its bytes."""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mockserver.errors import RecordedAnswer, StreamAborted
from mockserver.render.sse import text_frame

__all__ = ["RecordedResponse"]

#: Headers that described the recorded connection, not the answer: made anew for this one.
_CONNECTION_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}
)


class RecordedResponse(Response):
    """The answer a ``recorded:`` reply replays; a stream recorded as cut is cut again."""

    def __init__(self, answer: RecordedAnswer, *, headers: dict[str, str] | None = None) -> None:
        self.answer = answer
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
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        if self.answer.events is None:
            await send({"type": "http.response.body", "body": self.body, "more_body": False})
            return
        for event, data in self.answer.events:
            frame = text_frame(event, data)
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        if not self.answer.complete:  # recorded as cut: the client sees the same cut
            raise StreamAborted("the recorded stream was cut here")
        await send({"type": "http.response.body", "body": b"", "more_body": False})
