"""A browser's HAR export (DevTools → Network → "Save all as HAR") read as OpenAI exchanges.

HAR 1.2: ``log.entries[]``, each with ``request`` (``method``, ``url``, ``headers`` as
name/value pairs, ``postData.text``), ``response`` (``status``, ``headers``, ``content.text``,
``content.encoding: base64`` for bytes) and ``timings``. A page's other traffic (its HTML,
scripts, CORS preflights, calls cancelled before an answer) is skipped and counted.

The text of ``content`` is the decoded body (the spec says so; browsers export it so); only
bytes that are still gzip's (some proxies export them that way) are decompressed here. A
stream's event offsets come from the entry's timings: its first event at the time to first
byte, the rest spread evenly over the receive time (an export says no more), or at the times
of ``_eventSourceMessages`` where the export has them.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from mockserver.credentials import credentials_in
from mockserver.record.body import (
    Answer,
    BodyError,
    decoded,
    json_of,
    read_response,
    stream_complete,
)
from mockserver.record.exchange import Event, Exchange
from mockserver.record.importing import (
    Entry,
    Imported,
    ImportFailed,
    Skip,
    api_path,
    number,
)
from mockserver.record.redact import kept_request, kept_response

__all__ = ["read_har"]

_GZIP_MAGIC = b"\x1f\x8b"


def read_har(path: Path) -> Imported:
    """The OpenAI exchanges a HAR file holds, in the order they were sent."""
    file = str(path)
    entries = _entries(_load(path), file)
    exchanges: list[Exchange] = []
    indexes: list[int] = []
    skipped: list[Skip] = []
    secrets: list[str] = []
    for index, entry in enumerate(entries):
        where = _Where(file, index)
        entry_map = where.mapping(entry, "", "an entry")
        request = where.mapping(entry_map.get("request"), "request", "the request")
        method = where.text(request.get("method"), "request.method").upper()
        url = where.text(request.get("url"), "request.url")
        target = _target(method, url, entry_map, where)
        if isinstance(target, str):
            skipped.append(Skip(index, method, url, target))
            continue
        exchanges.append(_exchange(where, entry_map, method=method, target=target))
        indexes.append(index)
        headers = where.headers(request.get("headers"), "request.headers")
        secrets += credentials_in(headers, target[1])
    return Imported(
        file,
        tuple(exchanges),
        tuple(indexes),
        tuple(skipped),
        tuple(secrets),
        noun=("entry", "entries"),
    )


def _load(path: Path) -> Any:
    file = str(path)
    try:
        return orjson.loads(path.read_bytes())
    except OSError as exc:
        raise ImportFailed(f"cannot read the HAR file ({exc.strerror})", file=file) from None
    except orjson.JSONDecodeError as exc:
        raise ImportFailed(f"not valid JSON ({exc}): a HAR file is JSON", file=file) from None


def _entries(data: Any, file: str) -> list[Any]:
    log = data.get("log") if isinstance(data, Mapping) else None
    entries = log.get("entries") if isinstance(log, Mapping) else None
    if not isinstance(entries, list):
        raise ImportFailed(
            "not a HAR file: expected {'log': {'entries': [...]}}", file=file, field="log.entries"
        )
    return entries


class _Where(Entry):
    """Checks on one entry (HAR is JSON: its mappings are objects)."""

    mapping_word = "an object"

    def __init__(self, file: str, index: int) -> None:
        super().__init__(file, f"entry {index}")

    def headers(self, value: Any, field: str) -> list[tuple[str, str]]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(f"expected a list of {{name, value}}, got {self.kind(value)}", field)
        pairs = []
        for i, header in enumerate(value):
            name = header.get("name") if isinstance(header, Mapping) else None
            text = header.get("value") if isinstance(header, Mapping) else None
            if not isinstance(name, str) or not isinstance(text, str):
                raise self.fail(
                    f"expected {{name, value}} as text, got {header!r}", f"{field}[{i}]"
                )
            if not name.startswith(":"):  # HTTP/2 pseudo-headers (:authority, :path)
                pairs.append((name, text))
        return pairs


def _target(
    method: str, url: str, entry: Mapping[str, Any], where: _Where
) -> tuple[str, str] | str:
    """The call's path and query, or why it is skipped."""
    target = api_path(url)
    if isinstance(target, str):
        return target
    if method == "OPTIONS":
        return "a CORS preflight (OPTIONS)"
    response = where.mapping(entry.get("response"), "response", "the response")
    if response.get("status") == 0:
        return "no answer (status 0: the call was cancelled or blocked)"
    content = where.mapping(response.get("content"), "response.content", "the content")
    if "text" not in content and not entry.get("_eventSourceMessages"):
        return "the export holds no response body (no response.content.text)"
    return target


