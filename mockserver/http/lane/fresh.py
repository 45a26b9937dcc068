"""A new request's turn for the lane: the endpoint's own steps, from the request's bytes alone.

The lane (``replay.py``) answers a new request to a turn endpoint (``http/endpoint.py``)
without ASGI, Starlette's routing or the middleware, by calling the same steps as the route:
check, turn, answer, and the filing of a recipe. A request the endpoint refuses before its turn
goes the usual way untouched (the route refuses it and journals why); an answer that cannot be
sent as is (paced, faulted, or an error once the turn had started) is handed to the route.
"""

from __future__ import annotations

from typing import Any

from mockserver.errors import APIError
from mockserver.http.endpoint import TurnEndpoint
from mockserver.http.lane.recipes import Answered, Handoff, Key, lane_headers
from mockserver.http.routes.base import (
    JSONAnswer,
    SSEResponse,
    is_json_type,
    namespace_from,
    within_limit,
)
from mockserver.store import Exchange, current_exchange
from mockserver.wire.json_body import parse_json_body

__all__ = ["answer_fresh"]


def answer_fresh(endpoint: TurnEndpoint[Any, Any], key: Key) -> Answered | Handoff | None:
    """``endpoint``'s answer to the request ``key`` when it can be sent as is; a
    :class:`Handoff` once the turn has been taken; ``None`` when nothing has changed (the full
    path then takes the request, and says what is wrong with it)."""
    _, raw, pairs = key
    headers = lane_headers(pairs)
    json_type = is_json_type(headers.get("content-type", ""))
    if not (json_type and within_limit(endpoint.engine, headers, raw)):
        return None
    try:
        body = parse_json_body(raw)
        checked = endpoint.check(body, headers)
    except APIError:  # nothing has changed yet: the route refuses it, and journals why
        return None
    namespace = namespace_from(headers)
    exchange = Exchange()
    token = current_exchange.set(exchange)
    try:
        encoded = endpoint.turn(checked, body, namespace=namespace, headers=headers, raw=raw)
    except APIError as error:
        return Handoff(body, error, exchange, raw)
    finally:
        current_exchange.reset(token)
    response = endpoint.answer(encoded)
    if not isinstance(response, JSONAnswer | SSEResponse):  # paced or faulted
        return Handoff(body, encoded, exchange, raw)
    if endpoint.replays.again(key):
        endpoint.file(key, checked, encoded, response)
    stream = isinstance(response, SSEResponse)
    sent = bytes(response.body)
    return Answered(response.own_headers, sent, stream, namespace, None, exchange)
