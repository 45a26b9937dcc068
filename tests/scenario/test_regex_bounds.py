"""What compiling a pattern may cost is read from the pattern before it is compiled: its
length, its nesting, and the steps its repeats unroll to, whatever its flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockserver.errors import ScenarioError
from mockserver.scenario.loader import parse_scenario
from mockserver.scenario.regex_bounds import (
    MAX_NESTING,
    MAX_PATTERN,
    MAX_STEPS,
    CompiledPatterns,
    PatternTooCostly,
    check_pattern,
    compile_bounded,
    pattern_steps,
)
from mockserver.scenario.regexes import SCENARIO_STEPS


@pytest.mark.parametrize(
    ("pattern", "steps"),
    [
        ("(?i)flaky", 5),
        (r"^\d{4}-\d{2}-\d{2}$", 12),
        ("a{1000}", 1000),
        ("a{1000}?", 1000),  # lazy: the same steps
        ("a{0,1000000}", 2),  # the room above the least count stays one loop
        ("(a{1000}){1000}", 1001000),
        (r"\p{L}{7}", 7),
        ("[a{9}]{3}", 3),  # a set is one step, whatever it holds
        ("(?#(((()a{5}", 5),  # a comment opens no group
    ],
)
def test_the_steps_of_a_pattern_are_its_unrolled_repeats(pattern: str, steps: int) -> None:
    assert pattern_steps(pattern) >= steps
    assert pattern_steps(pattern) <= steps + 4  # a flag or a mark may count as a step


def test_a_pattern_is_read_in_verbose_mode_too() -> None:
    # Verbose: `#(` is a comment, so the second repeat multiplies the group of the first.
    assert pattern_steps("(?x)(?:a{1000}#(\n){1000}") >= 1_000_000


def test_a_pattern_is_read_with_nested_sets_too() -> None:
    # V1: [[]] is one set, and the repeat is the set's; read plainly, it is a literal ]'s.
    assert pattern_steps("(?V1)(?:[[a]]b{1000}){1000}") >= 1_000_000


def test_a_count_of_thousands_of_digits_is_read_as_too_many() -> None:
    with pytest.raises(PatternTooCostly, match="steps"):
        check_pattern("a{" + "9" * 5000 + "}")


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("a" * (MAX_PATTERN + 1), f"a pattern may have at most {MAX_PATTERN}"),
        ("(" * (MAX_NESTING + 1) + ")" * (MAX_NESTING + 1), f"nested more than {MAX_NESTING}"),
        (f"a{{{MAX_STEPS + 1}}}", f"more than the {MAX_STEPS:,} a pattern may hold"),
    ],
    ids=["length", "nesting", "steps"],
)
def test_a_pattern_past_a_bound_is_refused_before_it_is_compiled(
    pattern: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import regex

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled")

    monkeypatch.setattr(regex, "compile", never)
    with pytest.raises(PatternTooCostly, match=says):
        compile_bounded(pattern)


def test_compiled_patterns_keep_the_last_used_within_their_steps() -> None:
    made: list[str] = []

    def compile(pattern: str) -> object:
        made.append(pattern)
        return compile_bounded(pattern)

    cache = CompiledPatterns(compile, steps=2_500)  # type: ignore[arg-type]
    for pattern in ("a{1000}", "b{1000}", "a{1000}", "c{1000}", "a{1000}", "b{1000}"):
        cache.compiled(pattern)
    # Two of 1000 steps fit: b is let go for c, and made again.
    assert made == ["a{1000}", "b{1000}", "c{1000}", "b{1000}"]


def _rules(*patterns: str) -> str:
    rules = "".join(
        f"  - {{id: r{i}, when: {{last_user: {{regex: '{p}'}}}}, reply: {{text: x}}}}\n"
        for i, p in enumerate(patterns)
    )
    return f"name: many\nrules:\n{rules}"


def test_a_scenarios_regexes_together_have_a_bound_too(tmp_path: Path) -> None:
    each = MAX_STEPS - 10
    patterns = [f"{chr(ord('a') + i)}{{{each}}}" for i in range(SCENARIO_STEPS // each + 1)]
    with pytest.raises(ScenarioError) as info:
        parse_scenario(_rules(*patterns), source="many.yaml")
    last = len(patterns) - 1
    assert info.value.located().startswith(
        f"many.yaml:{3 + last}:33: rule 'r{last}', field 'rules[{last}].when.last_user.regex': "
    )
    assert f"more than the {SCENARIO_STEPS:,} steps one scenario's regexes" in str(info.value)


def test_a_pattern_written_in_many_rules_is_compiled_once() -> None:
    pattern = f"a{{{MAX_STEPS - 10}}}"
    scenario = parse_scenario(_rules(*[pattern] * 10))
    compiled = {id(rule.when.last_user.regex.compiled) for rule in scenario.rules}  # type: ignore[union-attr]
    assert len(compiled) == 1
