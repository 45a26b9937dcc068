"""A chosen pydantic error entry → the API's 400: message, ``param`` and ``code``.

The wording copies what api.openai.com answers (``Missing required parameter: 'x'.``,
``Invalid type for 'x': expected a decimal, but got a string instead.``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from typing import Any, Final

from mockserver.errors import InvalidRequestError
from mockserver.wire.validation_issues import (
    NULL_ERROR,
    TYPE_ERRORS,
    UNION_TYPE_ERROR,
    Issue,
    Loc,
    join_words,
    json_type_phrase,
    quoted_values,
    render_param,
)

__all__ = ["issue_to_error"]


def issue_to_error(issue: Issue) -> InvalidRequestError:
    """The API's message, ``param`` and ``code`` for one entry."""
    kind = issue.error["type"]
    handler = _HANDLERS.get(kind)
    if handler is not None:
        return handler(issue)
    if kind in TYPE_ERRORS:
        return _invalid_type(issue.path, TYPE_ERRORS[kind], issue.error["input"])
    return _fallback(issue)


def _missing(path: Loc) -> InvalidRequestError:
    param = render_param(path)
    return InvalidRequestError(
        f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
    )


def _invalid_type(path: Loc, expected: str, value: object) -> InvalidRequestError:
    param = render_param(path)
    return InvalidRequestError(
        f"Invalid type for {_name(param)}: expected {expected}, but got "
        f"{json_type_phrase(value)} instead.",
        param=param,
        code="invalid_type",
    )


def _invalid_value(path: Loc, value: str, supported: list[str]) -> InvalidRequestError:
    quoted = [f"'{v}'" for v in supported]
    return InvalidRequestError(
        f"Invalid value: '{value}'. Supported values are: {join_words(quoted, 'and')}.",
        param=render_param(path),
        code="invalid_value",
    )


def _on_missing(issue: Issue) -> InvalidRequestError:
    return _missing(issue.path)


def _on_custom_type(issue: Issue) -> InvalidRequestError:
    return _invalid_type(issue.path, issue.error["msg"], issue.error["input"])


def _on_literal(issue: Issue) -> InvalidRequestError:
    value = issue.error["input"]
    supported = quoted_values(_ctx(issue).get("expected", ""))
    if not isinstance(value, str):
        return _invalid_type(issue.path, "a string", value)
    if not supported:
        return _fallback(issue)
    return _invalid_value(issue.path, value, supported)


def _on_tag_missing(issue: Issue) -> InvalidRequestError:
    return _missing((*issue.path, _discriminator(issue)))


def _on_tag_invalid(issue: Issue) -> InvalidRequestError:
    field = _discriminator(issue)
    source = issue.error["input"]
    value = source.get(field) if isinstance(source, Mapping) else None
    path = (*issue.path, field)
    if not isinstance(value, str):
        return _invalid_type(path, "a string", value)
    return _invalid_value(path, value, quoted_values(_ctx(issue).get("expected_tags", "")))


_BOUNDS: Final = {
    "greater_than_equal": ("ge", "below minimum", ">=", "below_min"),
    "greater_than": ("gt", "below minimum", ">", "below_min"),
    "less_than_equal": ("le", "above maximum", "<=", "above_max"),
    "less_than": ("lt", "above maximum", "<", "above_max"),
}


def _on_bound(issue: Issue) -> InvalidRequestError:
    key, words, operator, code = _BOUNDS[issue.error["type"]]
    bound = _ctx(issue)[key]
    kind = "decimal" if isinstance(bound, float) else "integer"
    param = render_param(issue.path)
    return InvalidRequestError(
        f"Invalid {_name(param)}: {kind} {words} value. Expected a value {operator} "
        f"{_number(bound)}, but got {issue.error['input']!r} instead.",
        param=param,
        code=f"{kind}_{code}_value",
    )


