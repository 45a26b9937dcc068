"""The control plane under ``/__mockserver/``: scenarios, journal, reset, health (JSON)."""

from __future__ import annotations

from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import mockserver
from mockserver.engine import Engine
from mockserver.errors import APIError, InvalidRequestError, NotFoundError, ScenarioError
from mockserver.guess import did_you_mean
from mockserver.http.responses import json_response
from mockserver.http.routes import labels
from mockserver.http.routes.base import control_endpoint, engine_of, read_body
from mockserver.http.routes.base import namespace_of as api_namespace
from mockserver.http.routes.query import query_int
from mockserver.http.routes.upload import read_upload
from mockserver.report import ReportWriteError, collect, write_reports
from mockserver.scenario.library import builtin_names
from mockserver.scenario.loader import reply_from_data, scenario_to_yaml
from mockserver.scenario.model import Reply, Scenario
from mockserver.store import Namespace, operations
from mockserver.values import Json
from mockserver.wire.json_body import JSON_PARSE_ERROR, parse_json_body

__all__ = ["routes"]


#: The most one ``POST /clock`` may move a clock by: ten years of seconds.
MAX_ADVANCE: Final = 10 * 365 * 24 * 3600


def namespace_of(request: Request) -> str:
    """``?namespace=`` (a name or a handle: for the inspector and non-Python suites), else as
    the API decides."""
    given = request.query_params.get("namespace")
    if not given:
        return api_namespace(request)
    return labels.resolve(given, engine_of(request).store.names())


def shown(request: Request, name: str) -> str:
    """A namespace as its client named it: a handle stays a handle (see :mod:`labels`)."""
    given = request.query_params.get("namespace", "")
    return given if labels.is_handle(given) else name


def scenario_error(exc: ScenarioError) -> InvalidRequestError:
    return InvalidRequestError(str(exc), code="mockserver_scenario_error")


def _scenario_body(engine: Engine, space: Namespace, request: Request) -> tuple[Json, Scenario]:
    """What ``/scenario`` says of the namespace's scenario (its YAML apart: see
    :func:`_described`), and the scenario."""
    scenario = engine.active_scenario(space)
    hits = space.rule_hits.get(scenario.name, {})
    body = {
        "namespace": shown(request, space.name),
        "name": scenario.name,
        "description": scenario.description,
        "fallback": scenario.fallback,
        "seed": scenario.seed if scenario.seed is not None else engine.settings.seed,
        "is_default": space.scenario is None,
        "pending": len(space.pending),
        "rules": [
            {
                "id": rule.id,
                "hits": hits.get(rule.id or "", 0),
                "replies": len(rule.sequence),
                "times": rule.times,
            }
            for rule in scenario.rules
        ],
    }
    return body, scenario


async def _described(
    engine: Engine, name: str, request: Request, *, written: str | None = None
) -> Response:
    """The namespace's scenario as ``/scenario`` shows it, its YAML written in a worker thread
    (a large scenario takes a while to write, and the event loop serves every client)."""
    with engine.store.view(name) as space:
        body, scenario = _scenario_body(engine, space, request)
    if written is None:
        written = await run_in_threadpool(scenario_to_yaml, scenario)
    body["yaml"] = written
    return json_response(body)


def _control_json(raw: bytes) -> Json:
    """A control-API body: a JSON object, else a 400 that says what the control API takes."""
    try:
        return parse_json_body(raw)
    except InvalidRequestError as exc:
        # The API's own words for unparseable JSON send the reader to OpenAI's help center.
        why = "the body is not valid JSON." if exc.message == JSON_PARSE_ERROR else exc.message
        raise InvalidRequestError(
            "The control API takes a JSON object (a scenario may also be sent as YAML with "
            f"'Content-Type: application/yaml'): {why}",
            code=exc.code,
        ) from None


