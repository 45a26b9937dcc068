"""Cross-field checks the real API makes on a schema-valid Chat Completions request.

Each check raises the API's 400 (message, ``param``, ``code``) or returns; they run in a fixed
order so the first problem reported is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.wire.catalog import reasons, unsupported_reasoning
from mockserver.wire.chat_messages import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionToolMessageParam,
    content_text,
)
from mockserver.wire.chat_tools import (
    ChatCompletionAllowedToolChoiceParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionNamedToolChoiceParam,
    ResponseFormatJSONObject,
    ResponseFormatJSONSchema,
    allowed_tool_name,
)
from mockserver.wire.schemas import check_function_schema, check_response_format_schema
from mockserver.wire.validation import check_metadata_keys

if TYPE_CHECKING:
    from mockserver.wire.chat import ChatCompletionCreateParams

__all__ = ["check_chat_request", "check_model_given"]


def check_model_given(data: Mapping[str, Any]) -> None:
    """The API routes on ``model`` before it validates anything, with its own message."""
    if data.get("model") in (None, ""):
        raise InvalidRequestError("you must provide a model parameter")


def check_chat_request(params: ChatCompletionCreateParams) -> None:
    """Raise the first cross-field problem of ``params`` as an :class:`InvalidRequestError`."""
    for check in _CHECKS:
        check(params)


def _only_one_choice(params: ChatCompletionCreateParams) -> None:
    if params.n is not None and params.n > 1:
        raise InvalidRequestError(
            f"Unsupported value: 'n' does not support {params.n}; only n=1 is supported.",
            param="n",
            code="unsupported_value",
        )


def _reasoning_needs_a_reasoning_model(params: ChatCompletionCreateParams) -> None:
    if params.reasoning_effort is not None and not reasons(params.model):
        raise unsupported_reasoning("reasoning_effort")


def _top_logprobs_needs_logprobs(params: ChatCompletionCreateParams) -> None:
    if params.top_logprobs is not None and params.logprobs is not True:
        raise InvalidRequestError(
            "Invalid value for 'top_logprobs': 'top_logprobs' is only allowed when 'logprobs' "
            "is true.",
            param="top_logprobs",
        )


def _stream_options_need_stream(params: ChatCompletionCreateParams) -> None:
    if params.stream_options is not None and params.stream is not True:
        raise InvalidRequestError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )


def _assistant_messages_say_something(params: ChatCompletionCreateParams) -> None:
    for index, message in enumerate(params.messages):
        if isinstance(message, ChatCompletionAssistantMessageParam) and not message.has_payload:
            raise InvalidRequestError(
                "Invalid value for 'content': expected a string, got null.",
                param=f"messages[{index}].content",
            )


def _tool_messages_answer_tool_calls(params: ChatCompletionCreateParams) -> None:
    """A tool message answers a call of the assistant message just before it (after its
    siblings), and every call of that message is answered before the conversation goes on.
    The ``param`` paths are in the API's older ``messages.[i]`` form, as it sends them."""
    calls: tuple[str, ...] = ()  # the tool call ids of the assistant message being answered
    waiting: list[str] = []
    for index, message in enumerate(params.messages):
        if isinstance(message, ChatCompletionToolMessageParam):
            if not calls:
                raise InvalidRequestError(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",  # sic: the API's spelling
                    param=f"messages.[{index}].role",
                )
            if message.tool_call_id not in calls:
                raise InvalidRequestError(
                    f"Invalid parameter: 'tool_call_id' of '{message.tool_call_id}' not found "
                    "in 'tool_calls' of previous message.",
                    param=f"messages.[{index}].tool_call_id",
                )
            if message.tool_call_id in waiting:
                waiting.remove(message.tool_call_id)
            continue
        if waiting:
            raise InvalidRequestError(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(waiting)}",
                param=f"messages.[{index}].role",
            )
        calls = ()
        if isinstance(message, ChatCompletionAssistantMessageParam) and message.tool_calls:
            calls = tuple(call.id for call in message.tool_calls)
            waiting = list(calls)


def _json_mode_is_asked_for(params: ChatCompletionCreateParams) -> None:
    """JSON mode needs the word "json" somewhere in the messages (any case)."""
    if not isinstance(params.response_format, ResponseFormatJSONObject):
        return
    for message in params.messages:
        content = getattr(message, "content", None)
        if "json" in content_text(content).lower():
            return
    raise InvalidRequestError(
        "'messages' must contain the word 'json' in some form, to use 'response_format' of "
        "type 'json_object'.",
        param="messages",
    )


def _metadata_keys_fit(params: ChatCompletionCreateParams) -> None:
    check_metadata_keys(params.metadata)


