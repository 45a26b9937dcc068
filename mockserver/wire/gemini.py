"""The Gemini API's requests: ``generateContent`` (and its stream), ``countTokens``,
``embedContent`` and ``batchEmbedContents``, checked with the API's own 400s.

Google's JSON is protobuf's: a field may be sent in camelCase (what google-genai sends) or in
its proto name (``max_output_tokens``), so a body is first written in camelCase throughout
(:func:`camel_body`; free-form values — a call's ``args``, a JSON Schema — are kept as sent),
and everything after reads that one spelling. A field the API does not know is refused as the
API refuses it (``Unknown name "x" at 'generation_config': Cannot find field.``); a value of the
wrong type names its path in proto names (``generation_config.max_output_tokens``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.values import Json

__all__ = [
    "FUNCTION_CALLING_MODES",
    "GeminiRequestError",
    "camel_body",
    "check_batch_embed_body",
    "check_count_tokens_body",
    "check_embed_body",
    "check_generate_body",
    "check_signatures",
    "needs_signatures",
    "snake",
]

#: The modes of ``toolConfig.functionCallingConfig``.
FUNCTION_CALLING_MODES: Final = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
_ROLES: Final = ("user", "model")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
#: Values kept as sent: free-form JSON (a call's arguments, a result, a JSON Schema, labels).
_FREE: Final = frozenset(
    {
        "args",
        "response",
        "parametersJsonSchema",
        "responseJsonSchema",
        "labels",
        "default",
        "example",
        "enum",
        "partialArgs",
    }
)
#: Maps whose keys are the user's names (a schema's properties), their values proto objects.
_NAMED: Final = frozenset({"properties", "defs", "$defs"})

_REQUEST_FIELDS: Final = frozenset(
    {
        "model",
        "contents",
        "systemInstruction",
        "tools",
        "toolConfig",
        "safetySettings",
        "generationConfig",
        "cachedContent",
        "labels",
        "serviceTier",
        "store",
        "modelArmorConfig",
    }
)
_GENERATION_FIELDS: Final = frozenset(
    {
        "stopSequences",
        "responseMimeType",
        "responseSchema",
        "responseJsonSchema",
        "_responseJsonSchema",
        "responseModalities",
        "candidateCount",
        "maxOutputTokens",
        "temperature",
        "topP",
        "topK",
        "seed",
        "presencePenalty",
        "frequencyPenalty",
        "responseLogprobs",
        "logprobs",
        "enableEnhancedCivicAnswers",
        "speechConfig",
        "thinkingConfig",
        "imageConfig",
        "mediaResolution",
        "audioTimestamp",
        "routingConfig",
        "modelSelectionConfig",
    }
)
_THINKING_FIELDS: Final = frozenset({"includeThoughts", "thinkingBudget", "thinkingLevel"})
_THINKING_LEVELS: Final = ("THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH")
_CONTENT_FIELDS: Final = frozenset({"role", "parts"})
_DATA_FIELDS: Final = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
)
_PART_FIELDS: Final = frozenset(
    {
        *_DATA_FIELDS,
        "thought",
        "thoughtSignature",
        "videoMetadata",
        "partMetadata",
        "mediaResolution",
    }
)


class GeminiRequestError(InvalidRequestError):
    """A request the Gemini API refuses: INVALID_ARGUMENT, with a ``BadRequest`` detail."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        details: list[Json] = []
        if field is not None:
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [{"field": field, "description": message}],
                }
            )
        super().__init__(message, extra={"details": details} if details else None)


