"""An API family's model turn, as one :class:`TurnEndpoint`: check → turn → encode → answer.

Chat Completions and Responses each give one subclass (``routes/chat.py``,
``routes/responses.py``) with their own four steps; everything else about serving a turn is
written here, once: the Starlette route (:meth:`TurnEndpoint.route`), what the replay lane asks
for a new request (``lane/fresh.py`` calls the same steps), and the filing of a recipe so the
lane can answer the same request again. So the route and the lane cannot drift apart, and an
API family is never written twice.

An endpoint serves one row of the family table (``mockserver/families.py``): its class's own
path, or the same API at another path or provider (Azure OpenAI's), where it answers in that
provider's shape (``self.family.provider``) and a path's ``{deployment}`` names the model.

The four steps:

- :meth:`~TurnEndpoint.check`: refuse a bad request before anything changes (an ``APIError``),
  and give what the turn needs (the Prompt, or the validated body);
- :meth:`~TurnEndpoint.turn`: the engine's turn for it (the subclass's ``take``), encoded once
  (``encode``) and journaled (an ``APIError`` now is answered as the turn's: the namespace has
  moved);
- :meth:`~TurnEndpoint.answer`: the response for the encoded answer (sent as is, or paced and
  faulted as the turn's plans say);
- :meth:`~TurnEndpoint.recipe`: how the lane answers this exact request again, if it would be
  answered alike (``None``: it would not).
"""

from __future__ import annotations

import dataclasses
import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response

from mockserver.credentials import journaled_headers
from mockserver.engine import Engine
from mockserver.engine.turn import Journaled, Turn
from mockserver.families import Family, family_at, turn_families
from mockserver.http.lane.recipes import (
    HANDOFF,
    Handoff,
    Key,
    Recipe,
    Replays,
    handed_over,
    replay_key,
)
from mockserver.http.routes.base import create_endpoint, namespace_of, read_json
from mockserver.http.routes.encoded import Encoded
from mockserver.store import Namespace, Unparsed
from mockserver.wire.json_body import Body

__all__ = ["Endpoints", "Target", "TurnEndpoint", "turn_route"]

Checked = TypeVar("Checked")
Result = TypeVar("Result")


class Target(NamedTuple):
    """Where a request was sent: its path (journaled) and its query parameters (read, never
    journaled: a Gemini key may be one)."""

    path: str
    query: Mapping[str, str] = {}


