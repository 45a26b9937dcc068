"""Ollama's own API: ``/api/chat`` and ``/api/generate`` (model turns, streamed as NDJSON
unless ``stream: false``), ``/api/embed`` and ``/api/embeddings``, ``/api/tags``,
``/api/show``, ``/api/ps`` and ``/api/version``.

The turn endpoints take the same turn as every other family (``Engine.turn``) and render it
with ``render/ollama.py``, framed a line per object (``render/ndjson.py``). Ollama's server
knows only the models it has pulled: a model is known here if it is one of the catalog's
(``wire/catalog.OLLAMA_MODELS``, any tag) or a rule of the namespace's scenario asks for it by
name (its ``model`` condition holds for it); any other is Ollama's 404, ``model '…' not
found``. Its answers carry no headers of their own; its errors are ``{"error": "…"}``
(``render/errors.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, ClassVar, Final, Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver import ids
from mockserver.credentials import journaled_headers
from mockserver.engine import Engine
from mockserver.engine.embeddings import embed
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import APIError, NotFoundError
from mockserver.faults import (
    IMMEDIATE,
    NDJSON_FRAMING,
    UNPACED,
    BodyPlan,
    StreamPlan,
    error_for,
    paced,
    plan_body,
    plan_stream,
)
from mockserver.http.endpoint import Target, TurnEndpoint, turn_route
from mockserver.http.lane.recipes import Key, Recipe
from mockserver.http.responses import (
    JSONAnswer,
    NDJSONResponse,
    PacedNDJSONResponse,
    PlannedJSONResponse,
)
from mockserver.http.routes.base import (
    api_endpoint,
    create_endpoint,
    engine_of,
    namespace_of,
    read_json,
)
from mockserver.http.routes.encoded import Encoded, encode_stream
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
from mockserver.scenario.matcher import named_models, names_model
from mockserver.store import Namespace
from mockserver.values import Json, value_class
from mockserver.wire.catalog import OLLAMA_MODELS, ollama_base, ollama_catalog_has, ollama_tagged
from mockserver.wire.embeddings import EmbeddingsRequest
from mockserver.wire.json_body import Body
from mockserver.wire.ollama import (
    check_chat_body,
    check_embed_body,
    check_embeddings_body,
    check_generate_body,
    check_show_body,
)

__all__ = ["OLLAMA_VERSION", "OllamaChat", "OllamaGenerate", "OllamaResult", "routes"]

#: The server version ``/api/version`` reports.
OLLAMA_VERSION: Final = "0.13.0"
#: How long a model stays loaded after a request that does not say (``keep_alive``).
_KEEP_ALIVE: Final = 300


@value_class
class OllamaResult:
    """A rendered turn: ``body`` when not streamed, ``chunks`` when streamed."""

    turn: Turn
    meta: OllamaMeta
    body: Json | None
    chunks: list[Json] | None
    headers: dict[str, str] = field(default_factory=dict)
    stream_plan: StreamPlan = UNPACED
    body_plan: BodyPlan = IMMEDIATE
    #: The line a scripted in-stream error sends (after the 200).
    stream_error: Json | None = None


def known_model(engine: Engine, space: Namespace, prompt: Prompt) -> None:
    """Refuse a model Ollama's server would not have (see the module's docstring)."""
    if ollama_catalog_has(prompt.model):
        return
    if names_model(engine.active_scenario(space, prompt), prompt.model):
        return
    raise model_not_found(prompt.model)


def model_not_found(model: str) -> APIError:
    error = NotFoundError(f"model '{model}' not found", param="model", code="model_not_found")
    error.preset = "model_not_found"
    error.facts["model"] = model
    return error


def _unloads(keep_alive: Any) -> bool:
    """Does ``keep_alive`` say to unload at once (``0``, ``"0"``, ``"0s"``, ``"0m"``)?"""
    if isinstance(keep_alive, int | float) and not isinstance(keep_alive, bool):
        return keep_alive == 0
    return isinstance(keep_alive, str) and keep_alive.rstrip("smh") in ("0", "0.0")


def _load(prompt: Prompt) -> Literal["load", "unload"] | None:
    """A request with nothing to say loads the model (or, ``keep_alive: 0``, unloads it)."""
    body = prompt.params
    empty = not body.get("messages") if prompt.api == "ollama_chat" else not body.get("prompt")
    if not empty or body.get("images"):
        return None
    return "unload" if _unloads(body.get("keep_alive")) else "load"


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
        body = (generate_body if generate else chat_body)(turn.reply, meta)
        plan = plan_body(latency, turn.fault, seed=turn.seed)
        return OllamaResult(turn, meta, body, None, headers, body_plan=plan)
    chunks = (generate_chunks if generate else chat_chunks)(turn.reply, meta)
    stream_plan = plan_stream(
        latency,
        turn.fault,
        frames=len(chunks),
        tokens=turn.reply.usage.completion_tokens,
        seed=turn.seed,
    )
    error = error_for(turn.fault.error if turn.fault else None)
    return OllamaResult(
        turn,
        meta,
        None,
        chunks,
        headers,
        stream_plan=stream_plan,
        stream_error=OLLAMA.stream_error(error),
    )


class _OllamaTurn(TurnEndpoint[Prompt, OllamaResult]):
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

    @staticmethod
    def turn_of(result: OllamaResult) -> Turn:
        return result.turn

    def answer(self, encoded: Encoded[OllamaResult]) -> Response:
        result = encoded.result
        if encoded.frames is None:
            return encoded.body_response(plan=result.body_plan, headers=result.headers)
        plan = result.stream_plan
        if plan.unpaced:
            return NDJSONResponse(encoded.whole, headers=result.headers)
        lines = paced(
            encoded.frames,
            plan,
            tail=encoded.tail,
            error_frames=encoded.error_frames,
            framing=NDJSON_FRAMING,
        )
        return PacedNDJSONResponse(lines, headers=result.headers)

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[OllamaResult], response: Response
    ) -> Recipe | None:
        return None  # every line has its own created_at: a template would cut at each


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


def _json(body: Json) -> Response:
    """A JSON answer as Ollama's server writes one (Go's encoder: compact, HTML-safe)."""
    return JSONAnswer(go_json(body))


def _known(engine: Engine, space: Namespace, model: str) -> bool:
    if ollama_catalog_has(model):
        return True
    prompt = Prompt(api="ollama_chat", model=model, messages=())
    return names_model(engine.active_scenario(space, prompt), model)


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
        if not _known(engine, space, model):
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


def _catalog_row(model: str) -> tuple[str, str, str, int, tuple[str, ...]]:
    """``(family, parameter size, quantization, size, capabilities)`` of a known model (a
    scenario's own model is a small Llama)."""
    base = ollama_base(model)
    for name, family, parameters, quantization, size, capabilities in OLLAMA_MODELS:
        if name == base:
            return family, parameters, quantization, size, capabilities
    return "llama", "3.2B", "Q4_K_M", 2_019_393_189, ("completion", "tools")


def _details(model: str) -> Json:
    family, parameters, quantization, _, _ = _catalog_row(model)
    return {
        "parent_model": "",
        "format": "gguf",
        "family": family,
        "families": [family],
        "parameter_size": parameters,
        "quantization_level": quantization,
    }


def _digest(model: str) -> str:
    return ids.hex_id("", "ollama-digest", ollama_tagged(model), length=64)


def _modified_at(engine: Engine, model: str) -> str:
    """When the model was pulled: a few days before the server's clock, the same for a name."""
    days = int(ids.hex_id("", "ollama-pulled", model, length=4), 16) % 90 + 1
    return ids.rfc3339_nano(engine.clock.now() - days * 86_400, days * 7_919_113)


def _listed(engine: Engine, space: Namespace) -> list[str]:
    """The models ``/api/tags`` lists: the scenario's exact names, then the catalog's."""
    prompt = Prompt(api="ollama_chat", model="", messages=())
    own = named_models(engine.active_scenario(space, prompt))
    catalog = [name for name, *_ in OLLAMA_MODELS]
    return list(dict.fromkeys(ollama_tagged(name) for name in [*own, *catalog]))


@api_endpoint
async def tags(request: Request) -> Response:
    """``GET /api/tags``: the models the server has pulled."""
    engine = engine_of(request)
    with engine.store.view(namespace_of(request)) as space:
        names = _listed(engine, space)
    return _json(
        {
            "models": [
                {
                    "name": name,
                    "model": name,
                    "modified_at": _modified_at(engine, name),
                    "size": _catalog_row(name)[3],
                    "digest": _digest(name),
                    "details": _details(name),
                }
                for name in names
            ]
        }
    )


def _model_info(model: str) -> Json:
    family, parameters, _, _, _ = _catalog_row(model)
    scale = {"M": 1e6, "B": 1e9}.get(parameters[-1], 1e9)
    return {
        "general.architecture": family,
        "general.file_type": 15,
        "general.parameter_count": int(float(parameters[:-1]) * scale),
        "general.quantization_version": 2,
        f"{family}.context_length": 131072,
        f"{family}.embedding_length": 3072,
    }


@api_endpoint
async def show(request: Request) -> Response:
    """``POST /api/show``: a known model's details, else Ollama's 404."""
    engine = engine_of(request)
    model = check_show_body(await read_json(request))
    with engine.store.view(namespace_of(request)) as space:
        if not _known(engine, space, model):
            raise model_not_found(model)
    return _json(
        {
            "license": "mockserver: no license; this model is a fake",
            "modelfile": f'# Modelfile generated by "ollama show"\nFROM {ollama_tagged(model)}\n',
            "parameters": 'stop                           "<|eot_id|>"',
            "template": "{{ .Prompt }}",
            "details": _details(model),
            "model_info": _model_info(model),
            "capabilities": list(_catalog_row(model)[4]),
            "modified_at": _modified_at(engine, model),
        }
    )


def _loaded(entries: list[Any]) -> list[str]:
    """The models a namespace's Ollama turns left loaded, the most recently used first."""
    loaded: dict[str, None] = {}
    for entry in entries:
        if entry.api not in ("ollama_chat", "ollama_generate", "embeddings") or not entry.model:
            continue
        if not entry.path.startswith("/api/") or entry.status != 200:
            continue
        loaded.pop(entry.model, None)
        request = entry.requested()
        unload = isinstance(request, dict) and _unloads(request.get("keep_alive"))
        if not unload:
            loaded[entry.model] = None
    return list(reversed(loaded))


@api_endpoint
async def ps(request: Request) -> Response:
    """``GET /api/ps``: the models the namespace's requests loaded (and did not unload)."""
    engine = engine_of(request)
    namespace = namespace_of(request)
    with engine.store.view(namespace) as space:
        now = engine.now_in(space)
    entries = engine.store.journal(namespace)
    models = []
    for model in _loaded(entries):
        size = _catalog_row(model)[3]
        tagged = ollama_tagged(model)
        models.append(
            {
                "name": tagged,
                "model": tagged,
                "size": size,
                "digest": _digest(model),
                "details": _details(model),
                "expires_at": ids.rfc3339_nano(now + _KEEP_ALIVE),
                "size_vram": size,
                "context_length": 4096,
            }
        )
    return _json({"models": models})


@api_endpoint
async def version(request: Request) -> Response:
    """``GET /api/version``."""
    return _json({"version": OLLAMA_VERSION})


def routes() -> list[Route]:
    return [
        Route("/chat", turn_route(OllamaChat.path), methods=["POST"]),
        Route("/generate", turn_route(OllamaGenerate.path), methods=["POST"]),
        Route("/embed", embed_route, methods=["POST"]),
        Route("/embeddings", embeddings_route, methods=["POST"]),
        Route("/tags", tags, methods=["GET"]),
        Route("/show", show, methods=["POST"]),
        Route("/ps", ps, methods=["GET"]),
        Route("/version", version, methods=["GET"]),
    ]
