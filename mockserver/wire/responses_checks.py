"""Cross-field checks the real API makes on a schema-valid Responses request.

Each check raises the API's 400 (message, ``param``, ``code``) or returns; they run in a fixed
order so the first problem reported is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, Protocol

from mockserver.errors import InvalidRequestError
from mockserver.wire.catalog import reasons, unsupported_reasoning
from mockserver.wire.responses_tools import (
    CustomToolParam,
    FunctionToolParam,
    ResponseFormatJSONObject,
    ResponseFormatTextJSONSchemaConfig,
    ToolChoiceAllowed,
    ToolChoiceCustom,
    ToolChoiceFunction,
    ToolChoiceMcp,
)
from mockserver.wire.schemas import check_function_schema, check_response_format_schema
from mockserver.wire.validation import check_metadata_keys

if TYPE_CHECKING:
    from mockserver.wire.responses import ResponseCreateParams

__all__ = ["check_compact_request", "check_responses_request"]


class _Context(Protocol):
    @property
    def previous_response_id(self) -> str | None: ...

    @property
    def conversation(self) -> object: ...


def check_compact_request(params: _Context) -> None:
    _one_conversation_source(params)


def check_responses_request(params: ResponseCreateParams) -> None:
    """Raise the first cross-field problem of ``params`` as an :class:`InvalidRequestError`."""
    for check in _CHECKS:
        check(params)


def _one_conversation_source(params: _Context) -> None:
    if params.previous_response_id is not None and params.conversation is not None:
        raise InvalidRequestError(
            "Mutually exclusive parameters: Ensure you are only providing one of: "
            "'previous_response_id' or 'conversation'.",
            code="mutually_exclusive_parameters",
        )


def _something_to_answer(params: ResponseCreateParams) -> None:
    sources = (params.input, params.previous_response_id, params.conversation, params.prompt)
    if all(source is None for source in sources):
        raise InvalidRequestError(
            "Missing required parameter: 'input'.",
            param="input",
            code="missing_required_parameter",
        )


def _stream_options_need_stream(params: ResponseCreateParams) -> None:
    if params.stream_options is not None and params.stream is not True:
        raise InvalidRequestError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )


def _background_needs_store(params: ResponseCreateParams) -> None:
    if params.background is True and params.store is False:
        raise InvalidRequestError(
            "Background mode requires 'store' to be true: a background response can only be "
            "polled if it is stored.",
            param="background",
            code="invalid_value",
        )


def _reasoning_needs_a_reasoning_model(params: ResponseCreateParams) -> None:
    reasoning = params.reasoning
    if reasoning is None or params.model is None or reasons(params.model):
        return
    for name in ("effort", "summary", "generate_summary"):
        if getattr(reasoning, name) is not None:
            raise unsupported_reasoning(f"reasoning.{name}")


def _metadata_keys_fit(params: ResponseCreateParams) -> None:
    check_metadata_keys(params.metadata)


def _offered(params: ResponseCreateParams) -> set[tuple[str, str]]:
    """``(type, name)`` of every function and custom tool; a name used twice is a 400."""
    names: set[str] = set()
    offered: set[tuple[str, str]] = set()
    for index, tool in enumerate(params.tools or ()):
        if not isinstance(tool, FunctionToolParam | CustomToolParam):
            continue
        if tool.name in names:
            raise InvalidRequestError(
                f"Invalid 'tools[{index}].name': duplicate tool name '{tool.name}'. Tool "
                "names must be unique.",
                param=f"tools[{index}].name",
                code="invalid_value",
            )
        names.add(tool.name)
        offered.add((tool.type, tool.name))
    return offered


def _tool_names_are_unique(params: ResponseCreateParams) -> None:
    _offered(params)


def _tool_choice_names_offered_tools(params: ResponseCreateParams) -> None:
    choice = params.tool_choice
    offered = _offered(params)
    if isinstance(choice, ToolChoiceFunction | ToolChoiceCustom):
        _require_offered(offered, choice.type, choice.name)
    elif isinstance(choice, ToolChoiceAllowed):
        for reference in choice.tools:
            kind, name = reference.get("type"), reference.get("name")
            if kind in ("function", "custom") and isinstance(name, str):
                _require_offered(offered, kind, name, param="tool_choice.tools")
    elif isinstance(choice, ToolChoiceMcp):
        labels = {getattr(t, "server_label", None) for t in params.tools or ()}
        if choice.server_label not in labels:
            raise InvalidRequestError(
                f"Tool choice 'mcp' with server_label '{choice.server_label}' not found in "
                "'tools' parameter.",
                param="tool_choice",
            )


def _require_offered(
    offered: set[tuple[str, str]], kind: str, name: str, *, param: str = "tool_choice"
) -> None:
    if (kind, name) not in offered:
        raise InvalidRequestError(
            f"Tool choice '{kind}' with name '{name}' not found in 'tools' parameter.",
            param=param,
        )


def _json_mode_is_asked_for(params: ResponseCreateParams) -> None:
    """JSON mode needs the word "json" in the input messages (``instructions`` do not count).
    Checked only when the request holds the whole conversation: an earlier turn (a previous
    response, a conversation, a stored prompt) may hold the word."""
    text = params.text
    if text is None or not isinstance(text.format, ResponseFormatJSONObject):
        return
    if params.previous_response_id or params.conversation or params.prompt:
        return
    given: Any = params.input
    if not isinstance(given, str):
        given = [item.model_dump(mode="json") for item in given or ()]
    if any("json" in value.lower() for value in _strings(given)):
        return
    raise InvalidRequestError(
        "Response input messages must contain the word 'json' in some form to use "
        "'text.format' of type 'json_object'.",
        param="text.format",
    )


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value (not its keys)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _schemas_hold(params: ResponseCreateParams) -> None:
    """Every schema is a JSON Schema, and one sent with ``strict: true`` keeps the Structured
    Outputs rules (``schemas``); ``text.format`` first, then the function tools in order. A
    function tool's ``strict`` left out is not checked for those (the API defaults it to true:
    a documented deviation)."""
    text_format = params.text.format if params.text is not None else None
    if isinstance(text_format, ResponseFormatTextJSONSchemaConfig):
        check_response_format_schema(
            text_format.schema_,
            name=text_format.name,
            param="text.format.schema",
            code="invalid_json_schema",
            strict=text_format.strict is True,
        )
    for index, tool in enumerate(params.tools or ()):
        if isinstance(tool, FunctionToolParam):
            check_function_schema(
                tool.parameters,
                name=tool.name,
                param=f"tools[{index}].parameters",
                strict=tool.strict is True,
            )


_CHECKS: Final[tuple[Callable[[ResponseCreateParams], None], ...]] = (
    _one_conversation_source,
    _reasoning_needs_a_reasoning_model,
    _something_to_answer,
    _stream_options_need_stream,
    _background_needs_store,
    _metadata_keys_fit,
    _tool_names_are_unique,
    _tool_choice_names_offered_tools,
    _json_mode_is_asked_for,
    _schemas_hold,
)