async def _scenario_from_request(request: Request, engine: Engine) -> tuple[Scenario, str | None]:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await read_body(request)
    found = await read_upload(raw, media=media, settings=engine.settings, parse_json=_control_json)
    if found.scenario is None:  # ``name: plain-chat`` or {"name": …}: switch to it
        return engine.find_scenario(str(found.name)), None
    return found.scenario, found.yaml


@control_endpoint
async def get_scenario(request: Request) -> Response:
    engine = engine_of(request)
    return await _described(engine, namespace_of(request), request)


@control_endpoint
async def put_scenario(request: Request) -> Response:
    engine = engine_of(request)
    try:
        scenario, written = await _scenario_from_request(request, engine)
    except ScenarioError as exc:
        raise scenario_error(exc) from None
    name = namespace_of(request)
    operations.switch_scenario(engine.store, name, scenario)
    return await _described(engine, name, request, written=written)


@control_endpoint
async def delete_scenario(request: Request) -> Response:
    engine = engine_of(request)
    name = namespace_of(request)
    operations.switch_scenario(engine.store, name, None)
    return await _described(engine, name, request)


@control_endpoint
async def list_scenarios(request: Request) -> Response:
    engine = engine_of(request)
    loaded = [
        {"name": s.name, "description": s.description, "source": "loaded", "rules": len(s.rules)}
        for s in engine.library.values()
    ]
    builtins = [
        {"name": n, "source": "builtin"} for n in builtin_names() if n not in engine.library
    ]
    return json_response({"default": engine.default.name, "data": loaded + builtins})


@control_endpoint
async def calls(request: Request) -> Response:
    engine = engine_of(request)
    limit = query_int(request, "limit", default=100, low=1, high=10_000)
    path = request.query_params.get("path")
    status = None
    if "status" in request.query_params:  # an HTTP status: a filter that can never hold is a typo
        status = query_int(request, "status", default=0, low=100, high=599)
    with engine.store.view(namespace_of(request)) as space:
        entries = [
            e.as_json()
            for e in space.journal
            if (path is None or e.path == path) and (status is None or e.status == status)
        ]
    return json_response({"object": "list", "data": entries[-limit:]})


async def call(request: Request) -> Response:
    """One journal entry, whole (request and response bodies, stream events, timing)."""
    engine = engine_of(request)
    name = namespace_of(request)
    raw = request.path_params["seq"]
    seq = int(raw) if raw.isdigit() and len(raw) <= 18 else None  # a number a journal could reach
    entry = engine.store.entry(name, seq) if seq is not None else None
    if entry is None:
        raise NotFoundError(f"No call #{raw} in the journal of namespace '{name}'.")
    return json_response({"namespace": shown(request, name), **entry.as_json()})


async def namespaces(request: Request) -> Response:
    """Every namespace with state, newest first: its scenario, journal size and queue."""
    engine = engine_of(request)
    limit = query_int(request, "limit", default=200, low=1, high=10_000)
    data = []
    for name in reversed(engine.store.names()):
        with engine.store.peek(name) as space:
            if space is None:
                continue
            data.append(
                {
                    "namespace": labels.handle(name),
                    "label": labels.label(name),
                    "scenario": engine.active_scenario(space).name,
                    "calls": len(space.journal),
                    "last_seq": space.journal_seq,
                    "pending": len(space.pending),
                }
            )
        if len(data) >= limit:
            break
    return json_response({"object": "list", "data": data})


def _queued_reply(raw: object, *, field: str | None) -> Reply:
    return reply_from_data(raw, field=field)


def _queued_replies(body: Json) -> list[Reply]:
    """One reply object, or ``{"replies": [reply, ...]}``."""
    if "replies" not in body:
        return [_queued_reply(body, field=None)]
    if len(body) > 1:
        raise ScenarioError("give one reply object or 'replies', not both", field="replies")
    raw = body["replies"]
    if not isinstance(raw, list):
        return [_queued_reply(raw, field="replies")]
    if not raw:
        raise ScenarioError("'replies' needs at least one reply", field="replies")
    return [_queued_reply(r, field=f"replies.{i}") for i, r in enumerate(raw)]


