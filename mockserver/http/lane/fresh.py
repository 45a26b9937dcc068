"""A create endpoint's turn for the lane: what the route does, from the request's bytes alone.

The lane (``routes/replay.py``) answers a new request to an endpoint that gives it a
:data:`~mockserver.http.lane.replay.FreshPath`. :func:`fresh_path` makes one from the route's own
steps, so the lane and the route cannot drift apart: the checks that may refuse the request
before its turn, the turn itself (engine, rendering, storing, journaling), the response, and
the filing of a recipe for the replay lane.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from starlette.responses import Response

from mockserver.engine import Engine
from mockserver.errors import APIError
from mockserver.http.lane.replay import Answered, FreshPath, Handoff, Key, Replays, lane_headers
from mockserver.http.routes.base import (
    JSONAnswer,
    SSEResponse,
    is_json_type,
    namespace_from,
    within_limit,
)
from mockserver.store import Exchange, current_exchange
from mockserver.wire.json_body import parse_json_body

__all__ = ["fresh_path"]

Json = dict[str, Any]
Checked = TypeVar("Checked")
Result = TypeVar("Result")


def fresh_path(
    engine: Engine,
    replays: Replays,
    *,
    check: Callable[[Json, Mapping[str, str]], Checked],
    turn: Callable[[Checked, Json, str, str, Mapping[str, str]], Result],
    respond: Callable[[Result], Response],
    file: Callable[[Key, Checked, Result, Response], None],
) -> FreshPath:
    """A route's turn for the lane, from its steps:

    - ``check(body, headers)``: what the route checks before the turn (an ``APIError`` leaves
      the request to the route, untouched, to refuse and journal);
    - ``turn(checked, body, namespace, path, headers)``: the turn, rendered and journaled (an
      ``APIError`` now is the route's to send: the namespace may have moved);
    - ``respond(result)``: the route's response;
    - ``file(key, checked, result, response)``: a recipe for the next identical request.
    """

    def fresh(key: Key) -> Answered | Handoff | None:
        path, raw, pairs = key
        headers = lane_headers(pairs)
        json_type = is_json_type(headers.get("content-type", ""))
        if not (json_type and within_limit(engine, headers, raw)):
            return None
        try:
            body = parse_json_body(raw)
            checked = check(body, headers)
        except APIError:  # nothing has changed yet: the route refuses it, and journals why
            return None
        namespace = namespace_from(headers)
        exchange = Exchange()
        token = current_exchange.set(exchange)
        try:
            result = turn(checked, body, namespace, path, headers)
        except APIError as error:
            return Handoff(body, error, exchange)
        finally:
            current_exchange.reset(token)
        response = respond(result)
        if not isinstance(response, JSONAnswer | SSEResponse):  # paced or faulted
            return Handoff(body, result, exchange)
        if replays.again(key):
            file(key, checked, result, response)
        stream = isinstance(response, SSEResponse)
        sent = bytes(response.body)
        return Answered(response.own_headers, sent, stream, namespace, None, exchange)

    return fresh
