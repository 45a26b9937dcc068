"""The scenario format: what a user writes, as typed models (YAML and Python build the same).

A scenario never mentions an API's wire shape: one rule serves Chat Completions and Responses,
streamed or not. Every model forbids unknown keys, so a typo is an error at load, not a rule
that silently never matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mockserver.scenario.behaviour import (
    ErrorSpec,
    FaultSpec,
    LatencySpec,
    ModerationSpec,
    RateLimitSpec,
)
from mockserver.scenario.lookups import LiteralMatch, NumberMatch, TextMatch
from mockserver.scenario.terms import PLACEHOLDER, PLACEHOLDERS

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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, allow_inf_nan=False)


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


def param_lookup(value: Any) -> TextMatch | NumberMatch | LiteralMatch:
    """What a ``params`` entry means: a one-key lookup object, else a literal compared with ==."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, wanted),) = value.items()
        if key == "equals":
            return LiteralMatch(wanted)
        if key in _TEXT_KEYS:
            return TextMatch.model_validate(value)
        if key in _NUMBER_KEYS:
            return NumberMatch.model_validate(value)
    return LiteralMatch(value)


class When(_Strict):
    """Conditions on the request; all given conditions must hold (AND)."""

    api: Literal["chat", "responses", "moderations", "embeddings"] | None = None
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
    def _valid_param_lookups(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        for name, lookup in (value or {}).items():
            try:
                param_lookup(lookup)
            except ValidationError as exc:  # name the parameter, not just the lookup's key
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first["loc"])
                raise ValueError(f"{name}.{where}: {first['msg']}") from None
        return value

    @field_validator("headers")
    @classmethod
    def _lower_headers(cls, value: dict[str, TextMatch] | None) -> dict[str, TextMatch] | None:
        return None if value is None else {k.lower(): v for k, v in value.items()}


class Generate(_Strict):
    """Seeded generated prose, with length controls (give at most one)."""

    sentences: StrictInt | None = Field(default=None, ge=1, le=200)
    words: StrictInt | None = Field(default=None, ge=1, le=5000)

    @model_validator(mode="after")
    def _at_most_one(self) -> Generate:
        if self.sentences is not None and self.words is not None:
            raise ValueError("give sentences or words, not both")
        return self


class ToolCallSpec(_Strict):
    name: str
    #: An object (encoded as JSON), a string (sent as is), or ``generate`` (from the tool's schema).
    arguments: dict[str, Any] | str | Literal["generate"] = "generate"
    id: str | None = None
    kind: Literal["function", "custom"] = "function"
    fill: Literal["generate"] | None = Field(
        default=None,
        description="with object arguments: generate the required properties they leave out "
        "(and drop the ones a closed schema does not declare) from the tool's schema",
    )

    @model_validator(mode="after")
    def _fill_goes_with_an_object(self) -> ToolCallSpec:
        if self.fill is not None and not isinstance(self.arguments, dict):
            raise ValueError("'fill' goes with object arguments ({city: Boston, ...})")
        return self


class TopLogprobSpec(_Strict):
    token: str
    logprob: float = Field(le=0)


class LogprobSpec(_Strict):
    """One output token with its log-probability and, optionally, the alternatives."""

    token: str
    logprob: float = Field(le=0)
    top_logprobs: list[TopLogprobSpec] = Field(default_factory=list)


class ReasoningSpec(_Strict):
    summary: list[str] = Field(default_factory=list)
    text: str | None = None
    #: As many as a model could spend (each one costs the answer bytes: encrypted content, and
    #: a summary's share of the stream).
    tokens: StrictInt | None = Field(default=None, ge=0, le=1_000_000)


class AnnotationSpec(_Strict):
    """A URL citation over the first occurrence of ``cite`` in the reply text."""

    url: str
    title: str
    cite: str


ReplyKind = Literal[
    "text",
    "generate",
    "json",
    "refusal",
    "tool_calls",
    "embedding",
    "error",
    "fixture",
    "recorded",
]


class RecordedEvent(_Strict):
    """One event of a recorded stream, as it arrived."""

    data: str
    event: str | None = None
    offset_ms: float = Field(default=0, ge=0)


class RecordedSpec(_Strict):
    """An upstream's answer replayed exactly as recorded: status, headers and the body's bytes
    or the stream's events (written by ``mockserver record``; ``fixture`` names the file that
    holds it, read at load)."""

    fixture: str | None = Field(default=None, description="path of the recording's JSON file")
    status: StrictInt = Field(default=200, ge=100, le=599)
    headers: dict[str, str] = Field(default_factory=dict)
    body: str | None = Field(default=None, description="the exact body text (not streamed)")
    events: list[RecordedEvent] | None = Field(default=None, description="the stream's events")
    complete: StrictBool = Field(default=True, description="false: the stream was cut")
    request: Any = Field(
        default=None, description="the request as recorded (read by record --check, not replay)"
    )
    elapsed_ms: float | None = Field(default=None, ge=0, description="how long the answer took")

    @model_validator(mode="after")
    def _body_or_events(self) -> RecordedSpec:
        if self.fixture is None and (self.body is None) == (self.events is None):
            raise ValueError("a recording has exactly one of 'body' or 'events'")
        if not self.complete and self.events is None:
            raise ValueError("'complete: false' is for a recorded stream (events)")
        return self


#: Output items a reply gives with fields of its own, not as ``hosted`` items.
_SAID_OTHERWISE = {
    "message": "text or refusal",
    "reasoning": "reasoning",
    "function_call": "tool_calls",
    "custom_tool_call": "tool_calls (kind: custom)",
}


