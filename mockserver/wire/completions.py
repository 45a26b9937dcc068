"""The legacy ``POST /v1/completions`` request: ``CompletionCreateParams`` and
:func:`parse_completion_request`.

Field names and bounds follow the OpenAPI spec's ``CreateCompletionRequest`` (the contract):
``prompt`` is a string, an array of strings, an array of token ids or an array of token-id
arrays; ``logprobs`` an integer from 0 to 5; ``n`` from 1 to 128; ``best_of`` from 0 to 20,
never below ``n`` and not with ``stream``. Unknown top-level fields are kept, as on the other
endpoints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, TypeAlias

from pydantic import ConfigDict, Field, Tag

from mockserver.errors import InvalidRequestError
from mockserver.wire.chat_checks import check_model_given
from mockserver.wire.validation import (
    OmittableBool,
    OmittableStr,
    WireModel,
    json_type_union,
    validate_model,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "CompletionCreateParams",
    "PromptText",
    "parse_completion_request",
    "prompt_texts",
]

#: The ``max_tokens`` of a request that gives none (the spec's default).
DEFAULT_MAX_TOKENS: Final = 16
#: What the API answers for a ``prompt`` its schema refuses (an empty array, mixed kinds).
INVALID_PROMPT: Final = (
    "'$.prompt' is invalid. Please check the API reference: "
    "https://platform.openai.com/docs/api-reference."
)
#: One prompt: its text, or its token ids.
PromptText = str | tuple[int, ...]

_Stop: TypeAlias = Annotated[
    Annotated[str, Tag("string")]
    | Annotated[list[str], Field(min_length=1, max_length=4), Tag("array")],
    json_type_union("one of a string or array of strings"),
]
_Penalty: TypeAlias = Annotated[float, Field(ge=-2.0, le=2.0)]


class CompletionStreamOptionsParam(WireModel):
    include_usage: OmittableBool = None


class CompletionCreateParams(WireModel):
    """A validated ``POST /v1/completions`` body (its ``prompt`` checked apart: see
    :func:`prompt_texts`). Extra top-level fields are kept."""

    model_config = ConfigDict(extra="allow")

    model: Annotated[str, Field(min_length=1)]
    best_of: Annotated[int, Field(ge=0, le=20)] | None = None
    echo: bool | None = None
    frequency_penalty: _Penalty | None = None
    logit_bias: dict[str, Annotated[int, Field(ge=-100, le=100)]] | None = None
    logprobs: Annotated[int, Field(ge=0, le=5)] | None = None
    max_tokens: Annotated[int, Field(ge=0)] | None = None
    n: Annotated[int, Field(ge=1, le=128)] | None = None
    presence_penalty: _Penalty | None = None
    seed: Annotated[int, Field(ge=-(2**63), le=2**63 - 1)] | None = None
    stop: _Stop | None = None
    stream: bool | None = None
    stream_options: CompletionStreamOptionsParam | None = None
    suffix: str | None = None
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] | None = None
    top_p: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    user: OmittableStr = None

    @property
    def choices_per_prompt(self) -> int:
        return self.n or 1

    @property
    def include_usage(self) -> bool:
        """Should a stream end with a usage chunk?"""
        return self.stream_options is not None and self.stream_options.include_usage is True


def _is_token(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _tokens(value: object) -> tuple[int, ...] | None:
    """A non-empty array of token ids, as a tuple (``None``: not one)."""
    if isinstance(value, list) and value and all(_is_token(v) for v in value):
        return tuple(value)
    return None


def prompt_texts(value: Any) -> tuple[PromptText, ...]:
    """The prompts of a ``prompt`` value (one per choice group), or the API's 400."""
    if value is None:
        raise InvalidRequestError(
            "Missing required parameter: 'prompt'.",
            param="prompt",
            code="missing_required_parameter",
        )
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not value:
        raise InvalidRequestError(INVALID_PROMPT, param="prompt")
    if all(isinstance(v, str) for v in value):
        return tuple(value)
    single = _tokens(value)
    if single is not None:  # one prompt, as token ids
        return (single,)
    many = [_tokens(v) for v in value]
    if any(m is None for m in many):
        raise InvalidRequestError(INVALID_PROMPT, param="prompt")
    return tuple(m for m in many if m is not None)


def parse_completion_request(data: Mapping[str, Any]) -> CompletionCreateParams:
    """A JSON object → a checked request, or the API's 400 (a missing ``model`` first, as the
    API routes on it; then the prompt, the schema, and the checks across fields)."""
    check_model_given(data)
    prompt_texts(data.get("prompt"))
    params = validate_model(CompletionCreateParams, data)
    _check_best_of(params)
    _check_stream_options(params)
    return params


def _check_best_of(params: CompletionCreateParams) -> None:
    best_of = params.best_of
    if best_of is None:
        return
    if best_of < params.choices_per_prompt:
        raise InvalidRequestError(
            f"best_of must be greater than or equal to n (got best_of={best_of}, "
            f"n={params.choices_per_prompt}).",
            param="best_of",
        )
    if best_of > 1 and params.stream is True:
        raise InvalidRequestError("Cannot stream results with best_of > 1.", param="best_of")


def _check_stream_options(params: CompletionCreateParams) -> None:
    if params.stream_options is not None and params.stream is not True:
        raise InvalidRequestError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )
