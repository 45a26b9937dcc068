"""Ollama's model endpoints: ``/api/tags``, ``/api/show``, ``/api/ps`` and ``/api/version``.

The models listed are the scenario's own exact names, then the catalog's
(``wire/catalog.OLLAMA_MODELS``); a model is loaded by the namespace's Ollama turns until one
unloads it (``keep_alive: 0``). Answers are written as Go's encoder writes JSON.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver import ids
from mockserver.engine import Engine
from mockserver.http.responses import JSONAnswer
from mockserver.http.routes.base import api_endpoint, engine_of, namespace_of, read_json
from mockserver.http.routes.ollama_common import known, model_not_found, unloads
from mockserver.prompt import Prompt
from mockserver.render.ndjson import go_json
from mockserver.reply.embeddings import model_dimensions
from mockserver.scenario.matcher import named_models
from mockserver.store import Namespace, operations
from mockserver.values import Json
from mockserver.wire.catalog import OLLAMA_MODELS, ollama_base, ollama_tagged
from mockserver.wire.ollama import check_show_body

__all__ = ["OLLAMA_VERSION", "routes"]

#: The server version ``/api/version`` reports.
OLLAMA_VERSION: Final = "0.13.0"
#: How long a model stays loaded after a request that does not say (``keep_alive``).
_KEEP_ALIVE: Final = 300


def _json(body: Json) -> Response:
    """A JSON answer as Ollama's server writes one (Go's encoder: compact, HTML-safe)."""
    return JSONAnswer(go_json(body))


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
    family, parameters, _, _, capabilities = _catalog_row(model)
    scale = {"M": 1e6, "B": 1e9}.get(parameters[-1], 1e9)
    # an embedding model's vectors, as /api/embed answers them; else a 3B Llama's width
    width = model_dimensions(ollama_base(model)) if "embedding" in capabilities else 3072
    return {
        "general.architecture": family,
        "general.file_type": 15,
        "general.parameter_count": int(float(parameters[:-1]) * scale),
        "general.quantization_version": 2,
        f"{family}.context_length": 131072,
        f"{family}.embedding_length": width,
    }


@api_endpoint
async def show(request: Request) -> Response:
    """``POST /api/show``: a known model's details, else Ollama's 404."""
    engine = engine_of(request)
    model = check_show_body(await read_json(request))
    with engine.store.view(namespace_of(request)) as space:
        if not known(engine, space, model):
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
        unload = isinstance(request, dict) and unloads(request.get("keep_alive"))
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
    entries = operations.journal(engine.store, namespace)
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
        Route("/tags", tags, methods=["GET"]),
        Route("/show", show, methods=["POST"]),
        Route("/ps", ps, methods=["GET"]),
        Route("/version", version, methods=["GET"]),
    ]
