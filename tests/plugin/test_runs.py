"""The plugin inside a pytest run (pytester, in-process): fixtures, marker, options, verdicts."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.plugin.conftest import block

Run = Callable[..., pytest.RunResult]

ISOLATION = """
import pytest

TEXT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}


def test_a(mockserver):
    mockserver.use("name: same\\nrules: [{id: r, reply: {text: from a}}]\\n")
    client = mockserver.client()
    replies = [client.chat.completions.create(**TEXT) for _ in range(2)]
    assert [r.choices[0].message.content for r in replies] == ["from a", "from a"]
    assert mockserver.hits == {"r": 2}
    assert [c.rule for c in mockserver.calls] == ["r", "r"]
    print("ids a", [r.id for r in replies])


def test_b(mockserver):
    mockserver.on(id="r", last_user="hi").reply(text="from b").times(1)
    client = mockserver.client()
    reply = client.chat.completions.create(**TEXT)
    assert reply.choices[0].message.content == "from b"
    assert mockserver.hits == {"r": 1}
    assert len(mockserver.calls) == 1
    print("ids b", [reply.id])
"""


def ids_printed(result: pytest.RunResult) -> list[str]:
    return sorted(re.findall(r"ids [ab] \[[^]]*\]", result.stdout.str()))


def test_tests_are_isolated_whatever_the_order(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_iso=ISOLATION)
    forward = run("-s", "test_iso.py::test_a", "test_iso.py::test_b")
    backward = run("-s", "test_iso.py::test_b", "test_iso.py::test_a")
    forward.assert_outcomes(passed=2)
    backward.assert_outcomes(passed=2)
    # Same namespaces, same counters, same bytes: ids do not depend on test order.
    assert ids_printed(forward) == ids_printed(backward) != []


def test_the_marker_configures_scenario_seed_and_strictness(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_marked="""
        import openai
        import pytest

        pytestmark = pytest.mark.mockserver(seed=3)

        @pytest.mark.mockserver(scenario="rules: [{when: {last_user: hi}, reply: {text: yo}}]\\n")
        def test_scenario_and_module_seed(mockserver):
            assert mockserver.seed == 3
            assert mockserver.scenario.rules[0].id == "rule-1"

        @pytest.mark.mockserver(seed=5, strict=True, assert_all_matched=False)
        def test_strict(mockserver):
            assert mockserver.seed == 5
            assert mockserver.scenario.fallback == "strict"
            with pytest.raises(openai.BadRequestError, match="No rule of scenario"):
                mockserver.client().chat.completions.create(
                    model="gpt-4o", messages=[{"role": "user", "content": "x"}]
                )
        """
    )
    run().assert_outcomes(passed=2)


def test_a_marker_typo_names_the_valid_keywords(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        test_typo="""
        import pytest

        @pytest.mark.mockserver(stict=True)
        def test_typo(mockserver):
            pass

        @pytest.mark.mockserver(seed="7")
        def test_wrong_type():
            pass
        """
    )
    result = run()
    result.assert_outcomes(errors=2)
    lines = result.outlines
    assert (
        "@pytest.mark.mockserver got an unexpected keyword 'stict' (did you mean 'strict'?); "
        "valid keywords: scenario, seed, strict, assert_all_used, assert_all_matched, "
        "allow_network, cassette"
    ) in lines
    assert "@pytest.mark.mockserver(seed=...) takes int, got '7'" in lines


def test_a_strict_miss_fails_the_test_with_the_servers_explanation(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_miss="""
        import openai
        import pytest

        @pytest.mark.mockserver(strict=True)
        def test_miss(mockserver):
            mockserver.on(id="ask-weather", last_user_contains="weather").reply(text="sunny")
            mockserver.on(id="answer", tool_result="get_weather").reply(text="21 °C")
            try:
                mockserver.client().chat.completions.create(
                    model="gpt-4o",
                    messages=[{"role": "user", "content": "Hello " + "there " * 20}],
                    tools=[{"type": "function", "function": {"name": "search"}}],
                )
            except openai.BadRequestError:
                pass  # the code under test swallowed it: the verdict still fails the test
        """
    )
    result = run()
    result.assert_outcomes(failed=1)
    assert block(result.outlines, "mockserver: 1 request matched no rule (strict):") == [
        "mockserver: 1 request matched no rule (strict):",
        "  call 1: No rule of scenario 'inline' matched chat request (model 'gpt-4o', last user "
        "message 'Hello there there there there there there there there there…', "
        "tools search).",
        "    - rule 'ask-weather': last user message 'Hello there there there there there "
        "there there there there…' does not contain 'weather'",
        "    - rule 'answer': no tool result in the conversation",
    ]


def test_unused_rules_fail_the_test_one_line_each(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        test_unused="""
        import pytest

        ASK = {"model": "gpt-4o", "messages": [{"role": "user", "content": "weather?"}]}

        @pytest.mark.mockserver(assert_all_used=True)
        def test_unused(mockserver):
            mockserver.use(
                "name: base\\nrules: [{id: greet, when: {last_user: hi}, reply: {text: hey}}]"
            )
            mockserver.on(last_user_contains="weather").replies("sunny", "rainy")
            mockserver.on(id="again", last_user_contains="weather").reply(text="x").times(2)
            mockserver.on(model="gpt-5")
            mockserver.client().chat.completions.create(**ASK)

        @pytest.mark.mockserver(assert_all_used=True)
        def test_failed_tests_do_not_report_unused_rules(mockserver):
            mockserver.on(last_user="never").reply(text="x")
            assert False
        """
    )
    result = run()
    result.assert_outcomes(failed=2)
    assert block(result.outlines, "mockserver: 1 rule never given a reply:") == [
        "mockserver: 1 rule never given a reply:",
        "  on(model='gpt-5'): call .reply(), .replies() or .fail()",
    ]
    assert block(result.outlines, "mockserver: 3 rules not used up (assert_all_used):") == [
        "mockserver: 3 rules not used up (assert_all_used):",
        "  rule 'inline-1' of scenario 'base' (on(last_user_contains='weather')): "
        "served 1 of 2 replies",
        "  rule 'again' of scenario 'base' (on(last_user_contains='weather')): never matched",
        '  rule \'greet\' of scenario \'base\' (when {"last_user": {"equals": "hi"}}): '
        "never matched",
    ]
    assert "not used up" not in next(
        line
        for line in result.outlines
        if line.startswith("FAILED") and "test_failed_tests_do_not_report_unused_rules" in line
    )


def test_a_rule_that_cannot_be_served_fails_the_test_even_if_the_error_is_caught(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_broken_rule="""
        import openai

        def test_swallowed(mockserver):
            mockserver.on(last_user="hi").reply(tool_calls=[{"name": "nope", "arguments": {}}])
            try:
                mockserver.client().chat.completions.create(
                    model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
                )
            except openai.BadRequestError:
                pass  # the code under test treats it as the model's failure

        def test_a_requests_own_mistake_is_not_the_scenarios(mockserver):
            try:
                mockserver.client().chat.completions.create(model="gpt-4o", messages=[])
            except openai.BadRequestError:
                pass
        """
    )
    result = run()
    result.assert_outcomes(passed=1, failed=1)
    assert block(
        result.outlines, "mockserver: 1 request got the scenario's error, not a reply:"
    ) == [
        "mockserver: 1 request got the scenario's error, not a reply:",
        "  call 1: mockserver: scenario rule 'inline-1' calls tool 'nope', which the request "
        "does not offer (offered: none)",
    ]


def test_a_scenario_fault_fails_the_test_in_another_familys_words_too(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_broken_rule_anthropic="""
        import anthropic

        def test_swallowed(mockserver):
            mockserver.on(last_user="hi").reply(tool_calls=[{"name": "nope", "arguments": {}}])
            try:
                mockserver.anthropic_client().messages.create(
                    model="claude-sonnet-4-6",
                    max_tokens=20,
                    messages=[{"role": "user", "content": "hi"}],
                )
            except anthropic.BadRequestError:
                pass
        """
    )
    result = run()
    result.assert_outcomes(failed=1)
    assert block(
        result.outlines, "mockserver: 1 request got the scenario's error, not a reply:"
    ) == [
        "mockserver: 1 request got the scenario's error, not a reply:",
        "  call 1: mockserver: scenario rule 'inline-1' calls tool 'nope', which the request "
        "does not offer (offered: none)",
    ]


def test_a_server_exception_fails_the_test_with_its_traceback(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_boom="""
        import openai
        import pytest

        def test_boom(mockserver, monkeypatch):
            def boom(*args, **kwargs):
                raise RuntimeError("kaboom")

            monkeypatch.setattr(mockserver.session.engine, "turn", boom)
            with pytest.raises(openai.InternalServerError):
                mockserver.client(max_retries=0).chat.completions.create(
                    model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
                )
        """
    )
    result = run("-p", "no:logging")
    result.assert_outcomes(failed=1)
    report = block(
        result.outlines,
        "mockserver: the server failed with 1 internal error during this test "
        "(the client got a 500):",
    )
    assert report[1] == "  Traceback (most recent call last):"
    assert re.fullmatch(r"    \(\d+ framework frames? hidden\)", report[2]), report[2]
    assert report[-3:] == [
        '    File "' + str(pytester.path / "test_boom.py") + '", line 6, in boom',
        '      raise RuntimeError("kaboom")',
        "  RuntimeError: kaboom",
    ]
    assert not [line for line in report if "site-packages/starlette" in line]


def test_mockserver_env_points_at_the_namespace_and_is_undone(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_env="""
        import os
        import openai

        def test_1_env(mockserver_env):
            assert os.environ["OPENAI_BASE_URL"] == mockserver_env.base_url
            assert os.environ["OPENAI_API_KEY"] == mockserver_env.api_key
            mockserver_env.on(last_user="hi").reply(text="from env")
            with openai.OpenAI() as client:
                reply = client.chat.completions.create(
                    model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
                )
            assert reply.choices[0].message.content == "from env"
            assert mockserver_env.calls[0].rule == "inline-1"

        def test_2_after(mockserver):
            assert "OPENAI_BASE_URL" not in os.environ
            assert "OPENAI_API_KEY" not in os.environ
        """
    )
    run().assert_outcomes(passed=2)


def test_the_report_header_prints_the_seed(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_nothing="def test_nothing(): pass")
    assert "mockserver: seed 0 (replay with --mockserver-seed=0)" in run().outlines
    assert (
        "mockserver: seed 42 (replay with --mockserver-seed=42)"
        in run("--mockserver-seed=42").outlines
    )
    pytester.makeini("[pytest]\nmockserver_seed = 9\n")
    assert "mockserver: seed 9 (replay with --mockserver-seed=9)" in run().outlines
    drawn = [
        line for line in run("--mockserver-seed=random").outlines if line.startswith("mockserver:")
    ]
    assert len(drawn) == 1
    assert re.fullmatch(r"mockserver: seed (\d+) \(replay with --mockserver-seed=\1\)", drawn[0])


def test_a_bad_seed_is_a_usage_error(pytester: pytest.Pytester, run: Run) -> None:
    result = run("--mockserver-seed=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--mockserver-seed: expected an integer or 'random', got 'abc'" in "\n".join(
        result.errlines
    )


def test_scenario_directories_are_named_by_use_and_marker(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "greeter.yaml").write_text(
        "rules: [{id: hi, when: {last_user: hi}, reply: {text: hello}}]\n"
    )
    pytester.makeini("[pytest]\nmockserver_scenarios = scenarios\n")
    pytester.makepyfile(
        test_named="""
        import pytest

        @pytest.mark.mockserver(scenario="greeter")
        def test_marker(mockserver):
            reply = mockserver.client().chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
            )
            assert reply.choices[0].message.content == "hello"

        def test_use(mockserver):
            assert mockserver.scenario.name == "default"  # the directory does not replace it
            assert mockserver.use("greeter").rules[0].id == "hi"
            assert mockserver.scenario.name == "greeter"
            mockserver.reset()
            assert mockserver.scenario.name == "default"
        """
    )
    run().assert_outcomes(passed=2)


def test_a_broken_marker_scenario_fails_the_test_with_its_location(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_broken="""
        import pytest

        @pytest.mark.mockserver(scenario="rules:\\n  - reply: {txt: hi}\\n")
        def test_broken(mockserver):
            pass
        """
    )
    result = run()
    result.assert_outcomes(errors=1)
    assert (
        "mockserver: @pytest.mark.mockserver(scenario=...): <scenario text>:2:13: "
        "rule #1, field 'rules[0].reply.txt': unknown key 'txt' (did you mean 'text'?)"
    ) in result.outlines


def test_in_process_mode_never_opens_a_socket(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        test_inproc="""
        def test_sync(mockserver):
            mockserver.on(last_user="ping").reply(text="pong")
            reply = mockserver.client().chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "ping"}]
            )
            assert reply.choices[0].message.content == "pong"
            assert not mockserver.session.started
        """
    )
    run("--mockserver-in-process").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nmockserver_in_process = true\n")
    run().assert_outcomes(passed=1)


def test_the_plugin_can_be_disabled(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_off="def test_off(mockserver): pass")
    result = run("-p", "no:mockserver")
    result.assert_outcomes(errors=1)
    assert "E       fixture 'mockserver' not found" in result.outlines
