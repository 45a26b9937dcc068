"""``GET /v1/models`` and ``/v1/models/{id}`` in Anthropic's shape: what a request that carries
``anthropic-version`` gets (``routes/models.py`` hands it over; OpenAI's shape otherwise).

Anthropic's list is paged by ``after_id`` / ``before_id`` and ``limit`` (1–1000, default 20),
newest first, and says ``has_more``, ``first_id`` and ``last_id``; ``created_at`` is RFC 3339.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.http.routes.messages import compact_json
from mockserver.values import Json
from mockserver.wire.catalog import ANTHROPIC_MODELS

__all__ = ["limit_of", "model_page", "retrieve_model", "window_of"]

#: What a listed model says of its limits.
_MAX_INPUT_TOKENS: Final = 200_000
_MAX_TOKENS: Final = 64_000
_LIMIT_MAX: Final = 1000


def _info(model_id: str, name: str, created: str) -> Json:
    return {
        "type": "model",
        "id": model_id,
        "display_name": name,
        "created_at": created,
        "lifecycle": "active",
        "deprecated_at": None,
        "retires_at": None,
        "line": None,
        "max_input_tokens": _MAX_INPUT_TOKENS,
        "max_tokens": _MAX_TOKENS,
        "capabilities": None,
    }


def limit_of(request: Request) -> int:
    """A list's ``limit`` (1–1000, default 20), or the API's 400."""
    raw = request.query_params.get("limit")
    if raw is None:
        return 20
    try:
        limit = int(raw)
    except ValueError:
        raise InvalidRequestError(
            "limit: Input should be a valid integer, unable to parse string as an integer"
        ) from None
    if limit < 1:
        raise InvalidRequestError("limit: Input should be greater than or equal to 1")
    if limit > _LIMIT_MAX:
        raise InvalidRequestError(f"limit: Input should be less than or equal to {_LIMIT_MAX}")
    return limit


def window_of(ids: list[str], request: Request, limit: int) -> tuple[int, int]:
    """The ``[start, end)`` of the page the cursors ask for (an unknown cursor: none)."""
    after, before = request.query_params.get("after_id"), request.query_params.get("before_id")
    if before is not None:
        end = ids.index(before) if before in ids else 0
        return max(0, end - limit), end
    start = ids.index(after) + 1 if after in ids else (len(ids) if after is not None else 0)
    return start, min(len(ids), start + limit)


def model_page(request: Request) -> Response:
    """A page of the models, as ``GET /v1/models`` answers Anthropic's clients."""
    ids = [model_id for model_id, _, _ in ANTHROPIC_MODELS]
    start, end = window_of(ids, request, limit_of(request))
    data = [_info(*model) for model in ANTHROPIC_MODELS[start:end]]
    more = start > 0 if request.query_params.get("before_id") is not None else end < len(ids)
    return compact_json(
        {
            "data": data,
            "has_more": more,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
        }
    )


def _is_named(model_id: str, name: str) -> bool:
    """Is ``name`` the model ``model_id`` names (its id, or the alias of a dated id)?"""
    alias, _, date = model_id.rpartition("-")
    return name == model_id or (len(date) == 8 and date.isdigit() and name == alias)


def retrieve_model(request: Request, model_id: str) -> Response:
    """One model by its id or its alias (a dated id without its date)."""
    for model in ANTHROPIC_MODELS:
        if _is_named(model[0], model_id):
            return compact_json(_info(*model))
    raise NotFoundError(f"model: {model_id}")
