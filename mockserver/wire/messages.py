"""Anthropic Messages requests (``/v1/messages`` and its ``count_tokens``) → validated models,
refused with the API's own 400s.

Anthropic's API validates with pydantic and words a refusal as ``<where>: <what>``, the place
a dotted path through the body with each union member's tag in it (``max_tokens: Field
required``, ``messages.0.content.0.image.source.base64.media_type: Input should be
'image/jpeg', 'image/png', 'image/gif' or 'image/webp'``, ``tools.0.custom.input_schema: Field
required``). These models are written so that their errors read the same: blocks and sources
are unions on ``type``, a tool is ``custom`` unless its ``type`` names a server tool, and a
string ``content`` or ``system`` stands for one text block. What no schema says (where tool
blocks may go, the thinking rules, ``tool_choice`` naming an offered tool) is checked after,
in ``messages_checks.py``.

Unknown top-level fields are accepted, as a beta field (``context_management``, ``container``,
…) is by the API when its ``anthropic-beta`` header is sent; unknown keys inside a block are
ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from mockserver.errors import InvalidRequestError

__all__ = [
    "MessagesRequest",
    "TokenCountRequest",
    "parse_count_tokens_request",
    "parse_messages_request",
    "refusal_of",
]


class _Model(BaseModel):
    """Strict types, unknown keys ignored; the schema is built on first use."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, defer_build=True)


def _as_blocks(value: Any) -> Any:
    """A string stands for one text block (an empty one for none)."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}] if value else []
    return value


class CacheControl(_Model):
    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class TextBlock(_Model):
    type: Literal["text"]
    text: str
    cache_control: CacheControl | None = None
    citations: list[dict[str, Any]] | None = None


class Base64ImageSource(_Model):
    type: Literal["base64"]
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    data: str


class URLSource(_Model):
    type: Literal["url"]
    url: str


class FileSource(_Model):
    type: Literal["file"]
    file_id: str


ImageSource = Annotated[Base64ImageSource | URLSource | FileSource, Field(discriminator="type")]


class ImageBlock(_Model):
    type: Literal["image"]
    source: ImageSource
    cache_control: CacheControl | None = None


class Base64PDFSource(_Model):
    type: Literal["base64"]
    media_type: Literal["application/pdf"]
    data: str


class PlainTextSource(_Model):
    type: Literal["text"]
    media_type: Literal["text/plain"]
    data: str


class ContentSource(_Model):
    type: Literal["content"]
    content: Annotated[
        list[Annotated[TextBlock | ImageBlock, Field(discriminator="type")]],
        BeforeValidator(_as_blocks),
    ]


DocumentSource = Annotated[
    Base64PDFSource | PlainTextSource | ContentSource | URLSource | FileSource,
    Field(discriminator="type"),
]


class CitationsConfig(_Model):
    enabled: bool | None = None


class DocumentBlock(_Model):
    type: Literal["document"]
    source: DocumentSource
    title: str | None = None
    context: str | None = None
    citations: CitationsConfig | None = None
    cache_control: CacheControl | None = None


class SearchResultBlock(_Model):
    type: Literal["search_result"]
    source: str
    title: str
    content: list[TextBlock]
    cache_control: CacheControl | None = None


ToolResultContent = Annotated[
    TextBlock | ImageBlock | DocumentBlock | SearchResultBlock, Field(discriminator="type")
]


class ToolResultBlock(_Model):
    type: Literal["tool_result"]
    tool_use_id: str
    content: Annotated[list[ToolResultContent], BeforeValidator(_as_blocks)] | None = None
    is_error: bool | None = None
    cache_control: CacheControl | None = None


class ToolUseBlock(_Model):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    cache_control: CacheControl | None = None


class ThinkingBlock(_Model):
    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(_Model):
    type: Literal["redacted_thinking"]
    data: str


class ServerToolUseBlock(_Model):
    type: Literal["server_tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    cache_control: CacheControl | None = None


#: Blocks a server tool's turn leaves in the conversation: sent back as they came, read by
#: no rule (their fields are the tool's own).
SERVER_RESULT_BLOCKS: Final = (
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
    "mcp_tool_use",
    "mcp_tool_result",
)


class ServerResultBlock(_Model):
    model_config = ConfigDict(extra="allow")
    type: Literal[SERVER_RESULT_BLOCKS]  # type: ignore[valid-type]


ContentBlock = Annotated[
    TextBlock
    | ImageBlock
    | DocumentBlock
    | SearchResultBlock
    | ToolUseBlock
    | ToolResultBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ServerToolUseBlock
    | ServerResultBlock,
    Field(discriminator="type"),
]


class MessageParam(_Model):
    role: Literal["user", "assistant", "system"]
    content: Annotated[list[ContentBlock], BeforeValidator(_as_blocks)]


class InputSchema(_Model):
    model_config = ConfigDict(extra="allow")
    type: Literal["object"]
    properties: dict[str, Any] | None = None
    required: list[str] | None = None


class CustomTool(_Model):
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,128}$")
    description: str | None = None
    input_schema: InputSchema
    type: Literal["custom"] | None = None
    cache_control: CacheControl | None = None
    strict: bool | None = None


class ServerTool(_Model):
    """A tool the API defines (``web_search_20250305``, ``bash_20250124``…): its own fields."""

    model_config = ConfigDict(extra="allow")
    type: str
    name: str


def _tool_kind(value: Any) -> str:
    if isinstance(value, Mapping) and value.get("type") not in (None, "custom"):
        return "server"
    return "custom"


Tool = Annotated[
    Annotated[CustomTool, Tag("custom")] | Annotated[ServerTool, Tag("server")],
    Discriminator(_tool_kind),
]


class ToolChoiceAuto(_Model):
    type: Literal["auto"]
    disable_parallel_tool_use: bool | None = None


class ToolChoiceAny(_Model):
    type: Literal["any"]
    disable_parallel_tool_use: bool | None = None


class ToolChoiceTool(_Model):
    type: Literal["tool"]
    name: str
    disable_parallel_tool_use: bool | None = None


class ToolChoiceNone(_Model):
    type: Literal["none"]


ToolChoice = Annotated[
    ToolChoiceAuto | ToolChoiceAny | ToolChoiceTool | ToolChoiceNone, Field(discriminator="type")
]

#: The least ``budget_tokens`` the API takes.
MIN_THINKING_BUDGET: Final = 1024
Display = Literal["summarized", "omitted"]


class ThinkingEnabled(_Model):
    type: Literal["enabled"]
    budget_tokens: int = Field(ge=MIN_THINKING_BUDGET)
    display: Display | None = None


class ThinkingAdaptive(_Model):
    type: Literal["adaptive"]
    display: Display | None = None


class ThinkingDisabled(_Model):
    type: Literal["disabled"]


class ThinkingBetweenTools(_Model):
    type: Literal["between_tools"]


Thinking = Annotated[
    ThinkingEnabled | ThinkingAdaptive | ThinkingDisabled | ThinkingBetweenTools,
    Field(discriminator="type"),
]


class JSONOutputFormat(_Model):
    type: Literal["json_schema"]
    schema_: dict[str, Any] = Field(alias="schema")


class OutputConfig(_Model):
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    format: JSONOutputFormat | None = None


class Metadata(_Model):
    user_id: str | None = None


class TokenCountRequest(_Model):
    """What ``/v1/messages/count_tokens`` takes: a conversation and what it is offered."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1)
    messages: list[MessageParam]
    system: Annotated[list[TextBlock], BeforeValidator(_as_blocks)] | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    thinking: Thinking | None = None
    output_config: OutputConfig | None = None
    #: The structured-outputs beta's spelling of ``output_config.format``.
    output_format: JSONOutputFormat | None = None


