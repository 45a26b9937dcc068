"""The query parameters of list and retrieve endpoints, refused with the real API's errors."""

from __future__ import annotations

from typing import Any, Literal

from starlette.requests import Request

from mockserver.errors import InvalidRequestError
from mockserver.store import PageQuery

__all__ = ["page_query", "query_flag", "query_int", "query_list", "query_order"]


def query_int(request: Request, name: str, *, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRequestError(
            f"Invalid type for '{name}': expected an integer, but got a string instead.",
            param=name,
            code="invalid_type",
        ) from None
    if not low <= value <= high:
        raise InvalidRequestError(
            f"Invalid '{name}': integer {'below minimum' if value < low else 'above maximum'} "
            f"value. Expected a value {'>=' if value < low else '<='} "
            f"{low if value < low else high}, but got {value} instead.",
            param=name,
            code="integer_below_min_value" if value < low else "integer_above_max_value",
        )
    return value


def query_list(request: Request, name: str) -> list[str]:
    """``name`` given as ``name=a&name=b`` or (as openai-python sends it) ``name[]=a``."""
    params = request.query_params
    return [*params.getlist(name), *params.getlist(f"{name}[]")]


def query_flag(request: Request, name: str) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return False
    if raw.lower() not in ("true", "false", "1", "0"):
        raise InvalidRequestError(
            f"Invalid type for '{name}': expected a boolean, but got a string instead.",
            param=name,
            code="invalid_type",
        )
    return raw.lower() in ("true", "1")


def page_query(request: Request, *, default_order: Literal["asc", "desc"] = "asc") -> PageQuery:
    """``after``, ``limit`` (1–100, default 20) and ``order`` of a list request."""
    return PageQuery(
        after=request.query_params.get("after"),
        limit=query_int(request, "limit", default=20, low=1, high=100),
        order=query_order(request, default=default_order),
    )


def query_order(request: Request, *, default: Literal["asc", "desc"] = "asc") -> Any:
    order = request.query_params.get("order", default)
    if order not in ("asc", "desc"):
        raise InvalidRequestError(
            f"Invalid value: '{order}'. Supported values are: 'asc' and 'desc'.",
            param="order",
            code="invalid_value",
        )
    return order
