"""Rules that can never match: an earlier rule takes every request they would.

The analysis is conservative, so a warning is always true: rule B is shadowed by an earlier
rule A only when

- A matches every request B matches: A has no condition at all, or exactly B's conditions
  (the same ``when``, compared as parsed, so ``model: x`` and ``model: {equals: x}`` are one);
- and A never stops matching: no ``times``, and not a ``replies`` sequence that ends with
  ``after: exhausted``.

A rule that only *partly* overlaps an earlier one (``contains: weather`` after ``contains:
wea``) is not reported: telling those apart needs the matcher's semantics, and a false
warning would be worse than none.
"""

from __future__ import annotations

from mockserver.scenario.model import Rule, Scenario
from mockserver.values import value_class

__all__ = ["Shadowed", "shadowed_rules"]


@value_class
class Shadowed:
    """Rule ``number`` (counted from 1) never matches: rule ``by`` takes its requests."""

    number: int
    rule_id: str
    by_number: int
    by_id: str
    #: ``"no condition"`` or ``"the same conditions"``.
    why: str

    @property
    def message(self) -> str:
        return (
            f"rule '{self.rule_id}' (rule {self.number}) can never match: rule '{self.by_id}' "
            f"(rule {self.by_number}) comes first, has {self.why} and never runs out "
            "(move it after this one, narrow its 'when', or give it 'times')"
        )


def _conditions(rule: Rule) -> dict[str, object]:
    return rule.when.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def _never_runs_out(rule: Rule) -> bool:
    if rule.times is not None:
        return False
    return rule.replies is None or rule.after != "exhausted"


def shadowed_rules(scenario: Scenario) -> list[Shadowed]:
    """Every rule of ``scenario`` that an earlier rule shadows completely, in order."""
    found = []
    rules = list(scenario.rules)
    for later_index, later in enumerate(rules):
        wanted = _conditions(later)
        for index, earlier in enumerate(rules[:later_index]):
            if not _never_runs_out(earlier):
                continue
            conditions = _conditions(earlier)
            if conditions and conditions != wanted:
                continue
            found.append(
                Shadowed(
                    number=later_index + 1,
                    rule_id=str(later.id),
                    by_number=index + 1,
                    by_id=str(earlier.id),
                    why="no condition" if not conditions else "the same conditions",
                )
            )
            break
    return found