def _exchange(
    where: _Where, entry: Mapping[str, Any], *, method: str, target: tuple[str, str]
) -> Exchange:
    path, query = target
    request = where.mapping(entry.get("request"), "request", "the request")
    response = where.mapping(entry.get("response"), "response", "the response")
    request_headers = where.headers(request.get("headers"), "request.headers")
    response_headers = where.headers(response.get("headers"), "response.headers")
    status = where.status(response.get("status"), "response.status")
    timings = _Timings.of(entry)
    answer = _response(where, entry, response, response_headers, timings)
    return Exchange(
        method=method,
        path=path,
        query=query,
        status=status,
        request=_request_json(where, request),
        request_headers=kept_request(request_headers),
        response_headers=kept_response(response_headers),
        body=answer.body,
        events=answer.events,
        complete=answer.complete,
        body_text=answer.text,
        crlf=answer.crlf,
        elapsed_ms=timings.total,
    )


def _request_json(where: _Where, request: Mapping[str, Any]) -> Any:
    post = request.get("postData")
    if post is None:
        return None
    post = where.mapping(post, "request.postData", "the posted data")
    text = post.get("text")
    if not isinstance(text, str):
        raise where.fail(
            "the export holds no request body (postData without text)", "request.postData.text"
        )
    try:
        return json_of(text.encode("utf-8"), "request body")
    except BodyError as exc:
        raise where.fail(str(exc), "request.postData.text") from None


class _Timings:
    """When, in milliseconds after the request started, its answer began and how long it took."""

    __slots__ = ("first_byte", "receive", "total")

    def __init__(self, first_byte: float, receive: float, total: float) -> None:
        self.first_byte = first_byte
        self.receive = receive
        self.total = total

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> _Timings:
        timings = entry.get("timings")
        timings = timings if isinstance(timings, Mapping) else {}

        def phase(name: str) -> float:
            return number(timings.get(name)) or 0.0  # -1: the phase does not apply

        # ssl is part of connect (HAR 1.2), so it is not added again
        first = sum(phase(p) for p in ("blocked", "dns", "connect", "send", "wait"))
        receive = phase("receive")
        return cls(first, receive, number(entry.get("time")) or first + receive)

    def spread(self, count: int) -> list[float]:
        """Offsets of ``count`` events over the receive time, the first at the first byte."""
        if count <= 1:
            return [self.first_byte] * count
        step = self.receive / (count - 1)
        return [round(self.first_byte + i * step, 3) for i in range(count)]


def _content_bytes(where: _Where, content: Mapping[str, Any]) -> bytes:
    text = content.get("text", "")
    if not isinstance(text, str):
        raise where.fail(f"expected text, got {where.kind(text)}", "response.content.text")
    encoding = content.get("encoding")
    if encoding is None:
        return text.encode("utf-8")
    if encoding != "base64":
        raise where.fail(
            f"content encoding {encoding!r}: a HAR body is text or base64",
            "response.content.encoding",
        )
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise where.fail(f"not valid base64 ({exc})", "response.content.text") from None


def _response(
    where: _Where,
    entry: Mapping[str, Any],
    response: Mapping[str, Any],
    headers: list[tuple[str, str]],
    timings: _Timings,
) -> Answer:
    named = {name.lower(): value for name, value in headers}
    content = where.mapping(response.get("content"), "response.content", "the content")
    messages = entry.get("_eventSourceMessages")
    if "text" not in content and isinstance(messages, list):
        events = _messages(where, messages, timings)
        return Answer(None, events, complete=stream_complete(events))
    raw = _content_bytes(where, content)
    coding = named.get("content-encoding", "")
    if raw.startswith(_GZIP_MAGIC) and "gzip" in coding.lower():
        raw = decoded(raw, coding)  # still compressed: exported by a proxy, not a browser
    mime = content.get("mimeType")
    content_type = named.get("content-type") or (mime if isinstance(mime, str) else "")
    try:
        probe = read_response(raw, content_type=content_type)
    except BodyError as exc:
        raise where.fail(str(exc), "response.content.text") from None
    if probe.events is None:
        return probe
    offsets = timings.spread(len(probe.events))
    events = tuple(
        Event(offset_ms=at, data=e.data, event=e.event)
        for at, e in zip(offsets, probe.events, strict=True)
    )
    return dataclasses.replace(probe, events=events)


def _messages(where: _Where, messages: list[Any], timings: _Timings) -> tuple[Event, ...]:
    """Chrome's ``_eventSourceMessages``: ``{time (s), eventName, eventId, data}`` each."""
    events: list[Event] = []
    start: float | None = None
    for i, message in enumerate(messages):
        field = f"_eventSourceMessages[{i}]"
        message = where.mapping(message, field, "a message")
        data = message.get("data")
        if not isinstance(data, str):
            raise where.fail(f"expected the data as text, got {where.kind(data)}", f"{field}.data")
        at = number(message.get("time")) or 0.0
        start = at if start is None else start
        name = message.get("eventName") or message.get("type")
        events.append(
            Event(
                offset_ms=round(timings.first_byte + (at - start) * 1000, 3),
                data=data,
                event=name if isinstance(name, str) and name != "message" else None,
            )
        )
    return tuple(events)
