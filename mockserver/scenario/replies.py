"""The scenario format's replies: what a rule answers with (text, tool calls, logprobs,
reasoning, annotations, a recorded answer, an error, faults and pacing), as typed models that
forbid unknown keys. ``model.py`` holds what chooses them (``When``, ``Rule``, ``Scenario``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from mockserver.scenario.behaviour import (
    ErrorSpec,
    FaultSpec,
    LatencySpec,
    ModerationSpec,
)
from mockserver.scenario.behaviour import Strict as _Strict
from mockserver.scenario.terms import PLACEHOLDER, PLACEHOLDERS

__all__ = [
    "AnnotationSpec",
    "Generate",
    "LogprobSpec",
    "ReasoningSpec",
    "RecordedEvent",
    "RecordedSpec",
    "RefusalDetailsSpec",
    "Reply",
    "ReplyKind",
    "ToolCallSpec",
    "TopLogprobSpec",
]


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
    redacted: StrictBool = Field(
        default=False,
        description="the reasoning was withheld by a safety system (Anthropic sends "
        "redacted_thinking, an opaque blob, in place of the thinking block)",
    )


class RefusalDetailsSpec(_Strict):
    """Why a refusal refused (Anthropic's ``stop_details``)."""

    category: (
        Literal["cyber", "bio", "frontier_llm", "reasoning_extraction", "general_harms"] | None
    ) = None
    explanation: str | None = None


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
    crlf: StrictBool = Field(
        default=False, description="the stream's lines end in CRLF (as the Gemini API's do)"
    )
    request: Any = Field(
        default=None, description="the request as recorded (read by record --check, not replay)"
    )
    path: str | None = Field(
        default=None,
        description="where the request went, when its API's path does not say (read by record "
        "--check)",
    )
    request_headers: dict[str, str] = Field(
        default_factory=dict,
        description="the request's version and beta headers as recorded (read by record --check)",
    )
    elapsed_ms: float | None = Field(default=None, ge=0, description="how long the answer took")
    pace: StrictBool = Field(
        default=False,
        description="replay at the recorded pace: each event at its offset_ms, a body after "
        "elapsed_ms (default: at once)",
    )

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
    refusal_details: RefusalDetailsSpec | None = Field(
        default=None, description="with refusal: its category and explanation"
    )
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
        if self.refusal_details is not None and self.refusal is None:
            raise ValueError("'refusal_details' goes with a refusal")
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
