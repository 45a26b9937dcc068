"""The Gemini API: ``models/{model}:{method}`` under ``/v1beta`` and ``/v1`` (the Developer
API), and ``projects/{p}/locations/{l}/publishers/google/models/{model}:{method}`` under
``/v1beta1`` and ``/v1`` (Vertex AI); the model list and a model.

``{model}:{method}`` is one path segment: Starlette's ``{name}`` takes it whole, and
:func:`_call` splits it at its last colon and answers the method (the one place that reads
the form). Which path serves which method is the family table's (``families.py``); a model
turn is the :class:`GenerateContent` endpoint's, the others are plain routes here.

Under ``/v1`` the Developer API's ``GET models`` shares its path with OpenAI's: a request
that sends its key Google's way (``x-goog-api-key`` or ``?key=``) is Gemini's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Scope

from mockserver.credentials import journaled_headers
from mockserver.engine.embeddings import Embedded, embed
from mockserver.engine.gemini import GeminiResult, complete_gemini, response_id
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import APIError, NotFoundError, RecordedAnswer
from mockserver.families import family_at
from mockserver.http.endpoint import Endpoints, Target, TurnEndpoint
from mockserver.http.lane import template
from mockserver.http.lane.recipes import Key, Recipe, cut_template, framing_of, turn_recipe
from mockserver.http.responses import (
    JSONAnswer,
    PacedSSEResponse,
    PlannedJSONResponse,
    json_response,
)
from mockserver.http.routes.base import (
    api_endpoint,
    create_endpoint,
    engine_of,
    google_key_of,
    namespace_of,
    read_json,
    refusal,
)
from mockserver.http.routes.encoded import Encoded, decode_sent, encode_body, encode_stream
from mockserver.plans import PacedStream
from mockserver.prompt import Prompt
from mockserver.prompt.gemini import messages_of, prompt_from_gemini
from mockserver.render import sse
from mockserver.render.gemini import (
    count_tokens_body,
    embeddings_body,
    gemini_response,
    model_body,
)
from mockserver.render.gemini_stream import gemini_chunks
from mockserver.render.json_array import ARRAY_END, array_frames
from mockserver.reply.generate import count_prompt_tokens
from mockserver.store import Namespace
from mockserver.values import Json, value_class
from mockserver.wire.embeddings import EmbeddingsRequest
from mockserver.wire.gemini import (
    check_batch_embed_body,
    check_count_tokens_body,
    check_embed_body,
    check_generate_body,
)
from mockserver.wire.gemini_signatures import check_signatures
from mockserver.wire.json_body import Body, encode_json_pretty

__all__ = ["GenerateContent", "routes"]

#: The models the Developer API lists: (name, is an embedding model, input and output limits).
MODELS: Final = (
    ("gemini-3-pro-preview", False, 1_048_576, 65_536),
    ("gemini-3-flash-preview", False, 1_048_576, 65_536),
    ("gemini-2.5-pro", False, 1_048_576, 65_536),
    ("gemini-2.5-flash", False, 1_048_576, 65_536),
    ("gemini-2.5-flash-lite", False, 1_048_576, 65_536),
    ("gemini-2.0-flash", False, 1_048_576, 8_192),
    ("gemini-embedding-001", True, 2_048, 1),
    ("text-embedding-004", True, 2_048, 1),
)
#: A streamed JSON array's type: a whole answer's (``JSONAnswer``), paced or not.
_ARRAY_TYPE: Final = "application/json"


@value_class
class GeminiCall:
    """A checked ``generateContent`` request: its Prompt, and where and how it was sent."""

    prompt: Prompt
    vertex: bool
    #: ``alt=sse``: a stream in server-sent events (else one streamed JSON array).
    sse: bool


@value_class
class GeminiAnswer:
    """A rendered answer, with the framing its stream was asked in."""

    result: GeminiResult
    sse: bool


class _ArrayStream(PacedSSEResponse):
    """A streamed JSON array, paced as its plan says (a JSON type, not an event stream)."""

    media_type = _ARRAY_TYPE

    @staticmethod
    def _head(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
        own = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        return [(b"content-type", _ARRAY_TYPE.encode()), *own]


def _where(path: str) -> tuple[str, bool, bool]:
    """The model a turn's path names, whether it streams, and whether it is Vertex AI's."""
    family = family_at("POST", path)
    parameters = family.parameters(path) if family is not None else None
    if parameters is None:
        raise NotFoundError(f"Invalid URL (POST {path})")
    vertex = "/publishers/google/" in path
    return parameters["model"], path.endswith(":streamGenerateContent"), vertex


class GenerateContent(TurnEndpoint[GeminiCall, GeminiAnswer]):
    """``models/{model}:generateContent`` and ``:streamGenerateContent``, both APIs' paths."""

    path = "/v1beta/models/{model}:generateContent"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> GeminiCall:
        model, stream, vertex = _where(at.path)
        written = check_generate_body(body)
        check_signatures(written, model=model)
        prompt = prompt_from_gemini(written, headers=headers, model=model, stream=stream)
        return GeminiCall(prompt, vertex, at.query.get("alt") == "sse")

    def take(
        self,
        space: Namespace,
        checked: GeminiCall,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> GeminiAnswer:
        result = complete_gemini(
            self.engine, space, checked.prompt, vertex=checked.vertex, journal=journal
        )
        return GeminiAnswer(result, checked.sse)

    def encode(self, result: GeminiAnswer) -> Encoded[GeminiAnswer]:
        answer = result.result
        if answer.chunks is None:
            return encode_body(result, answer.body)
        plan = answer.stream_plan
        frames, tail = _framed(answer.chunks, sse_framing=result.sse)
        if result.sse:
            errors = [sse.google_frame(answer.stream_error)]
            return encode_stream(result, frames, tail, plan=plan, error_frames=errors)
        return encode_stream(
            result, frames, tail, plan=plan, error_frames=self._array_error(result)
        )

    @staticmethod
    def _array_error(result: GeminiAnswer) -> list[bytes]:
        """What a scripted error sends in a JSON array: the error as its next element."""
        answer = result.result
        opened = answer.stream_plan.cut is not None and answer.stream_plan.cut[1] > 0
        return [*array_frames([answer.stream_error], opened=opened), ARRAY_END]

    @staticmethod
    def turn_of(result: GeminiAnswer) -> Turn:
        return result.result.turn

    @staticmethod
    def headers_of(result: GeminiAnswer) -> Mapping[str, str]:
        return result.result.headers

    def answer(self, encoded: Encoded[GeminiAnswer]) -> Response:
        result = encoded.result.result
        if encoded.frames is None:
            return encoded.body_response(plan=result.body_plan, headers=result.headers)
        if encoded.result.sse:
            errors = [sse.google_frame(result.stream_error)]
            return encoded.stream_response(
                plan=result.stream_plan, error_frames=errors, headers=result.headers
            )
        return self._array_response(encoded)

    def _array_response(self, encoded: Encoded[GeminiAnswer]) -> Response:
        result = encoded.result.result
        plan = result.stream_plan
        if plan.unpaced:
            return JSONAnswer(encoded.whole, headers=result.headers)
        stream = PacedStream(
            encoded.frames or [], plan, encoded.tail, self._array_error(encoded.result)
        )
        return _ArrayStream(stream, headers=result.headers)

    def recipe(
        self, key: Key, checked: GeminiCall, encoded: Encoded[GeminiAnswer], response: Response
    ) -> Recipe | None:
        answer = encoded.result.result
        decision = answer.turn.decision
        if decision is None or checked.vertex:  # Vertex AI's answers say when they were made
            return None
        cut = cut_template(
            response,
            lambda: _sentinel_answer(encoded.result),
            answer.meta.response_id,
            0,
            padded=False,
        )
        if cut is None:  # (a function call's signature derives from the answer's id)
            return None
        engine, namespace = self.engine, decision.namespace
        stream = checked.prompt.stream
        return turn_recipe(
            key,
            answer.turn,
            cut,
            api=checked.prompt.api,
            stream=stream,
            decode_stream=decode_sent,
            answer_id=lambda counter: response_id(engine, namespace, counter),
            shape="google",
            framing=framing_of(response),
            headers=answer.headers,
        )


def _framed(chunks: list[Json], *, sse_framing: bool) -> tuple[list[bytes], list[bytes]]:
    """A stream's chunks framed as asked (``alt=sse``, else one JSON array), and its tail."""
    if sse_framing:
        return [sse.google_frame(c) for c in chunks], []
    return array_frames(chunks), [ARRAY_END]


def _sentinel_answer(answer: GeminiAnswer) -> bytes:
    """The answer's bytes with the template's sentinel for its id."""
    result = answer.result
    meta = dataclasses.replace(result.meta, response_id=template.ID)
    if result.chunks is None:
        return encode_json_pretty(gemini_response(result.replies, meta))
    frames, tail = _framed(list(gemini_chunks(result.replies, meta)), sse_framing=answer.sse)
    return b"".join([*frames, *tail])


def _array_stream(request: Request) -> bool:
    """Is the request a stream asked for as one JSON array (its errors are arrays too)?"""
    return request.url.path.endswith(":streamGenerateContent") and (
        request.query_params.get("alt") != "sse"
    )


def _in_array(response: Response) -> Response:
    """A refusal as a JSON-array stream sends it: ``[{"error": …}]``."""
    body = orjson.loads(bytes(response.body))
    headers = {
        k: v for k, v in response.headers.items() if k not in ("content-length", "content-type")
    }
    return json_response([body], status=response.status_code, headers=headers)


async def _generate(request: Request, path: str) -> Response:
    try:
        endpoints: Endpoints = request.app.state.endpoints
        return await endpoints.at(path).route(request)
    except APIError as error:
        if isinstance(error, RecordedAnswer):  # sent as it was recorded, in the asked framing
            return refusal(request, _framed_as_asked(error, request))
        response = refusal(request, error)
        return _in_array(response) if _array_stream(request) else response


def _framed_as_asked(answer: RecordedAnswer, request: Request) -> RecordedAnswer:
    """A recorded stream in the framing this request asks for: the same chunks as one JSON
    array, recorded as ``alt=sse`` events, or as events, recorded as an array (a client that
    streams one way replays a cassette recorded by one that streams the other). A whole answer,
    a refusal, a cut stream, or one already in the asked framing is sent as recorded."""
    streamed = request.url.path.endswith(":streamGenerateContent")
    if not streamed or not answer.complete or answer.status != 200:
        return answer
    as_array = _array_stream(request)
    try:
        if answer.events is not None and as_array:
            chunks = [orjson.loads(data) for _, data in answer.events]
            body = b"".join([*array_frames(chunks), ARRAY_END]).decode()
            return _recorded_as(answer, _ARRAY_TYPE, body=body)
        recorded = answer.recorded_body
        if answer.events is None and not as_array and recorded is not None:
            chunks = orjson.loads(recorded)
            if not isinstance(chunks, list):
                return answer
            events: list[tuple[str | None, str]] = [
                (None, orjson.dumps(chunk).decode()) for chunk in chunks
            ]
            return _recorded_as(answer, "text/event-stream", events=events)
    except orjson.JSONDecodeError:  # not a Gemini stream's chunks: as it was recorded
        return answer
    return answer


def _recorded_as(
    answer: RecordedAnswer,
    content_type: str,
    *,
    body: str | None = None,
    events: list[tuple[str | None, str]] | None = None,
) -> RecordedAnswer:
    headers = {k: v for k, v in answer.recorded_headers.items() if k.lower() != "content-type"}
    reframed = RecordedAnswer(
        status=answer.status,
        headers={**headers, "content-type": content_type},
        body=body,
        events=events,
        crlf=True,
    )
    reframed.rule, reframed.miss, reframed.journaled = answer.rule, answer.miss, answer.journaled
    return reframed


def _model_of(request: Request) -> str:
    """The model a ``{model}:{method}`` path segment names."""
    return str(request.path_params["name"]).rpartition(":")[0]


@api_endpoint
async def _count_tokens(request: Request) -> Response:
    model = _model_of(request)
    body = check_count_tokens_body(await read_json(request))
    inner = body.get("generateContentRequest", body)
    prompt = prompt_from_gemini(inner, headers=request.headers, model=model)
    images = sum(message.image_tokens for message in prompt.messages)
    return json_response(count_tokens_body(count_prompt_tokens(prompt), images=images))


def _texts(request: Json) -> str:
    return "\n".join(m.text for m in messages_of({"contents": [request["content"]]}))


async def _embed(request: Request, *, batch: bool) -> Response:
    model = _model_of(request)
    body = await read_json(request)
    requests = check_batch_embed_body(body, model=model) if batch else [check_embed_body(body)]
    engine, path = engine_of(request), request.url.path
    headers = {k.lower(): v for k, v in request.headers.items()}
    journaled = journaled_headers(headers.items())
    wanted = [
        EmbeddingsRequest((_texts(one),), model, dimensions=one.get("outputDimensionality"))
        for one in requests
    ]

    def embed_all(space: Namespace) -> tuple[bytes, Embedded]:
        vectors: list[list[float]] = []
        turns: list[Turn] = []
        for one in wanted:  # in the request's order
            embedded = embed(engine, space, one, headers=headers, body=body)
            vectors += embedded.vectors
            turns += embedded.turns
        done = Embedded(vectors, turns)
        encoded = encode_json_pretty(embeddings_body(vectors, batch=batch))
        done.journal(
            space,
            path=path,
            model=model,
            body=body,
            encoded=encoded,
            request_headers=journaled,
        )
        return encoded, done

    encoded, done = engine.store.transact(namespace_of(request), embed_all)
    plan = done.plan()
    if plan.plain:
        return JSONAnswer(encoded)
    return PlannedJSONResponse(encoded, plan=plan, headers={})


@create_endpoint
async def _call(request: Request) -> Response:
    """``POST …/{model}:{method}``: the method of the model the last path segment names."""
    path = request.url.path
    model, _, method = request.path_params["name"].rpartition(":")
    if method in ("generateContent", "streamGenerateContent"):
        return await _generate(request, path)
    if family_at("POST", path) is None or not model:
        raise NotFoundError(f"Invalid URL (POST {path})")
    if method == "countTokens":
        return await _count_tokens(request)
    return await _embed(request, batch=method == "batchEmbedContents")


def _version(request: Request) -> str:
    return request.url.path.split("/")[1]


@api_endpoint
async def list_models(request: Request) -> Response:
    listed = [
        model_body(name, embedding=e, input_limit=i, output_limit=o) for name, e, i, o in MODELS
    ]
    return json_response({"models": listed})


@api_endpoint
async def get_model(request: Request) -> Response:
    name = request.path_params["name"].removeprefix("models/")
    for known, embedding, limit_in, limit_out in MODELS:
        if known == name:
            return json_response(
                model_body(known, embedding=embedding, input_limit=limit_in, output_limit=limit_out)
            )
    raise NotFoundError(f"models/{name} is not found for API version {_version(request)}")


class _GeminiRoute(Route):
    """A Gemini route; under ``/v1`` (shared with OpenAI's) only for a request that sends its
    key Google's way, or that is a POST (OpenAI has no POST at these paths)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path: str = scope["path"]
        if path.startswith("/v1/") and scope["method"] != "POST":
            request = Request(scope)
            if google_key_of(request.headers, request.query_params) is None:
                return Match.NONE, {}
        return super().matches(scope)


def routes() -> list[Route]:
    vertex = "/projects/{project}/locations/{location}/publishers/google/models/{name}"
    return [
        _GeminiRoute("/models", list_models, methods=["GET"]),
        _GeminiRoute("/models/{name}", _call, methods=["POST"]),
        _GeminiRoute("/models/{name}", get_model, methods=["GET"]),
        _GeminiRoute(vertex, _call, methods=["POST"]),
        _GeminiRoute("/publishers/google/models/{name}", _call, methods=["POST"]),
    ]
