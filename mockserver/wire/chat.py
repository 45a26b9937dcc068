"""The Chat Completions request: ``ChatCompletionCreateParams`` and :func:`parse_chat_request`.

Field names and types follow openai-python's ``completion_create_params``; strictness follows the
OpenAPI seed (nullable where it says nullable, bounds where it gives bounds). Unknown top-level
fields are kept (gateways add their own) and unknown nested keys are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field, Tag

from mockserver.wire.chat_checks import check_chat_request, check_model_given
from mockserver.wire.chat_messages import ChatCompletionMessageParam, TextContent
from mockserver.wire.chat_tools import (
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolUnionParam,
    FunctionCallOption,
    FunctionDefinition,
    ResponseFormat,
)
from mockserver.wire.validation import (
    OmittableBool,
    OmittableStr,
    WireModel,
    json_type_union,
    non_nullable,
    parse_json_body,
    validate_model,
)

__all__ = [
    "ChatCompletionAudioParam",
    "ChatCompletionCreateParams",
    "ChatCompletionPredictionContentParam",
    "ChatCompletionStreamOptionsParam",
    "ModerationConfigParam",
    "ModerationParam",
    "ModerationPolicyParam",
    "PromptCacheOptionsParam",
    "VoiceID",
    "WebSearchOptions",
    "WebSearchOptionsUserLocation",
    "WebSearchOptionsUserLocationApproximate",
    "parse_chat_request",
]

_STRING_OR_OBJECT = "one of a string or an object"


class ChatCompletionStreamOptionsParam(WireModel):
    include_usage: OmittableBool = None
    include_obfuscation: OmittableBool = None


class VoiceID(WireModel):
    id: str


class ChatCompletionAudioParam(WireModel):
    voice: Annotated[
        Annotated[str, Tag("string")] | Annotated[VoiceID, Tag("object")],
        json_type_union(_STRING_OR_OBJECT),
    ]
    format: Literal["wav", "aac", "mp3", "flac", "opus", "pcm16"]


class ChatCompletionPredictionContentParam(WireModel):
    type: Literal["content"]
    content: TextContent


class ModerationConfigParam(WireModel):
    mode: Literal["score", "block"]


class ModerationPolicyParam(WireModel):
    input: ModerationConfigParam | None = None
    output: ModerationConfigParam | None = None


class ModerationParam(WireModel):
    model: str
    policy: ModerationPolicyParam | None = None


class PromptCacheOptionsParam(WireModel):
    mode: Annotated[Literal["implicit", "explicit"] | None, non_nullable("a string")] = None
    ttl: Annotated[Literal["30m"] | None, non_nullable("a string")] = None


class WebSearchOptionsUserLocationApproximate(WireModel):
    city: OmittableStr = None
    country: OmittableStr = None
    region: OmittableStr = None
    timezone: OmittableStr = None


class WebSearchOptionsUserLocation(WireModel):
    type: Literal["approximate"]
    approximate: WebSearchOptionsUserLocationApproximate


class WebSearchOptions(WireModel):
    search_context_size: Annotated[
        Literal["low", "medium", "high"] | None, non_nullable("a string")
    ] = None
    user_location: WebSearchOptionsUserLocation | None = None


_Stop: TypeAlias = Annotated[
    Annotated[str, Tag("string")]
    | Annotated[list[str], Field(min_length=1, max_length=4), Tag("array")],
    json_type_union("one of a string or array of strings"),
]
_Penalty: TypeAlias = Annotated[float, Field(ge=-2.0, le=2.0)]
_Metadata: TypeAlias = Annotated[
    dict[str, Annotated[str, Field(max_length=512)]], Field(max_length=16)
]


class ChatCompletionCreateParams(WireModel):
    """A validated ``POST /v1/chat/completions`` body. Extra top-level fields are kept."""

    model_config = ConfigDict(extra="allow")

    messages: Annotated[list[ChatCompletionMessageParam], Field(min_length=1)]
    model: Annotated[str, Field(min_length=1)]
    audio: ChatCompletionAudioParam | None = None
    frequency_penalty: _Penalty | None = None
    function_call: Annotated[FunctionCallOption | None, non_nullable(_STRING_OR_OBJECT)] = None
    functions: Annotated[
        Annotated[list[FunctionDefinition], Field(min_length=1, max_length=128)] | None,
        non_nullable("an array"),
    ] = None
    logit_bias: dict[str, Annotated[int, Field(ge=-100, le=100)]] | None = None
    logprobs: bool | None = None
    # The seed gives no minimum; the API refuses 0 and below ("integer below minimum value").
    max_completion_tokens: Annotated[int, Field(ge=1)] | None = None
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    metadata: _Metadata | None = None
    modalities: list[Literal["text", "audio"]] | None = None
    moderation: ModerationParam | None = None
    n: Annotated[int, Field(ge=1, le=128)] | None = None
    parallel_tool_calls: OmittableBool = None
    prediction: ChatCompletionPredictionContentParam | None = None
    presence_penalty: _Penalty | None = None
    prompt_cache_key: str | None = None
    prompt_cache_options: Annotated[PromptCacheOptionsParam | None, non_nullable("an object")] = (
        None
    )
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"] | None = (
        None
    )
    response_format: Annotated[ResponseFormat | None, non_nullable("an object")] = None
    safety_identifier: Annotated[str, Field(max_length=64)] | None = None
    seed: Annotated[int, Field(ge=-(2**63), le=2**63 - 1)] | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority", "fast"] | None = None
    stop: _Stop | None = None
    store: bool | None = None
    stream: bool | None = None
    stream_options: ChatCompletionStreamOptionsParam | None = None
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] | None = None
    tool_choice: Annotated[
        ChatCompletionToolChoiceOptionParam | None, non_nullable(_STRING_OR_OBJECT)
    ] = None
    tools: Annotated[list[ChatCompletionToolUnionParam] | None, non_nullable("an array")] = None
    top_logprobs: Annotated[int, Field(ge=0, le=20)] | None = None
    top_p: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    user: OmittableStr = None
    verbosity: Literal["low", "medium", "high"] | None = None
    web_search_options: Annotated[WebSearchOptions | None, non_nullable("an object")] = None

    @property
    def is_streaming(self) -> bool:
        return self.stream is True

    @property
    def include_usage(self) -> bool:
        """Should a stream end with a usage chunk?"""
        return self.stream_options is not None and self.stream_options.include_usage is True

    @property
    def max_output_tokens(self) -> int | None:
        """``max_completion_tokens``, else the deprecated ``max_tokens``."""
        if self.max_completion_tokens is not None:
            return self.max_completion_tokens
        return self.max_tokens

    @property
    def stop_sequences(self) -> tuple[str, ...]:
        if self.stop is None:
            return ()
        return (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the offered tools, in order (``functions`` are not tools)."""
        return tuple(tool.name for tool in self.tools or ())

    @property
    def extra_fields(self) -> dict[str, Any]:
        """Top-level fields the spec does not know (vendor or gateway extensions)."""
        return dict(self.model_extra or {})


def parse_chat_request(body: bytes | Mapping[str, Any]) -> ChatCompletionCreateParams:
    """Raw body bytes (or an already-parsed JSON object) → a checked request, or a 400.

    A missing ``model`` is reported first, as the real API does. Besides the schema, this runs
    the cross-field checks it makes (``n``, ``top_logprobs``, ``stream_options``,
    ``tool_choice`` against ``tools``, tool names).
    """
    data = parse_json_body(body) if isinstance(body, bytes) else body
    check_model_given(data)
    params = validate_model(ChatCompletionCreateParams, data)
    check_chat_request(params)
    return params
