"""A scenario's ``regex`` lookups: compiled by the ``regex`` package, whose matching takes a
time limit, so that a pattern that backtracks without end (``(a|aa)+$``) costs one request a
bounded moment, never the server a stall.

A request's regex lookups share :data:`REGEX_SECONDS` (a :class:`Deadline` made per request);
one that runs out raises :class:`RegexTimeout`, which the matcher reports as a located problem
of its rule, and the lookups after it are not tried.

Compiling is bounded too (:mod:`~mockserver.scenario.regex_bounds`): each pattern on its own,
and one scenario's patterns together (:class:`RegexBudget`, handed to the models' validation
as the context's ``regexes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mockserver.scenario.bounds import Deadline
from mockserver.scenario.regex_bounds import PatternTooCostly, check_pattern, compile_bounded

if TYPE_CHECKING:  # a precompiled scenario's regexes are built without pydantic
    import regex
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationInfo
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import core_schema

__all__ = [
    "REGEX_SECONDS",
    "SCENARIO_STEPS",
    "Regex",
    "RegexBudget",
    "RegexTimeout",
    "SearchBudget",
]

#: How long the regex lookups of one request may take together.
REGEX_SECONDS: Final = 0.1
#: Steps (see :mod:`~mockserver.scenario.regex_bounds`) one scenario's regexes may hold together.
SCENARIO_STEPS: Final = 200_000
#: Characters of a pattern a message quotes.
_QUOTED: Final = 60


class SearchBudget(Deadline):
    """The time a request's regex searches may take together, spent only while a search runs:
    what happens around them (a cold server's first imports, a long prompt's conversion) never
    counts, so whether a rule matches depends on its pattern and the text, not on the machine's
    mood (a budget of wall time made a cold server's first request miss its regex rule)."""

    __slots__ = ("spent",)

    def __init__(self, seconds: float = REGEX_SECONDS) -> None:
        super().__init__(seconds)
        self.spent = 0.0

    def remaining(self) -> float:
        return (self.seconds or 0.0) - self.spent

    def passed(self) -> bool:
        return self.remaining() <= 0


class RegexTimeout(Exception):
    """A regex lookup ran out of its request's time."""

    def __init__(self, pattern: str, *, length: int, late: bool, seconds: float) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.length = length
        self.seconds = seconds
        #: The time had run out before this lookup began (an earlier one used it up).
        self.late = late
        #: Where the lookup is, innermost last, filled in on the way out of the matcher.
        self.path: list[str | int] = []

    def explain(self) -> str:
        budget = f"{self.seconds * 1000:g} ms"
        if self.late:
            return (
                f"regex {self.pattern!r} not tried: an earlier regex used up the {budget} a "
                "request's regex lookups may take"
            )
        return (
            f"regex {self.pattern!r} took longer than the {budget} a request's regex lookups "
            f"may take (on a text of {self.length} characters), so the rule is taken as not "
            "matching: a repeat inside a repeat, such as (a+)+ or (a|aa)+, can backtrack "
            "without end"
        )


class Regex:
    """A compiled pattern, equal to another of the same text (``regex``'s own patterns are
    equal only to themselves)."""

    __slots__ = ("compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.compiled: regex.Pattern[str] = compile_bounded(pattern)

    def search(self, text: str, *, deadline: Deadline | None = None) -> bool:
        """Does the pattern match somewhere in ``text``, within ``deadline``?"""
        deadline = deadline or SearchBudget()
        left = deadline.remaining()
        seconds = REGEX_SECONDS if deadline.seconds is None else deadline.seconds
        if left <= 0:
            raise RegexTimeout(self.pattern, length=len(text), late=True, seconds=seconds)
        started = deadline.clock()
        try:
            return self.compiled.search(text, timeout=left) is not None
        except TimeoutError:
            if isinstance(deadline, SearchBudget):  # used up, whatever the clocks say
                deadline.spent = float("inf")
            raise RegexTimeout(
                self.pattern, length=len(text), late=False, seconds=seconds
            ) from None
        finally:
            if isinstance(deadline, SearchBudget):
                deadline.spent += deadline.clock() - started

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash((Regex, self.pattern))

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Regex, (self.pattern,))

    @classmethod
    def _validate(cls, value: Any, info: ValidationInfo) -> Regex:
        if isinstance(value, Regex):
            return value
        from pydantic_core import PydanticCustomError

        if not isinstance(value, str):
            raise PydanticCustomError("string_type", "Input should be a valid string")
        import regex  # compile_bounded imports it too

        budget = (info.context or {}).get("regexes") if isinstance(info.context, dict) else None
        try:
            return budget.regex(value) if isinstance(budget, RegexBudget) else cls(value)
        except PatternTooCostly as exc:
            raise ValueError(f"regex {quoted(value)} refused: {exc}") from None
        except regex.error as exc:
            raise ValueError(f"invalid regular expression {quoted(value)}: {exc}") from None

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from pydantic_core import core_schema

        return core_schema.with_info_plain_validator_function(
            cls._validate,
            serialization=core_schema.plain_serializer_function_ser_schema(lambda r: r.pattern),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "regex"}


def quoted(pattern: str) -> str:
    """``pattern`` as a message quotes it: its start, if it is long."""
    return repr(pattern if len(pattern) <= _QUOTED else pattern[:_QUOTED] + "…")


class RegexBudget:
    """What one scenario's regexes may cost together (:data:`SCENARIO_STEPS`); a pattern
    written twice is compiled once."""

    __slots__ = ("compiled", "left")

    def __init__(self, steps: int = SCENARIO_STEPS) -> None:
        self.left = steps
        self.compiled: dict[str, Regex] = {}

    def regex(self, pattern: str) -> Regex:
        """``pattern`` compiled, or :class:`PatternTooCostly` past this budget."""
        if pattern in self.compiled:
            return self.compiled[pattern]
        steps = check_pattern(pattern)
        if steps > self.left:
            raise PatternTooCostly(
                f"the scenario's regexes would compile to more than the {SCENARIO_STEPS:,} "
                "steps one scenario's regexes may hold together; use smaller repeat counts"
            )
        self.left -= steps
        self.compiled[pattern] = Regex(pattern)
        return self.compiled[pattern]
