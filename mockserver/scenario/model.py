"""The scenario format: what a user writes, as typed models (YAML and Python build the same).

A scenario never mentions an API's wire shape: one rule serves Chat Completions, Responses and
Anthropic Messages, streamed or not. Every model forbids unknown keys, so a typo is an error at
load, not a rule that silently never matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mockserver.prompt.model import Api
from mockserver.scenario.behaviour import (
    ErrorSpec,
    LatencySpec,
    RateLimitSpec,
)
from mockserver.scenario.behaviour import Strict as _Strict
from mockserver.scenario.lookups import LiteralMatch, NumberMatch, TextMatch
from mockserver.scenario.regex_bounds import PatternTooCostly, check_pattern
from mockserver.scenario.regexes import quoted
from mockserver.scenario.replies import (
    AnnotationSpec,
    Generate,
    ReasoningSpec,
    RecordedSpec,
    Reply,
    ToolCallSpec,
)

__all__ = [
    "AnnotationSpec",
    "ChaosSpec",
    "ErrorSpec",
    "Generate",
    "ReasoningSpec",
    "RecordedSpec",
    "Reply",
    "Rule",
    "RuleIdClash",
    "Scenario",
    "ToolCallSpec",
    "ToolResultMatch",
    "When",
    "param_lookup",
    "rule_id_clashes",
]


class ToolResultMatch(_Strict):
    """A tool result present in the conversation (all given fields must match one result)."""

    name: TextMatch | None = None
    call_id: TextMatch | None = None
    content: TextMatch | None = None


class FormatMatch(_Strict):
    type: Literal["text", "json_object", "json_schema"] | None = None
    name: TextMatch | None = None


_TEXT_KEYS = frozenset(TextMatch.model_fields)
_NUMBER_KEYS = frozenset(NumberMatch.model_fields) - {"equals"}


def param_lookup(value: Any, *, context: Any = None) -> TextMatch | NumberMatch | LiteralMatch:
    """What a ``params`` entry means: a one-key lookup object, else a literal compared with ==
    (``context``: the validation's, which holds what the scenario's regexes may cost)."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, wanted),) = value.items()
        if key == "equals":
            return LiteralMatch(wanted)
        if key in _TEXT_KEYS:
            return TextMatch.model_validate(value, context=context)
        if key in _NUMBER_KEYS:
            return NumberMatch.model_validate(value)
    return LiteralMatch(value)


class When(_Strict):
    """Conditions on the request; all given conditions must hold (AND)."""

    api: Api | None = None
    provider: Literal["openai", "azure", "google", "anthropic", "aws", "ollama"] | None = Field(
        default=None,
        description=(
            "who the request was sent to: OpenAI's API, Azure OpenAI's, Google's, Anthropic's, "
            "AWS's (Bedrock) or Ollama's"
        ),
    )
    model: TextMatch | None = None
    last_user: TextMatch | None = None
    any_message: TextMatch | None = None
    system: TextMatch | None = Field(
        default=None, description="system / developer messages and Responses instructions"
    )
    last_role: Literal["system", "developer", "user", "assistant", "tool"] | None = None
    tools_offered: list[str] | None = Field(
        default=None, description="every named tool must be offered"
    )
    tool_choice: Literal["none", "auto", "required"] | None = None
    tool_result: ToolResultMatch | list[ToolResultMatch] | None = Field(
        default=None, description="a tool result in the conversation (a list: one for each)"
    )
    turn: NumberMatch | None = Field(default=None, description="assistant turns so far")
    response_format: FormatMatch | None = None
    metadata: dict[str, TextMatch] | None = None
    headers: dict[str, TextMatch] | None = None
    stream: StrictBool | None = None
    params: dict[str, Any] | None = Field(
        default=None,
        description="other request parameters by dotted path: a literal (equals), or a "
        "{equals|contains|icontains|regex|glob|startswith: …} / {gte|lte|gt|lt: …} lookup",
    )
    any: list[When] | None = Field(default=None, min_length=1, description="at least one must hold")
    not_: When | None = Field(default=None, alias="not", description="must not hold")

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, defer_build=True, allow_inf_nan=False
    )

    @field_validator("params")
    @classmethod
    def _valid_param_lookups(
        cls, value: dict[str, Any] | None, info: ValidationInfo
    ) -> dict[str, Any] | None:
        for name, lookup in (value or {}).items():
            try:
                param_lookup(lookup, context=info.context)
            except ValidationError as exc:  # name the parameter, not just the lookup's key
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first["loc"])
                raise ValueError(f"{name}.{where}: {first['msg']}") from None
        return value

    @field_validator("headers")
    @classmethod
    def _lower_headers(cls, value: dict[str, TextMatch] | None) -> dict[str, TextMatch] | None:
        return None if value is None else {k.lower(): v for k, v in value.items()}


