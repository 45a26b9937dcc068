"""The lane's recipes: how to answer one exact request again, and what the lane and the route
pass each other (the request's key, an answer, a turn handed over).

A recipe is filed by a turn endpoint (``http/endpoint.py``) for a settled turn: the answer cut
into a :class:`~mockserver.http.lane.template.Template` (checked to give back the bytes it was
cut from), the engine's :class:`~mockserver.engine.core.Decision` to re-check and re-commit,
and what the journal keeps.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, NamedTuple

import orjson
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from mockserver import ids
from mockserver.engine.turn import Decision, Turn, summarize
from mockserver.http.lane.template import Derive, Template
from mockserver.http.responses import (
    EventStreamResponse,
    JSONAnswer,
    NDJSONResponse,
    SSEResponse,
    eventstream_headers,
    json_headers,
    ndjson_headers,
    sse_headers,
)
from mockserver.plans import PacedStream
from mockserver.render.errors import Standing
from mockserver.store import Exchange, JournalEntry, Namespace, Unparsed, current_exchange
from mockserver.values import value_class

__all__ = [
    "EVENTSTREAM",
    "HANDOFF",
    "JSON",
    "KEY",
    "LANE_ERROR",
    "NDJSON",
    "SSE",
    "TRIED",
    "Answered",
    "Framing",
    "Handoff",
    "Recipe",
    "Replays",
    "cut_template",
    "framing_of",
    "handed_over",
    "lane_headers",
    "replay_key",
    "turn_recipe",
]

#: Where the lane leaves a request's key (in the ASGI scope) for the route to file a recipe.
KEY = "mockserver.replay"
#: Where the protocol leaves an error the lane raised, for the app's error boundary.
LANE_ERROR = "mockserver.lane_error"
#: Where the lane leaves a turn it took but cannot send itself, for the route (a
#: :class:`Handoff`).
HANDOFF = "mockserver.handoff"
#: Set on a request the protocol's lane has already seen: the ASGI lane lets it by.
TRIED = "mockserver.lane_tried"
#: Recipes kept (least recently used leaves first): a load test needs one, a suite a few.
SIZE = 256
#: The largest body the lane holds (uvicorn's own buffering limit; a bigger one, declared or
#: read, goes the usual way, where an oversize one is refused without waiting for it).
BODY_LIMIT = 65_536
#: Requests remembered as asked once.
SEEN = 4096

#: A request as the lane knows it: its path, body, headers and query string (``b""``: none),
#: all that its answer may depend on.
Key = tuple[str, bytes, tuple[tuple[bytes, bytes], ...], bytes]


class Framing(NamedTuple):
    """How the full path's response sends an answer's own headers and body (see
    ``http.responses``; the lane's answers are checked against the full path's, header for
    header, in the tests): a stream's headers before its own, chunked; or a JSON body's length
    and type after them."""

    #: The headers before the answer's own, and the same as header lines.
    before: tuple[tuple[bytes, bytes], ...]
    lines: bytes
    #: A body of a stated length (a JSON body, or a stream sent as one: Gemini's JSON array).
    sized: bool = False

    @classmethod
    def of(cls, head: list[tuple[bytes, bytes]]) -> Framing:
        return cls(tuple(head), b"".join(b"%b: %b\r\n" % pair for pair in head))


#: An event stream, an AWS event stream (Bedrock's), an NDJSON stream (Ollama's).
SSE = Framing.of(sse_headers({}))
EVENTSTREAM = Framing.of(eventstream_headers({}))
NDJSON = Framing.of(ndjson_headers({}))
#: A JSON body.
JSON = Framing((), b"", sized=True)
_FRAMINGS: dict[type[Response], Framing] = {
    JSONAnswer: JSON,
    SSEResponse: SSE,
    EventStreamResponse: EVENTSTREAM,
    NDJSONResponse: NDJSON,
}
_JSON_TYPE = json_headers({}, 0)[-1]
_JSON_LINE = b"%b: %b\r\n" % _JSON_TYPE


def framing_of(response: Response) -> Framing | None:
    """How ``response`` frames its answer, if it is sent as is (``None``: paced or faulted)."""
    return _FRAMINGS.get(type(response))


@value_class
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
    commit: Callable[[Namespace, str, int], None] | None = None
    #: The request's headers as the journal keeps them (the same for every replay: its key
    #: holds them), set by the endpoint that files the recipe.
    request_headers: dict[str, str] = field(default_factory=dict)
    #: The error shape of the API family answered (how its headers are written).
    shape: str = "openai"
    #: How the answer is framed (``None``: as an event stream if ``stream``, else as JSON).
    framing: Framing | None = None
    #: The answer's headers, where they are the same every time (``None``: numbered per
    #: request, as ``Engine.answer_headers`` writes them).
    headers: Mapping[str, str] | None = None
    #: The value filled in for the answer's time, from its namespace (``None``: the server's
    #: clock in whole seconds, ``Engine.now``).
    clock: Callable[[Namespace], int] | None = None
    #: The answer's headers by request number and where the rate limits stand, where they
    #: are numbered per request (``Engine.replay_headers_for``, set by the endpoint that files
    #: the recipe; ``None``: ``Engine.replay_headers`` each time).
    replay_headers: Callable[[int, Standing], dict[str, str]] | None = None

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
        self._seen: OrderedDict[int, None] = OrderedDict()
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
        if len(self._seen) > SEEN:  # O(1): a dict's first key is found past its deleted ones
            self._seen.popitem(last=False)
        return False


def turn_recipe(
    key: Key,
    turn: Turn,
    template: Template,
    *,
    api: str,
    stream: bool,
    decode_stream: Callable[[bytes], Any],
    **rest: Any,
) -> Recipe | None:
    """The recipe of a settled ``turn`` that answered ``key`` (``None``: a turn that a replay
    could not make again): what every family's holds alike — its decision, summary and miss,
    the request as its key holds it, the answer read back for the journal by
    ``decode_stream`` or as JSON — and the family's own ``rest``."""
    if turn.decision is None:
        return None
    return Recipe(
        decision=turn.decision,
        template=template,
        journaled=decode_stream if stream else orjson.loads,
        stream=stream,
        path=key[0],
        api=api,
        request=Unparsed(key[1], orjson.loads),
        summary=summarize(turn.reply),
        miss=turn.miss,
        **rest,
    )


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
    if framing_of(response) is None:
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


