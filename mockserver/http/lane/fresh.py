"""A new request's turn for the lane: the endpoint's own steps, from the request's bytes alone.

The lane (``replay.py``) answers a new request to a turn endpoint (``http/endpoint.py``)
without ASGI, Starlette's routing or the middleware, by calling the same steps as the route:
check, turn, answer, and the filing of a recipe. A request the endpoint refuses before its turn
goes the usual way untouched (the route refuses it and journals why); a paced stream is
written by the protocol's lane on the event loop's one timer (``http/pacing.py``); any other
answer that cannot be sent as is (faulted, an error once the turn had started, or a paced one
for the ASGI lane) is handed to the route.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from starlette.datastructures import QueryParams

from mockserver.errors import APIError
from mockserver.http.endpoint import Target, TurnEndpoint
from mockserver.http.lane.recipes import (
    Answered,
    Framing,
    Handoff,
    Key,
    framing_of,
    lane_headers,
)
from mockserver.http.responses import JSONAnswer, NDJSONResponse, PacedSSEResponse, SSEResponse
from mockserver.http.routes.base import namespace_from, reads_as_json, within_limit
from mockserver.store import Exchange, Namespace, current_exchange
from mockserver.wire.json_body import parse_json_body

__all__ = ["answer_fresh", "answer_fresh_soon"]


def answer_fresh(
    endpoint: TurnEndpoint[Any, Any], key: Key, *, paced: bool = False
) -> Answered | Handoff | None:
    """``endpoint``'s answer to the request ``key`` when it can be sent as is (or, with
    ``paced``, as a paced stream); a :class:`Handoff` once the turn has been taken; ``None``
    when nothing has changed (the full path then takes the request, and says what is wrong
    with it)."""
    asked = _asked(endpoint, key)
    if asked is None:
        return None
    with _exchange() as exchange:
        try:
            encoded = endpoint.engine.store.transact(asked.namespace, asked.work)
        except APIError as error:
            return Handoff(asked.body, error, exchange, asked.raw)
    return _answered(endpoint, key, asked, encoded, exchange, paced=paced)


async def answer_fresh_soon(
    endpoint: TurnEndpoint[Any, Any], key: Key, *, paced: bool = False
) -> Answered | Handoff | None:
    """:func:`answer_fresh`, awaiting the turn's round trip to a shared store (the process goes
    on with other requests meanwhile)."""
    asked = _asked(endpoint, key)
    if asked is None:
        return None
    with _exchange() as exchange:
        try:
            turns = endpoint.engine.store.turns
            assert turns is not None  # (the lane awaits only a store that has them)
            encoded = await turns.transact(asked.namespace, asked.work)
        except APIError as error:
            return Handoff(asked.body, error, exchange, asked.raw)
    return _answered(endpoint, key, asked, encoded, exchange, paced=paced)


@contextmanager
def _exchange() -> Iterator[Exchange]:
    """The exchange the turn's journal entries join (as the route's request has one)."""
    exchange = Exchange()
    token = current_exchange.set(exchange)
    try:
        yield exchange
    finally:
        current_exchange.reset(token)


class _Asked(NamedTuple):
    """A request the endpoint took, and its turn."""

    checked: Any
    body: Any
    namespace: str
    raw: bytes
    work: Callable[[Namespace], Any]


def _asked(endpoint: TurnEndpoint[Any, Any], key: Key) -> _Asked | None:
    path, raw, pairs, query_string = key
    headers = lane_headers(pairs)
    json_type = reads_as_json(headers.get("content-type", ""), path)
    if not (json_type and within_limit(endpoint.engine, headers, raw)):
        return None
    query = QueryParams(query_string) if query_string else _NO_QUERY
    try:
        body = parse_json_body(raw)
        if endpoint.family.templated:  # as the route reads it
            body = endpoint.named(body, path)
        checked = endpoint.check(body, headers, at=Target(path, query))
    except APIError:  # nothing has changed yet: the route refuses it, and journals why
        return None
    namespace = namespace_from(headers, query)
    work = endpoint.work(checked, body, namespace=namespace, headers=headers, raw=raw, path=path)
    return _Asked(checked, body, namespace, raw, work)


_NO_QUERY = QueryParams()


def _answered(
    endpoint: TurnEndpoint[Any, Any],
    key: Key,
    asked: _Asked,
    encoded: Any,
    exchange: Exchange,
    *,
    paced: bool,
) -> Answered | Handoff:
    response = endpoint.answer(encoded)
    framing = framing_of(response)
    if framing is None or not isinstance(response, _WHOLE):  # paced or faulted
        if paced and isinstance(response, PacedSSEResponse):  # (and every family's kin)
            head = Framing.of(response.raw_headers)
            return Answered({}, b"", head, asked.namespace, None, exchange, response.stream)
        return Handoff(asked.body, encoded, exchange, asked.raw)
    if endpoint.replays.again(key):
        endpoint.file(key, asked.checked, encoded, response)
    sent = bytes(response.body)
    return Answered(response.own_headers, sent, framing, asked.namespace, None, exchange)


#: The answers sent as they are (their framings: ``recipes.framing_of``).
_WHOLE = JSONAnswer | SSEResponse | NDJSONResponse
