"""The teardown verdict: what makes a test fail after it ran, one line per item.

Miss explanations are the server's own (``JournalEntry.miss``, the text of its strict 400),
never derived again here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from mockserver.errors import NoMatchError
from mockserver.scenario.model import Rule, Scenario
from mockserver.store import JournalEntry

__all__ = [
    "incomplete_rules",
    "internal_errors",
    "scenario_faults",
    "unexpected_requests",
    "unused_rules",
]

PREFIX = "mockserver: "


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _indent(text: str, by: str) -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())


def unexpected_requests(journal: Iterable[JournalEntry]) -> str | None:
    """Requests a strict scenario refused because no rule matched them."""
    missed = [e for e in journal if e.miss is not None and e.status == NoMatchError.status]
    if not missed:
        return None
    lines = [f"{PREFIX}{_plural(len(missed), 'request')} matched no rule (strict):"]
    for entry in missed:
        assert entry.miss is not None
        first, *reasons = entry.miss.splitlines()
        lines.append(f"  call {entry.seq}: {first}")
        lines.extend("  " + reason for reason in reasons)
    return "\n".join(lines)


#: The codes of a 400 that is the scenario's fault, not the request's: a rule whose reply
#: cannot be served as written, or a scenario header naming no scenario.
SCENARIO_FAULTS = frozenset({"scenario_reply_invalid", "mockserver_unknown_scenario"})


def scenario_faults(journal: Iterable[JournalEntry]) -> str | None:
    """Requests refused because of the scenario: a test that catches the client's error must
    not hide a broken rule."""
    faults = [e for e in journal if e.status == 400 and e.code in SCENARIO_FAULTS]
    if not faults:
        return None
    lines = [f"{PREFIX}{_plural(len(faults), 'request')} got the scenario's error, not a reply:"]
    for entry in faults:  # (the summary is "type: message", in the family's words)
        lines.append(f"  call {entry.seq}: {entry.summary.partition(': ')[2]}")
    return "\n".join(lines)


def _when(rule: Rule) -> str:
    data = rule.when.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= 100 else text[:99] + "…"


def _shortfall(rule: Rule, hits: int) -> str | None:
    """Why a rule was not used up, or ``None`` if it was."""
    if hits == 0:
        return "never matched"
    if rule.times is not None and hits < rule.times:
        return f"matched {hits} of {rule.times} times"
    if rule.replies is not None and hits < len(rule.replies):
        return f"served {hits} of {len(rule.replies)} replies"
    return None


def _inline_matches(
    scenarios: Sequence[Scenario], hits: Mapping[str, Mapping[str, int]], inline: Iterable[str]
) -> dict[str, tuple[str, int]]:
    """Inline rule id → (the last scenario it stood in front of, its matches over all).

    An inline rule stays in front of every scenario served after it was written, so it
    appears in each of them, its count carried from one to the next: it is judged once, on
    the largest (the latest) of its counts.
    """
    wanted = set(inline)
    served_in: dict[str, set[str]] = {}
    for scenario in scenarios:
        for rule in scenario.rules:
            if rule.id in wanted:
                served_in.setdefault(rule.id, set()).add(scenario.name)
    last = {rule.id: s.name for s in scenarios for rule in s.rules if rule.id in served_in}
    return {
        rule_id: (last[rule_id], max(hits.get(name, {}).get(rule_id, 0) for name in names))
        for rule_id, names in served_in.items()
    }


def unused_rules(
    scenarios: Sequence[Scenario],
    hits: Mapping[str, Mapping[str, int]],
    *,
    labels: Mapping[str, str],
) -> str | None:
    """Rules the test served that it did not use up, each judged over the whole test.

    ``scenarios`` are all the scenarios the test served, oldest first, and ``hits`` their
    matches per scenario name; ``labels`` names the inline rules the way the test wrote them
    (``on(last_user='hi')``).
    """
    inline = _inline_matches(scenarios, hits, labels)
    lines = []
    for scenario in scenarios:
        counts = hits.get(scenario.name, {})
        for rule in scenario.rules:
            assert rule.id is not None
            if rule.id in inline:
                last, matched = inline[rule.id]
                if last != scenario.name:
                    continue  # judged once, with the last scenario it stood in front of
            else:
                matched = counts.get(rule.id, 0)
            shortfall = _shortfall(rule, matched)
            if shortfall is not None:
                written = labels.get(rule.id) or f"when {_when(rule)}"
                lines.append(
                    f"  rule '{rule.id}' of scenario '{scenario.name}' ({written}): {shortfall}"
                )
    if not lines:
        return None
    head = f"{PREFIX}{_plural(len(lines), 'rule')} not used up (assert_all_used):"
    return "\n".join([head, *lines])


#: Frames of these packages say nothing about the bug; the report leaves them out.
#: Frames that are plumbing, not where a bug is: the web stack, and mockserver's app wiring
#: (its error boundary is where every bug is caught).
FRAMEWORKS = (
    "/starlette/",
    "/uvicorn/",
    "/anyio/",
    "/httpx/",
    "/httpx2/",
    "/mockserver/http/app.py",
)


def _without_framework_frames(traceback: str) -> str:
    kept: list[str] = []
    hidden = 0
    skipping = False
    for line in traceback.rstrip("\n").splitlines():
        if line.startswith('  File "'):
            skipping = any(part in line.replace("\\", "/") for part in FRAMEWORKS)
            hidden += skipping
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    if hidden:
        kept.insert(1, f"  ({_plural(hidden, 'framework frame')} hidden)")
    return "\n".join(kept)


def internal_errors(tracebacks: Sequence[str]) -> str | None:
    """The server's own bugs during the test: each answered a 500, here with its traceback."""
    if not tracebacks:
        return None
    head = (
        f"{PREFIX}the server failed with {_plural(len(tracebacks), 'internal error')} "
        "during this test (the client got a 500):"
    )
    shown = (_indent(_without_framework_frames(tb), "  ") for tb in tracebacks)
    return "\n".join([head, *shown])


def incomplete_rules(labels: Sequence[str]) -> str | None:
    if not labels:
        return None
    lines = [f"  {label}: call .reply(), .replies() or .fail()" for label in labels]
    return "\n".join([f"{PREFIX}{_plural(len(labels), 'rule')} never given a reply:", *lines])
