"""Ollama's turns: ``/api/chat`` and ``/api/generate`` (model turns, streamed as NDJSON
unless ``stream: false``), ``/api/embed`` and ``/api/embeddings``. Its model endpoints are
``ollama_models.py``.

The turn endpoints take the same turn as every other family (``Engine.turn``) and render it
with ``render/ollama.py``, framed a line per object (``render/ndjson.py``). Ollama's server
knows only the models it has pulled: a model is known here if it is one of the catalog's
(``wire/catalog.OLLAMA_MODELS``, any tag) or a rule of the namespace's scenario asks for it by
name (its ``model`` condition holds for it); any other is Ollama's 404, ``model '…' not
found``. Its answers carry no headers of their own; its errors are ``{"error": "…"}``
(``render/errors.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar, Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver import ids
from mockserver.credentials import journaled_headers
from mockserver.engine import Engine
from mockserver.engine.embeddings import embed
from mockserver.engine.rendered import Rendered, streamed, whole
from mockserver.engine.turn import Journaled
from mockserver.http.endpoint import Target, turn_route
from mockserver.http.lane import template
from mockserver.http.lane.recipes import Key, Recipe, cut_template, framing_of, turn_recipe
from mockserver.http.responses import (
    JSONAnswer,
    NDJSONResponse,
    PacedNDJSONResponse,
    PlannedJSONResponse,
)
from mockserver.http.routes.base import (
    create_endpoint,
    engine_of,
    namespace_of,
    read_json,
)
from mockserver.http.routes.encoded import Encoded, encode_stream
from mockserver.http.routes.ollama_common import known, model_not_found, unloads
from mockserver.http.routes.rendered import RenderedTurn
from mockserver.plans import IMMEDIATE, NDJSON_FRAMING, BodyPlan, PacedStream
from mockserver.prompt import Prompt
from mockserver.prompt.ollama import prompt_from_ollama_chat, prompt_from_ollama_generate
from mockserver.render.errors import OLLAMA
from mockserver.render.ndjson import decode_lines, go_json, line
from mockserver.render.ollama import (
    OllamaMeta,
    chat_body,
    chat_chunks,
    context_of,
    generate_body,
    generate_chunks,
    timings_of,
)
from mockserver.scenario.matcher import names_model
from mockserver.store import Namespace
from mockserver.values import Json
from mockserver.wire.catalog import ollama_catalog_has
from mockserver.wire.embeddings import EmbeddingsRequest
from mockserver.wire.json_body import Body
from mockserver.wire.ollama import (
    check_chat_body,
    check_embed_body,
    check_embeddings_body,
    check_generate_body,
)

__all__ = ["OllamaChat", "OllamaGenerate", "OllamaResult", "routes"]


#: A rendered turn: ``body`` when not streamed, ``chunks`` when streamed; a scripted
#: in-stream error sends an ``{"error": …}`` line, after the 200.
OllamaResult = Rendered[OllamaMeta]


def known_model(engine: Engine, space: Namespace, prompt: Prompt) -> None:
    """Refuse a model Ollama's server would not have (see the module's docstring)."""
    if ollama_catalog_has(prompt.model):
        return
    if names_model(engine.active_scenario(space, prompt), prompt.model):
        return
    raise model_not_found(prompt.model)


def _load(prompt: Prompt) -> Literal["load", "unload"] | None:
    """A request with nothing to say loads the model (or, ``keep_alive: 0``, unloads it)."""
    body = prompt.params
    empty = not body.get("messages") if prompt.api == "ollama_chat" else not body.get("prompt")
    if not empty or body.get("images"):
        return None
    return "unload" if unloads(body.get("keep_alive")) else "load"


def answer_ollama(
    engine: Engine, space: Namespace, prompt: Prompt, *, journal: Journaled | None = None
) -> OllamaResult:
    """The turn for ``prompt`` in ``space`` (held by the caller), rendered whole or as the
    objects of its stream, with its plans."""
    known_model(engine, space, prompt)
    turn = engine.turn(space, prompt, journal=journal)
    latency = turn.latency
    timings = timings_of(
        turn.reply,
        started=engine.now_in(space),
        seed=turn.seed,
        tokens_per_second=latency.tokens_per_second if latency else None,
    )
    generate = prompt.api == "ollama_generate"
    meta = OllamaMeta(
        model=prompt.model,
        timings=timings,
        thinking=prompt.reasoning_effort is not None,
        load=_load(prompt),
        chunk=latency.chunk if latency else "token",
        context=context_of(turn.reply, seed=turn.seed)
        if generate and not prompt.params.get("raw")
        else (),
    )
    headers = engine.request_headers(space.name, turn)
    if not prompt.stream:
        return whole(
            turn, meta, (generate_body if generate else chat_body)(turn.reply, meta), headers
        )
    chunks = (generate_chunks if generate else chat_chunks)(turn.reply, meta)
    return streamed(turn, meta, chunks, headers, words=OLLAMA.stream_error)


class _OllamaTurn(RenderedTurn[Prompt, OllamaMeta]):
    """A model's turn at one of Ollama's two paths, whole or streamed line by line."""

    api: ClassVar[str]

    def read(self, body: Body, headers: Mapping[str, str]) -> Prompt:
        raise NotImplementedError

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Prompt:
        return self.read(body, headers)

    def take(
        self,
        space: Namespace,
        checked: Prompt,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> OllamaResult:
        return answer_ollama(self.engine, space, checked, journal=journal)

    def encode(self, result: OllamaResult) -> Encoded[OllamaResult]:
        if result.chunks is None:
            return Encoded(result, None, [], go_json(result.body))
        lines = [line(chunk) for chunk in result.chunks]
        # the ``done`` line: what a ``no_done`` fault leaves out
        return encode_stream(
            result,
            lines[:-1],
            lines[-1:],
            plan=result.stream_plan,
            error_frames=[line(result.stream_error)],
            decode=decode_lines,
        )

    def answer(self, encoded: Encoded[OllamaResult]) -> Response:
        result = encoded.result
        if encoded.frames is None:
            return encoded.body_response(plan=result.body_plan, headers=result.headers)
        plan = result.stream_plan
        if plan.unpaced:
            return NDJSONResponse(encoded.whole, headers=result.headers)
        lines = PacedStream(
            encoded.frames, plan, encoded.tail, encoded.error_frames, framing=NDJSON_FRAMING
        )
        return PacedNDJSONResponse(lines, headers=result.headers)

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[OllamaResult], response: Response
    ) -> Recipe | None:
        """An answer names no id; each of its times (every line's ``created_at``) is a fixed
        time after the namespace's clock's when the turn was taken: the template's time slots,
        filled from the clock in nanoseconds."""
        result = encoded.result
        decision = result.turn.decision
        if decision is None:
            return None
        generate = checked.api == "ollama_generate"
        cut = cut_template(
            response,
            lambda: _sentinel_answer(result, generate=generate),
            "",
            _nanoseconds(result.meta.timings.started),
            padded=False,
        )
        if cut is None:
            return None
        engine = self.engine
        return turn_recipe(
            key,
            result.turn,
            cut,
            api=checked.api,
            stream=checked.stream,
            decode_stream=decode_lines,
            answer_id=_no_id,
            shape="ollama",
            framing=framing_of(response),
            clock=lambda space: _nanoseconds(engine.now_in(space)),
        )


def _sentinel_answer(result: OllamaResult, *, generate: bool) -> bytes:
    """The answer's bytes with the template's sentinel for each of its times."""
    timings = dataclasses.replace(result.meta.timings, stamp=template.time_sentinel)
    meta = dataclasses.replace(result.meta, timings=timings)
    reply = result.turn.reply
    if result.chunks is None:
        return go_json((generate_body if generate else chat_body)(reply, meta))
    chunks = (generate_chunks if generate else chat_chunks)(reply, meta)
    return b"".join(line(chunk) for chunk in chunks)


def _nanoseconds(seconds: float) -> int:
    """An instant of a clock in nanoseconds, as ``ids.rfc3339_nano`` counts it."""
    return round(seconds * 1_000_000_000)


def _no_id(counter: int) -> str:
    return ""


class OllamaChat(_OllamaTurn):
    """``POST /api/chat``."""

    path = "/api/chat"

    def read(self, body: Body, headers: Mapping[str, str]) -> Prompt:
        return prompt_from_ollama_chat(check_chat_body(body), headers=headers)


class OllamaGenerate(_OllamaTurn):
    """``POST /api/generate``."""

    path = "/api/generate"

    def read(self, body: Body, headers: Mapping[str, str]) -> Prompt:
        return prompt_from_ollama_generate(check_generate_body(body), headers=headers)


async def _embed(request: Request, *, older: bool) -> Response:
    """``/api/embed`` (``{model, embeddings}`` and its counters) or the older
    ``/api/embeddings`` (``{embedding}``): each input one turn, as OpenAI's embeddings are."""
    body = await read_json(request)
    if older:
        prompt = check_embeddings_body(body)
        inputs, dimensions = ([prompt] if prompt else []), None
    else:
        inputs, dimensions = check_embed_body(body), body.get("dimensions")
    engine, model = engine_of(request), str(body["model"])
    headers = {k.lower(): v for k, v in request.headers.items()}
    wanted = EmbeddingsRequest(tuple(inputs), model, dimensions=dimensions)

    def embed_all(space: Namespace) -> tuple[bytes, BodyPlan]:
        if not known(engine, space, model):
            raise model_not_found(model)
        if not inputs:  # Ollama answers an empty input with no vectors, and takes no turn
            answer: Json = {"embedding": []} if older else {"model": model, "embeddings": []}
            return go_json(answer), IMMEDIATE
        done = embed(engine, space, wanted, headers=headers, body=body)
        if older:
            answer = {"embedding": done.vectors[0]}
        else:
            seed = done.turns[0].seed
            rng = ids.derive_rng(seed, "ollama-embed")
            load = rng.randint(1_000_000, 20_000_000)
            tokens = sum(turn.reply.usage.prompt_tokens for turn in done.turns)
            answer = {
                "model": model,
                "embeddings": done.vectors,
                "total_duration": load + tokens * rng.randint(300_000, 900_000),
                "load_duration": load,
                "prompt_eval_count": tokens,
            }
        encoded = go_json(answer)
        done.journal(
            space,
            path=request.url.path,
            model=model,
            body=body,
            encoded=encoded,
            request_headers=journaled_headers(headers.items()),
        )
        return encoded, done.plan()

    encoded, plan = engine.store.transact(namespace_of(request), embed_all)
    if plan.plain:
        return JSONAnswer(encoded)
    return PlannedJSONResponse(encoded, plan=plan, headers={})


@create_endpoint
async def embed_route(request: Request) -> Response:
    return await _embed(request, older=False)


@create_endpoint
async def embeddings_route(request: Request) -> Response:
    return await _embed(request, older=True)


def routes() -> list[Route]:
    return [
        Route("/chat", turn_route(OllamaChat.path), methods=["POST"]),
        Route("/generate", turn_route(OllamaGenerate.path), methods=["POST"]),
        Route("/embed", embed_route, methods=["POST"]),
        Route("/embeddings", embeddings_route, methods=["POST"]),
    ]