def _on_length(issue: Issue) -> InvalidRequestError:
    ctx = _ctx(issue)
    value = issue.error["input"]
    size = len(value) if isinstance(value, Sized) else ctx.get("actual_length")
    short = issue.error["type"] in ("too_short", "string_too_short")
    limit = ctx["min_length" if short else "max_length"]
    param = render_param(issue.path)
    if issue.error["type"].startswith("string_"):
        text, code = _string_length(short=short, limit=limit, size=size)
    elif ctx.get("field_type") == "Dictionary":
        text, code = _object_length(short=short, limit=limit, size=size)
    else:
        text, code = _array_length(short=short, limit=limit, size=size)
    return InvalidRequestError(f"Invalid {_name(param)}: {text}", param=param, code=code)


_LENGTH_WORDS: Final = {
    True: ("minimum", "short", "below_min"),
    False: ("maximum", "long", "above_max"),
}


def _string_length(*, short: bool, limit: int, size: object) -> tuple[str, str]:
    if short and size == 0:
        return (
            f"empty string. Expected a string with minimum length {limit}, but got an empty "
            "string instead.",
            "empty_string",
        )
    bound, word, code = _LENGTH_WORDS[short]
    return (
        f"string too {word}. Expected a string with {bound} length {limit}, but got a string "
        f"with length {size} instead.",
        f"string_{code}_length",
    )


def _array_length(*, short: bool, limit: int, size: object) -> tuple[str, str]:
    if short and size == 0:
        return (
            f"empty array. Expected an array with minimum length {limit}, but got an empty "
            "array instead.",
            "empty_array",
        )
    bound, word, code = _LENGTH_WORDS[short]
    return (
        f"array too {word}. Expected an array with {bound} length {limit}, but got an array "
        f"with length {size} instead.",
        f"array_{code}_length",
    )


def _object_length(*, short: bool, limit: int, size: object) -> tuple[str, str]:
    bound, word, code = ("least", "few", "below_min") if short else ("most", "many", "above_max")
    return (
        f"too {word} properties. Expected an object with at {bound} {limit} properties, but "
        f"got an object with {size} properties instead.",
        f"object_{code}_properties",
    )


def _on_pattern(issue: Issue) -> InvalidRequestError:
    param = render_param(issue.path)
    return InvalidRequestError(
        f"Invalid {_name(param)}: string does not match pattern. Expected a string that "
        f"matches the pattern '{_ctx(issue).get('pattern', '')}'.",
        param=param,
        code="invalid_value",
    )


def _on_extra(issue: Issue) -> InvalidRequestError:
    param = render_param(issue.path)
    return InvalidRequestError(
        f"Unknown parameter: {_name(param)}.", param=param, code="unknown_parameter"
    )


def _on_null(issue: Issue) -> InvalidRequestError:
    return _invalid_type(issue.path, issue.error["msg"], None)


def _fallback(issue: Issue) -> InvalidRequestError:
    param = render_param(issue.path)
    reason = str(_ctx(issue).get("error") or issue.error["msg"]).rstrip(".")
    return InvalidRequestError(
        f"Invalid value for {_name(param)}: {reason}.", param=param, code="invalid_value"
    )


_HANDLERS: Final[dict[str, Callable[[Issue], InvalidRequestError]]] = {
    "missing": _on_missing,
    UNION_TYPE_ERROR: _on_custom_type,
    NULL_ERROR: _on_null,
    "literal_error": _on_literal,
    "enum": _on_literal,
    "union_tag_not_found": _on_tag_missing,
    "union_tag_invalid": _on_tag_invalid,
    "greater_than_equal": _on_bound,
    "greater_than": _on_bound,
    "less_than_equal": _on_bound,
    "less_than": _on_bound,
    "too_short": _on_length,
    "too_long": _on_length,
    "string_too_short": _on_length,
    "string_too_long": _on_length,
    "string_pattern_mismatch": _on_pattern,
    "extra_forbidden": _on_extra,
}


def _ctx(issue: Issue) -> dict[str, Any]:
    return issue.error.get("ctx") or {}


def _name(param: str | None) -> str:
    return f"'{param}'" if param else "body"


def _discriminator(issue: Issue) -> str:
    raw = str(_ctx(issue).get("discriminator", "type"))
    return raw.strip("'\"")


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)