class TurnEndpoint(ABC, Generic[Checked, Result]):
    """One API family's create endpoint: a model's turn (see the module's docstring)."""

    #: The endpoint's own path, e.g. ``/v1/chat/completions``.
    path: ClassVar[str]

    def __init__(self, engine: Engine, replays: Replays, *, family: Family | None = None) -> None:
        self.engine = engine
        self.replays = replays
        #: The row served: the class's own path's, unless made for another path's row.
        self.family = family or _row(self.path)

    @abstractmethod
    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Checked:
        """What the turn needs from the request sent ``at`` a path, or the API's error for it
        (nothing changed)."""

    @abstractmethod
    def take(
        self,
        space: Namespace,
        checked: Checked,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> Result:
        """The engine's turn for the request in ``space``, its namespace, held (the store's
        change this turn is), rendered (and journaled as ``journal`` says)."""

    @abstractmethod
    def encode(self, result: Result) -> Encoded[Result]:
        """The answer's bytes: a body, or a stream's frames."""

    def work(
        self,
        checked: Checked,
        body: Body,
        *,
        namespace: str,
        headers: Mapping[str, str],
        raw: bytes,
        path: str | None = None,
    ) -> Callable[[Namespace], Encoded[Result]]:
        """The engine's turn for the request, rendered, encoded and journaled, as the change
        of its namespace the store makes (the engine wrote the entry in the turn's commit; the
        answer joins it here, as the bytes that are sent; the request is kept as the ``raw``
        bytes it came in). One atomic change for the whole turn, every step on the namespace
        the store hands it: on a shared store, one transaction per request, written with its
        answer, and maybe made again, on the namespace as another process left it; so
        ``store.transact(namespace, work)`` (awaited from the event loop where the store has
        ``turns``). The request is journaled at ``path`` (the endpoint's own, unless its path
        names a model)."""
        journal = Journaled(
            path or self.path, Unparsed(raw, orjson.loads), journaled_headers(headers.items())
        )

        def turn(space: Namespace) -> Encoded[Result]:
            result = self.take(space, checked, body, headers=headers, journal=journal)
            encoded = self.encode(result)
            self.engine.answered(
                self.turn_of(result),
                response=encoded.journaled(),
                headers=self.headers_of(result),
            )
            return encoded

        return turn

    @staticmethod
    @abstractmethod
    def turn_of(result: Result) -> Turn:
        """The engine's turn a result renders."""

    @staticmethod
    def headers_of(result: Result) -> Mapping[str, str]:
        """The headers the answer to ``result`` sets itself (the journal keeps them): its
        ``headers``, which every family's result has (``{}`` for one without)."""
        headers: Mapping[str, str] = getattr(result, "headers", {})
        return headers

    @abstractmethod
    def answer(self, encoded: Encoded[Result]) -> Response:
        """The response that sends ``encoded`` (as is, or paced and faulted)."""

    @abstractmethod
    def recipe(
        self, key: Key, checked: Checked, encoded: Encoded[Result], response: Response
    ) -> Recipe | None:
        """How the lane answers the request ``key`` again, if it would be answered alike."""

    async def route(self, request: Request) -> Response:
        """The Starlette route: a refusal is answered and journaled by ``create_endpoint``."""
        handoff: Handoff | None = request.scope.get(HANDOFF)
        if handoff is not None:  # the lane took the turn; its answer is the route's to send
            encoded: Encoded[Result] = handed_over(request, handoff)
            return self.answer(encoded)
        body = await read_json(request)
        at = Target(request.url.path, request.query_params)
        if self.family.templated:
            body = request.state.json_body = self.named(body, at.path)
        checked = self.check(body, request.headers, at=at)
        raw: bytes = request.state.raw_body
        namespace = namespace_of(request)
        work = self.work(
            checked, body, namespace=namespace, headers=request.headers, raw=raw, path=at.path
        )
        store = self.engine.store
        if store.turns is not None:  # a change that waits on another process: awaited
            encoded = await store.turns.transact(namespace, work)
        else:
            encoded = store.transact(namespace, work)
        response = self.answer(encoded)
        key = replay_key(request)
        if key is not None:  # the lane asked for a recipe (the request was asked before)
            self.file(key, checked, encoded, response)
        return response

    def named(self, body: Body, path: str) -> Body:
        """``body`` with the model the request's path names as Azure's ``{deployment}``, which
        stands for whatever the body says (a body there may leave ``model`` out)."""
        if "{deployment}" not in self.family.path:
            return body
        deployment = (self.family.parameters(path) or {}).get("deployment")
        return body if deployment is None else {**body, "model": deployment}

    def file(
        self, key: Key, checked: Checked, encoded: Encoded[Result], response: Response
    ) -> None:
        """File a recipe for ``key``, if the request would be answered alike again."""
        recipe = self.recipe(key, checked, encoded, response)
        if recipe is not None:
            entry = self.turn_of(encoded.result).entry
            if entry is not None:  # what the journal keeps of the request's headers, once
                recipe = dataclasses.replace(recipe, request_headers=entry.request_headers)
            if recipe.headers is None:  # numbered per request: their writer made once
                decision = recipe.decision
                headers = self.engine.replay_headers_for(
                    decision.namespace, decision.completion_tokens, shape=recipe.shape
                )
                recipe = dataclasses.replace(recipe, replay_headers=headers)
            self.replays.file(key, recipe)


def _row(path: str) -> Family:
    """The family table's row for the exact ``path``."""
    row = family_at("POST", path)
    if row is None:
        raise KeyError(path)
    return row


#: The paths of templated rows remembered (each their own: a model's name is in the path).
_KEPT = 256


class Endpoints:
    """One app's turn endpoints, one per row of the family table, each made on its first use
    (by a route or the lane)."""

    #: The exact paths the replay lane answers (see ``Family.laned``); a templated row's are
    #: found by :meth:`laned`.
    paths = frozenset(
        family.path for family in turn_families() if family.laned and not family.templated
    )

    def __init__(self, engine: Engine, replays: Replays) -> None:
        self.engine = engine
        self.replays = replays
        self._made: dict[Family, TurnEndpoint[Any, Any]] = {}
        #: The endpoints by path (the lane asks by path, on every new request).
        self._at: dict[str, TurnEndpoint[Any, Any]] = {}
        #: Whether the lane answers a path a templated row serves, by path (``_KEPT`` at most).
        self._templated: dict[str, bool] = {}

    def laned(self, path: str) -> bool:
        """Does the lane answer a ``POST`` to ``path``, a path that is not one of
        :attr:`paths` (which the lane looks in first: one set lookup for the exact paths)?
        Only if a templated row serves it (``/v1beta/models/{model}:generateContent``) that
        the lane may answer; each path is matched against the templates once."""
        known = self._templated.get(path)
        if known is None:
            row = family_at("POST", path)
            known = row is not None and row.turn and row.laned
            if len(self._templated) >= _KEPT:
                self._templated.clear()
            self._templated[path] = known
        return known

    def at(self, path: str) -> TurnEndpoint[Any, Any]:
        """The endpoint serving ``path`` (a family's path, or a path its template serves)."""
        endpoint = self._at.get(path)
        if endpoint is None:
            row = _row(path)
            endpoint = self.of(row)
            if not row.templated or len(self._at) < _KEPT:  # a templated row's are many
                self._at[path] = endpoint
        return endpoint

    def of(self, row: Family) -> TurnEndpoint[Any, Any]:
        """The endpoint serving ``row`` (a turn's row)."""
        endpoint = self._made.get(row)
        if endpoint is None:
            if row.endpoint is None:
                raise KeyError(row.path)
            module, name = row.endpoint.split(":")
            made: type[TurnEndpoint[Any, Any]] = getattr(importlib.import_module(module), name)
            endpoint = self._made[row] = made(self.engine, self.replays, family=row)
        return endpoint


def turn_route(path: str) -> Any:
    """The Starlette handler of the turn endpoint at ``path`` (the app's own instance)."""

    @create_endpoint
    async def create(request: Request) -> Response:
        endpoints: Endpoints = request.app.state.endpoints
        return await endpoints.at(path).route(request)

    create.__name__ = create.__qualname__ = f"create {path}"
    return create
