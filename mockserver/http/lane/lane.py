"""The replay lane: requests answered without the ASGI stack.

A load test sends one request over and over; a test suite asks the same question in many tests.
When the engine says a turn was *settled* (``engine.Decision``: the same request would get the
same reply, whatever the counters say), its endpoint cuts the answer into a template and files
a :class:`~mockserver.http.lane.recipes.Recipe` under the request's exact bytes (path, query,
headers, body). The next identical request is answered by the :class:`Lane`: the engine
re-checks the namespace's state and commits the request (its number, rule hit, budgets and
journal entry, exactly as a full turn would), and the template is filled with the new id and
time. Anything the state no longer allows falls through to the full path. A new request to a
turn endpoint is answered by the endpoint's own steps (``fresh.py``). Either way the answer is
byte for byte what the full path would have sent, so the lane changes speed, never behaviour
(the tests compare a server with the lane on and off).

The lane is one optional layer in front of the app (``Settings.replay``): :class:`FastLane` in
the ASGI stack, and, where the installed uvicorn is the one it was written for, the HTTP
protocol itself (``protocol.py``), which answers before uvicorn makes an ASGI task.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.http.endpoint import Endpoints
from mockserver.http.lane.fresh import answer_fresh, answer_fresh_soon
from mockserver.http.lane.recipes import (
    BODY_LIMIT,
    HANDOFF,
    JSON,
    KEY,
    LANE_ERROR,
    SSE,
    TRIED,
    Answered,
    Handoff,
    Key,
    Recipe,
    Remake,
)
from mockserver.http.pacing import Wheel
from mockserver.ids import monotonic
from mockserver.store import Exchange, JournalEntry, Namespace, Unparsed

__all__ = ["FastLane", "Lane"]

#: A replay's change of its namespace, made: its answer's headers and bytes.
Served = tuple[dict[str, str], bytes]


class Lane:
    """Answers a request with no ASGI around it: from its recipe, else (at a turn endpoint) by
    asking the endpoint for a fresh turn (``fresh.py``). Used by :class:`FastLane` (in the ASGI
    stack) and by the HTTP protocol itself (``protocol.py``), which can answer such a request
    before uvicorn makes an ASGI task of it.

    It only takes requests that :class:`~mockserver.http.access.Access` would pass untouched: no
    ``Origin`` (CORS is Access's business) and no API keys configured; and it times and
    completes its journal entries as Access does for the others.
    """

    def __init__(self, endpoints: Endpoints) -> None:
        self.engine = endpoints.engine
        self.replays = endpoints.replays
        #: The turn endpoints, whose new requests the lane answers too (each sends the same
        #: bytes as its route; the tests compare them with a server whose lane is off).
        self.endpoints = endpoints
        self.paths = endpoints.paths
        #: New requests the lane answered (for tests and the curious).
        self.fresh_answers = 0
        self.guarded = bool(self.engine.settings.api_keys)
        #: A store whose change waits on another process (Redis) awaits it (``turns``): the
        #: protocol then answers with :meth:`answer_soon`, and the server goes on meanwhile.
        self.turns = self.engine.store.turns
        self.waits = self.turns is not None
        #: The timer of the paced streams the protocol writes (made on its event loop).
        self.wheel: Wheel | None = None

    def takes(self, path: str, headers: Sequence[tuple[bytes, bytes]]) -> bool:
        """May the lane answer a request to ``path`` with these headers (if it has a recipe)?
        Not one that declares a body over :data:`BODY_LIMIT`: the usual way refuses an
        oversize one at once, without waiting for it. (An exact path is one set lookup; a
        templated row's path is looked for only then.)"""
        if self.guarded or (path not in self.paths and not self.endpoints.laned(path)):
            return False
        named = dict(headers)  # (one C call, not a Python step per header: this runs per request)
        if len(named) < len(headers):  # a name repeats: each of them looked at
            return all(_takes(name, value) for name, value in headers)
        if b"origin" in named:
            return False
        length = named.get(b"content-length")
        return length is None or (
            length.isdigit() and len(length) <= 6 and int(length) <= BODY_LIMIT
        )

    def answer(self, key: Key, *, paced: bool = False) -> Answered | Handoff | None:
        """The answer from ``key``'s recipe, committed and journaled (a recipe the namespace's
        state no longer allows is dropped); else the endpoint's fresh turn (``paced``: a paced
        stream too, for the caller to write; else the route writes it); ``None`` when neither
        answered and nothing has changed."""
        recipe = self.replays.get(key)
        if recipe is not None:
            entry, serve = self._replay(recipe)
            # One atomic change of the namespace (on a shared store, maybe made again: on the
            # namespace as another process left it).
            served = self.engine.store.transact(recipe.decision.namespace, serve)
            replayed = self._replayed(recipe, entry, served)
            if replayed is not None:
                return replayed
            self.replays.forget(key)
        answered = answer_fresh(self.endpoints.at(key[0]), key, paced=paced)
        if isinstance(answered, Answered):
            self.fresh_answers += 1
        return answered

    async def answer_soon(self, key: Key, *, paced: bool = False) -> Answered | Handoff | None:
        """:meth:`answer` for a store whose change waits on another process (``waits``): the
        change's round trip is awaited, and the server answers other requests meanwhile."""
        recipe = self.replays.get(key)
        if recipe is not None:
            entry, serve = self._replay(recipe)
            assert self.turns is not None
            served = await self.turns.transact(recipe.decision.namespace, serve)
            replayed = self._replayed(recipe, entry, served)
            if replayed is not None:
                return replayed
            self.replays.forget(key)
        answered = await answer_fresh_soon(self.endpoints.at(key[0]), key, paced=paced)
        if isinstance(answered, Answered):
            self.fresh_answers += 1
        return answered

    def let_through(self, key: Key, scope: Scope, handoff: Handoff | None) -> None:
        """Mark the ASGI scope of a request the lane did not answer, for the full path: the
        turn it took, if any, and whether the route should file a recipe for it."""
        scope[TRIED] = True
        if handoff is not None:
            scope[HANDOFF] = handoff
        elif self.replays.again(key):  # worth a recipe from the second time it is asked
            scope[KEY] = key

    def _replay(self, recipe: Recipe) -> tuple[JournalEntry, Callable[[Namespace], Served | None]]:
        """The journal entry a replay of ``recipe`` makes, and its change of the namespace."""
        engine = self.engine
        decision = recipe.decision
        entry = JournalEntry(
            seq=0,
            method="POST",
            path=recipe.path,
            status=200,
            api=recipe.api,
            model=decision.model,
            stream=recipe.stream,
            request=recipe.request,
            summary=recipe.summary,
            rule=decision.rule,
            miss=recipe.miss,
            request_headers=recipe.request_headers,
        )

        def serve(space: Namespace) -> Served | None:
            committed = engine.replay(space, decision, entry)  # journaled, announced when sent
            if committed is None:
                return None
            counter, standing = committed
            answer_id = recipe.answer_id(counter)
            created = engine.now() if recipe.clock is None else recipe.clock(space)
            entry.response = Unparsed(Remake(recipe, answer_id, created), recipe.journaled)
            if recipe.replay_headers is not None:
                headers = recipe.replay_headers(counter, standing)
            elif recipe.headers is None:
                headers = engine.replay_headers(
                    decision.namespace,
                    counter,
                    decision.completion_tokens,
                    standing,
                    shape=recipe.shape,
                )
            else:
                headers = dict(recipe.headers)
            entry.response_headers = headers
            if recipe.commit is not None:
                recipe.commit(space, answer_id, created)
            return headers, recipe.fill(answer_id, created)

        return entry, serve

    def _replayed(
        self, recipe: Recipe, entry: JournalEntry, served: Served | None
    ) -> Answered | None:
        if served is None:
            return None
        headers, answer = served
        self.replays.served += 1
        framing = recipe.framing
        if framing is None:
            framing = SSE if recipe.stream else JSON
        return Answered(headers, answer, framing, recipe.decision.namespace, entry)

    def complete(
        self,
        answered: Answered,
        started: float,
        *,
        timing: list[float] | None = None,
        cut: bool = False,
    ) -> None:
        """Stamp the answer's journal entries with how long it took (and a stream's with when
        its writes left, ``timing``: one write unless said, and whether it was ``cut``), and
        announce them."""
        elapsed = round((monotonic() - started) * 1000, 1)
        if timing is None and not answered.framing.sized:
            timing = [elapsed]
        exchange = answered.exchange
        if exchange is None and answered.entry is not None:
            exchange = Exchange([(answered.namespace, answered.entry)])
        if exchange is not None:
            self.engine.store.complete(exchange, duration_ms=elapsed, timing=timing, cut=cut)


def _takes(name: bytes, value: bytes) -> bool:
    """Does this header let the lane take a request? Not an ``Origin`` (CORS is Access's), nor
    a body declared longer than :data:`BODY_LIMIT`."""
    if name == b"origin":
        return False
    return name != b"content-length" or (
        value.isdigit() and len(value) <= 6 and int(value) <= BODY_LIMIT
    )


class FastLane:
    """ASGI middleware in front of everything else: the :class:`Lane` for ASGI requests (the
    protocol answers most of them before they become ASGI requests; see ``server.py``)."""

    def __init__(self, app: ASGIApp, *, lane: Lane) -> None:
        self.app = app
        self.lane = lane

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        failed = scope.get(LANE_ERROR)
        if failed is not None:  # the protocol's lane failed (a bug): the error boundary answers
            raise failed
        lane = self.lane
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or TRIED in scope
            or not lane.takes(scope["path"], scope["headers"])
        ):
            await self.app(scope, receive, send)
            return
        started = monotonic()
        message = await receive()
        if message.get("more_body", False):  # a body in pieces: rare, and never worth a lane
            await self.app(scope, _replaying(message, receive), send)
            return
        body = message.get("body", b"")
        key: Key = (scope["path"], body, tuple(scope["headers"]), scope["query_string"])
        answered = await lane.answer_soon(key) if lane.waits else lane.answer(key)
        if isinstance(answered, Answered):
            try:
                head = answered.raw_headers()
                await send({"type": "http.response.start", "status": 200, "headers": head})
                await send(
                    {"type": "http.response.body", "body": answered.body, "more_body": False}
                )
            finally:
                lane.complete(answered, started)
            return
        lane.let_through(key, scope, answered)
        await self.app(scope, _replaying(message, receive), send)


def _replaying(first: Message, receive: Receive) -> Receive:
    """``receive`` with the already-read body message put back in front."""
    pending: list[Message] = [first]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed
