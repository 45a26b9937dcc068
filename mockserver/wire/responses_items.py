"""Responses API input items and their content parts, named as in openai-python.

Lenient in: every item type of the contract is accepted with the fields it requires; optional
fields and unknown keys are not checked (the item is kept as sent, for storage and echo). A
message may leave out ``type`` (the ``EasyInputMessage`` form), so the union's discriminator
defaults it to ``"message"``. The union's member order is the order the API lists the
supported ``type`` values in its error message.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BeforeValidator, Discriminator, Tag

from mockserver.wire.validation import OmittableStr, WireModel, json_type_union

__all__ = [
    "ContentPart",
    "FunctionCallItem",
    "FunctionCallOutputItem",
    "InputFileParam",
    "InputImageParam",
    "InputTextParam",
    "ItemReferenceItem",
    "MessageItem",
    "OutputTextParam",
    "RefusalParam",
    "ResponseInput",
    "ResponseInputItem",
]

_OBJECTS = "one of a string or array of objects"
_Status: TypeAlias = Literal["in_progress", "completed", "incomplete"]


class InputTextParam(WireModel):
    type: Literal["input_text"]
    text: str


class InputImageParam(WireModel):
    type: Literal["input_image"]
    detail: Literal["low", "high", "auto", "original"] | None = None
    file_id: str | None = None
    image_url: str | None = None


class InputFileParam(WireModel):
    type: Literal["input_file"]
    file_data: OmittableStr = None
    file_id: str | None = None
    file_url: OmittableStr = None
    filename: OmittableStr = None


class InputAudioData(WireModel):
    data: str
    format: Literal["mp3", "wav"]


class InputAudioParam(WireModel):
    type: Literal["input_audio"]
    input_audio: InputAudioData


class OutputTextParam(WireModel):
    """A previous answer's text part, fed back as input."""

    type: Literal["output_text"]
    text: str
    annotations: list[dict[str, Any]] | None = None
    logprobs: list[dict[str, Any]] | None = None


class RefusalParam(WireModel):
    type: Literal["refusal"]
    refusal: str


ContentPart: TypeAlias = Annotated[
    InputTextParam
    | InputImageParam
    | InputFileParam
    | InputAudioParam
    | OutputTextParam
    | RefusalParam,
    Discriminator("type"),
]
_ToolOutputPart: TypeAlias = Annotated[
    InputTextParam | InputImageParam | InputFileParam, Discriminator("type")
]
MessageContent: TypeAlias = Annotated[
    Annotated[str, Tag("string")] | Annotated[list[ContentPart], Tag("array")],
    json_type_union(_OBJECTS),
]
ToolOutput: TypeAlias = Annotated[
    Annotated[str, Tag("string")] | Annotated[list[_ToolOutputPart], Tag("array")],
    json_type_union(_OBJECTS),
]


class MessageItem(WireModel):
    """An input message, or a previous output message fed back (``role: assistant``)."""

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: MessageContent
    id: str | None = None
    status: _Status | None = None


class FunctionCallItem(WireModel):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None
    status: _Status | None = None


class FunctionCallOutputItem(WireModel):
    type: Literal["function_call_output"]
    call_id: str
    output: ToolOutput
    id: str | None = None
    status: _Status | None = None


class CustomToolCallItem(WireModel):
    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str
    id: str | None = None


class CustomToolCallOutputItem(WireModel):
    type: Literal["custom_tool_call_output"]
    call_id: str
    output: ToolOutput
    id: str | None = None


class SummaryTextParam(WireModel):
    type: Literal["summary_text"]
    text: str


class ReasoningItem(WireModel):
    type: Literal["reasoning"]
    summary: list[SummaryTextParam]
    id: str | None = None
    encrypted_content: str | None = None
    content: list[dict[str, Any]] | None = None


class ItemReferenceItem(WireModel):
    type: Literal["item_reference"]
    id: str


class CompactionItem(WireModel):
    type: Literal["compaction"]
    encrypted_content: str
    id: str | None = None


class WebSearchCallItem(WireModel):
    type: Literal["web_search_call"]
    id: str
    status: str
    action: dict[str, Any]


