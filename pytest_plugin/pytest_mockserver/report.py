"""Failures that explain themselves: the "mockserver calls" section of a failed test's report.

One line per request of the test (API, model, last user text, the rule that answered or the
miss, the status), and under a miss the server's own reasons, rule by rule (``Call.miss``,
never derived again here). The same text goes into the test's ``user_properties``, so that
JUnit XML carries it as ``<property name="mockserver calls" value="…"/>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from mockserver.errors import NoMatchError
from mockserver.scenario.terms import describe_text
from pytest_mockserver.calls import Call

__all__ = ["SECTION", "calls_section"]

#: The title of the report section, and the name of the JUnit property.
SECTION = "mockserver calls"


def _outcome(call: Call) -> str:
    if call.rule is not None:
        return f"rule '{call.rule}'"
    if call.miss is not None:
        strict = call.status == NoMatchError.status
        return "no rule matched (strict)" if strict else "no rule matched (fallback reply)"
    if call.api is not None and call.ok:
        return "fallback reply"
    return "answered" if call.ok else "error"


def _line(call: Call) -> str:
    what = call.api or f"{call.method} {call.path}"
    model = f" {call.model}" if call.model else ""
    asked = f", last user {describe_text(call.last_user, 60)}" if call.api else ""
    return f"call {call.seq}: {what}{model}{asked} → {_outcome(call)}, status {call.status}"


def calls_section(calls: Sequence[Call], *, namespace: str) -> str:
    """The section's text: what the test's requests were, and how each was answered."""
    if not calls:
        return f"no requests reached namespace {namespace!r}"
    count = "1 request" if len(calls) == 1 else f"{len(calls)} requests"
    lines = [f"{count} in namespace {namespace!r}:"]
    for call in calls:
        lines.append("  " + _line(call))
        if call.miss is not None:
            # The first line restates the request; the rest say why each rule missed.
            lines.extend("    " + reason.strip() for reason in call.miss.splitlines()[1:])
    return "\n".join(lines)