def _camel_key(key: str) -> str:
    if "_" not in key.strip("_") or key.startswith(("@", "$")):
        return key
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def snake(path: str) -> str:
    """A camelCase path as Google's messages name it (``generation_config.max_output_tokens``)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), path)


def camel_body(value: Any) -> Any:
    """``value`` with every proto field written in camelCase (free-form values as they are)."""
    if isinstance(value, Mapping):
        written: Json = {}
        for key, item in value.items():
            name = _camel_key(key) if isinstance(key, str) else key
            if name in _FREE:
                written[name] = item
            elif name in _NAMED and isinstance(item, Mapping):
                written[name] = {k: camel_body(v) for k, v in item.items()}
            else:
                written[name] = camel_body(item)
        return written
    if isinstance(value, list):
        return [camel_body(item) for item in value]
    return value


def _unknown(value: Mapping[str, Any], known: frozenset[str], *, at: str) -> None:
    for name in value:
        if name not in known:
            where = f" at '{snake(at)}'" if at else ""
            raise GeminiRequestError(
                f'Invalid JSON payload received. Unknown name "{name}"{where}: Cannot find field.',
                field=snake(at),
            )


def _invalid(at: str, kind: str, value: Any) -> GeminiRequestError:
    shown = value if isinstance(value, str) else repr(value)
    return GeminiRequestError(
        f"Invalid value at '{snake(at)}' ({kind}), \"{shown}\"", field=snake(at)
    )


def _object(value: Any, *, at: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GeminiRequestError(
            f"Invalid JSON payload received. Expected an object at '{snake(at)}'.", field=snake(at)
        )
    return value


def _list(value: Any, *, at: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise GeminiRequestError(
            f"Invalid JSON payload received. Expected a list at '{snake(at)}'.", field=snake(at)
        )
    return value


def _int(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise _invalid(f"{at}.{name}", "TYPE_INT32", value)


def _number(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise _invalid(f"{at}.{name}", "TYPE_FLOAT", value)


def _bool(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and not isinstance(value, bool):
        raise _invalid(f"{at}.{name}", "TYPE_BOOL", value)


def _check_part(part: Any, *, at: str) -> None:
    part = _object(part, at=at)
    _unknown(part, _PART_FIELDS, at=at)
    present = [name for name in _DATA_FIELDS if name in part]
    if not present:
        raise GeminiRequestError(
            f"* GenerateContentRequest.{snake(at)}.data: required oneof field 'data' must have "
            "one initialized field\n",
            field=f"{snake(at)}.data",
        )
    if "text" in part and not isinstance(part["text"], str):
        raise _invalid(f"{at}.text", "TYPE_STRING", part["text"])
    for name in ("functionCall", "functionResponse"):
        if name in part:
            call = _object(part[name], at=f"{at}.{name}")
            if not isinstance(call.get("name"), str) or not call["name"]:
                raise GeminiRequestError(
                    f"* GenerateContentRequest.{snake(at)}.{snake(name)}.name: Name cannot be "
                    "empty.\n",
                    field=f"{snake(at)}.{snake(name)}.name",
                )
    _bool(part, "thought", at=at)


def _check_content(content: Any, *, at: str, request: str) -> None:
    content = _object(content, at=at)
    _unknown(content, _CONTENT_FIELDS, at=at)
    role = content.get("role")
    if role is not None and role not in _ROLES and at != "systemInstruction":
        raise GeminiRequestError("Please use a valid role: user, model.")
    parts = _list(content.get("parts", []), at=f"{at}.parts")
    if not parts:
        raise GeminiRequestError(
            f"* {request}.{snake(at)}.parts: contents.parts must not be empty.\n",
            field=f"{snake(at)}.parts",
        )
    for index, part in enumerate(parts):
        _check_part(part, at=f"{at}.parts[{index}]")


def _check_contents(body: Mapping[str, Any], *, request: str) -> None:
    contents = _list(body.get("contents", []), at="contents")
    if not contents:
        raise GeminiRequestError(
            f"* {request}.contents: contents is not specified\n", field="contents"
        )
    for index, content in enumerate(contents):
        _check_content(content, at=f"contents[{index}]", request=request)


def _check_tools(body: Mapping[str, Any]) -> None:
    for index, tool in enumerate(_list(body.get("tools", []), at="tools")):
        at = f"tools[{index}]"
        tool = _object(tool, at=at)
        declarations = _list(tool.get("functionDeclarations", []), at=f"{at}.functionDeclarations")
        for number, declaration in enumerate(declarations):
            where = f"{at}.functionDeclarations[{number}]"
            declaration = _object(declaration, at=where)
            name = declaration.get("name")
            if not isinstance(name, str) or not _FUNCTION_NAME.fullmatch(name):
                raise GeminiRequestError(
                    f"* GenerateContentRequest.{snake(where)}.name: Invalid function name. Must "
                    "start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), "
                    "underscores (_), dots (.), colons (:), or dashes (-), with a maximum "
                    "length of 64.\n",
                    field=f"{snake(where)}.name",
                )
            if "parameters" in declaration and "parametersJsonSchema" in declaration:
                raise GeminiRequestError(
                    f"* GenerateContentRequest.{snake(where)}: parameters and "
                    "parameters_json_schema cannot be set at the same time.\n",
                    field=snake(where),
                )


def _check_tool_config(body: Mapping[str, Any]) -> None:
    config = _object(body.get("toolConfig", {}), at="toolConfig")
    calling = _object(
        config.get("functionCallingConfig", {}), at="toolConfig.functionCallingConfig"
    )
    at = "toolConfig.functionCallingConfig"
    mode = calling.get("mode", "AUTO")
    if mode not in FUNCTION_CALLING_MODES:
        kind = "type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode"
        raise _invalid(f"{at}.mode", kind, mode)
    allowed = calling.get("allowedFunctionNames")
    if allowed is not None:
        names = _list(allowed, at=f"{at}.allowedFunctionNames")
        if names and mode not in ("ANY", "VALIDATED"):
            raise GeminiRequestError(
                f"* GenerateContentRequest.{snake(at)}.allowed_function_names: "
                "allowed_function_names can only be set when the mode is ANY.\n",
                field=f"{snake(at)}.allowed_function_names",
            )


def _check_generation(body: Mapping[str, Any]) -> None:
    at = "generationConfig"
    config = _object(body.get("generationConfig", {}), at=at)
    _unknown(config, _GENERATION_FIELDS, at=at)
    for name in ("candidateCount", "maxOutputTokens", "topK", "seed", "logprobs"):
        _int(config, name, at=at)
    for name in ("temperature", "topP", "presencePenalty", "frequencyPenalty"):
        _number(config, name, at=at)
    _bool(config, "responseLogprobs", at=at)
    stops = _list(config.get("stopSequences", []), at=f"{at}.stopSequences")
    if len(stops) > 5:
        raise GeminiRequestError(
            "* GenerateContentRequest.generation_config.stop_sequences: the number of stop "
            "sequences must not exceed 5.\n",
            field="generation_config.stop_sequences",
        )
    count = config.get("candidateCount")
    if count is not None and not 1 <= count <= 8:
        raise GeminiRequestError(
            "* GenerateContentRequest.generation_config.candidate_count: candidate_count must "
            "be between 1 and 8.\n",
            field="generation_config.candidate_count",
        )
    tokens = config.get("maxOutputTokens")
    if tokens is not None and tokens < 1:
        raise GeminiRequestError(
            "* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens "
            "must be positive.\n",
            field="generation_config.max_output_tokens",
        )
    mime = config.get("responseMimeType", "text/plain")
    if mime not in ("text/plain", "application/json", "text/x.enum"):
        raise GeminiRequestError(
            "* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes "
            "are `text/plain`, `application/json`, and `text/x.enum`.\n",
            field="generation_config.response_mime_type",
        )
    schema_given = "responseSchema" in config or "responseJsonSchema" in config
    if schema_given and mime == "text/plain":
        raise GeminiRequestError(
            "* GenerateContentRequest.generation_config.response_mime_type: "
            "response_mime_type must be set to application/json or text/x.enum when "
            "response_schema is set.\n",
            field="generation_config.response_mime_type",
        )
    thinking = _object(config.get("thinkingConfig", {}), at=f"{at}.thinkingConfig")
    _unknown(thinking, _THINKING_FIELDS, at=f"{at}.thinkingConfig")
    _bool(thinking, "includeThoughts", at=f"{at}.thinkingConfig")
    _int(thinking, "thinkingBudget", at=f"{at}.thinkingConfig")
    level = thinking.get("thinkingLevel")
    if level is not None and level not in _THINKING_LEVELS:
        kind = (
            "type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel"
        )
        raise _invalid(f"{at}.thinkingConfig.thinkingLevel", kind, level)


def check_generate_body(body: Mapping[str, Any]) -> Json:
    """A ``generateContent`` body in camelCase, or the API's 400 for it."""
    written: Json = camel_body(body)
    _unknown(written, _REQUEST_FIELDS, at="")
    _check_contents(written, request="GenerateContentRequest")
    if "systemInstruction" in written:
        _check_content(
            written["systemInstruction"], at="systemInstruction", request="GenerateContentRequest"
        )
    _check_tools(written)
    _check_tool_config(written)
    _check_generation(written)
    _list(written.get("safetySettings", []), at="safetySettings")
    return written


