"""What Ollama's turn endpoints (``ollama.py``) and model endpoints (``ollama_models.py``)
share: which models the server has, and when a request unloads its model."""

from __future__ import annotations

from typing import Any

from mockserver.engine import Engine
from mockserver.errors import APIError, NotFoundError
from mockserver.prompt import Prompt
from mockserver.scenario.matcher import names_model
from mockserver.store import Namespace
from mockserver.wire.catalog import ollama_catalog_has

__all__ = ["known", "model_not_found", "unloads"]


def known(engine: Engine, space: Namespace, model: str) -> bool:
    """Does Ollama's server have ``model``: a catalog model (any tag), or one a rule of the
    namespace's scenario asks for by name?"""
    if ollama_catalog_has(model):
        return True
    prompt = Prompt(api="ollama_chat", model=model, messages=())
    return names_model(engine.active_scenario(space, prompt), model)


def model_not_found(model: str) -> APIError:
    error = NotFoundError(f"model '{model}' not found", param="model", code="model_not_found")
    error.preset = "model_not_found"
    error.facts["model"] = model
    return error


def unloads(keep_alive: Any) -> bool:
    """Does ``keep_alive`` say to unload at once (``0``, ``"0"``, ``"0s"``, ``"0m"``)?"""
    if isinstance(keep_alive, int | float) and not isinstance(keep_alive, bool):
        return keep_alive == 0
    return isinstance(keep_alive, str) and keep_alive.rstrip("smh") in ("0", "0.0")
