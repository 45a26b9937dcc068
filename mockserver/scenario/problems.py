"""A scenario's validation errors, located where the user wrote them and said in the
scenario's words: file, line, column, rule and field; "did you mean" for an unknown key; what a
lookup takes rather than a model's class name."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from mockserver.errors import ScenarioError
from mockserver.guess import did_you_mean
from mockserver.scenario.model import Scenario, When, rule_id_clashes
from mockserver.values import value_class

__all__ = [
    "Marks",
    "Path_",
    "error_path",
    "explain",
    "field_name",
    "located_errors",
    "message",
    "problem",
]

Path_ = tuple[str | int, ...]


@value_class
class Marks:
    """Line/column (1-based) of each data path: of its key for mapping entries."""

    at: dict[Path_, tuple[int, int]]

    def of(self, path: Path_) -> tuple[int | None, int | None]:
        for end in range(len(path), -1, -1):
            if path[:end] in self.at:
                return self.at[path[:end]]
        return None, None


def _data_path(data: Any, loc: tuple[str | int, ...]) -> Path_:
    """Keep the parts of a pydantic ``loc`` that exist in the data (drop union branch tags)."""
    path: list[str | int] = []
    node = data
    for part in loc:
        in_mapping = isinstance(node, Mapping) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and part < len(node)
        if in_mapping or in_list:
            node = node[part]
        else:
            continue
        path.append(part)
    return tuple(path)


def error_path(data: Any, error: Mapping[str, Any]) -> Path_:
    """Where in ``data`` a validation error is (an unknown key: at that key)."""
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        return (*_data_path(data, loc[:-1]), loc[-1])
    if error["type"] == "duplicate_rule_id":
        return ("rules", error["ctx"]["rule"], "id")
    return _data_path(data, loc)


def _rule_name(data: Any, path: Path_) -> str | None:
    if len(path) < 2 or path[0] != "rules" or not isinstance(path[1], int):
        return None
    rule = data["rules"][path[1]]
    rule_id = rule.get("id") if isinstance(rule, Mapping) else None
    return str(rule_id) if rule_id else f"#{path[1] + 1}"  # counted from 1, as users count


def field_name(path: Path_) -> str:
    """``rules[0].when.last_user``: a data path as the messages write it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _members(annotation: Any) -> list[Any]:
    """The members of a union (``X | None``: X and None), else the annotation itself."""
    if get_origin(annotation) in (Union, UnionType):
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [annotation]


def _is_model(annotation: Any) -> bool:
    is_class = isinstance(annotation, type) and get_origin(annotation) is None
    return is_class and issubclass(annotation, BaseModel)


def _inside(annotation: Any, part: str | int) -> list[Any]:
    """The annotations of what ``part`` (a key or an index) selects in a value of this type."""
    found = []
    for member in _members(annotation):
        origin, args = get_origin(member), get_args(member)
        if _is_model(member) and isinstance(part, str):
            fields = member.model_fields.items()
            found += [f.annotation for name, f in fields if part in (name, f.alias)]
        elif origin is list and isinstance(part, int):
            found.append(args[0])
        elif origin is dict and isinstance(part, str):
            found.append(args[1])
    return found


def _models_at(path: Path_) -> list[type[BaseModel]]:
    """The models the mapping at this data path may be read into."""
    annotations: list[Any] = [Scenario]
    for part in path:
        annotations = [inner for a in annotations for inner in _inside(a, part)]
    return [m for a in annotations for m in _members(a) if _is_model(m)]


def _keys_at(path: Path_) -> list[str]:
    """The keys the mapping at this data path may hold (of each model that may be there)."""
    models = _models_at(path)
    return sorted({f.alias or name for m in models for name, f in m.model_fields.items()})


def _fixture_keyword(key: str, path: Path_) -> str | None:
    """How a scenario file writes ``key`` if it is one of the pytest fixture's ``on()``
    keywords, a condition and its lookup in one word (``last_user_contains``), where a
    ``when`` mapping takes them nested (``last_user: {contains: …}``)."""
    field, _, lookup = key.rpartition("_")
    for model in _models_at(path):
        inner = model.model_fields.get(field) if model is When else None
        lookups = [m for m in _members(inner.annotation) if _is_model(m)] if inner else []
        if any(lookup in m.model_fields for m in lookups):
            return f"{field}: {{{lookup}: …}}"
    return None


