"""What Anthropic's Messages API refuses that its schema cannot say: a conversation's shape
(empty messages and text blocks, blocks in a role that cannot send them, ``tool_use`` ids
answered in the next message and ``tool_result`` ids asked in the one before), tools and
``tool_choice``, and the thinking rules (the budget under ``max_tokens``, no forced tool, and
a tool loop's assistant turn that starts with its thinking). Each refusal is the API's own
words, located as its schema's are (``messages.1: …``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mockserver.errors import InvalidRequestError
from mockserver.wire.messages import (
    MessageParam,
    MessagesRequest,
    TextBlock,
    ThinkingAdaptive,
    ThinkingEnabled,
    TokenCountRequest,
    ToolChoiceAny,
    ToolChoiceTool,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = ["check_conversation"]

_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

#: The blocks each role may send (a system message: text only).
_ASSISTANT_ONLY: Final = frozenset(
    {"tool_use", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use"}
)
_USER_ONLY: Final = frozenset({"tool_result", "image", "document", "search_result"})


def check_conversation(request: TokenCountRequest) -> None:
    """Raise the API's 400 for what the schema let through but the API refuses."""
    _check_messages(request.messages)
    _check_system(request.system)
    _check_tools(request)
    _check_thinking(request)


def _refuse(message: str) -> InvalidRequestError:
    return InvalidRequestError(message)


def _check_messages(messages: Sequence[MessageParam]) -> None:
    if not messages:
        raise _refuse("messages: at least one message is required")
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if not message.content and not (index == last and message.role == "assistant"):
            raise _refuse(
                f"messages.{index}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        for place, block in enumerate(message.content):
            if isinstance(block, TextBlock) and not block.text:
                raise _refuse("messages: text content blocks must be non-empty")
            _check_role(message.role, block.type, f"messages.{index}.content.{place}")
    for index, message in enumerate(messages):
        if message.role == "assistant" and index < last:
            _check_answered(index, message, messages[index + 1])
        if message.role == "user":
            _check_asked(index, message, messages[index - 1] if index else None)


def _check_role(role: str, kind: str, where: str) -> None:
    if role == "system" and kind != "text":
        raise _refuse(f"{where}: system messages may only contain `text` blocks")
    if role == "user" and kind in _ASSISTANT_ONLY:
        raise _refuse(f"{where}: `{kind}` blocks can only be in `assistant` messages")
    if role == "assistant" and kind in _USER_ONLY:
        raise _refuse(f"{where}: `{kind}` blocks can only be in `user` messages")


def _check_answered(index: int, message: MessageParam, after: MessageParam) -> None:
    """Every ``tool_use`` of an assistant message is answered in the next message."""
    asked = [b.id for b in message.content if isinstance(b, ToolUseBlock)]
    if not asked:
        return
    answered = {b.tool_use_id for b in after.content if isinstance(b, ToolResultBlock)}
    missing = [call for call in asked if call not in answered]
    if missing:
        raise _refuse(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )


def _check_asked(index: int, message: MessageParam, before: MessageParam | None) -> None:
    """Every ``tool_result`` answers a ``tool_use`` of the message before."""
    asked = set()
    if before is not None:
        asked = {b.id for b in before.content if isinstance(b, ToolUseBlock)}
    for place, block in enumerate(message.content):
        if isinstance(block, ToolResultBlock) and block.tool_use_id not in asked:
            raise _refuse(
                f"messages.{index}.content.{place}: unexpected `tool_use_id` found in "
                f"`tool_result` blocks: {block.tool_use_id}. Each `tool_result` block must "
                "have a corresponding `tool_use` block in the previous message."
            )


def _check_system(system: Sequence[TextBlock] | None) -> None:
    if any(not block.text for block in system or ()):
        raise _refuse("system: text content blocks must be non-empty")


def _check_tools(request: TokenCountRequest) -> None:
    names = [tool.name for tool in request.tools or ()]
    if len(set(names)) != len(names):
        raise _refuse("tools: Tool names must be unique.")
    choice = request.tool_choice
    if isinstance(choice, ToolChoiceAny | ToolChoiceTool) and not names:
        raise _refuse("tool_choice: `tool_choice` may only be specified while providing tools.")
    if isinstance(choice, ToolChoiceTool) and choice.name not in names:
        raise _refuse(f"tool_choice.tool.name: Tool '{choice.name}' not found in tools.")


def _check_thinking(request: TokenCountRequest) -> None:
    thinking = request.thinking
    if not isinstance(thinking, ThinkingEnabled | ThinkingAdaptive):
        return
    if isinstance(request, MessagesRequest):
        if isinstance(thinking, ThinkingEnabled) and thinking.budget_tokens >= request.max_tokens:
            raise _refuse(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                f"documentation at {_DOCS}#max-tokens-and-context-window-size"
            )
        if request.temperature is not None and request.temperature != 1:
            raise _refuse(
                "`temperature` may only be set to 1 when thinking is enabled. Please consult "
                f"our documentation at {_DOCS}#feature-compatibility"
            )
    if isinstance(request.tool_choice, ToolChoiceAny | ToolChoiceTool):
        raise _refuse("Thinking may not be enabled when tool_choice forces tool use.")
    _check_thinking_first(request.messages)


def _check_thinking_first(messages: Sequence[MessageParam]) -> None:
    """A tool loop's continuation (the last message answers the tool calls of the assistant
    message before it) keeps that assistant message's thinking first."""
    if len(messages) < 2:
        return
    last, turn = messages[-1], messages[-2]
    if last.role != "user" or turn.role != "assistant":
        return
    if not any(isinstance(b, ToolResultBlock) for b in last.content):
        return
    if not any(isinstance(b, ToolUseBlock) for b in turn.content):
        return
    first = turn.content[0].type
    if first not in ("thinking", "redacted_thinking"):
        raise _refuse(
            f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or "
            f"`redacted_thinking`, but found `{first}`. When `thinking` is enabled, a final "
            "`assistant` message must start with a thinking block (preceeding the lastmost set "
            "of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks "
            "from previous turns. To avoid this requirement, disable `thinking`. Please consult "
            f"our documentation at {_DOCS}"
        )
