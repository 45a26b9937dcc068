"""The Gemini API's requests: ``generateContent`` (and its stream), ``countTokens``,
``embedContent`` and ``batchEmbedContents``, checked with the API's own 400s.

A body is first written in camelCase throughout (``wire/gemini_json.py``: Google's JSON takes
either spelling), and everything here reads that one spelling. The thought signatures a model's
function calls come back with are checked in ``wire/gemini_signatures.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from mockserver.values import Json
from mockserver.wire.gemini_json import (
    GeminiRequestError,
    camel_body,
    expect_bool,
    expect_int,
    expect_list,
    expect_number,
    expect_object,
    invalid_value,
    refuse_unknown,
    snake,
)

__all__ = [
    "FUNCTION_CALLING_MODES",
    "check_batch_embed_body",
    "check_count_tokens_body",
    "check_embed_body",
    "check_generate_body",
]

#: The modes of ``toolConfig.functionCallingConfig``.
FUNCTION_CALLING_MODES: Final = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
_ROLES: Final = ("user", "model")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")

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


def _check_part(part: Any, *, at: str) -> None:
    part = expect_object(part, at=at)
    refuse_unknown(part, _PART_FIELDS, at=at)
    present = [name for name in _DATA_FIELDS if name in part]
    if not present:
        raise GeminiRequestError(
            f"* GenerateContentRequest.{snake(at)}.data: required oneof field 'data' must have "
            "one initialized field\n",
            field=f"{snake(at)}.data",
        )
    if "text" in part and not isinstance(part["text"], str):
        raise invalid_value(f"{at}.text", "TYPE_STRING", part["text"])
    for name in ("functionCall", "functionResponse"):
        if name in part:
            call = expect_object(part[name], at=f"{at}.{name}")
            if not isinstance(call.get("name"), str) or not call["name"]:
                raise GeminiRequestError(
                    f"* GenerateContentRequest.{snake(at)}.{snake(name)}.name: Name cannot be "
                    "empty.\n",
                    field=f"{snake(at)}.{snake(name)}.name",
                )
    expect_bool(part, "thought", at=at)


def _check_content(content: Any, *, at: str, request: str) -> None:
    content = expect_object(content, at=at)
    refuse_unknown(content, _CONTENT_FIELDS, at=at)
    role = content.get("role")
    if role is not None and role not in _ROLES and at != "systemInstruction":
        raise GeminiRequestError("Please use a valid role: user, model.")
    parts = expect_list(content.get("parts", []), at=f"{at}.parts")
    if not parts:
        raise GeminiRequestError(
            f"* {request}.{snake(at)}.parts: contents.parts must not be empty.\n",
            field=f"{snake(at)}.parts",
        )
    for index, part in enumerate(parts):
        _check_part(part, at=f"{at}.parts[{index}]")


def _check_contents(body: Mapping[str, Any], *, request: str) -> None:
    contents = expect_list(body.get("contents", []), at="contents")
    if not contents:
        raise GeminiRequestError(
            f"* {request}.contents: contents is not specified\n", field="contents"
        )
    for index, content in enumerate(contents):
        _check_content(content, at=f"contents[{index}]", request=request)


def _check_tools(body: Mapping[str, Any]) -> None:
    for index, tool in enumerate(expect_list(body.get("tools", []), at="tools")):
        at = f"tools[{index}]"
        tool = expect_object(tool, at=at)
        declarations = expect_list(
            tool.get("functionDeclarations", []), at=f"{at}.functionDeclarations"
        )
        for number, declaration in enumerate(declarations):
            where = f"{at}.functionDeclarations[{number}]"
            declaration = expect_object(declaration, at=where)
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
    config = expect_object(body.get("toolConfig", {}), at="toolConfig")
    calling = expect_object(
        config.get("functionCallingConfig", {}), at="toolConfig.functionCallingConfig"
    )
    at = "toolConfig.functionCallingConfig"
    mode = calling.get("mode", "AUTO")
    if mode not in FUNCTION_CALLING_MODES:
        kind = "type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode"
        raise invalid_value(f"{at}.mode", kind, mode)
    allowed = calling.get("allowedFunctionNames")
    if allowed is not None:
        names = expect_list(allowed, at=f"{at}.allowedFunctionNames")
        if names and mode not in ("ANY", "VALIDATED"):
            raise GeminiRequestError(
                f"* GenerateContentRequest.{snake(at)}.allowed_function_names: "
                "allowed_function_names can only be set when the mode is ANY.\n",
                field=f"{snake(at)}.allowed_function_names",
            )


def _check_generation(body: Mapping[str, Any]) -> None:
    at = "generationConfig"
    config = expect_object(body.get("generationConfig", {}), at=at)
    refuse_unknown(config, _GENERATION_FIELDS, at=at)
    for name in ("candidateCount", "maxOutputTokens", "topK", "seed", "logprobs"):
        expect_int(config, name, at=at)
    for name in ("temperature", "topP", "presencePenalty", "frequencyPenalty"):
        expect_number(config, name, at=at)
    expect_bool(config, "responseLogprobs", at=at)
    stops = expect_list(config.get("stopSequences", []), at=f"{at}.stopSequences")
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
    thinking = expect_object(config.get("thinkingConfig", {}), at=f"{at}.thinkingConfig")
    refuse_unknown(thinking, _THINKING_FIELDS, at=f"{at}.thinkingConfig")
    expect_bool(thinking, "includeThoughts", at=f"{at}.thinkingConfig")
    expect_int(thinking, "thinkingBudget", at=f"{at}.thinkingConfig")
    level = thinking.get("thinkingLevel")
    if level is not None and level not in _THINKING_LEVELS:
        kind = (
            "type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel"
        )
        raise invalid_value(f"{at}.thinkingConfig.thinkingLevel", kind, level)


def check_generate_body(body: Mapping[str, Any]) -> Json:
    """A ``generateContent`` body in camelCase, or the API's 400 for it."""
    written: Json = camel_body(body)
    refuse_unknown(written, _REQUEST_FIELDS, at="")
    _check_contents(written, request="GenerateContentRequest")
    if "systemInstruction" in written:
        _check_content(
            written["systemInstruction"], at="systemInstruction", request="GenerateContentRequest"
        )
    _check_tools(written)
    _check_tool_config(written)
    _check_generation(written)
    expect_list(written.get("safetySettings", []), at="safetySettings")
    return written


