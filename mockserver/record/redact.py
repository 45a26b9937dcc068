"""What a recording keeps of the headers (never a credential or a cookie), and the masking of
secrets in bodies: the user's regexes, and every credential the recording saw."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mockserver.credentials import MASK, SECRET_HEADERS, journaled_headers
from mockserver.record.exchange import Event, Exchange

__all__ = [
    "ANSWER_SHAPING",
    "MASK",
    "SECRET_HEADERS",
    "Redactor",
    "journaled_headers",
    "kept_request",
    "kept_response",
]

_REQUEST_KEPT = frozenset(
    {
        "content-type",
        "openai-beta",
        "x-stainless-lang",
        "user-agent",
        "anthropic-version",
        "anthropic-beta",
    }
)
#: The request headers that change what the API answers (its version, the betas switched on):
#: a recording keeps them so that ``record --check`` asks the same question again.
ANSWER_SHAPING = frozenset({"anthropic-version", "anthropic-beta", "openai-beta"})
_RESPONSE_KEPT = frozenset(
    {
        "content-type",
        "retry-after",
        "retry-after-ms",
        "x-request-id",
        "request-id",
        "x-should-retry",
    }
)
_RESPONSE_KEPT_PREFIXES = ("x-ratelimit-", "openai-", "x-amzn-", "anthropic-ratelimit-")


def kept_request(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The request headers worth writing (lower-case names)."""
    return {k: v for k, v in _lowered(headers) if k in _REQUEST_KEPT}


def kept_response(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The response headers a client reads: type, rate limits, request id, ``openai-*``
    (Anthropic's: ``request-id``, ``anthropic-ratelimit-*``, ``x-should-retry``)."""
    return {
        k: v
        for k, v in _lowered(headers)
        if k not in SECRET_HEADERS
        and (k in _RESPONSE_KEPT or k.startswith(_RESPONSE_KEPT_PREFIXES))
    }


def _lowered(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k.lower(), v) for k, v in headers if k.lower() not in SECRET_HEADERS]


@dataclass(frozen=True)
class Redactor:
    """Masks every match of ``patterns`` and every literal in ``secrets`` (the credentials the
    recording saw) in all text of an exchange: bodies, events, header values."""

    patterns: tuple[str, ...] = ()
    secrets: frozenset[str] = frozenset()

    def with_secrets(self, found: Iterable[str]) -> Redactor:
        more = {s for s in found if len(s) >= 8}  # a short value would mask ordinary words
        return dataclasses.replace(self, secrets=self.secrets | more) if more else self

    def text(self, value: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            value = value.replace(secret, MASK)
        for pattern in self.patterns:
            value = re.sub(pattern, MASK, value)
        return value

    def value(self, value: Any) -> Any:
        """A JSON value with every string (and key) masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        return value

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k: self.text(v) for k, v in headers.items() if k.lower() not in SECRET_HEADERS}

    def exchange(self, exchange: Exchange) -> Exchange:
        events = exchange.events
        if events is not None:
            events = tuple(
                Event(
                    e.offset_ms, self.text(e.data), None if e.event is None else self.text(e.event)
                )
                for e in events
            )
        return dataclasses.replace(
            exchange,
            request=self.value(exchange.request),
            query=self.text(exchange.query),
            request_headers=self.headers(exchange.request_headers),
            response_headers=self.headers(exchange.response_headers),
            body=self.value(exchange.body),
            body_text=None if exchange.body_text is None else self.text(exchange.body_text),
            events=events,
        )