#: What a lookup accepts, said in the scenario's words (not the model's class name).
_LOOKUP_EXPECTED = {
    "TextMatch": "expected a text, or one of {equals, contains, icontains, startswith, regex, "
    "glob: text}",
    "NumberMatch": "expected a number, or {equals, gte, lte, gt, lt: number}",
}


def message(error: Mapping[str, Any], path: Path_) -> str:
    """The error at ``path`` in the scenario's words."""
    if error["type"] == "extra_forbidden":
        key = str(error["loc"][-1])
        nested = _fixture_keyword(key, path[:-1])
        if nested is not None:
            return (
                f"unknown key '{key}' (a scenario file writes it '{nested}'; '{key}=' is "
                "the pytest fixture's on() keyword)"
            )
        return f"unknown key '{key}'{did_you_mean(key, _keys_at(path[:-1]))}"
    return explain(error)


def _did_you_mean(given: str, expected: str) -> str:
    """`` (did you mean 'x'?)`` for a misspelt choice (``expected`` as pydantic lists them:
    ``'a', 'b' or 'c'``), else nothing."""
    return did_you_mean(given, re.findall(r"'([^']*)'", expected))


def explain(error: Mapping[str, Any], *, from_yaml: bool = True) -> str:
    """A model's validation error in the scenario's words (its unknown keys aside)."""
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "model_type":  # a lookup's shorthand, neither text/number nor mapping
        message = _LOOKUP_EXPECTED.get(str(error.get("ctx", {}).get("class_name")), message)
    if (
        from_yaml
        and error["type"] in ("string_type", "model_type")
        and isinstance(error.get("input"), bool)
    ):
        message += " (YAML reads yes/no/on/off/true/false as booleans: quote the text)"
    if error["type"] == "literal_error" and isinstance(error.get("input"), str):
        message += _did_you_mean(error["input"], str(error.get("ctx", {}).get("expected", "")))
    if error["type"] == "pattern_regex":
        try:
            re.compile(error["input"])
        except re.error as exc:
            message = f"invalid regular expression {error['input']!r}: {exc}"
    return message


def problem(message: str, path: Path_, data: Any, marks: Marks, source: str) -> ScenarioError:
    line, column = marks.of(path)
    return ScenarioError(
        message,
        file=source,
        line=line,
        column=column,
        rule=_rule_name(data, path),
        field=field_name(path) or None,
    )


def _rule_ids(data: Mapping[str, Any]) -> Iterator[tuple[int, str | None]]:
    """(index, id) of each rule whose id can be read: a string, or none (``rule-<index>``)."""
    rules = data.get("rules")
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, Mapping) and isinstance(rule.get("id"), str | None):
            yield index, rule.get("id")


#: Errors that say a value has the wrong shape altogether.
_SHAPE_MISMATCHES = frozenset({"list_type", "dict_type", "model_type", "model_attributes_type"})


def located_errors(exc: ValidationError, data: Any, marks: Marks, source: str) -> ScenarioError:
    located = []
    found = [(error, error_path(data, error)) for error in exc.errors()]
    for error, path in found:
        if error["type"] in _SHAPE_MISMATCHES and any(
            len(other) > len(path) and other[: len(path)] == path for _, other in found
        ):  # one shape of a union did not fit, and another says what is wrong inside it
            continue
        located.append(problem(message(error, path), path, data, marks, source))
    # The model checks rule ids only once everything else is valid: check them here too, so
    # that they are reported with the rest (the model's report, if any, is one of these).
    for clash in rule_id_clashes(_rule_ids(data)):
        located.append(problem(clash.message, ("rules", clash.where, "id"), data, marks, source))
    unique = {e.located(): e for e in located}
    first, *more = sorted(unique.values(), key=lambda e: (e.line or 0, e.column or 0))
    first.more = more
    return first
