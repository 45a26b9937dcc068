"""A checked Gemini ``generateContent`` request → :class:`Prompt`.

Reads the body *after* ``wire.gemini`` has checked it and written it in camelCase. The model
comes from the path (``models/{model}:generateContent``), and so does streaming. Gemini's
``Schema`` (an OpenAPI 3.0 subset: ``type: STRING``, ``nullable``, int64 counts as strings) is
turned into JSON Schema here, once, for the generator (``reply/schema_values``), which reads
JSON Schema only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from mockserver.families import Provider
from mockserver.ids import stable_digest
from mockserver.prompt.model import (
    Message,
    OutputFormat,
    Prompt,
    Tool,
    ToolCallRef,
    ToolChoice,
)
from mockserver.values import Json

__all__ = [
    "IMAGE_TOKENS",
    "effort_of",
    "json_schema",
    "messages_of",
    "prompt_from_gemini",
]

#: What an image part costs (Gemini counts 258 tokens for an image of up to 384×384 pixels).
IMAGE_TOKENS: Final = 258
#: Generation settings that do not change what the model would say (cut, counted or shown).
_NOT_CONTENT: Final = frozenset(
    {"stopSequences", "maxOutputTokens", "candidateCount", "responseLogprobs", "logprobs"}
)
_MODES: Final = {"AUTO": "auto", "ANY": "required", "VALIDATED": "auto", "NONE": "none"}
_LEVELS: Final = {"MINIMAL": "minimal", "LOW": "low", "MEDIUM": "medium", "HIGH": "high"}
#: Schema fields whose int64 values Google's JSON writes as strings.
_COUNTS: Final = frozenset(
    {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}
)
_COPIED: Final = frozenset(
    {
        "format",
        "description",
        "enum",
        "required",
        "minimum",
        "maximum",
        "pattern",
        "title",
        "default",
        *_COUNTS,
    }
)


def json_schema(schema: Mapping[str, Any]) -> Json:
    """Gemini's OpenAPI-subset ``Schema`` as the JSON Schema it stands for."""
    written: Json = {}
    kind = schema.get("type")
    if isinstance(kind, str) and kind.upper() not in ("TYPE_UNSPECIFIED", ""):
        name = kind.lower()
        written["type"] = [name, "null"] if schema.get("nullable") is True else name
    for key, value in schema.items():
        if key in _COUNTS and isinstance(value, str) and value.isdigit():
            written[key] = int(value)
        elif key in _COPIED:
            written[key] = value
    if isinstance(schema.get("items"), Mapping):
        written["items"] = json_schema(schema["items"])
    if isinstance(schema.get("properties"), Mapping):
        written["properties"] = {
            name: json_schema(value)
            for name, value in schema["properties"].items()
            if isinstance(value, Mapping)
        }
        if written.get("type") in ("object", ["object", "null"]):
            written.setdefault("additionalProperties", False)
    if isinstance(schema.get("anyOf"), list):
        written["anyOf"] = [json_schema(s) for s in schema["anyOf"] if isinstance(s, Mapping)]
    if "enum" in written and "type" not in written:
        written["type"] = "string"
    return written


def _text(parts: list[Json], *, thoughts: bool = False) -> str:
    return "\n".join(
        str(p["text"]) for p in parts if "text" in p and (p.get("thought") is True) == thoughts
    )


def _call_ref(part: Json, index: int) -> ToolCallRef:
    call = part["functionCall"]
    arguments = orjson.dumps(call.get("args") or {}).decode()
    return ToolCallRef(str(call.get("id") or f"{call['name']}#{index}"), call["name"], arguments)


def _user_messages(parts: list[Json]) -> Iterator[Message]:
    """A user content's messages: its function results (each a tool message) and its text."""
    texts: list[str] = []
    images = 0
    for part in parts:
        if "functionResponse" in part:
            result = part["functionResponse"]
            response = orjson.dumps(result.get("response") or {}).decode()
            yield Message("tool", response, name=result["name"], tool_call_id=result.get("id"))
        elif "text" in part:
            texts.append(str(part["text"]))
        elif "inlineData" in part or "fileData" in part:
            images += 1
    if texts or images:
        yield Message("user", "\n".join(texts), image_tokens=images * IMAGE_TOKENS)