def check_count_tokens_body(body: Mapping[str, Any]) -> Json:
    """A ``countTokens`` body in camelCase: ``contents``, or a whole ``generateContentRequest``."""
    written: Json = camel_body(body)
    _unknown(written, frozenset({"contents", "generateContentRequest"}), at="")
    inner = written.get("generateContentRequest")
    if inner is not None:
        return {
            "generateContentRequest": check_generate_body(
                _object(inner, at="generateContentRequest")
            )
        }
    _check_contents(written, request="CountTokensRequest")
    return written


_EMBED_FIELDS: Final = frozenset(
    {"model", "content", "taskType", "title", "outputDimensionality", "autoTruncate"}
)


def check_embed_body(body: Mapping[str, Any], *, at: str = "") -> Json:
    """An ``embedContent`` body (or one of a batch's ``requests``) in camelCase."""
    written: Json = camel_body(body)
    _unknown(written, _EMBED_FIELDS, at=at)
    where = f"{at}.content" if at else "content"
    if "content" not in written:
        raise GeminiRequestError(
            f"* EmbedContentRequest.{snake(where)}: content is not specified\n", field=snake(where)
        )
    _check_content(written["content"], at=where, request="EmbedContentRequest")
    _int(written, "outputDimensionality", at=at or "request")
    dimensions = written.get("outputDimensionality")
    if dimensions is not None and dimensions < 1:
        raise GeminiRequestError(
            "* EmbedContentRequest.output_dimensionality: output_dimensionality must be "
            "positive.\n",
            field="output_dimensionality",
        )
    return written


