"""Chat Completions tools, ``tool_choice``, ``response_format`` and the deprecated functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag

from mockserver.wire.validation import OmittableStr, WireModel, json_type_union, non_nullable

__all__ = [
    "FUNCTION_NAME_PATTERN",
    "SCHEMA_NAME_PATTERN",
    "ChatCompletionAllowedToolChoiceParam",
    "ChatCompletionAllowedToolsParam",
    "ChatCompletionCustomToolParam",
    "ChatCompletionFunctionCallOptionParam",
    "ChatCompletionFunctionToolParam",
    "ChatCompletionNamedToolChoiceCustomParam",
    "ChatCompletionNamedToolChoiceParam",
    "ChatCompletionToolChoiceOptionParam",
    "ChatCompletionToolUnionParam",
    "CustomDefinition",
    "CustomFormat",
    "CustomFormatGrammar",
    "CustomFormatGrammarGrammar",
    "CustomFormatText",
    "FunctionCallOption",
    "FunctionDefinition",
    "JSONSchema",
    "ResponseFormat",
    "ResponseFormatJSONObject",
    "ResponseFormatJSONSchema",
    "ResponseFormatText",
    "ToolName",
    "allowed_tool_name",
]

#: The spec allows letters, digits, ``_`` and ``-``; the seed tables add "at most one dot".
FUNCTION_NAME_PATTERN: Final = r"^[a-zA-Z0-9_.-]{1,64}$"
SCHEMA_NAME_PATTERN: Final = r"^[a-zA-Z0-9_-]{1,64}$"
_Parameters: TypeAlias = Annotated[dict[str, Any] | None, non_nullable("an object")]
_STRING_OR_OBJECT = "one of a string or an object"


class FunctionDefinition(WireModel):
    """A function tool's definition (also the item type of the deprecated ``functions``)."""

    name: Annotated[str, Field(pattern=FUNCTION_NAME_PATTERN)]
    description: OmittableStr = None
    parameters: _Parameters = None
    strict: bool | None = None


class ChatCompletionFunctionToolParam(WireModel):
    type: Literal["function"]
    function: FunctionDefinition

    @property
    def name(self) -> str:
        return self.function.name


class CustomFormatText(WireModel):
    type: Literal["text"]


class CustomFormatGrammarGrammar(WireModel):
    definition: str
    syntax: Literal["lark", "regex"]


class CustomFormatGrammar(WireModel):
    type: Literal["grammar"]
    grammar: CustomFormatGrammarGrammar


CustomFormat: TypeAlias = Annotated[CustomFormatText | CustomFormatGrammar, Discriminator("type")]


class CustomDefinition(WireModel):
    name: str
    description: OmittableStr = None
    format: Annotated[CustomFormat | None, non_nullable("an object")] = None


class ChatCompletionCustomToolParam(WireModel):
    type: Literal["custom"]
    custom: CustomDefinition

    @property
    def name(self) -> str:
        return self.custom.name


ChatCompletionToolUnionParam: TypeAlias = Annotated[
    ChatCompletionFunctionToolParam | ChatCompletionCustomToolParam, Discriminator("type")
]


class ChatCompletionAllowedToolsParam(WireModel):
    mode: Literal["auto", "required"]
    #: Free-form tool references, ``{"type": "function", "function": {"name": ...}}`` or so.
    tools: list[dict[str, Any]]


class ChatCompletionAllowedToolChoiceParam(WireModel):
    type: Literal["allowed_tools"]
    allowed_tools: ChatCompletionAllowedToolsParam


class ToolName(WireModel):
    name: str


class ChatCompletionNamedToolChoiceParam(WireModel):
    type: Literal["function"]
    function: ToolName


class ChatCompletionNamedToolChoiceCustomParam(WireModel):
    type: Literal["custom"]
    custom: ToolName


ChatCompletionToolChoiceOptionParam: TypeAlias = Annotated[
    Annotated[Literal["none", "auto", "required"], Tag("string")]
    | Annotated[
        Annotated[
            ChatCompletionAllowedToolChoiceParam
            | ChatCompletionNamedToolChoiceParam
            | ChatCompletionNamedToolChoiceCustomParam,
            Discriminator("type"),
        ],
        Tag("object"),
    ],
    json_type_union(_STRING_OR_OBJECT),
]


class ChatCompletionFunctionCallOptionParam(WireModel):
    name: str


FunctionCallOption: TypeAlias = Annotated[
    Annotated[Literal["none", "auto"], Tag("string")]
    | Annotated[ChatCompletionFunctionCallOptionParam, Tag("object")],
    json_type_union(_STRING_OR_OBJECT),
]


class ResponseFormatText(WireModel):
    type: Literal["text"]


class JSONSchema(WireModel):
    name: Annotated[str, Field(pattern=SCHEMA_NAME_PATTERN)]
    description: OmittableStr = None
    schema_: _Parameters = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormatJSONSchema(WireModel):
    type: Literal["json_schema"]
    json_schema: JSONSchema


class ResponseFormatJSONObject(WireModel):
    type: Literal["json_object"]


ResponseFormat: TypeAlias = Annotated[
    ResponseFormatText | ResponseFormatJSONSchema | ResponseFormatJSONObject,
    Discriminator("type"),
]


def allowed_tool_name(reference: Mapping[str, Any]) -> tuple[str, str | None]:
    """``(kind, name)`` of an ``allowed_tools.tools`` entry; ``name`` is None if it has none."""
    kind = reference.get("type")
    kind = kind if kind in ("function", "custom") else "function"
    nested = reference.get(kind)
    name = nested.get("name") if isinstance(nested, Mapping) else reference.get("name")
    return kind, name if isinstance(name, str) else None
