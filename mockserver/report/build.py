"""Journals, rule hits and scenarios in use → the report, with every key masked."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from mockserver.report.model import (
    VERSION,
    Call,
    Counts,
    ErrorRecord,
    Journal,
    MissRecord,
    NamespaceSummary,
    Report,
    RuleHits,
    ScenarioRules,
    ScenarioSummary,
    Server,
    UnusedRule,
)
from mockserver.store import JournalEntry

__all__ = ["build_report", "fingerprint"]

#: An OpenAI-style key quoted in some text (a namespace's own key is masked wherever it is).
_QUOTED_KEY = re.compile(r"sk-[A-Za-z0-9_-]{20,}")
#: The shortest secret looked for in texts.
_QUOTABLE = 8
#: A namespace that is not ``sk-…`` but looks like a credential (a gateway key, a JWT).
_TOKEN_LIKE = re.compile(r"(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9._~+/=-]{24,}")


def fingerprint(key: str) -> str:
    """How a report names an API key: ``sk-`` (if it has it), ``…`` and its last four
    characters (none of a short key, whose last four would be most of it)."""
    head = "sk-" if key.startswith("sk-") else ""
    return f"{head}…{key[-4:] if len(key) >= 12 else ''}"


def _is_key(name: str) -> bool:
    return name.startswith("sk-") or _TOKEN_LIKE.fullmatch(name) is not None


def _shown_names(names: Iterable[str], secrets: Iterable[str]) -> dict[str, str]:
    """Each namespace's name in the report: its fingerprint if it is a key, numbered when two
    keys share a fingerprint (``sk-…abcd (2)``)."""
    secret = set(secrets)
    shown: dict[str, str] = {}
    taken: dict[str, int] = {}
    for name in names:
        if not (_is_key(name) or name in secret):
            shown[name] = name
            continue
        mark = fingerprint(name)
        taken[mark] = taken.get(mark, 0) + 1
        shown[name] = mark if taken[mark] == 1 else f"{mark} ({taken[mark]})"
    return shown


def _masker(secrets: Iterable[str], shown: Mapping[str, str]) -> Callable[[str], str]:
    """A function that masks every secret (and any ``sk-`` key) quoted in a text. A secret
    shorter than ``_QUOTABLE`` is not looked for in texts (an admin token ``t`` would mask
    every ``t``); as a namespace's name it is still shown only as its fingerprint."""
    masks = {s: fingerprint(s) for s in secrets if len(s) >= _QUOTABLE}
    masks.update({n: mark for n, mark in shown.items() if n != mark and len(n) >= _QUOTABLE})
    words = sorted(masks, key=len, reverse=True)
    found = re.compile("|".join([*map(re.escape, words), _QUOTED_KEY.pattern]))

    def mask(text: str) -> str:
        return found.sub(lambda m: masks.get(m[0]) or fingerprint(m[0]), text)

    return mask


def _outcome(entry: JournalEntry) -> str:
    if entry.status >= 400:
        return "miss" if entry.miss is not None else "error"
    if entry.rule is not None:
        return "matched"
    return "generated" if entry.api is not None else "served"


def _error_fields(entry: JournalEntry) -> tuple[str | None, str | None, str]:
    """The ``type``, ``code`` and ``message`` of an error answer's body."""
    body = entry.answer()
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None, entry.summary
    kind, code, message = error.get("type"), error.get("code"), error.get("message")
    return (
        kind if isinstance(kind, str) else None,
        code if isinstance(code, str) else None,
        message if isinstance(message, str) else entry.summary,
    )


