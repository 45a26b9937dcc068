"""Explicit value lookups (respx style): a matcher says *how* it compares, never "maybe a regex".

A bare string means ``equals``; anything else is an object with exactly one lookup key.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, model_validator

from mockserver.scenario.regexes import Regex

if TYPE_CHECKING:
    from mockserver.scenario.bounds import Deadline

__all__ = ["LiteralMatch", "NumberMatch", "TextMatch"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, allow_inf_nan=False)


class TextMatch(_Strict):
    """One of ``equals``, ``contains``, ``icontains``, ``regex``, ``glob``, ``startswith``."""

    equals: str | None = None
    contains: str | None = None
    icontains: str | None = None
    regex: Regex | None = None
    glob: str | None = None
    startswith: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"equals": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _exactly_one(self) -> TextMatch:
        given = [k for k in type(self).model_fields if getattr(self, k) is not None]
        if len(given) != 1:
            names = ", ".join(type(self).model_fields)
            raise ValueError(f"give exactly one lookup of {names} (got {len(given)})")
        return self

    @property
    def lookup(self) -> tuple[str, str]:
        for key in type(self).model_fields:
            value = getattr(self, key)
            if value is not None:
                return key, value.pattern if isinstance(value, Regex) else value
        raise AssertionError("unreachable: validated to hold one lookup")

    def test(self, text: str, deadline: Deadline | None = None) -> bool:
        """Does ``text`` match? A ``regex`` lookup stops at ``deadline`` (by default, its own
        :data:`~mockserver.scenario.regexes.REGEX_SECONDS`) with ``RegexTimeout``."""
        key, wanted = self.lookup
        if key == "equals":
            return text == wanted
        if key == "contains":
            return wanted in text
        if key == "icontains":
            return wanted.casefold() in text.casefold()
        if key == "startswith":
            return text.startswith(wanted)
        if key == "glob":
            return fnmatch.fnmatchcase(text, wanted)
        assert self.regex is not None
        return self.regex.search(text, deadline=deadline)

    def describe(self) -> str:
        key, wanted = self.lookup
        verb = {
            "equals": "equal",
            "contains": "contain",
            "icontains": "contain (any case)",
            "regex": "match regex",
            "glob": "match glob",
            "startswith": "start with",
        }[key]
        return f"{verb} {wanted!r}"

    def model_dump_yaml(self) -> Any:
        key, wanted = self.lookup
        return wanted if key == "equals" else {key: wanted}


class NumberMatch(_Strict):
    """A number (``equals``) or bounds (``gte``/``lte``/``gt``/``lt``)."""

    equals: float | None = None
    gte: float | None = None
    lte: float | None = None
    gt: float | None = None
    lt: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"equals": value}
        return value

    @model_validator(mode="after")
    def _some(self) -> NumberMatch:
        if all(getattr(self, k) is None for k in type(self).model_fields):
            raise ValueError("give a number or at least one of equals, gte, lte, gt, lt")
        return self

    def test(self, value: float) -> bool:
        checks: list[tuple[float | None, Any]] = [
            (self.equals, lambda w: value == w),
            (self.gte, lambda w: value >= w),
            (self.lte, lambda w: value <= w),
            (self.gt, lambda w: value > w),
            (self.lt, lambda w: value < w),
        ]
        return all(check(w) for w, check in checks if w is not None)

    def describe(self) -> str:
        ops = {"equals": "==", "gte": ">=", "lte": "<=", "gt": ">", "lt": "<"}
        parts = [f"{ops[k]} {_num(getattr(self, k))}" for k in ops if getattr(self, k) is not None]
        return "be " + " and ".join(parts)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class LiteralMatch:
    """Deep equality with a JSON value (``params`` entries that are not lookups)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def test(self, actual: Any) -> bool:
        # True == 1 in Python, but not in JSON.
        same_kind = isinstance(actual, bool) == isinstance(self.value, bool)
        return same_kind and bool(actual == self.value)

    def describe(self) -> str:
        return f"equal {self.value!r}"
