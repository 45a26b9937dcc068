"""An exchange, written down: its recording (the exact answer, replayed byte for byte) and its
distilled reply (the neutral reply it says: text, tool calls, refusal, reasoning, usage, or
the error it was), which answers both APIs, streamed or not."""

from __future__ import annotations

import json

from mockserver.record.exchange import Exchange
from mockserver.record.keys import sent_to
from mockserver.record.redact import ANSWER_SHAPING
from mockserver.render.eventstream import MEDIA_TYPE
from mockserver.scenario.captured import captured_reply, error_spec
from mockserver.values import Json

__all__ = ["distilled_reply", "recording_of"]


def recording_of(exchange: Exchange) -> Json:
    """What a recording file holds: the request (and where it went, when its API's path does
    not say, and the headers that shaped its answer), then the answer as it arrived."""
    recording: Json = {"request": exchange.request}
    path = sent_to(exchange)
    if path is not None:
        recording["path"] = path
    shaping = {k: v for k, v in exchange.request_headers.items() if k in ANSWER_SHAPING}
    if shaping:
        recording["request_headers"] = shaping
    recording["status"] = exchange.status
    recording["headers"] = dict(exchange.response_headers)
    if exchange.events is not None:
        recording["events"] = [
            {"offset_ms": e.offset_ms, **({"event": e.event} if e.event else {}), "data": e.data}
            for e in exchange.events
        ]
        recording["complete"] = exchange.complete
        if exchange.crlf:
            recording["crlf"] = True
    else:
        recording["body"] = _body_text(exchange)
    recording["elapsed_ms"] = exchange.elapsed_ms
    return recording


def _named(exchange: Exchange) -> bool:
    """Are the exchange's events an AWS event stream's (whose payloads say not what they are)?"""
    kind = {k.lower(): v for k, v in exchange.response_headers.items()}.get("content-type", "")
    return kind.startswith(MEDIA_TYPE)


def _body_text(exchange: Exchange) -> str:
    if exchange.body_text is not None:
        return exchange.body_text
    if exchange.body is None:
        return ""
    return json.dumps(exchange.body, indent=2, ensure_ascii=False)


def distilled_reply(exchange: Exchange) -> Json | None:
    """The neutral reply ``exchange``'s answer says; ``None`` if it says none we know (then
    only the exact recording can replay it)."""
    if exchange.status >= 400:
        return {"error": error_spec(exchange.status, exchange.body, exchange.response_headers)}
    if exchange.events is None:
        return captured_reply(exchange.body)
    payloads = []
    for event in exchange.events:
        if event.data == "[DONE]":
            continue
        try:
            payload = json.loads(event.data)
        except ValueError:
            return None
        # an AWS event stream's payloads are named by their message, as boto3 hands them over
        payloads.append({event.event: payload} if _named(exchange) else payload)
    reply = captured_reply(payloads)
    if reply is not None and not exchange.complete:  # cut as the recording was
        reply["fault"] = {"disconnect_after": len(payloads)}
    return reply
