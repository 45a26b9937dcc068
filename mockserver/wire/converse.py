"""Bedrock Runtime requests refused as Bedrock refuses them: a Converse body (``/converse``,
``/converse-stream``) and an Anthropic-on-Bedrock body (``/invoke``,
``/invoke-with-response-stream``), each a ``ValidationException`` (400) in Bedrock's words.

Bedrock words a shape its model refuses as AWS's validators do (``1 validation error
detected: Value 'x' at 'messages.1.member.role' failed to satisfy constraint: …``, the place
a path through the body with ``member`` for each list item), and a conversation it refuses in
sentences of its own (``A conversation must start with a user message. …``). An invoke body
is the model's own: Bedrock checks it against the model's schema (``Malformed input request:
#: required key [max_tokens] not found, …``), then refuses what the model refuses.
boto3 validates the shape of what it sends before sending it; these answer every other
client (litellm, raw HTTP).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mockserver.errors import InvalidRequestError

__all__ = ["ANTHROPIC_ON_BEDROCK", "check_converse_body", "check_invoke_body"]

#: The ``anthropic_version`` an Anthropic-on-Bedrock body names.
ANTHROPIC_ON_BEDROCK: Final = "bedrock-2023-05-31"
#: The members of a message's content block (a union: exactly one is set).
_BLOCKS: Final = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
        "searchResult",
    }
)
_SYSTEM_BLOCKS: Final = frozenset({"text", "guardContent", "cachePoint"})
_CHOICES: Final = frozenset({"auto", "any", "tool"})


def _refuse(message: str) -> InvalidRequestError:
    return InvalidRequestError(message, type="ValidationException")


def _constraint(value: Any, at: str, constraint: str) -> InvalidRequestError:
    shown = "null" if value is None else f"'{value}'"
    return _refuse(
        f"1 validation error detected: Value {shown} at '{at}' failed to satisfy constraint: "
        f"{constraint}"
    )


def _union(value: Any, at: str, members: frozenset[str]) -> str:
    """The one member a union value sets (refused unless exactly one known member is set)."""
    if not isinstance(value, Mapping):
        raise _constraint(value, at, "Member must be a structure")
    unknown = sorted(set(value) - members)
    if unknown:
        raise _refuse(f"Unknown field '{unknown[0]}' at '{at}'")
    if len(value) != 1:
        raise _refuse(f"The content at '{at}' must set exactly one field")
    return str(next(iter(value)))


def _check_blocks(content: Any, at: str) -> list[str]:
    if not isinstance(content, list):
        raise _constraint(content, at, "Member must not be null")
    kinds = []
    for index, block in enumerate(content):
        kind = _union(block, f"{at}.{index + 1}.member", _BLOCKS)
        if kind == "text" and not isinstance(block["text"], str):
            raise _constraint(block["text"], f"{at}.{index + 1}.member.text", "Must be a string")
        kinds.append(kind)
    return kinds


def _check_messages(messages: Any) -> list[list[str]]:
    if not isinstance(messages, list):
        raise _constraint(None, "messages", "Member must not be null")
    if not messages:
        raise _refuse(
            "A conversation must start with a user message. Try again with a conversation "
            "that starts with a user message."
        )
    kinds = []
    previous = None
    for index, message in enumerate(messages):
        at = f"messages.{index + 1}.member"
        if not isinstance(message, Mapping):
            raise _constraint(message, at, "Member must be a structure")
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise _constraint(
                role, f"{at}.role", "Member must satisfy enum value set: [user, assistant]"
            )
        if index == 0 and role != "user":
            raise _refuse(
                "A conversation must start with a user message. Try again with a conversation "
                "that starts with a user message."
            )
        if role == previous:
            raise _refuse(
                "A conversation must alternate between user and assistant roles. Make sure the "
                "conversation alternates between user and assistant roles and try again."
            )
        previous = role
        kinds.append(_check_blocks(message.get("content"), f"{at}.content"))
    return kinds


def _check_tools(config: Any, *, used: bool) -> None:
    if config is None:
        if used:
            raise _refuse(
                "The toolConfig field must be defined when using toolUse and toolResult "
                "content blocks."
            )
        return
    if not isinstance(config, Mapping):
        raise _constraint(config, "toolConfig", "Member must be a structure")
    tools = config.get("tools")
    if not isinstance(tools, list) or not tools:
        raise _constraint(
            tools, "toolConfig.tools", "Member must have length greater than or equal to 1"
        )
    names = []
    for index, tool in enumerate(tools):
        at = f"toolConfig.tools.{index + 1}.member"
        kind = _union(tool, at, frozenset({"toolSpec", "systemTool", "cachePoint"}))
        spec = tool[kind]
        if kind == "toolSpec":
            if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str):
                raise _constraint(None, f"{at}.toolSpec.name", "Member must not be null")
            schema = spec.get("inputSchema")
            if not isinstance(schema, Mapping) or not isinstance(schema.get("json"), Mapping):
                raise _constraint(None, f"{at}.toolSpec.inputSchema", "Member must not be null")
            names.append(spec["name"])
    choice = config.get("toolChoice")
    if choice is not None:
        kind = _union(choice, "toolConfig.toolChoice", _CHOICES)
        if kind == "tool":
            name = choice["tool"].get("name") if isinstance(choice["tool"], Mapping) else None
            if name not in names:
                raise _refuse(
                    f"The tool {name} named in toolConfig.toolChoice is not among the tools "
                    "in toolConfig.tools."
                )


def _check_inference(config: Any) -> None:
    if config is None:
        return
    if not isinstance(config, Mapping):
        raise _constraint(config, "inferenceConfig", "Member must be a structure")
    tokens = config.get("maxTokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool)):
        raise _constraint(tokens, "inferenceConfig.maxTokens", "Member must be an integer")
    if isinstance(tokens, int) and tokens < 1:
        raise _constraint(
            tokens,
            "inferenceConfig.maxTokens",
            "Member must have value greater than or equal to 1",
        )
    stops = config.get("stopSequences")
    if stops is not None and (
        not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops)
    ):
        raise _constraint(
            stops,
            "inferenceConfig.stopSequences",
            "Member must satisfy constraint: [Member must have length greater than or equal to 1]",
        )


def check_converse_body(body: Mapping[str, Any]) -> None:
    """Raise Bedrock's ``ValidationException`` for a Converse body it would refuse."""
    kinds = _check_messages(body.get("messages"))
    system = body.get("system")
    if system is not None:
        if not isinstance(system, list):
            raise _constraint(system, "system", "Member must be a list")
        for index, block in enumerate(system):
            _union(block, f"system.{index + 1}.member", _SYSTEM_BLOCKS)
    used = any(k in ("toolUse", "toolResult") for message in kinds for k in message)
    _check_tools(body.get("toolConfig"), used=used)
    _check_inference(body.get("inferenceConfig"))


def _malformed(problem: str) -> InvalidRequestError:
    return _refuse(
        f"Malformed input request: #: {problem}, please reformat your input and try again."
    )


def check_invoke_body(body: Mapping[str, Any]) -> None:
    """Raise Bedrock's ``ValidationException`` for an invoke body it would refuse: an
    Anthropic-on-Bedrock body (``anthropic_version: bedrock-2023-05-31``, or the dated
    version the ``anthropic`` SDK's Bedrock client sends), whose model the path names (a
    ``model`` key is refused, as Bedrock refuses it)."""
    for key in ("anthropic_version", "max_tokens", "messages"):
        if key not in body:
            raise _malformed(f"required key [{key}] not found")
    if not isinstance(body["anthropic_version"], str):
        raise _malformed("anthropic_version: expected type: String")
    for key in ("model", "stream"):
        if key in body:
            raise _malformed(f"extraneous key [{key}] is not permitted")
