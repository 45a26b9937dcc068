"""``/v1/models``: the contract's model ids (Anthropic's, for a request in Anthropic's shape:
``messages_models.py``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver import ids
from mockserver.errors import NotFoundError
from mockserver.http.responses import json_response
from mockserver.http.routes.base import api_endpoint, error_shape
from mockserver.wire.catalog import MODEL_IDS, owner_of

__all__ = ["routes"]

_EPOCH_2023 = 1_672_531_200


def _model(model_id: str) -> dict[str, object]:
    # A stable, plausible creation date per model (the real list has real dates).
    offset = (
        int.from_bytes(ids.stable_digest("model-created", model_id, size=4), "big") % 94_608_000
    )
    return {
        "id": model_id,
        "object": "model",
        "created": _EPOCH_2023 + offset,
        "owned_by": owner_of(model_id),
    }


def _anthropic(request: Request) -> bool:
    """Does the request come from an Anthropic client (its shape: ``base.error_shape``)?"""
    shape = error_shape(request.scope["path"], request.headers, request.query_params)
    return shape == "anthropic"


@api_endpoint
async def list_models(request: Request) -> Response:
    if _anthropic(request):
        from mockserver.http.routes.messages_models import model_page

        return model_page(request)
    return json_response({"object": "list", "data": [_model(m) for m in MODEL_IDS]})


@api_endpoint
async def retrieve_model(request: Request) -> Response:
    model_id = request.path_params["model"]
    if _anthropic(request):
        from mockserver.http.routes import messages_models

        return messages_models.retrieve_model(request, model_id)
    if model_id not in MODEL_IDS:
        raise NotFoundError(
            f"The model '{model_id}' does not exist or you do not have access to it.",
            code="model_not_found",
        )
    return json_response(_model(model_id))


def routes() -> list[Route]:
    return [
        Route("/models", list_models, methods=["GET"]),
        Route("/models/{model:path}", retrieve_model, methods=["GET"]),
    ]
