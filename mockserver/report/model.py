"""The report's format, version 1: what each part of it holds (the JSON keys are these)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, TypedDict

from mockserver.store import JournalEntry
from mockserver.values import value_class

__all__ = [
    "VERSION",
    "Call",
    "Counts",
    "ErrorRecord",
    "Journal",
    "MissRecord",
    "NamespaceSummary",
    "Report",
    "RuleHits",
    "ScenarioRules",
    "ScenarioSummary",
    "Server",
    "UnusedRule",
]

#: The report format's version: a consumer checks it before reading the rest.
VERSION: Final = 1


@value_class
class Journal:
    """One namespace as a report sees it."""

    namespace: str
    #: The namespace's active scenario.
    scenario: str
    entries: Sequence[JournalEntry]
    #: Rule hit counts per scenario name.
    hits: Mapping[str, Mapping[str, int]]
    #: Calls that left the journal, which keeps the most recent ``journal_limit``.
    dropped: int = 0


@value_class
class ScenarioRules:
    """A scenario in use, by name, and its rule ids in order."""

    name: str
    rules: tuple[str, ...]


class Call(TypedDict):
    namespace: str
    seq: int
    method: str
    path: str
    api: str | None
    model: str | None
    stream: bool
    status: int
    #: ``matched`` (a rule, one-off or chaos reply), ``generated`` (no rule: the generator),
    #: ``miss`` (no rule, strict: refused), ``error`` (any other 4xx/5xx), ``served`` (an
    #: answer that is not a model's turn: a retrieve, a list…).
    outcome: str
    rule: str | None
    miss: str | None
    summary: str
    duration_ms: float


class MissRecord(TypedDict):
    namespace: str
    seq: int
    method: str
    path: str
    status: int
    #: ``refused`` (strict) or ``generated`` (the fallback answered).
    answered: str
    explanation: str


class ErrorRecord(TypedDict):
    namespace: str
    seq: int
    method: str
    path: str
    status: int
    type: str | None
    code: str | None
    message: str
    #: The rule whose scripted error this was, if one.
    rule: str | None


class NamespaceSummary(TypedDict):
    namespace: str
    scenario: str
    calls: int
    misses: int
    errors: int
    dropped: int


class RuleHits(TypedDict):
    id: str
    hits: int


class ScenarioSummary(TypedDict):
    name: str
    rules: list[RuleHits]


class UnusedRule(TypedDict):
    scenario: str
    rule: str


class Counts(TypedDict):
    namespaces: int
    calls: int
    misses: int
    errors: int
    internal_errors: int
    unused_rules: int
    dropped: int


class Server(TypedDict):
    version: str
    seed: int
    scenario: str


class Report(TypedDict):
    version: int
    server: Server
    counts: Counts
    namespaces: list[NamespaceSummary]
    calls: list[Call]
    misses: list[MissRecord]
    errors: list[ErrorRecord]
    unused_rules: list[UnusedRule]
    scenarios: list[ScenarioSummary]
    internal_errors: list[str]
