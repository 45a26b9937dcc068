"""Chat Completions request messages and their content parts, named as in openai-python.

The role union's member order is the order the real API lists roles in its error message
("Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.").
Where the two seeds differ, the more permissive one wins: an ``input_audio`` part may carry
``audio_url``/``file_id`` instead of ``input_audio``, user content may hold ``video_url`` parts,
and assistant messages may carry ``reasoning``/``reasoning_content``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag

from mockserver.wire.validation import OmittableStr, WireModel, json_type_union, non_nullable

__all__ = [
    "AssistantContent",
    "ChatCompletionAssistantMessageParam",
    "ChatCompletionContentPartFileParam",
    "ChatCompletionContentPartImageParam",
    "ChatCompletionContentPartInputAudioParam",
    "ChatCompletionContentPartParam",
    "ChatCompletionContentPartRefusalParam",
    "ChatCompletionContentPartTextParam",
    "ChatCompletionContentPartVideoParam",
    "ChatCompletionDeveloperMessageParam",
    "ChatCompletionFunctionMessageParam",
    "ChatCompletionMessageCustomToolCallParam",
    "ChatCompletionMessageFunctionToolCallParam",
    "ChatCompletionMessageParam",
    "ChatCompletionMessageToolCallUnionParam",
    "ChatCompletionSystemMessageParam",
    "ChatCompletionToolMessageParam",
    "ChatCompletionUserMessageParam",
    "Custom",
    "FileFile",
    "FunctionCall",
    "ImageURL",
    "InputAudio",
    "MessageAudio",
    "PromptCacheBreakpointParam",
    "TextContent",
    "UserContent",
    "VideoURL",
    "content_text",
]

_OBJECTS = "one of a string or array of objects"


class PromptCacheBreakpointParam(WireModel):
    mode: Literal["explicit"]


_Breakpoint: TypeAlias = Annotated[PromptCacheBreakpointParam | None, non_nullable("an object")]


class ChatCompletionContentPartTextParam(WireModel):
    type: Literal["text"]
    text: str
    prompt_cache_breakpoint: _Breakpoint = None


class ImageURL(WireModel):
    url: str
    # "original" is not in the spec but openai-python sends it, so the API must take it.
    detail: Annotated[
        Literal["auto", "low", "high", "original"] | None, non_nullable("a string")
    ] = None


class ChatCompletionContentPartImageParam(WireModel):
    type: Literal["image_url"]
    image_url: ImageURL
    prompt_cache_breakpoint: _Breakpoint = None


class InputAudio(WireModel):
    data: str
    format: Literal["wav", "mp3"]


class ChatCompletionContentPartInputAudioParam(WireModel):
    type: Literal["input_audio"]
    input_audio: Annotated[InputAudio | None, non_nullable("an object")] = None
    audio_url: OmittableStr = None
    file_id: OmittableStr = None
    prompt_cache_breakpoint: _Breakpoint = None


class FileFile(WireModel):
    filename: OmittableStr = None
    file_data: OmittableStr = None
    file_id: OmittableStr = None


class ChatCompletionContentPartFileParam(WireModel):
    type: Literal["file"]
    file: FileFile
    prompt_cache_breakpoint: _Breakpoint = None


class VideoURL(WireModel):
    url: str
    fps: float | None = None


class ChatCompletionContentPartVideoParam(WireModel):
    type: Literal["video_url"]
    video_url: VideoURL


class ChatCompletionContentPartRefusalParam(WireModel):
    type: Literal["refusal"]
    refusal: str


ChatCompletionContentPartParam: TypeAlias = Annotated[
    ChatCompletionContentPartTextParam
    | ChatCompletionContentPartImageParam
    | ChatCompletionContentPartInputAudioParam
    | ChatCompletionContentPartFileParam
    | ChatCompletionContentPartVideoParam,
    Discriminator("type"),
]
_AssistantPart: TypeAlias = Annotated[
    ChatCompletionContentPartTextParam | ChatCompletionContentPartRefusalParam,
    Discriminator("type"),
]

#: A string, or a non-empty array of text parts (system, developer, tool, prediction).
TextContent: TypeAlias = Annotated[
    Annotated[str, Tag("string")]
    | Annotated[list[ChatCompletionContentPartTextParam], Field(min_length=1), Tag("array")],
    json_type_union(_OBJECTS),
]
UserContent: TypeAlias = Annotated[
    Annotated[str, Tag("string")]
    | Annotated[list[ChatCompletionContentPartParam], Field(min_length=1), Tag("array")],
    json_type_union(_OBJECTS),
]
AssistantContent: TypeAlias = Annotated[
    Annotated[str, Tag("string")]
    | Annotated[list[_AssistantPart], Field(min_length=1), Tag("array")],
    json_type_union(_OBJECTS),
]


class FunctionCall(WireModel):
    """A function the assistant called (in a tool call, or the deprecated ``function_call``)."""

    name: str
    arguments: str


class ChatCompletionMessageFunctionToolCallParam(WireModel):
    id: str
    type: Literal["function"]
    function: FunctionCall


class Custom(WireModel):
    name: str
    input: str


class ChatCompletionMessageCustomToolCallParam(WireModel):
    id: str
    type: Literal["custom"]
    custom: Custom


ChatCompletionMessageToolCallUnionParam: TypeAlias = Annotated[
    ChatCompletionMessageFunctionToolCallParam | ChatCompletionMessageCustomToolCallParam,
    Discriminator("type"),
]


class MessageAudio(WireModel):
    """A previous audio reply, referred to by id."""

    id: str


class ChatCompletionSystemMessageParam(WireModel):
    role: Literal["system"]
    content: TextContent
    name: OmittableStr = None


class ChatCompletionDeveloperMessageParam(WireModel):
    role: Literal["developer"]
    content: TextContent
    name: OmittableStr = None


class ChatCompletionUserMessageParam(WireModel):
    role: Literal["user"]
    content: UserContent
    name: OmittableStr = None


class ChatCompletionAssistantMessageParam(WireModel):
    role: Literal["assistant"]
    content: AssistantContent | None = None
    refusal: str | None = None
    name: OmittableStr = None
    audio: MessageAudio | None = None
    # ``null`` is taken: it is what ``message.model_dump()`` of a reply sends back.
    tool_calls: list[ChatCompletionMessageToolCallUnionParam] | None = None
    function_call: FunctionCall | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None

    @property
    def has_payload(self) -> bool:
        """Does it say anything? The API wants content unless a call, refusal or audio is here."""
        return bool(
            self.content is not None
            or self.tool_calls
            or self.function_call is not None
            or self.refusal is not None
            or self.audio is not None
        )


class ChatCompletionToolMessageParam(WireModel):
    role: Literal["tool"]
    content: TextContent
    tool_call_id: str


class ChatCompletionFunctionMessageParam(WireModel):
    role: Literal["function"]
    content: str | None
    name: str


ChatCompletionMessageParam: TypeAlias = Annotated[
    ChatCompletionSystemMessageParam
    | ChatCompletionAssistantMessageParam
    | ChatCompletionUserMessageParam
    | ChatCompletionFunctionMessageParam
    | ChatCompletionToolMessageParam
    | ChatCompletionDeveloperMessageParam,
    Discriminator("role"),
]

_Part: TypeAlias = (
    ChatCompletionContentPartParam
    | ChatCompletionContentPartRefusalParam
    | ChatCompletionContentPartTextParam
)


def content_text(content: str | Sequence[_Part] | None) -> str:
    """The text of a content value: the string, or its text and refusal parts, one per line."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if isinstance(part, ChatCompletionContentPartTextParam):
            texts.append(part.text)
        elif isinstance(part, ChatCompletionContentPartRefusalParam):
            texts.append(part.refusal)
    return "\n".join(texts)
