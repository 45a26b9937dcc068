"""The replay lane: the same request, answered again without deciding again.

A load test sends one request over and over; a test suite asks the same question in many tests.
When the engine says a turn was *settled* (``engine.Decision``: the same request would get the
same reply, whatever the counters say), the route cuts its answer into a
:class:`~mockserver.render.template.Template` and files a :class:`Recipe` under the request's
exact bytes (path, headers, body). The next identical request is answered by the
:class:`Lane` (from the HTTP protocol, ``http/lane/protocol.py``, or from :class:`FastLane`
in front of the ASGI stack): the engine re-checks the namespace's state and commits the request
(its number, rule hit and budgets, exactly as a full turn would), the template is filled with
the new id and time, and the request is journaled. Anything the state no longer allows falls
through to the full path. The answer is byte-for-byte what the full path would have sent (a
template is only filed after it reproduced the answer it was cut from), so replay changes
speed, never behaviour.

The lane takes new requests too, for an endpoint that gives it a :data:`FreshPath` (chat
completions, Responses; made by ``routes/fresh.py``): the endpoint's own turn, run from the
request's bytes without ASGI, Starlette's routing or the middleware. When that answer cannot
be sent as is (paced, faulted, or an error raised once the turn had started), the lane leaves
the turn it took to the route in a :class:`Handoff`; a request refused before its turn goes
the full path untouched.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver import ids
from mockserver.engine import Engine
from mockserver.engine.core import Decision
from mockserver.http.routes.base import JSONAnswer, SSEResponse, json_headers, sse_headers
from mockserver.ids import monotonic
from mockserver.render.template import Derive, Template
from mockserver.store import Exchange, JournalEntry, Unparsed, current_exchange

__all__ = [
    "HANDOFF",
    "KEY",
    "LANE_ERROR",
    "Answered",
    "FastLane",
    "FreshPath",
    "Handoff",
    "Lane",
    "Recipe",
    "Replays",
    "cut_template",
    "handed_over",
    "lane_headers",
    "replay_key",
    "replays_of",
]

#: Where the lane leaves a request's key (in the ASGI scope) for the route to file a recipe.
KEY = "mockserver.replay"
#: Where the protocol leaves an error the lane raised, for the app's error boundary.
LANE_ERROR = "mockserver.lane_error"
#: Where the lane leaves a turn it took but cannot send itself, for the route (a
#: :class:`Handoff`).
HANDOFF = "mockserver.handoff"
#: Set on a request the protocol's lane has already seen: the ASGI lane lets it by.
_TRIED = "mockserver.lane_tried"
#: Recipes kept (least recently used leaves first): a load test needs one, a suite a few.
SIZE = 256
#: The largest body the lane holds (uvicorn's own buffering limit; a bigger one, declared or
#: read, goes the usual way, where an oversize one is refused without waiting for it).
BODY_LIMIT = 65_536
#: Requests remembered as asked once.
SEEN = 4096

Key = tuple[str, bytes, tuple[tuple[bytes, bytes], ...]]

#: The headers the full path's responses put around the answer's own (see ``routes.base``;
#: the lane's answers are checked against the full path's, header for header, in the tests).
_SSE_HEAD = sse_headers({})
_JSON_TYPE = json_headers({}, 0)[-1]
_SSE_LINES = b"".join(b"%b: %b\r\n" % pair for pair in _SSE_HEAD)
_JSON_LINE = b"%b: %b\r\n" % _JSON_TYPE


@dataclass(frozen=True, slots=True)
class Recipe:
    """How to answer one exact request again."""

    decision: Decision
    template: Template
    #: The answer's id for a request number.
    answer_id: Callable[[int], str]
    #: What the journal keeps of an answer (the parsed body, or the stream's payloads).
    journaled: Callable[[bytes], Any]
    stream: bool
    path: str
    api: str
    request: Any
    summary: str
    #: Why no rule matched (journaled as the full path would).
    miss: str | None
    #: For an answer id, the ids derived from it (a response's output items).
    derive: Callable[[str], Derive] | None = None
    #: What else a request answered so commits, given the answer's id and time (a stored
    #: response).
    commit: Callable[[str, int], None] | None = None

    def fill(self, answer_id: str, created: int) -> bytes:
        """The answer with this id and time: the same bytes every time it is asked."""
        pad = ids.obfuscator(answer_id) if self.template.pads else None
        derive = self.derive(answer_id) if self.derive is not None else None
        return self.template.fill(answer_id, created, pad, derive)


class Remake:
    """What the journal keeps of a replayed answer: its recipe and the values filled in (a
    tenth of the answer's bytes), from which the answer is made again if the entry is read."""

    __slots__ = ("answer_id", "created", "recipe")

    def __init__(self, recipe: Recipe, answer_id: str, created: int) -> None:
        self.recipe = recipe
        self.answer_id = answer_id
        self.created = created

    def __call__(self) -> bytes:
        return self.recipe.fill(self.answer_id, self.created)


class Replays:
    """The recipes, by request key."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._recipes: OrderedDict[Key, Recipe] = OrderedDict()
        #: Hashes of keys asked once (oldest first), to file a recipe on the second time.
        self._seen: dict[int, None] = {}
        #: Requests answered from a recipe (for tests and the curious).
        self.served = 0

    def __len__(self) -> int:
        return len(self._recipes)

    def get(self, key: Key) -> Recipe | None:
        recipe = self._recipes.get(key)
        if recipe is not None:
            self._recipes.move_to_end(key)
        return recipe

    def file(self, key: Key, recipe: Recipe) -> None:
        self._recipes[key] = recipe
        self._recipes.move_to_end(key)
        while len(self._recipes) > self.size:
            self._recipes.popitem(last=False)

    def forget(self, key: Key) -> None:
        self._recipes.pop(key, None)

    def again(self, key: Key) -> bool:
        """Has ``key`` been asked before (lately)? A request asked once is likely never asked
        again (a load test of varied messages): it is not worth cutting a template for."""
        digest = hash(key)  # salted per process: fine for a decision that changes no bytes
        if digest in self._seen:
            return True
        self._seen[digest] = None
        while len(self._seen) > SEEN:
            del self._seen[next(iter(self._seen))]
        return False


def cut_template(
    response: Response,
    sentinel: Callable[[], bytes],
    answer_id: str,
    created: int,
    *,
    padded: bool,
    derive: Derive | None = None,
) -> Template | None:
    """The template of ``response``'s answer: cut from the ``sentinel`` rendering, if the
    answer is sent as is (no pacing or fault) and filling the template with its values gives
    it back byte for byte; else ``None``."""
    if not isinstance(response, SSEResponse | JSONAnswer):
        return None
    template = Template.cut(sentinel())
    pad = ids.obfuscator(answer_id) if padded else None
    if template is None or not template.reproduces(
        bytes(response.body), answer_id, created, pad, derive
    ):
        return None
    return template


def replay_key(request: Request) -> Key | None:
    """The key the lane gave this request (``None``: it was not offered for replay)."""
    key: Key | None = request.scope.get(KEY)
    return key


def replays_of(request: Request) -> Replays:
    replays: Replays = request.app.state.replays
    return replays


class Answered(NamedTuple):
    """A request answered from its recipe: what to send, and the entry it journaled. (A tuple:
    one is made per replayed request.)"""

    #: The answer's own headers (lower-case names), before the framing ones.
    headers: Mapping[str, str]
    body: bytes
    stream: bool
    namespace: str
    #: The one journal entry a replayed answer made (``exchange`` is ``None``) …
    entry: JournalEntry | None
    #: … or all those a fresh turn made.
    exchange: Exchange | None = None

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """All the headers of the answer, in the order the full path's response sends them
        (``routes.base.sse_headers`` / ``json_headers``)."""
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
        if self.stream:
            return [*_SSE_HEAD, *raw]
        return [*raw, (b"content-length", str(len(self.body)).encode()), _JSON_TYPE]

    def head(self) -> bytes:
        """:meth:`raw_headers` as HTTP/1.1 header lines (each ending in CRLF)."""
        own = "\r\n".join(map(": ".join, self.headers.items())).encode("latin-1")
        if self.stream:
            return _SSE_LINES + own + b"\r\n"
        return b"%b\r\ncontent-length: %d\r\n%b" % (own, len(self.body), _JSON_LINE)


class Handoff(NamedTuple):
    """A turn the lane took (the namespace's state has moved) whose answer it cannot send
    itself (paced, faulted, or a refusal): the route sends it, as if it had taken the turn."""

    #: The request's JSON body (for the journal, if ``outcome`` is a refusal).
    body: Any
    #: What the route's own turn would have given: its result, or the error it raised.
    outcome: Any
    #: What the turn journaled, for the HTTP layer to time and complete.
    exchange: Exchange


def handed_over(request: Request, handoff: Handoff) -> Any:
    """For the route: the outcome of the turn the lane took, as if the route had taken it (its
    journal entries join this exchange; a refusal is raised, to be answered and journaled as
    the route's own)."""
    request.state.json_body = handoff.body
    exchange = current_exchange.get()
    if exchange is not None:  # timed and completed with this exchange
        exchange.entries.extend(handoff.exchange.entries)
    if isinstance(handoff.outcome, Exception):
        raise handoff.outcome
    return handoff.outcome


def lane_headers(pairs: tuple[tuple[bytes, bytes], ...]) -> Mapping[str, str]:
    """A request's headers (from its key) as a route reads them (``request.headers``): a plain
    dict, unless a name repeats (then the first counts, and Starlette's ``Headers`` says so)."""
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in pairs}
    return headers if len(headers) == len(pairs) else Headers(raw=list(pairs))


#: An endpoint's whole turn from a request's key, outside ASGI: the answer when it can be sent
#: as is, a :class:`Handoff` once the turn has been taken, else ``None`` before anything has
#: changed (then the full path takes the request, and says what is wrong with it).
FreshPath = Callable[[Key], "Answered | Handoff | None"]


class Lane:
    """Answers a request with no ASGI around it: from its recipe, else (for an endpoint with a
    :data:`FreshPath`) by taking its turn afresh. Used by :class:`FastLane` (in the ASGI stack)
    and by the HTTP protocol itself (``server.py``), which can answer such a request before
    uvicorn makes an ASGI task of it.

    It only takes requests that :class:`~mockserver.http.access.Access` would pass untouched: no
    ``Origin`` (CORS is Access's business) and no API keys configured; and it times and
    completes its journal entries as Access does for the others.
    """

    def __init__(
        self,
        engine: Engine,
        replays: Replays,
        paths: frozenset[str],
        fresh: dict[str, FreshPath] | None = None,
    ) -> None:
        self.engine = engine
        self.replays = replays
        self.paths = paths
        #: The endpoints whose new requests the lane answers too (each sends the same bytes as
        #: its route; the tests compare them with a server whose lane is off).
        self.fresh: dict[str, FreshPath] = fresh or {}
        #: New requests the lane answered (for tests and the curious).
        self.fresh_answers = 0
        self.guarded = bool(engine.settings.api_keys)

    def takes(self, path: str, headers: Sequence[tuple[bytes, bytes]]) -> bool:
        """May the lane answer a request to ``path`` with these headers (if it has a recipe)?
        Not one that declares a body over :data:`BODY_LIMIT`: the usual way refuses an
        oversize one at once, without waiting for it."""
        if self.guarded or path not in self.paths:
            return False
        for name, value in headers:
            if name == b"origin":
                return False
            if name == b"content-length" and not (
                value.isdigit() and len(value) <= 6 and int(value) <= BODY_LIMIT
            ):
                return False
        return True

    def answer(self, key: Key) -> Answered | Handoff | None:
        """The answer from ``key``'s recipe, committed and journaled (a recipe the namespace's
        state no longer allows is dropped); else the endpoint's fresh turn, if it has one;
        ``None`` when neither answered and nothing has changed."""
        recipe = self.replays.get(key)
        if recipe is not None:
            replayed = self._serve(recipe)
            if replayed is not None:
                return replayed
            self.replays.forget(key)
        fresh = self.fresh.get(key[0])
        if fresh is None:
            return None
        answered = fresh(key)
        if isinstance(answered, Answered):
            self.fresh_answers += 1
        return answered

    def let_through(self, key: Key, scope: Scope, handoff: Handoff | None) -> None:
        """Mark the ASGI scope of a request the lane did not answer, for the full path: the
        turn it took, if any, and whether the route should file a recipe for it."""
        scope[_TRIED] = True
        if handoff is not None:
            scope[HANDOFF] = handoff
        elif self.replays.again(key):  # worth a recipe from the second time it is asked
            scope[KEY] = key

    def _serve(self, recipe: Recipe) -> Answered | None:
        engine = self.engine
        decision = recipe.decision
        with engine.store.namespace(decision.namespace) as space:
            committed = engine.replay(space, decision)
            if committed is None:
                return None
            counter, budget = committed
            answer_id = recipe.answer_id(counter)
            created = engine.now()
            answer = recipe.fill(answer_id, created)
            if recipe.commit is not None:
                recipe.commit(answer_id, created)
            entry = JournalEntry(
                seq=0,
                method="POST",
                path=recipe.path,
                status=200,
                api=recipe.api,
                model=decision.model,
                stream=recipe.stream,
                request=recipe.request,
                response=Unparsed(Remake(recipe, answer_id, created), recipe.journaled),
                summary=recipe.summary,
                rule=decision.rule,
                miss=recipe.miss,
            )
            space.record(entry, announce=False)  # announced when complete
        headers = engine.answer_headers(
            decision.namespace, counter, decision.completion_tokens, budget
        )
        self.replays.served += 1
        return Answered(headers, answer, recipe.stream, decision.namespace, entry)

    def complete(self, answered: Answered, started: float) -> None:
        """Stamp the answer's journal entries with how long it took, and announce them."""
        elapsed = round((monotonic() - started) * 1000, 1)
        timing = [elapsed] if answered.stream else None
        store = self.engine.store
        if answered.exchange is not None:
            store.complete(answered.exchange, duration_ms=elapsed, timing=timing)
        elif answered.entry is not None:
            name = answered.namespace
            store.complete_one(name, answered.entry, duration_ms=elapsed, timing=timing)


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
            or _TRIED in scope
            or not lane.takes(scope["path"], scope["headers"])
        ):
            await self.app(scope, receive, send)
            return
        started = monotonic()
        message = await receive()
        if message.get("more_body", False):  # a body in pieces: rare, and never worth a lane
            await self.app(scope, _replaying(message, receive), send)
            return
        key: Key = (scope["path"], message.get("body", b""), tuple(scope["headers"]))
        answered = lane.answer(key)
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
