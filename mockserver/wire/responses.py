"""The Responses API requests: ``ResponseCreateParams`` and its siblings.

Field names follow openai-python's ``response_create_params``; bounds follow the real API
(``max_output_tokens`` ≥ 16). Unknown top-level fields are kept (gateways add their own; the
seed's ``provider`` and ``model_routing_config`` are checked when present).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field, Tag

from mockserver.wire.responses_checks import check_compact_request, check_responses_request
from mockserver.wire.responses_items import ResponseInput
from mockserver.wire.responses_tools import ResponseTextConfig, ToolChoice, ToolParam
from mockserver.wire.validation import (
    OmittableStr,
    WireModel,
    json_type_union,
    parse_json_body,
    validate_model,
)

__all__ = [
    "INCLUDABLE",
    "ConversationParam",
    "InputTokenCountParams",
    "ModelRoutingConfig",
    "ProviderParam",
    "ReasoningParam",
    "ResponseCompactParams",
    "ResponseCreateParams",
    "ResponsePromptParam",
    "StreamOptions",
    "parse_compact_request",
    "parse_input_tokens_request",
    "parse_responses_request",
]

INCLUDABLE = (
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
)
Includable: TypeAlias = Literal[
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
]
_Effort: TypeAlias = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
_Summary: TypeAlias = Literal["auto", "concise", "detailed"]
_Metadata: TypeAlias = Annotated[
    dict[str, Annotated[str, Field(max_length=512)]], Field(max_length=16)
]


class ConversationObject(WireModel):
    id: str


ConversationParam: TypeAlias = Annotated[
    Annotated[str, Tag("string")] | Annotated[ConversationObject, Tag("object")],
    json_type_union("one of a string or an object"),
]


class ReasoningParam(WireModel):
    effort: _Effort | None = None
    summary: _Summary | None = None
    generate_summary: _Summary | None = None


class ResponsePromptParam(WireModel):
    id: str
    variables: dict[str, Any] | None = None
    version: str | None = None


class StreamOptions(WireModel):
    include_obfuscation: bool | None = None
    include_usage: bool | None = None


class ProviderRouting(WireModel):
    type: Literal["priority", "round_robin", "least_latency"]
    providers: list[str]
    primary_factor: OmittableStr = None


class ProviderParam(WireModel):
    """The gateway's cross-provider routing (accepted, echoed nowhere, changes nothing)."""

    routing: ProviderRouting
    fallback: str | bool | None = None


class TaskInfo(WireModel):
    task_type: str
    complexity: Literal["low", "medium", "high"] | None = None
    additional_properties: dict[str, Any] | None = None


class ModelRoutingConfig(WireModel):
    """The gateway's in-provider model routing (accepted, changes nothing)."""

    available_models: list[str]
    preference: OmittableStr = None
    task_info: TaskInfo | None = None
    additional_properties: dict[str, Any] | None = None


class _ContextParams(WireModel):
    """What ``create``, ``input_tokens`` and ``compact`` share: the conversation so far."""

    model_config = ConfigDict(extra="allow")

    input: ResponseInput | None = None
    instructions: str | None = None
    previous_response_id: str | None = None
    conversation: ConversationParam | None = None


class ResponseCreateParams(_ContextParams):
    """A validated ``POST /v1/responses`` body. Extra top-level fields are kept."""

    model: Annotated[str, Field(min_length=1)]
    background: bool | None = None
    include: list[Includable] | None = None
    max_output_tokens: Annotated[int, Field(ge=16)] | None = None
    max_tool_calls: Annotated[int, Field(ge=0)] | None = None
    metadata: _Metadata | None = None
    parallel_tool_calls: bool | None = None
    prompt: ResponsePromptParam | None = None
    prompt_cache_key: str | None = None
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    reasoning: ReasoningParam | None = None
    safety_identifier: str | None = None
    service_tier: (
        Literal["auto", "default", "flex", "scale", "priority", "fast", "ultrafast"] | None
    ) = None
    store: bool | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] | None = None
    text: ResponseTextConfig | None = None
    tool_choice: ToolChoice | None = None
    tools: list[ToolParam] | None = None
    top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    top_p: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    truncation: Literal["auto", "disabled"] | None = None
    user: str | None = None
    provider: ProviderParam | None = None
    model_routing_config: ModelRoutingConfig | None = None


class InputTokenCountParams(_ContextParams):
    """``POST /v1/responses/input_tokens``: what a create would count, without a reply."""

    model: str | None = None
    tools: list[ToolParam] | None = None
    tool_choice: ToolChoice | None = None
    text: ResponseTextConfig | None = None
    reasoning: ReasoningParam | None = None
    parallel_tool_calls: bool | None = None
    truncation: Literal["auto", "disabled"] | None = None


class ResponseCompactParams(_ContextParams):
    """``POST /v1/responses/compact``."""

    model: Annotated[str, Field(min_length=1)]


def _data(body: bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    return parse_json_body(body) if isinstance(body, bytes) else body


def parse_responses_request(body: bytes | Mapping[str, Any]) -> ResponseCreateParams:
    """Raw body bytes (or a parsed JSON object) → a checked create request, or a 400."""
    params = validate_model(ResponseCreateParams, _data(body))
    check_responses_request(params)
    return params


def parse_input_tokens_request(body: bytes | Mapping[str, Any]) -> InputTokenCountParams:
    params = validate_model(InputTokenCountParams, _data(body))
    check_compact_request(params)
    return params


def parse_compact_request(body: bytes | Mapping[str, Any]) -> ResponseCompactParams:
    params = validate_model(ResponseCompactParams, _data(body))
    check_compact_request(params)
    return params