@dataclass(slots=True)
class _Builder:
    mask: Callable[[str], str]
    calls: list[Call]
    misses: list[MissRecord]
    errors: list[ErrorRecord]

    def add(self, namespace: str, entry: JournalEntry) -> Call:
        call = Call(
            namespace=namespace,
            seq=entry.seq,
            method=entry.method,
            path=self.mask(entry.path),
            api=entry.api,
            model=entry.model and self.mask(entry.model),
            stream=entry.stream,
            status=entry.status,
            outcome=_outcome(entry),
            rule=entry.rule,
            miss=entry.miss and self.mask(entry.miss),
            summary=self.mask(entry.summary),
            duration_ms=entry.duration_ms,
        )
        self.calls.append(call)
        if call["miss"] is not None:
            self.misses.append(
                MissRecord(
                    namespace=namespace,
                    seq=entry.seq,
                    method=entry.method,
                    path=call["path"],
                    status=entry.status,
                    answered="refused" if entry.status >= 400 else "generated",
                    explanation=call["miss"],
                )
            )
        if entry.status >= 400:
            kind, code, message = _error_fields(entry)
            self.errors.append(
                ErrorRecord(
                    namespace=namespace,
                    seq=entry.seq,
                    method=entry.method,
                    path=call["path"],
                    status=entry.status,
                    type=kind,
                    code=code,
                    message=self.mask(message),
                    rule=entry.rule,
                )
            )
        return call


def _scenario_summaries(
    journals: Sequence[Journal], scenarios: Sequence[ScenarioRules]
) -> list[ScenarioSummary]:
    """Each scenario in use with each rule's hits, summed over the namespaces."""
    rules: dict[str, list[str]] = {}
    for scenario in scenarios:
        known = rules.setdefault(scenario.name, [])
        known += [r for r in scenario.rules if r not in known]
    totals: dict[str, dict[str, int]] = {}
    for journal in journals:
        for name, hits in journal.hits.items():
            total = totals.setdefault(name, {})
            for rule, count in hits.items():
                total[rule] = total.get(rule, 0) + count
    return [
        ScenarioSummary(
            name=name,
            rules=[RuleHits(id=r, hits=totals.get(name, {}).get(r, 0)) for r in ids],
        )
        for name, ids in sorted(rules.items())
    ]


def build_report(
    journals: Sequence[Journal],
    *,
    scenarios: Sequence[ScenarioRules],
    server: Server,
    internal_errors: Sequence[str] = (),
    secrets: Iterable[str] = (),
) -> Report:
    """The report of what ``journals`` hold (``scenarios``: those in use); ``secrets`` (the
    server's API keys, its admin token) are masked wherever a text would quote them."""
    secrets = [s for s in secrets if s]
    # In the order of the names shown, not of timing: the same every run.
    shown = _shown_names(sorted(j.namespace for j in journals), secrets)
    ordered = sorted(journals, key=lambda j: (shown[j.namespace], j.namespace))
    mask = _masker(secrets, shown)
    builder = _Builder(mask, [], [], [])
    namespaces: list[NamespaceSummary] = []
    for journal in ordered:
        name = shown[journal.namespace]
        calls = [builder.add(name, entry) for entry in journal.entries]
        namespaces.append(
            NamespaceSummary(
                namespace=name,
                scenario=mask(journal.scenario),
                calls=len(calls),
                misses=sum(c["miss"] is not None for c in calls),
                errors=sum(c["status"] >= 400 for c in calls),
                dropped=journal.dropped,
            )
        )
    summaries = _scenario_summaries(ordered, scenarios)
    unused = [
        UnusedRule(scenario=s["name"], rule=r["id"])
        for s in summaries
        for r in s["rules"]
        if r["hits"] == 0
    ]
    return Report(
        version=VERSION,
        server=Server(
            version=server["version"], seed=server["seed"], scenario=mask(server["scenario"])
        ),
        counts=Counts(
            namespaces=len(namespaces),
            calls=len(builder.calls),
            misses=len(builder.misses),
            errors=len(builder.errors),
            internal_errors=len(internal_errors),
            unused_rules=len(unused),
            dropped=sum(j.dropped for j in ordered),
        ),
        namespaces=namespaces,
        calls=builder.calls,
        misses=builder.misses,
        errors=builder.errors,
        unused_rules=unused,
        scenarios=summaries,
        internal_errors=[mask(e) for e in internal_errors],
    )