def check_batch_embed_body(body: Mapping[str, Any], *, model: str) -> list[Json]:
    """A ``batchEmbedContents`` body's requests, each checked, in order; each names the same
    model as the path (``models/…``), as the API requires."""
    written: Json = camel_body(body)
    _unknown(written, frozenset({"requests"}), at="")
    requests = _list(written.get("requests", []), at="requests")
    if not requests:
        raise GeminiRequestError(
            "* BatchEmbedContentsRequest.requests: requests is not specified\n", field="requests"
        )
    checked = []
    for index, request in enumerate(requests):
        one = check_embed_body(_object(request, at=f"requests[{index}]"), at=f"requests[{index}]")
        named = one.get("model")
        if named is not None and named.rsplit("/", 1)[-1] != model:
            raise GeminiRequestError(
                f"* BatchEmbedContentsRequest.model: Model name in the batch request "
                f"(models/{model}) and in the individual request ({named}) must match.\n",
                field=f"requests[{index}].model",
            )
        checked.append(one)
    return checked


def needs_signatures(model: str) -> bool:
    """Does ``model`` refuse its own function calls sent back without their thought signature
    (Gemini 3 and later; earlier models take them either way)?"""
    name = model.rsplit("/", 1)[-1]
    match = re.match(r"gemini-(\d+)", name)
    return match is not None and int(match.group(1)) >= 3


def _current_turn(contents: Sequence[Mapping[str, Any]]) -> int:
    """Where the current turn starts: the last user content that says something (a text, not
    only function results)."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        parts = content.get("parts") or []
        if content.get("role", "user") == "user" and any(
            "functionResponse" not in p for p in parts
        ):
            return index
    return 0


def check_signatures(body: Mapping[str, Any], *, model: str) -> None:
    """The API's 400 for a function call of the current turn sent back without the thought
    signature it came with: the first call of each of the model's steps carries one."""
    if not needs_signatures(model):
        return
    contents = body["contents"]
    for index in range(_current_turn(contents), len(contents)):
        content = contents[index]
        if content.get("role") != "model":
            continue
        calls = [p for p in content["parts"] if "functionCall" in p]
        if calls and not calls[0].get("thoughtSignature"):
            name = calls[0]["functionCall"]["name"]
            raise GeminiRequestError(
                "Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                f"to degraded model performance. Additional data, function call "
                f"`default_api:{name}` , position {index + 1}. Please refer to "
                "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
            )
