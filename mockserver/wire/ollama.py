"""Ollama's request bodies (``/api/chat``, ``/api/generate``, ``/api/embed``,
``/api/embeddings``, ``/api/show``), checked as its server checks them.

Ollama's server decodes a body into Go structs (``api/types.go``): a field of the wrong JSON
type is refused with Go's decoder's sentence (``json: cannot unmarshal string into Go struct
field ChatRequest.messages of type []api.Message``), an unknown field is ignored, and a few
values are checked after (``model is required``, ``think``, ``format``). Lenient in, as the
server is: what passes here is what ``prompt/ollama.py`` reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.values import Json

__all__ = [
    "THINK_LEVELS",
    "check_chat_body",
    "check_embed_body",
    "check_embeddings_body",
    "check_generate_body",
    "check_show_body",
    "embed_inputs",
]

#: The levels ``think`` may name besides ``true``/``false``.
THINK_LEVELS: Final = ("high", "medium", "low", "max")

#: Go's names for the JSON types a value may have (``json: cannot unmarshal <this> into…``).
_GO_KINDS: Final = {
    bool: "bool",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _go_kind(value: Any) -> str:
    return _GO_KINDS.get(type(value), "object")


def _mismatch(value: Any, *, struct: str, field: str, go_type: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"json: cannot unmarshal {_go_kind(value)} into Go struct field {struct}.{field} of "
        f"type {go_type}",
        param=field,
    )


#: The typed fields of each request, as its Go struct declares them:
#: ``(field, Python types, Go type)``.
_Field = tuple[str, tuple[type, ...], str]
_COMMON: Final[tuple[_Field, ...]] = (
    ("model", (str,), "string"),
    ("stream", (bool,), "bool"),
    ("options", (dict,), "map[string]interface {}"),
    ("logprobs", (bool,), "bool"),
    ("top_logprobs", (int,), "int"),
)
_CHAT_FIELDS: Final[tuple[_Field, ...]] = (
    *_COMMON,
    ("messages", (list,), "[]api.Message"),
    ("tools", (list,), "api.Tools"),
)
_GENERATE_FIELDS: Final[tuple[_Field, ...]] = (
    *_COMMON,
    ("prompt", (str,), "string"),
    ("suffix", (str,), "string"),
    ("system", (str,), "string"),
    ("template", (str,), "string"),
    ("raw", (bool,), "bool"),
    ("images", (list,), "[]api.ImageData"),
    ("context", (list,), "[]int"),
)
_MESSAGE_FIELDS: Final[tuple[_Field, ...]] = (
    ("role", (str,), "string"),
    ("content", (str,), "string"),
    ("thinking", (str,), "string"),
    ("images", (list,), "[]api.ImageData"),
    ("tool_calls", (list,), "[]api.ToolCall"),
    ("tool_name", (str,), "string"),
    ("tool_call_id", (str,), "string"),
)


def _check_fields(
    body: Mapping[str, Any], fields: tuple[_Field, ...], *, struct: str, prefix: str = ""
) -> None:
    for name, types, go_type in fields:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise _mismatch(value, struct=struct, field=prefix + name, go_type=go_type)


def _check_model(body: Mapping[str, Any]) -> None:
    if not body.get("model"):
        raise InvalidRequestError("model is required", param="model")


def _check_think(body: Mapping[str, Any]) -> None:
    think = body.get("think")
    if think is None or isinstance(think, bool):
        return
    if isinstance(think, str):
        if think not in THINK_LEVELS:
            raise InvalidRequestError(
                f'invalid think value: "{think}" (must be "high", "medium", "low", "max", true, '
                "or false)",
                param="think",
            )
        return
    raise InvalidRequestError(
        'think must be a boolean or string ("high", "medium", "low", "max", true, or false)',
        param="think",
    )


def _check_format(body: Mapping[str, Any]) -> None:
    fmt = body.get("format")
    if fmt is None or fmt in ("", "json") or isinstance(fmt, dict):
        return
    written = fmt if isinstance(fmt, str) else repr(fmt)
    raise InvalidRequestError(
        f'invalid format: "{written}"; expected "json" or a valid JSON Schema object',
        param="format",
    )


def _check_options(body: Mapping[str, Any]) -> None:
    options = body.get("options") or {}
    stop = options.get("stop")
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise InvalidRequestError(
            f'option "stop" must be of type array, got {_go_kind(stop)}', param="options"
        )
    for name in ("num_predict", "seed", "num_ctx", "top_k"):
        value = options.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidRequestError(
                f'option "{name}" must be of type integer, got {_go_kind(value)}',
                param="options",
            )


def _check_messages(messages: list[Any]) -> None:
    for message in messages:
        if not isinstance(message, dict):
            raise _mismatch(message, struct="ChatRequest", field="messages", go_type="api.Message")
        _check_fields(message, _MESSAGE_FIELDS, struct="ChatRequest", prefix="messages.")
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            if not isinstance(function, dict) or not isinstance(arguments, dict | None):
                raise _mismatch(
                    arguments if isinstance(function, dict) else call,
                    struct="ChatRequest",
                    field="messages.tool_calls.function.arguments",
                    go_type="api.ToolCallFunctionArguments",
                )


def _check_tools(tools: list[Any]) -> None:
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise InvalidRequestError(
                "json: cannot unmarshal tools: each tool needs a function with a name",
                param="tools",
            )


def check_chat_body(body: Json) -> Json:
    """A ``/api/chat`` body, or Ollama's 400 for it."""
    _check_fields(body, _CHAT_FIELDS, struct="ChatRequest")
    _check_model(body)
    _check_messages(body.get("messages") or [])
    _check_tools(body.get("tools") or [])
    _check_think(body)
    _check_format(body)
    _check_options(body)
    return body


def check_generate_body(body: Json) -> Json:
    """A ``/api/generate`` body, or Ollama's 400 for it."""
    _check_fields(body, _GENERATE_FIELDS, struct="GenerateRequest")
    _check_model(body)
    if body.get("raw") and (body.get("template") or body.get("system") or body.get("context")):
        raise InvalidRequestError("raw mode does not support template, system, or context")
    _check_think(body)
    _check_format(body)
    _check_options(body)
    return body


def embed_inputs(body: Mapping[str, Any]) -> list[str]:
    """The texts an ``/api/embed`` body asks vectors for, or Ollama's 400."""
    value = body.get("input")
    if isinstance(value, str):
        return [value]
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidRequestError("invalid input type", param="input")


def check_embed_body(body: Json) -> list[str]:
    """An ``/api/embed`` body's inputs, or Ollama's 400 for it."""
    _check_fields(
        body,
        (*_COMMON[:1], ("truncate", (bool,), "bool"), ("dimensions", (int,), "int")),
        struct="EmbedRequest",
    )
    _check_model(body)
    return embed_inputs(body)


def check_embeddings_body(body: Json) -> str:
    """The older ``/api/embeddings`` body's prompt, or Ollama's 400 for it."""
    _check_fields(body, (*_COMMON[:1], ("prompt", (str,), "string")), struct="EmbeddingRequest")
    _check_model(body)
    prompt: str = body.get("prompt") or ""
    return prompt


def check_show_body(body: Json) -> str:
    """The model a ``/api/show`` body names (``model``, or the older ``name``)."""
    _check_fields(
        body,
        (*_COMMON[:1], ("name", (str,), "string"), ("verbose", (bool,), "bool")),
        struct="ShowRequest",
    )
    model = body.get("model") or body.get("name")
    if not model:
        raise InvalidRequestError("model is required", param="model")
    return str(model)