def messages_of(body: Mapping[str, Any]) -> tuple[Message, ...]:
    """The conversation of a checked body: its system instruction, then its contents."""
    messages: list[Message] = []
    system = body.get("systemInstruction")
    if system is not None:
        messages.append(Message("system", _text(system["parts"])))
    for content in body["contents"]:
        parts = content["parts"]
        if content.get("role") == "model":
            calls = [p for p in parts if "functionCall" in p]
            refs = tuple(_call_ref(p, i) for i, p in enumerate(calls))
            messages.append(Message("assistant", _text(parts), tool_calls=refs))
        else:
            messages.extend(_user_messages(parts))
    return tuple(messages)


def _tools(body: Mapping[str, Any]) -> tuple[Tool, ...]:
    tools: list[Tool] = []
    for tool in body.get("tools") or ():
        for declaration in tool.get("functionDeclarations") or ():
            parameters = declaration.get("parametersJsonSchema")
            if parameters is None and isinstance(declaration.get("parameters"), Mapping):
                parameters = json_schema(declaration["parameters"])
            tools.append(
                Tool(
                    declaration["name"],
                    description=declaration.get("description"),
                    parameters=parameters,
                )
            )
    return tuple(tools)


def _tool_choice(body: Mapping[str, Any]) -> ToolChoice:
    calling = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = _MODES.get(str(calling.get("mode") or "AUTO"), "auto")
    allowed = calling.get("allowedFunctionNames")
    return ToolChoice(mode, tuple(allowed) if allowed else None)  # type: ignore[arg-type]


def _output_format(config: Mapping[str, Any]) -> OutputFormat:
    if config.get("responseMimeType") != "application/json":
        return OutputFormat()
    schema = config.get("responseJsonSchema")
    if schema is None and isinstance(config.get("responseSchema"), Mapping):
        schema = json_schema(config["responseSchema"])
    if isinstance(schema, Mapping):
        return OutputFormat("json_schema", name="response_schema", schema=schema)
    return OutputFormat("json_object")


def _thinks_by_default(model: str) -> str | None:
    """The effort a model thinks with when the request says nothing (2.5's dynamic thinking,
    3's high level; 2.5 Flash-Lite and the models before 2.5 do not think)."""
    found = re.match(r"gemini-(\d+)(?:\.(\d+))?", model.rsplit("/", 1)[-1])
    if found is None:
        return None
    version = (int(found.group(1)), int(found.group(2) or 0))
    if version >= (3, 0):
        return "high"
    if version >= (2, 5) and "lite" not in model:
        return "medium"
    return None


def effort_of(model: str, thinking: Mapping[str, Any]) -> str | None:
    """The reasoning effort a ``thinkingConfig`` asks of ``model`` (``None``: no thinking)."""
    level = thinking.get("thinkingLevel")
    if level in _LEVELS:
        return _LEVELS[level]
    budget = thinking.get("thinkingBudget")
    if budget is None:
        return _thinks_by_default(model)
    if budget == 0:
        return None
    if budget < 0:
        return "medium"
    return "minimal" if budget < 128 else "low" if budget <= 1024 else "medium"


def fingerprint(model: str, body: Mapping[str, Any]) -> bytes:
    """What generated content derives from: the request, less what only cuts or counts it."""
    config = {
        k: v for k, v in (body.get("generationConfig") or {}).items() if k not in _NOT_CONTENT
    }
    normalized = {**body, "generationConfig": config, "model": model}
    return stable_digest("gemini", orjson.dumps(normalized, option=orjson.OPT_SORT_KEYS))


def prompt_from_gemini(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    model: str = "",
    stream: bool = False,
    provider: Provider = "google",
) -> Prompt:
    """The Prompt of a checked ``generateContent`` body sent for ``model`` (the path's)."""
    model = model or str(body.get("model") or "").rsplit("/", 1)[-1]
    config = body.get("generationConfig") or {}
    thinking = config.get("thinkingConfig") or {}
    return Prompt(
        api="gemini",
        model=model,
        messages=messages_of(body),
        tools=_tools(body),
        tool_choice=_tool_choice(body),
        output_format=_output_format(config),
        max_output_tokens=config.get("maxOutputTokens"),
        stop=tuple(config.get("stopSequences") or ()),
        logprobs=config.get("responseLogprobs") is True,
        top_logprobs=int(config.get("logprobs") or 0),
        seed=config.get("seed"),
        reasoning_effort=effort_of(model, thinking),
        reasoning_summary="auto" if thinking.get("includeThoughts") is True else None,
        stream=stream,
        headers={k.lower(): v for k, v in headers.items()},
        params=body,
        fingerprint=fingerprint(model, body),
        provider=provider,
    )