def check_count_tokens_body(body: Mapping[str, Any]) -> Json:
    """A ``countTokens`` body in camelCase: ``contents``, or a whole ``generateContentRequest``."""
    written: Json = camel_body(body)
    refuse_unknown(written, frozenset({"contents", "generateContentRequest"}), at="")
    inner = written.get("generateContentRequest")
    if inner is not None:
        return {
            "generateContentRequest": check_generate_body(
                expect_object(inner, at="generateContentRequest")
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
    refuse_unknown(written, _EMBED_FIELDS, at=at)
    where = f"{at}.content" if at else "content"
    if "content" not in written:
        raise GeminiRequestError(
            f"* EmbedContentRequest.{snake(where)}: content is not specified\n", field=snake(where)
        )
    _check_content(written["content"], at=where, request="EmbedContentRequest")
    expect_int(written, "outputDimensionality", at=at or "request")
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
    refuse_unknown(written, frozenset({"requests"}), at="")
    requests = expect_list(written.get("requests", []), at="requests")
    if not requests:
        raise GeminiRequestError(
            "* BatchEmbedContentsRequest.requests: requests is not specified\n", field="requests"
        )
    checked = []
    for index, request in enumerate(requests):
        one = check_embed_body(
            expect_object(request, at=f"requests[{index}]"), at=f"requests[{index}]"
        )
        named = one.get("model")
        if named is not None and named.rsplit("/", 1)[-1] != model:
            raise GeminiRequestError(
                f"* BatchEmbedContentsRequest.model: Model name in the batch request "
                f"(models/{model}) and in the individual request ({named}) must match.\n",
                field=f"requests[{index}].model",
            )
        checked.append(one)
    return checked
