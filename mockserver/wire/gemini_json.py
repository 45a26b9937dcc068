"""Google's JSON for the Gemini API's requests, as protobuf writes it: a field in camelCase (what
google-genai sends) or in its proto name (``max_output_tokens``), written in camelCase
throughout by :func:`camel_body` (free-form values — a call's ``args``, a JSON Schema — kept
as sent); and the API's 400s for a value of the wrong kind, which name its path in proto names
(``generation_config.max_output_tokens``), or a field the API does not know
(``Unknown name "x" at 'generation_config': Cannot find field.``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.values import Json

__all__ = [
    "GeminiRequestError",
    "camel_body",
    "expect_bool",
    "expect_int",
    "expect_list",
    "expect_number",
    "expect_object",
    "invalid_value",
    "refuse_unknown",
    "snake",
]

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


def refuse_unknown(value: Mapping[str, Any], known: frozenset[str], *, at: str) -> None:
    for name in value:
        if name not in known:
            where = f" at '{snake(at)}'" if at else ""
            raise GeminiRequestError(
                f'Invalid JSON payload received. Unknown name "{name}"{where}: Cannot find field.',
                field=snake(at),
            )


def invalid_value(at: str, kind: str, value: Any) -> GeminiRequestError:
    shown = value if isinstance(value, str) else repr(value)
    return GeminiRequestError(
        f"Invalid value at '{snake(at)}' ({kind}), \"{shown}\"", field=snake(at)
    )


def expect_object(value: Any, *, at: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GeminiRequestError(
            f"Invalid JSON payload received. Expected an object at '{snake(at)}'.", field=snake(at)
        )
    return value


def expect_list(value: Any, *, at: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise GeminiRequestError(
            f"Invalid JSON payload received. Expected a list at '{snake(at)}'.", field=snake(at)
        )
    return value


def expect_int(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise invalid_value(f"{at}.{name}", "TYPE_INT32", value)


def expect_number(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise invalid_value(f"{at}.{name}", "TYPE_FLOAT", value)


def expect_bool(config: Mapping[str, Any], name: str, *, at: str) -> None:
    value = config.get(name)
    if value is not None and not isinstance(value, bool):
        raise invalid_value(f"{at}.{name}", "TYPE_BOOL", value)