def _tool_names_are_valid_and_unique(params: ChatCompletionCreateParams) -> None:
    for names in (_tool_name_params(params), _function_name_params(params)):
        seen: dict[str, str] = {}
        for param, name, is_function in names:
            if is_function and name.count(".") > 1:
                raise InvalidRequestError(
                    f"Invalid '{param}': '{name}' contains more than one '.'. Function names "
                    "may contain letters, digits, underscores, dashes and at most one dot.",
                    param=param,
                    code="invalid_value",
                )
            if name in seen:
                raise InvalidRequestError(
                    f"Invalid '{param}': duplicate tool name '{name}', already used by "
                    f"'{seen[name]}'. Tool names must be unique.",
                    param=param,
                    code="invalid_value",
                )
            seen[name] = param


def _tool_name_params(params: ChatCompletionCreateParams) -> Iterator[tuple[str, str, bool]]:
    for index, tool in enumerate(params.tools or ()):
        is_function = isinstance(tool, ChatCompletionFunctionToolParam)
        yield f"tools[{index}].{tool.type}.name", tool.name, is_function


def _function_name_params(params: ChatCompletionCreateParams) -> Iterator[tuple[str, str, bool]]:
    for index, function in enumerate(params.functions or ()):
        yield f"functions[{index}].name", function.name, True


def _tool_choice_names_offered_tools(params: ChatCompletionCreateParams) -> None:
    choice = params.tool_choice
    if choice is None or choice in ("none", "auto"):
        return
    if not params.tools:
        raise InvalidRequestError(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            param="tool_choice",
        )
    offered: set[tuple[str, str]] = {(tool.type, tool.name) for tool in params.tools}
    if isinstance(choice, ChatCompletionAllowedToolChoiceParam):
        for index, reference in enumerate(choice.allowed_tools.tools):
            kind, name = allowed_tool_name(reference)
            _require_offered(offered, kind, name, source=f"'allowed_tools.tools[{index}]'")
    elif isinstance(choice, ChatCompletionNamedToolChoiceParam):
        _require_offered(offered, "function", choice.function.name)
    elif not isinstance(choice, str):
        _require_offered(offered, "custom", choice.custom.name)


def _require_offered(
    offered: set[tuple[str, str]], kind: str, name: str | None, *, source: str | None = None
) -> None:
    if name is None:
        raise InvalidRequestError(
            f"Invalid value for 'tool_choice': {source} does not name a tool. Expected e.g. "
            '{"type": "function", "function": {"name": "my_function"}}.',
            param="tool_choice",
            code="invalid_value",
        )
    if (kind, name) in offered:
        return
    tool = f"{'function' if kind == 'function' else 'custom tool'} '{name}'"
    subject = f"{source} refers to {tool}, which" if source else tool
    raise InvalidRequestError(
        f"Invalid value for 'tool_choice': {subject} is not one of the tools in 'tools'.",
        param="tool_choice",
        code="invalid_value",
    )


def _function_call_names_offered_function(params: ChatCompletionCreateParams) -> None:
    choice = params.function_call
    if choice is None or isinstance(choice, str):
        return
    if not params.functions:
        raise InvalidRequestError(
            "Invalid value for 'function_call': 'function_call' is only allowed when "
            "'functions' are specified.",
            param="function_call",
        )
    if choice.name not in {function.name for function in params.functions}:
        raise InvalidRequestError(
            f"Invalid value for 'function_call': function '{choice.name}' is not one of the "
            "functions in 'functions'.",
            param="function_call",
            code="invalid_value",
        )


def _schemas_hold(params: ChatCompletionCreateParams) -> None:
    """Every schema is a JSON Schema, and one sent with ``strict: true`` keeps the Structured
    Outputs rules (``schemas``); the ``response_format`` first, then the function tools."""
    response_format = params.response_format
    if isinstance(response_format, ResponseFormatJSONSchema):
        json_schema = response_format.json_schema
        check_response_format_schema(
            json_schema.schema_,
            name=json_schema.name,
            param="response_format",
            code=None,
            strict=json_schema.strict is True,
        )
    for index, tool in enumerate(params.tools or ()):
        if isinstance(tool, ChatCompletionFunctionToolParam):
            check_function_schema(
                tool.function.parameters,
                name=tool.name,
                param=f"tools[{index}].function.parameters",
                strict=tool.function.strict is True,
            )


_CHECKS: Final[tuple[Callable[[ChatCompletionCreateParams], None], ...]] = (
    _only_one_choice,
    _reasoning_needs_a_reasoning_model,
    _top_logprobs_needs_logprobs,
    _stream_options_need_stream,
    _assistant_messages_say_something,
    _tool_messages_answer_tool_calls,
    _json_mode_is_asked_for,
    _metadata_keys_fit,
    _tool_names_are_valid_and_unique,
    _tool_choice_names_offered_tools,
    _function_call_names_offered_function,
    _schemas_hold,
)
