"""A request body as a JSON object, an answer's body as the API writes it, and the API's words
for JSON types and parameter paths.

Free of pydantic: a plain request (``wire.plain``) is parsed and checked without importing
the wire models. ``wire.validation`` re-exports all of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from mockserver.errors import InvalidRequestError

__all__ = [
    "JSON_PARSE_ERROR",
    "MAX_DEPTH",
    "Body",
    "encode_json",
    "encode_json_pretty",
    "json_type",
    "json_type_phrase",
    "parse_json_body",
    "render_param",
]

#: A request's JSON body once the wire layer has accepted it: the one raw form that crosses
#: the boundary. It stays the parsed dict, rather than becoming the pydantic models that
#: validated it, for speed: most requests are plain (``wire.plain``) and are accepted without
#: building a model at all, and the Prompt, the journal and the echoed parameters all read the
#: JSON as sent. Only what ``wire`` has checked is read from it (``prompt`` trusts its shape).
Body = dict[str, Any]

JSON_PARSE_ERROR: Final = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please contact "
    "us through our help center at help.openai.com.)"
)

#: About the deepest nesting a body may have: what the journal and the fingerprints can write
#: back (orjson reads 1,024 levels but writes fewer than 255).
MAX_DEPTH: Final = 255

_PHRASES: Final = {
    "null": "null",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a decimal",
    "string": "a string",
    "array": "an array",
    "object": "an object",
    "unknown": "an unsupported value",
}


def json_type(value: object) -> str:
    """The JSON type of a parsed value (``"string"``, ``"array"``, ...); also a union tag."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "unknown"


def json_type_phrase(value: object) -> str:
    """``"an integer"``, ``"null"``...: the API's words for what it got."""
    return _PHRASES[json_type(value)]


def render_param(path: Sequence[int | str]) -> str | None:
    """``("messages", 1, "role")`` → ``"messages[1].role"``; the root is ``None``."""
    out: list[str] = []
    for item in path:
        if isinstance(item, int):
            out.append(f"[{item}]")
        else:
            out.append(f".{item}" if out else item)
    return "".join(out) or None


def encode_json_pretty(value: Any) -> bytes:
    """Indented JSON, as the real API writes non-streamed bodies."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


def encode_json(value: Any) -> bytes:
    """Compact JSON, as Azure OpenAI's gateway writes bodies."""
    return orjson.dumps(value)


def parse_json_body(body: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or the API's 400 for anything else."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        error = InvalidRequestError(JSON_PARSE_ERROR)
        error.facts["invalid_json"] = str(exc)  # how a family that quotes the parser says it
        at = body[exc.pos : exc.pos + 1].decode("utf-8", "replace") if exc.pos < len(body) else ""
        # where it broke: "", the body ended before the JSON did; None, there was no body
        error.facts["invalid_char"] = at if body.strip() else None
        raise error from None
    if not isinstance(data, dict):
        raise InvalidRequestError(
            f"Invalid type for body: expected an object, but got {json_type_phrase(data)} instead.",
            code="invalid_type",
        )
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH:  # only then can it nest that deep
        try:
            orjson.dumps(data)  # refuses what it cannot write back, in C
        except TypeError:
            raise InvalidRequestError(JSON_PARSE_ERROR) from None
    return data
