"""Which pydantic error entry to report, and where in the request it points.

pydantic ``loc``s contain union branch labels (``"string"``, ``"user"``, ``"list[str]"``) that
are not part of the request. Each ``loc`` is matched against the request data (an entry's
``input`` is the very object found at its location) to tell keys from labels. Where a plain
union reported one entry per branch, the branch that took the input's JSON type wins; if none
did, the expected types are merged into one "expected one of ..." entry.

Imported only when a request is rejected; what every validation needs (``json_type`` and
friends) lives in ``validation``, and is re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from pydantic_core import ErrorDetails

from mockserver.values import value_class
from mockserver.wire.validation import (
    NULL_ERROR,
    UNION_TYPE_ERROR,
    json_type,
    json_type_phrase,
    render_param,
)

__all__ = [
    "NULL_ERROR",
    "TYPE_ERRORS",
    "UNION_TYPE_ERROR",
    "Issue",
    "Loc",
    "choose_issue",
    "join_words",
    "json_type",
    "json_type_phrase",
    "quoted_values",
    "render_param",
]

Loc = tuple[int | str, ...]

TYPE_ERRORS: Final = {
    "string_type": "a string",
    "string_sub_type": "a string",
    "string_unicode": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a decimal",
    "float_parsing": "a decimal",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "list_type": "an array",
    "tuple_type": "an array",
    "set_type": "an array",
    "iterable_type": "an array",
    "none_required": "null",
}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_ABSENT: Final = object()


@value_class
class Issue:
    """One pydantic error entry, with the positions of its ``loc`` that address the data."""

    error: ErrorDetails
    keep: tuple[int, ...]

    @classmethod
    def locate(cls, error: ErrorDetails, data: object) -> Issue:
        loc = tuple(error["loc"])
        # A missing field's entry carries the object it is missing from, one step up.
        head = loc[:-1] if error["type"] == "missing" else loc
        keep = _resolve(data, head, error["input"], 0)
        if keep is None:
            keep = _greedy(data, head)
        if len(head) < len(loc):
            keep = [*keep, len(loc) - 1]
        return cls(error, tuple(keep))

    @property
    def loc(self) -> Loc:
        return tuple(self.error["loc"])

    @property
    def path(self) -> Loc:
        loc = self.loc
        return tuple(loc[i] for i in self.keep)

    def labels(self, start: int) -> list[int]:
        """Positions at or after ``start`` that are union branch labels."""
        return [i for i in range(start, len(self.loc)) if i not in self.keep]


def _child(node: object, item: int | str) -> object:
    if isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node):
        return node[item]
    if isinstance(node, Mapping) and isinstance(item, str) and item in node:
        return node[item]
    return _ABSENT


def _resolve(node: object, loc: Loc, target: object, start: int) -> list[int] | None:
    """Positions of ``loc[start:]`` that are keys/indexes, such that the walk ends on ``target``."""
    if start == len(loc):
        return [] if node is target else None
    child = _child(node, loc[start])
    if child is not _ABSENT:
        rest = _resolve(child, loc, target, start + 1)
        if rest is not None:
            return [start, *rest]
    return _resolve(node, loc, target, start + 1)


def _greedy(node: object, loc: Loc) -> list[int]:
    keep = []
    for position, item in enumerate(loc):
        child = _child(node, item)
        if child is not _ABSENT:
            keep.append(position)
            node = child
    return keep


def choose_issue(errors: Sequence[ErrorDetails], data: object) -> Issue:
    """The entry to report: the first one, unless it is one branch of a plain union."""
    return _pick(Issue.locate(errors[0], data), errors, data, 0)


def _pick(issue: Issue, errors: Sequence[ErrorDetails], data: object, start: int) -> Issue:
    """``issue``, or the better branch of the first plain union its ``loc`` passes through."""
    labels = issue.labels(start)
    if not labels:
        return issue
    label = labels[0]
    prefix = issue.loc[:label]
    site = [
        Issue.locate(error, data)
        for error in errors
        if len(error["loc"]) > label and tuple(error["loc"][:label]) == prefix
    ]
    branches: dict[int | str, list[Issue]] = {}
    for member in site:
        branches.setdefault(member.loc[label], []).append(member)
    if len(branches) == 1:  # a tagged union: only the matching branch was validated
        return _pick(site[0], [m.error for m in site], data, label + 1)
    for branch in branches.values():
        if not all(_type_mismatch(m, label) for m in branch):
            return _pick(branch[0], [m.error for m in branch], data, label + 1)
    return _merged(site, label)


def _type_mismatch(issue: Issue, label: int) -> bool:
    """Did this branch reject the input's JSON type at the union itself?"""
    if len(issue.loc) != label + 1:
        return False
    return _expected_type(issue.error) is not None


def _expected_type(error: ErrorDetails) -> str | None:
    kind = error["type"]
    if kind in TYPE_ERRORS:
        return TYPE_ERRORS[kind]
    if kind == UNION_TYPE_ERROR:
        return error["msg"]
    if kind in ("literal_error", "enum") and not isinstance(error["input"], str):
        return "a string"
    return None


def _merged(site: list[Issue], label: int) -> Issue:
    """One "expected one of ..." entry for a union none of whose branches took the input."""
    phrases = list(dict.fromkeys(_expected_type(m.error) or "" for m in site))
    expected = phrases[0] if len(phrases) == 1 else "one of " + join_words(phrases, "or")
    first = site[0]
    error: ErrorDetails = {
        "type": UNION_TYPE_ERROR,
        "loc": first.loc[:label],
        "msg": expected,
        "input": first.error["input"],
    }
    return Issue(error, tuple(i for i in first.keep if i < label))


def quoted_values(text: str) -> list[str]:
    """``"'a', 'b' or 'c'"`` (pydantic's rendering of choices) → ``["a", "b", "c"]``."""
    return [single or double for single, double in _QUOTED.findall(text)]


def join_words(items: Sequence[str], word: str) -> str:
    """``a``; ``a and b``; ``a, b, and c`` (the API's serial comma)."""
    if len(items) <= 2:
        return f" {word} ".join(items)
    return ", ".join(items[:-1]) + f", {word} " + items[-1]