class ChaosSpec(_Strict):
    """Random failures, decided from the seed and the request (the same requests fail)."""

    probability: float = Field(ge=0, le=1)
    replies: list[Reply] = Field(
        min_length=1, description="replies to pick from (e.g. errors, stream faults)"
    )


class Rule(_Strict):
    id: str | None = Field(
        default=None, description="defaults to rule-<n>, the rule's place counted from 1"
    )
    when: When = Field(default_factory=When)
    reply: Reply | None = None
    replies: list[Reply] | None = Field(default=None, description="served on successive matches")
    after: Literal["repeat_last", "cycle", "exhausted"] = Field(
        default="repeat_last", description="what `replies` does after the last one"
    )
    times: StrictInt | None = Field(default=None, ge=1, description="match at most this many times")
    chaos: ChaosSpec | None = Field(default=None, description="overrides the scenario's chaos")
    recordings: list[str] | None = Field(
        default=None,
        description="recording files the rule was made from (mockserver record; read by --check)",
    )

    @model_validator(mode="after")
    def _reply_or_replies(self) -> Rule:
        if (self.reply is None) == (self.replies is None):
            raise ValueError("give exactly one of 'reply' or 'replies'")
        if self.replies is not None and not self.replies:
            raise ValueError("'replies' needs at least one reply")
        if self.reply is not None and self.after != "repeat_last":
            raise ValueError("'after' goes with 'replies' (a single 'reply' always repeats)")
        return self

    @property
    def sequence(self) -> list[Reply]:
        return self.replies if self.replies is not None else [self.reply]  # type: ignore[list-item]


class RuleIdClash(NamedTuple):
    """Rules ``first`` and ``second`` have one id; ``defaulted`` is the one given none, if any."""

    rule_id: str
    first: int
    second: int
    defaulted: int | None

    @property
    def message(self) -> str:
        why = (
            f": rule {self.defaulted + 1} has no id, so it is {self.rule_id}"
            if self.defaulted is not None
            else ""
        )
        first, second = self.first + 1, self.second + 1
        return f"duplicate rule id '{self.rule_id}' (rules {first} and {second}{why})"

    @property
    def where(self) -> int:
        """The rule whose ``id`` key to point at: the later one, unless its id is a default."""
        return self.first if self.defaulted == self.second else self.second


def _default_rule_id(index: int) -> str:
    """``rule-1`` for the first rule: rules are numbered as users count them."""
    return f"rule-{index + 1}"


def rule_id_clashes(ids: Iterable[tuple[int, str | None]]) -> list[RuleIdClash]:
    """Each rule whose id (given, else ``rule-<index>``) an earlier rule has, from (index, id)."""
    seen: dict[str, tuple[int, bool]] = {}
    clashes = []
    for index, given in ids:
        rule_id = given if given is not None else _default_rule_id(index)
        if rule_id not in seen:
            seen[rule_id] = (index, given is None)
            continue
        first, first_defaulted = seen[rule_id]
        defaulted = index if given is None else (first if first_defaulted else None)
        clashes.append(RuleIdClash(rule_id, first, index, defaulted))
    return clashes


class Scenario(_Strict):
    name: str = "inline"
    description: str = ""
    seed: StrictInt | None = Field(
        default=None, ge=-(2**63), le=2**64 - 1, description="defaults to the server's --seed"
    )
    fallback: Literal["generate", "strict", "strict_turns"] = Field(
        default="generate",
        description="what a request no rule matches gets: generate (a generated reply), strict "
        "(a 400 that says why), strict_turns (a model turn gets the 400; embeddings and "
        "moderations are generated, as a recording's cassette says)",
    )
    latency: LatencySpec | None = Field(
        default=None, description="pacing for every reply that sets none"
    )
    chaos: ChaosSpec | None = None
    rate_limits: RateLimitSpec | None = None
    redact: list[str] | None = Field(
        default=None, description="regexes masked in bodies when recording into this file"
    )
    rules: list[Rule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _named_unique_rules(self) -> Scenario:
        clashes = rule_id_clashes(enumerate(rule.id for rule in self.rules))
        if clashes:
            clash = clashes[0]
            # A typed error the loader locates at the rule (a ValueError here has no place).
            raise PydanticCustomError(
                "duplicate_rule_id", "{message}", {"message": clash.message, "rule": clash.where}
            )
        rules = [
            rule if rule.id is not None else rule.model_copy(update={"id": _default_rule_id(index)})
            for index, rule in enumerate(self.rules)
        ]
        object.__setattr__(self, "rules", rules)
        return self

    @field_validator("redact")
    @classmethod
    def _valid_redactions(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or ():
            try:
                check_pattern(pattern)
                re.compile(pattern)
            except PatternTooCostly as exc:
                raise ValueError(f"redact {quoted(pattern)} refused: {exc}") from None
            except re.error as exc:
                raise ValueError(f"redact {quoted(pattern)} is not a valid regex: {exc}") from None
        return value

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)
