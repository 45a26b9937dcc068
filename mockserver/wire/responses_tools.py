"""Responses API tools, ``tool_choice`` and ``text.format``, named as in openai-python.

Function and custom tools are checked field by field (the mock calls them); hosted tools are
checked for the fields the contract marks required and otherwise kept as sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag

from mockserver.wire.chat_tools import FUNCTION_NAME_PATTERN, SCHEMA_NAME_PATTERN
from mockserver.wire.validation import OmittableStr, WireModel, json_type_union, non_nullable

__all__ = [
    "CustomToolParam",
    "FunctionToolParam",
    "ResponseFormatTextConfig",
    "ResponseFormatTextJSONSchemaConfig",
    "ResponseTextConfig",
    "ToolChoice",
    "ToolChoiceAllowed",
    "ToolChoiceCustom",
    "ToolChoiceFunction",
    "ToolChoiceMcp",
    "ToolParam",
]

_STRING_OR_OBJECT = "one of a string or an object"


class FunctionToolParam(WireModel):
    type: Literal["function"]
    name: Annotated[str, Field(pattern=FUNCTION_NAME_PATTERN)]
    parameters: dict[str, Any] | None  # required by the contract, though it may be null
    strict: bool | None = None
    description: str | None = None


class CustomFormatText(WireModel):
    type: Literal["text"]


class CustomFormatGrammar(WireModel):
    type: Literal["grammar"]
    syntax: Literal["lark", "regex"]
    definition: str


class CustomToolParam(WireModel):
    type: Literal["custom"]
    name: Annotated[str, Field(pattern=FUNCTION_NAME_PATTERN)]
    description: OmittableStr = None
    format: Annotated[
        Annotated[CustomFormatText | CustomFormatGrammar, Discriminator("type")] | None,
        non_nullable("an object"),
    ] = None


class WebSearchToolParam(WireModel):
    type: Literal["web_search", "web_search_2025_08_26"]
    search_context_size: Literal["low", "medium", "high"] | None = None


class WebSearchPreviewToolParam(WireModel):
    type: Literal["web_search_preview", "web_search_preview_2025_03_11"]
    search_context_size: Literal["low", "medium", "high"] | None = None


class FileSearchToolParam(WireModel):
    type: Literal["file_search"]
    vector_store_ids: list[str]


class ComputerUsePreviewToolParam(WireModel):
    type: Literal["computer_use_preview"]
    display_width: int
    display_height: int
    environment: str


class ComputerToolParam(WireModel):
    type: Literal["computer"]


class McpToolParam(WireModel):
    type: Literal["mcp"]
    server_label: str
    server_url: str | None = None
    connector_id: str | None = None


class CodeInterpreterToolParam(WireModel):
    type: Literal["code_interpreter"]
    container: Annotated[
        Annotated[str, Tag("string")] | Annotated[dict[str, Any], Tag("object")],
        json_type_union(_STRING_OR_OBJECT),
    ]


class ImageGenerationToolParam(WireModel):
    type: Literal["image_generation"]


class LocalShellToolParam(WireModel):
    type: Literal["local_shell"]


class ShellToolParam(WireModel):
    type: Literal["shell"]


class ApplyPatchToolParam(WireModel):
    type: Literal["apply_patch"]


class NamespaceToolParam(WireModel):
    type: Literal["namespace"]
    name: str


class ToolSearchToolParam(WireModel):
    type: Literal["tool_search"]


class ProgrammaticToolCallingParam(WireModel):
    type: Literal["programmatic_tool_calling"]


ToolParam: TypeAlias = Annotated[
    FunctionToolParam
    | FileSearchToolParam
    | ComputerToolParam
    | ComputerUsePreviewToolParam
    | WebSearchToolParam
    | McpToolParam
    | CodeInterpreterToolParam
    | ProgrammaticToolCallingParam
    | ImageGenerationToolParam
    | LocalShellToolParam
    | ShellToolParam
    | CustomToolParam
    | NamespaceToolParam
    | ToolSearchToolParam
    | WebSearchPreviewToolParam
    | ApplyPatchToolParam,
    Discriminator("type"),
]


class ToolChoiceAllowed(WireModel):
    type: Literal["allowed_tools"]
    mode: Literal["auto", "required"]
    #: Tool references such as ``{"type": "function", "name": "get_weather"}``.
    tools: list[dict[str, Any]]


class ToolChoiceFunction(WireModel):
    type: Literal["function"]
    name: str


class ToolChoiceCustom(WireModel):
    type: Literal["custom"]
    name: str


class ToolChoiceMcp(WireModel):
    type: Literal["mcp"]
    server_label: str
    name: str | None = None


class ToolChoiceTypes(WireModel):
    """Force a hosted tool."""

    type: Literal[
        "file_search",
        "web_search_preview",
        "computer",
        "computer_use_preview",
        "computer_use",
        "web_search_preview_2025_03_11",
        "image_generation",
        "code_interpreter",
    ]


class ToolChoiceApplyPatch(WireModel):
    type: Literal["apply_patch"]


class ToolChoiceShell(WireModel):
    type: Literal["shell"]


class ToolChoiceProgrammatic(WireModel):
    type: Literal["programmatic_tool_calling"]


ToolChoice: TypeAlias = Annotated[
    Annotated[Literal["none", "auto", "required"], Tag("string")]
    | Annotated[
        Annotated[
            ToolChoiceAllowed
            | ToolChoiceTypes
            | ToolChoiceFunction
            | ToolChoiceMcp
            | ToolChoiceCustom
            | ToolChoiceProgrammatic
            | ToolChoiceApplyPatch
            | ToolChoiceShell,
            Discriminator("type"),
        ],
        Tag("object"),
    ],
    json_type_union(_STRING_OR_OBJECT),
]


class ResponseFormatText(WireModel):
    type: Literal["text"]


class ResponseFormatTextJSONSchemaConfig(WireModel):
    type: Literal["json_schema"]
    name: Annotated[str, Field(pattern=SCHEMA_NAME_PATTERN)]
    schema_: dict[str, Any] = Field(alias="schema")
    description: OmittableStr = None
    strict: bool | None = None


class ResponseFormatJSONObject(WireModel):
    type: Literal["json_object"]


ResponseFormatTextConfig: TypeAlias = Annotated[
    ResponseFormatText | ResponseFormatTextJSONSchemaConfig | ResponseFormatJSONObject,
    Discriminator("type"),
]


class ResponseTextConfig(WireModel):
    format: Annotated[ResponseFormatTextConfig | None, non_nullable("an object")] = None
    verbosity: Literal["low", "medium", "high"] | None = None