class FileSearchCallItem(WireModel):
    type: Literal["file_search_call"]
    id: str
    queries: list[str]
    status: str


class ComputerCallItem(WireModel):
    type: Literal["computer_call"]
    call_id: str
    id: str | None = None
    action: dict[str, Any] | None = None
    actions: list[dict[str, Any]] | None = None


class ComputerCallOutputItem(WireModel):
    type: Literal["computer_call_output"]
    call_id: str
    output: dict[str, Any]


class LocalShellCallItem(WireModel):
    type: Literal["local_shell_call"]
    id: str
    call_id: str
    status: str
    action: dict[str, Any]


class LocalShellCallOutputItem(WireModel):
    type: Literal["local_shell_call_output"]
    id: str
    output: str


class ShellCallItem(WireModel):
    type: Literal["shell_call"]
    call_id: str
    action: dict[str, Any]


class ShellCallOutputItem(WireModel):
    type: Literal["shell_call_output"]
    call_id: str
    output: list[dict[str, Any]]


class ApplyPatchCallItem(WireModel):
    type: Literal["apply_patch_call"]
    call_id: str
    status: str
    operation: dict[str, Any]


class ApplyPatchCallOutputItem(WireModel):
    type: Literal["apply_patch_call_output"]
    call_id: str
    status: str
    output: str | None = None


class McpListToolsItem(WireModel):
    type: Literal["mcp_list_tools"]
    id: str
    server_label: str
    tools: list[dict[str, Any]]


class McpApprovalRequestItem(WireModel):
    type: Literal["mcp_approval_request"]
    id: str
    server_label: str
    name: str
    arguments: str


class McpApprovalResponseItem(WireModel):
    type: Literal["mcp_approval_response"]
    approval_request_id: str
    approve: bool


class McpCallItem(WireModel):
    type: Literal["mcp_call"]
    id: str
    server_label: str
    name: str
    arguments: str
    output: str | None = None


class ImageGenerationCallItem(WireModel):
    type: Literal["image_generation_call"]
    id: str
    status: str


class CodeInterpreterCallItem(WireModel):
    type: Literal["code_interpreter_call"]
    id: str
    status: str
    container_id: str
    code: str | None = None


class ToolSearchCallItem(WireModel):
    type: Literal["tool_search_call"]


class ToolSearchOutputItem(WireModel):
    type: Literal["tool_search_output"]


class AdditionalToolsItem(WireModel):
    type: Literal["additional_tools"]


class CompactionTriggerItem(WireModel):
    type: Literal["compaction_trigger"]


class ProgramItem(WireModel):
    type: Literal["program"]


class ProgramOutputItem(WireModel):
    type: Literal["program_output"]


def _default_message_type(value: Any) -> Any:
    if isinstance(value, dict) and "type" not in value:
        return {**value, "type": "message"}
    return value


ResponseInputItem: TypeAlias = Annotated[
    Annotated[
        MessageItem
        | FunctionCallItem
        | FunctionCallOutputItem
        | CustomToolCallItem
        | CustomToolCallOutputItem
        | ReasoningItem
        | ItemReferenceItem
        | CompactionItem
        | WebSearchCallItem
        | FileSearchCallItem
        | ComputerCallItem
        | ComputerCallOutputItem
        | LocalShellCallItem
        | LocalShellCallOutputItem
        | ShellCallItem
        | ShellCallOutputItem
        | ApplyPatchCallItem
        | ApplyPatchCallOutputItem
        | McpListToolsItem
        | McpApprovalRequestItem
        | McpApprovalResponseItem
        | McpCallItem
        | ImageGenerationCallItem
        | CodeInterpreterCallItem
        | ToolSearchCallItem
        | ToolSearchOutputItem
        | AdditionalToolsItem
        | CompactionTriggerItem
        | ProgramItem
        | ProgramOutputItem,
        Discriminator("type"),
    ],
    BeforeValidator(_default_message_type),
]

#: ``input``: a string (one user message) or a list of items.
ResponseInput: TypeAlias = Annotated[
    Annotated[str, Tag("string")] | Annotated[list[ResponseInputItem], Tag("array")],
    json_type_union(_OBJECTS),
]
