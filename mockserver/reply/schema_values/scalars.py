"""The scalar half of :mod:`mockserver.reply.schema_values.generate`'s generator: strings
(prose, formats, patterns), numbers, booleans and nulls, within their bounds and the text budget."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from mockserver.reply.schema_values.costs import MAX_TEXT
from mockserver.reply.schema_values.formats import _FORMAT_MAKERS, _num_rule, _snake, _text_rule
from mockserver.reply.schema_values.keywords import (
    _SPAN,
    UnsatisfiableSchemaError,
    _bounds,
    _brief,
    _clip,
    _k_span,
)
from mockserver.reply.schema_values.regex import RegexUnsupportedError, sample_regex

if TYPE_CHECKING:
    from faker import Faker

#: Integer ranges up to this many values are listed for unique items (see ``fresh_integer``).
_FEW = 10_000
#: From this ``minLength`` on, text is made of words drawn from a pool (see ``_Scalars.fit``).
_LONG = 1_000


class _Scalars:
    """Methods of ``schema._Gen`` that make scalar values (it holds the state they use)."""

    rng: random.Random
    faker: Faker
    #: While a unique array item is generated: its path and the keys of the items so far.
    taken: tuple[str, set[str]] | None
    text_made: int

    def check(self, s: Any, v: Any, path: str) -> str | None:
        raise NotImplementedError  # schema._Gen's

    def string(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> str:
        low, high = s.get("minLength", 0), s.get("maxLength", math.inf)
        if low > high:
            raise UnsatisfiableSchemaError(f"{path}: minLength {low} > maxLength {high}")
        pattern, maker = s.get("pattern"), _FORMAT_MAKERS.get(s.get("format", ""))
        for attempt in range(24):
            if isinstance(pattern, str):
                value = self.from_pattern(pattern, path, 3 if attempt < 8 else attempt % 3)
            elif maker is not None:
                value = maker(self.rng, self.faker)
            else:
                self.spend(low, path)  # before making it: a long text takes a while
                value = self.fit(self.text(name), low, high)
                self.spend(len(value) - low, path)
            if self.check(s, value, path) is None:
                return value
        raise UnsatisfiableSchemaError(f"{path}: no string satisfies {_brief(s)}")

    def from_pattern(self, pattern: str, path: str, extra_repeat: int) -> str:
        self.spend(0, path)  # nothing more once over
        try:
            text = sample_regex(pattern, self.rng, extra_repeat=extra_repeat)
        except RegexUnsupportedError as exc:
            raise UnsatisfiableSchemaError(f"{path}: {exc}") from exc
        self.spend(len(text), path)
        return text

    def spend(self, characters: int, path: str) -> None:
        """Count text made (kept or not) against ``MAX_TEXT``: lengths that multiply (many
        long items, retries of long strings) end in an error, not in minutes of work."""
        self.text_made += characters
        if self.text_made > MAX_TEXT:
            raise UnsatisfiableSchemaError(
                f"{path}: the value would take over {MAX_TEXT:,} characters of text to make"
            )

    def text(self, name: str | None) -> str:
        try:
            return _text_rule(name or "")(self.faker, self.rng, _snake(name or ""))
        except AttributeError:  # the faker locale lacks that provider
            return str(self.faker.word())

    def fit(self, text: str, low: int, high: float) -> str:
        if low > _LONG:  # long text: words drawn from a small pool (a faker call each is slow)
            pool = [str(self.faker.word()) for _ in range(64)]
            words, size = [text] if text else [], len(text)
            while size < low:
                word = self.rng.choice(pool)
                words.append(word)
                size += len(word) + 1
            text = " ".join(words)
        while len(text) < low:
            text = f"{text} {self.faker.word()}".strip()
        if len(text) > high:
            text = text[: int(high)].rstrip()
        return text.ljust(low, "x")

    def number(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        return self.numeric(s, name, path, integer=False)

    def integer(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        return self.numeric(s, name, path, integer=True)

    def numeric(self, s: Mapping[str, Any], name: str | None, path: str, integer: bool) -> Any:
        low, low_ex, high, high_ex = _bounds(s)
        if low > high or (low == high and (low_ex or high_ex)):
            raise UnsatisfiableSchemaError(f"{path}: no number within bounds {_brief(s)}")
        nlow, nhigh, places = _num_rule(name)
        step = s.get("multipleOf")
        if integer:
            low = low if math.isinf(low) else math.floor(low) + 1 if low_ex else math.ceil(low)
            high = (
                high if math.isinf(high) else math.ceil(high) - 1 if high_ex else math.floor(high)
            )
            step = Fraction(str(step or 1)).numerator  # integer multiples of p/q are those of p
            if self.taken is not None and self.taken[0] == path:
                fresh = self.fresh_integer(s, low, high, step, path)
                if fresh is not None:
                    return fresh
        for _ in range(16):
            if step is not None:
                k = self.pick_k(low, high, nlow, nhigh, step, path)
                candidates: tuple[Any, ...] = (k * step, round(k * step, 12))
            else:
                a, b = _clip(low, high, nlow, nhigh)
                u = self.rng.uniform(a, b)
                rounded = round(u, places) if places else round(u)
                candidates = (rounded, round(u, 2), round(u, 4), u, (a + b) / 2)
            for value in candidates:
                if self.check(s, value, path) is None:
                    return value
        raise UnsatisfiableSchemaError(f"{path}: no number satisfies {_brief(s)}")

    def fresh_integer(
        self, s: Mapping[str, Any], low: float, high: float, step: int, path: str
    ) -> int | None:
        """A unique array's next integer, among those not taken yet, when the bounds leave few
        enough to list (random draws would keep hitting taken ones near the last); ``None``:
        too many to list (a random draw is then unlikely to be taken)."""
        if math.isinf(low) or math.isinf(high) or (high - low) / step > _FEW:
            return None
        assert self.taken is not None
        taken = self.taken[1]
        first, last = math.ceil(low / step), math.floor(high / step)
        fresh = [k * step for k in range(first, last + 1) if str(k * step) not in taken]
        for value in self.rng.sample(fresh, min(len(fresh), 16)):
            if self.check(s, value, path) is None:
                return value
        raise UnsatisfiableSchemaError(f"{path}: no further unique item")

    def pick_k(
        self, low: float, high: float, nlow: float, nhigh: float, step: Any, path: str
    ) -> int:
        """A k with k*step inside the named range if it meets the bounds, else the bounds."""
        a, b = _k_span(max(low, nlow), min(high, nhigh), step)
        if a >= b:  # the named range misses the bounds or only touches them
            c, d = _k_span(low, high, step)
            if c > d:
                raise UnsatisfiableSchemaError(f"{path}: no multiple of {step} within bounds")
            anchor = min(max(a, c), d)  # finite: a is, and it is clamped into [c, d]
            a, b = max(c, anchor - _SPAN), min(d, anchor + _SPAN)
        return self.rng.randint(int(a), int(b))

    def boolean(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> bool:
        return self.rng.random() < 0.5

    def null(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> None:
        return None