class MessagesRequest(TokenCountRequest):
    """``POST /v1/messages``."""

    max_tokens: int = Field(ge=0)
    stream: bool | None = None
    stop_sequences: list[str] | None = None
    metadata: Metadata | None = None
    service_tier: Literal["auto", "standard_only"] | None = None
    #: Sampling parameters (the 2023-06-01 API version's; the SDK's 2.x line sends none).
    temperature: float | None = Field(default=None, ge=0.0, le=1.0)
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    top_k: int | None = Field(default=None, ge=0)


def refusal_of(exc: ValidationError) -> InvalidRequestError:
    """The API's 400 for the first error pydantic found: ``<where>: <what>``."""
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    message = f"{where}: {error['msg']}" if where else str(error["msg"])
    return InvalidRequestError(message)


def parse_messages_request(data: Mapping[str, Any]) -> MessagesRequest:
    """A ``/v1/messages`` body, validated; any failure is the API's 400."""
    from mockserver.wire.messages_checks import check_conversation

    try:
        request = MessagesRequest.model_validate(dict(data))
    except ValidationError as exc:
        raise refusal_of(exc) from None
    check_conversation(request)
    return request


def parse_count_tokens_request(data: Mapping[str, Any]) -> TokenCountRequest:
    """A ``/v1/messages/count_tokens`` body, validated; any failure is the API's 400."""
    from mockserver.wire.messages_checks import check_conversation

    try:
        request = TokenCountRequest.model_validate(dict(data))
    except ValidationError as exc:
        raise refusal_of(exc) from None
    check_conversation(request)
    return request
