"""``GET /__mockserver/calls/{seq}/rule``: a journaled call as the scenario rule that answers it
again, made by the record mode's own conversion (:mod:`mockserver.record.saved`)."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.http.responses import json_response
from mockserver.http.routes.base import engine_of
from mockserver.http.routes.control import namespace_of
from mockserver.record.exchange import Event, Exchange
from mockserver.record.redact import kept_request, kept_response
from mockserver.record.saved import rule_of, rule_yaml
from mockserver.store import JournalEntry

__all__ = ["exchange_of", "routes"]


def exchange_of(entry: JournalEntry) -> Exchange:
    """A journal entry as a recorded exchange: its request and what reached the client (a
    stream cut after ``n`` writes keeps its first ``n`` events, and is not complete), with
    the headers a recording keeps (an error's ``retry-after`` and rate limits)."""
    answer = entry.answer()
    request_headers = kept_request(entry.request_headers.items())
    response_headers = kept_response(entry.response_headers.items())
    if not (entry.stream and isinstance(answer, list)):
        return Exchange(
            method=entry.method,
            path=entry.path,
            status=entry.status,
            request=entry.requested(),
            request_headers=request_headers,
            response_headers=response_headers,
            body=answer,
            elapsed_ms=entry.duration_ms,
        )
    timing = entry.timing or []
    sent = answer[: len(timing)] if entry.cut else answer
    events = tuple(
        Event(
            offset_ms=timing[i] if i < len(timing) else 0.0,
            data=json.dumps(payload, ensure_ascii=False),
            event=payload.get("type") if isinstance(payload, dict) else None,
        )
        for i, payload in enumerate(sent)
    )
    return Exchange(
        method=entry.method,
        path=entry.path,
        status=entry.status,
        request=entry.requested(),
        request_headers=request_headers,
        response_headers=response_headers,
        events=events,
        complete=not entry.cut,
        elapsed_ms=entry.duration_ms,
    )


def _rule_id(entry: JournalEntry) -> str:
    api = "responses" if entry.path == "/v1/responses" else "chat"
    return f"{api}-call-{entry.seq}"


async def call_rule(request: Request) -> Response:
    """``{"id", "rule", "yaml"}``: the rule, and the YAML to paste under a scenario's ``rules``."""
    engine = engine_of(request)
    name = namespace_of(request)
    raw = request.path_params["seq"]
    seq = int(raw) if raw.isdigit() and len(raw) <= 18 else None
    with engine.store.peek(name) as space:
        entry = space.entry(seq) if space is not None and seq is not None else None
        if entry is None:
            raise NotFoundError(f"No call #{raw} in the journal of namespace '{name}'.")
        exchange = exchange_of(entry)
        rule_id = _rule_id(entry)
    rule: dict[str, Any] | None = rule_of(exchange, rule_id=rule_id)
    if rule is None:
        raise InvalidRequestError(
            f"Call #{raw} is not a model turn a rule can answer (only chat completions and "
            "responses requests with an answer mockserver can say again make rules).",
            code="mockserver_not_a_turn",
        )
    return json_response({"id": rule_id, "rule": rule, "yaml": rule_yaml(rule)})


def routes() -> list[Route]:
    return [Route("/calls/{seq}/rule", call_rule, methods=["GET"])]