@control_endpoint
async def queue_next(request: Request) -> Response:
    """Queue one-off replies (scenario reply objects) for this namespace's next requests."""
    try:
        replies = _queued_replies(_control_json(await read_body(request)))
    except ScenarioError as exc:
        raise scenario_error(exc) from None
    engine = engine_of(request)
    name = namespace_of(request)
    waiting = operations.queue_replies(engine.store, name, replies)
    return json_response({"namespace": shown(request, name), "pending": waiting})


def _clock_body(engine: Engine, space: Namespace, request: Request) -> Json:
    shown_as = shown(request, space.name)
    return {"namespace": shown_as, "now": engine.now_in(space), "offset": space.clock_offset}


@control_endpoint
async def get_clock(request: Request) -> Response:
    engine = engine_of(request)
    with engine.store.view(namespace_of(request)) as space:
        return json_response(_clock_body(engine, space, request))


@control_endpoint
async def advance_clock(request: Request) -> Response:
    """``{"advance": seconds}`` moves this namespace's clock (rate-limit refills, …)."""
    body = _control_json(await read_body(request))
    for key in sorted(set(body) - {"advance"}):
        raise InvalidRequestError(
            f"Unrecognized request argument supplied: {key}"
            + (did_you_mean(key, ["advance"]) or " (the clock takes 'advance')"),
            param=key,
            code="unknown_parameter",
        )
    if "advance" not in body:
        raise InvalidRequestError(
            "Missing required parameter: 'advance'.",
            param="advance",
            code="missing_required_parameter",
        )
    value = body["advance"]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value <= MAX_ADVANCE
    ):
        raise InvalidRequestError(
            f"Invalid 'advance': expected a number of seconds from 0 to {MAX_ADVANCE} (ten years).",
            param="advance",
            code="invalid_value",
        )
    engine = engine_of(request)
    name = namespace_of(request)
    operations.advance_clock(engine.store, name, float(value))
    with engine.store.view(name) as space:
        return json_response(_clock_body(engine, space, request))


@control_endpoint
async def reset(request: Request) -> Response:
    name = namespace_of(request)
    engine_of(request).store.reset(name)
    return json_response({"namespace": shown(request, name), "reset": True})


async def health(request: Request) -> Response:
    engine = engine_of(request)
    return json_response(
        {
            "status": "ok",
            "version": mockserver.__version__,
            "seed": engine.settings.seed,
            "scenario": engine.default.name,
        }
    )


@control_endpoint
async def report(request: Request) -> Response:
    """What was served, over every namespace (``mockserver.report``); written to the
    ``--report``/``--report-junit`` files too, when the server has them."""
    engine = engine_of(request)
    settings = engine.settings
    body = await run_in_threadpool(collect, engine)
    if settings.report is not None or settings.report_junit is not None:
        try:
            await run_in_threadpool(
                write_reports, body, json_path=settings.report, junit_path=settings.report_junit
            )
        except ReportWriteError as exc:
            raise APIError(str(exc), code="mockserver_report_not_written") from None
    return json_response(body)


def routes() -> list[Route]:
    return [
        Route("/health", health, methods=["GET"]),
        Route("/scenarios", list_scenarios, methods=["GET"]),
        Route("/scenario", get_scenario, methods=["GET"]),
        Route("/scenario", put_scenario, methods=["PUT"]),
        Route("/scenario", delete_scenario, methods=["DELETE"]),
        Route("/calls", calls, methods=["GET"]),
        Route("/calls/{seq}", call, methods=["GET"]),
        Route("/namespaces", namespaces, methods=["GET"]),
        Route("/next", queue_next, methods=["POST"]),
        Route("/clock", get_clock, methods=["GET"]),
        Route("/clock", advance_clock, methods=["POST"]),
        Route("/reset", reset, methods=["POST"]),
        Route("/report", report, methods=["GET"]),
    ]
