"""The teardown verdict: the unused-rule report from scenarios and hit counts (pure), and
what fails a test in a pytest run (pytester, in-process)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mockserver.scenario.model import Reply, Rule, Scenario, When
from pytest_mockserver.verdict import unused_rules
from tests.plugin.conftest import block, failures

Run = Callable[..., pytest.RunResult]


def rule(rule_id: str) -> Rule:
    return Rule(id=rule_id, when=When(), reply=Reply(text=rule_id))


INLINE = rule("inline-1")
LABELS = {"inline-1": "on(last_user='hi')"}


def test_an_inline_rule_counts_its_matches_in_every_scenario_it_stood_in_front_of() -> None:
    served = [
        Scenario(name="inline", rules=[INLINE]),
        Scenario(name="base", rules=[INLINE, rule("greet")]),
    ]
    report = unused_rules(served, {"inline": {"inline-1": 1}, "base": {}}, labels=LABELS)
    assert report == (
        "mockserver: 1 rule not used up (assert_all_used):\n"
        "  rule 'greet' of scenario 'base' (when {}): never matched"
    )


def test_an_unused_inline_rule_is_reported_once_with_the_last_scenario() -> None:
    served = [
        Scenario(name="first", rules=[INLINE, rule("a")]),
        Scenario(name="second", rules=[INLINE, rule("b")]),
    ]
    report = unused_rules(served, {"first": {"a": 1}, "second": {"b": 1}}, labels=LABELS)
    assert report == (
        "mockserver: 1 rule not used up (assert_all_used):\n"
        "  rule 'inline-1' of scenario 'second' (on(last_user='hi')): never matched"
    )


def test_rules_of_a_replaced_scenario_are_judged_on_their_own_matches() -> None:
    served = [Scenario(name="first", rules=[rule("a")]), Scenario(name="second", rules=[rule("a")])]
    report = unused_rules(served, {"second": {"a": 1}}, labels={})
    assert report == (
        "mockserver: 1 rule not used up (assert_all_used):\n"
        "  rule 'a' of scenario 'first' (when {}): never matched"
    )


def test_a_reply_that_raises_is_reported_once(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        test_typo="""
        import pytest

        def test_caught(mockserver):
            with pytest.raises(TypeError):
                mockserver.on(last_user="x").reply(txt="hi")
            with pytest.raises(ValueError):
                mockserver.on(last_user="y").reply(
                    text="abc", logprobs=[{"token": "zz", "logprob": -1}]
                )

        def test_uncaught(mockserver):
            mockserver.on(last_user="x").reply(txt="hi")

        def test_forgotten(mockserver):
            mockserver.on(last_user="x")
        """
    )
    result = run()
    result.assert_outcomes(passed=1, failed=2)
    assert failures(result) == ["test_uncaught", "test_forgotten"]


def test_unused_rules_count_every_scenario_the_test_served(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_served="""
        import pytest

        pytestmark = pytest.mark.mockserver(assert_all_used=True)
        ASK = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
        FIRST = "name: first\\nrules: [{id: one, reply: {text: one}}]\\n"
        SECOND = "name: second\\nrules: [{id: two, reply: {text: two}}]\\n"

        def test_inline_rule_written_before_use(mockserver):
            mockserver.on(last_user="hi").reply(text="inline")
            mockserver.client().chat.completions.create(**ASK)
            mockserver.use(SECOND)
            mockserver.client().chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "other"}]
            )

        def test_scenario_served_again(mockserver):
            mockserver.use(FIRST)
            mockserver.client().chat.completions.create(**ASK)
            mockserver.use(SECOND)
            mockserver.client().chat.completions.create(**ASK)
            mockserver.use(FIRST)

        def test_replaced_scenario(mockserver):
            mockserver.use(FIRST)
            mockserver.use(SECOND)
            mockserver.client().chat.completions.create(**ASK)

        def test_reset_forgets(mockserver):
            mockserver.use(FIRST)
            mockserver.reset()
        """
    )
    result = run()
    result.assert_outcomes(passed=3, failed=1)
    assert failures(result) == ["test_replaced_scenario"]
    assert block(result.outlines, "mockserver: 1 rule not used up (assert_all_used):") == [
        "mockserver: 1 rule not used up (assert_all_used):",
        "  rule 'one' of scenario 'first' (when {}): never matched",
    ]
