"""A request no recording answers: the nearest recording, and how the request differs from it."""

from __future__ import annotations

from mockserver.prompt import Prompt
from mockserver.scenario.matcher import check, describe_request
from mockserver.scenario.model import Rule, Scenario, When

__all__ = ["differences", "no_recording"]


def differences(rule: Rule, prompt: Prompt) -> list[str]:
    """Every condition of ``rule``'s ``when`` that ``prompt`` fails, each explained."""
    found = []
    for name in sorted(rule.when.model_fields_set, key=list(When.model_fields).index):
        single = When.model_validate({name: getattr(rule.when, name)}, by_name=True)
        reason = check(single, prompt)
        if reason is not None:
            found.append(reason)
    return found


def no_recording(scenario: Scenario, prompt: Prompt, *, cassette: str) -> str:
    """The message of the 400 a request with no recording gets in replay-only mode."""
    head = (
        f"mockserver: no recording in cassette {cassette} matches this {describe_request(prompt)}."
    )
    scored = [(len(d), rule.id, d) for rule in scenario.rules if (d := differences(rule, prompt))]
    if not scored:
        return head + " The cassette has no recordings."
    _, rule_id, reasons = min(scored, key=lambda s: s[0])
    return (
        f"{head} Nearest recording: rule '{rule_id}', which differs in: {'; '.join(reasons)}. "
        "Record it with mode new_episodes (or all), or edit the rule's when."
    )