class Answered(NamedTuple):
    """A request answered from its recipe: what to send, and the entry it journaled. (A tuple:
    one is made per replayed request.)"""

    #: The answer's own headers (lower-case names), before the framing ones.
    headers: Mapping[str, str]
    body: bytes
    framing: Framing
    namespace: str
    #: The one journal entry a replayed answer made (``exchange`` is ``None``) …
    entry: JournalEntry | None
    #: … or all those a fresh turn made.
    exchange: Exchange | None = None
    #: A paced stream, written as its plan says (``body`` is then empty): the protocol's
    #: lane alone takes these (``http/pacing.py``).
    paced: PacedStream | None = None

    @property
    def stream(self) -> bool:
        """Is the answer sent chunked, as a stream (no stated length)?"""
        return not self.framing.sized

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """All the headers of the answer, in the order the full path's response sends them
        (``http.responses.sse_headers`` / ``json_headers``…)."""
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
        if self.framing.sized:
            return [*raw, (b"content-length", str(len(self.body)).encode()), _JSON_TYPE]
        return [*self.framing.before, *raw]

    def head(self) -> bytes:
        """:meth:`raw_headers` as HTTP/1.1 header lines (each ending in CRLF)."""
        # joined by ``map`` (no Python frame per header: a dozen go out with each answer);
        # each line ends in CRLF: an answer with no headers of its own (Ollama's) adds none
        own = "\r\n".join(map(": ".join, self.headers.items())).encode("latin-1")
        if own:
            own += b"\r\n"
        if self.framing.sized:
            return b"%bcontent-length: %d\r\n%b" % (own, len(self.body), _JSON_LINE)
        return self.framing.lines + own


class Handoff(NamedTuple):
    """A turn the lane took (the namespace's state has moved) whose answer it cannot send
    itself (paced, faulted, or a refusal): the route sends it, as if it had taken the turn."""

    #: The request's JSON body (for the journal, if ``outcome`` is a refusal).
    body: Any
    #: What the route's own turn would have given: its result, or the error it raised.
    outcome: Any
    #: What the turn journaled, for the HTTP layer to time and complete.
    exchange: Exchange
    #: The request's body as it came in.
    raw: bytes = b""


def handed_over(request: Request, handoff: Handoff) -> Any:
    """For the route: the outcome of the turn the lane took, as if the route had taken it (its
    journal entries join this exchange; a refusal is raised, to be answered and journaled as
    the route's own)."""
    request.state.json_body = handoff.body
    request.state.raw_body = handoff.raw
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