class Reply(_Strict):
    """What the model says. Exactly one of the content kinds, plus optional decorations."""

    text: str | None = None
    generate: Generate | None = None
    json_: Any = Field(default=None, alias="json")
    refusal: str | None = None
    logprobs: list[LogprobSpec] | None = Field(
        default=None, description="explicit tokens and logprobs (they spell the text)"
    )
    tool_calls: list[ToolCallSpec] | None = None
    embedding: list[float] | Literal["generate"] | None = Field(
        default=None,
        description="an embeddings request's vector (for each input the rule matches), or "
        "generate (from the input)",
    )
    error: ErrorSpec | None = None
    fixture: str | None = Field(default=None, description="path of a JSON/YAML reply file")
    recorded: RecordedSpec | None = Field(
        default=None, description="an upstream's answer, replayed byte for byte"
    )
    reasoning: ReasoningSpec | None = None
    annotations: list[AnnotationSpec] | None = None
    finish_reason: Literal["stop", "length", "tool_calls", "content_filter"] | None = None
    usage: (
        dict[
            Literal["prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"],
            Annotated[StrictInt, Field(ge=0)],
        ]
        | None
    ) = None
    latency: LatencySpec | None = None
    fault: FaultSpec | None = None
    moderation: ModerationSpec | None = None
    hosted: list[dict[str, Any]] | None = Field(
        default=None, description="Responses hosted-tool output items, emitted as given"
    )

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, defer_build=True, allow_inf_nan=False
    )

    @field_validator("hosted")
    @classmethod
    def _hosted_items_are_hosted(
        cls, value: list[dict[str, Any]] | None
    ) -> list[dict[str, Any]] | None:
        """A hosted item has a type, and not one a reply says with its own fields."""
        for index, item in enumerate(value or ()):
            kind = item.get("type")
            if not isinstance(kind, str) or not kind:
                raise ValueError(f"hosted item {index} needs a 'type' (web_search_call, …)")
            if kind in _SAID_OTHERWISE:
                raise ValueError(
                    f"hosted item {index} is a '{kind}': say it with {_SAID_OTHERWISE[kind]}"
                )
            if kind.endswith("_output") or kind in ("item_reference", "compaction"):
                raise ValueError(
                    f"hosted item {index} is a '{kind}': the client sends those; a model's "
                    "output has hosted tools' calls (web_search_call, mcp_call, …)"
                )
        return value

    @model_validator(mode="after")
    def _logprobs_spell_the_text(self) -> Reply:
        if self.logprobs is None:
            return self
        spelled = "".join(t.token for t in self.logprobs)
        if self.text is not None and self.text != spelled:
            raise ValueError(f"the logprobs tokens spell {spelled!r}, not the text {self.text!r}")
        if self.text is None:
            object.__setattr__(self, "text", spelled)
        return self

    @model_validator(mode="after")
    def _one_kind(self) -> Reply:
        kinds = self.kinds()
        if len(kinds) > 1 and set(kinds) != {"text", "tool_calls"}:
            raise ValueError(
                f"a reply is one of text, generate, json, refusal, tool_calls, embedding, "
                f"error, fixture or recorded (text may go with tool_calls); got {kinds}"
            )
        if self.recorded is not None and (self.latency or self.fault or self.moderation):
            raise ValueError("a recorded reply is replayed as is: no latency, fault, moderation")
        if not kinds and not (self.hosted or self.moderation or self.finish_reason):
            # Decorations alone would serve an empty text: say so instead.
            raise ValueError(
                "a reply needs one of text, generate, json, refusal, tool_calls, embedding, "
                "error or fixture (latency, fault, usage and the other fields only go with one; "
                "for an empty answer, write text: '')"
            )
        return self

    @field_validator("text")
    @classmethod
    def _known_placeholders(cls, value: str | None) -> str | None:
        for match in PLACEHOLDER.finditer(value or ""):
            root = match.group(1).split(".")[0]
            if root not in PLACEHOLDERS:
                known = ", ".join(sorted(PLACEHOLDERS))
                raise ValueError(f"unknown placeholder {{{{{match.group(1)}}}}} (known: {known})")
            if match.group(1) == "metadata":
                raise ValueError("placeholder {{metadata}} needs a key: {{metadata.KEY}}")
        return value

    @model_validator(mode="after")
    def _annotations_cite_the_text(self) -> Reply:
        """A citation over text that is not there fails every request: say so at load (when
        the text is fixed; placeholders are only filled in per request)."""
        if not self.annotations or self.text is None or PLACEHOLDER.search(self.text):
            return self
        for annotation in self.annotations:
            if annotation.cite not in self.text:
                raise ValueError(
                    f"annotation cites {annotation.cite!r}, which is not in the reply text"
                )
        return self

    def kinds(self) -> list[ReplyKind]:
        fields: list[tuple[ReplyKind, Any]] = [
            ("text", self.text),
            ("generate", self.generate),
            ("json", self.json_),
            ("refusal", self.refusal),
            ("tool_calls", self.tool_calls),
            ("embedding", self.embedding),
            ("error", self.error),
            ("fixture", self.fixture),
            ("recorded", self.recorded),
        ]
        return [kind for kind, value in fields if value is not None]


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
    fallback: Literal["generate", "strict"] = "generate"
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
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"redact {pattern!r} is not a valid regex: {exc}") from None
        return value

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)
