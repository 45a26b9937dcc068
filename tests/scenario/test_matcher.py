"""The pure matcher: each lookup and combinator, and miss explanations as exact text."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.prompt import Message, OutputFormat, Prompt, Tool, ToolCallRef, ToolChoice
from mockserver.scenario.matcher import Miss, Selected, check, select
from mockserver.scenario.model import Scenario, When


def prompt(*messages: Message, **kw: Any) -> Prompt:
    return Prompt(
        api=kw.pop("api", "chat"),
        model=kw.pop("model", "gpt-4o-mini"),
        messages=messages or (Message("user", "What's the weather in Boston?"),),
        **kw,
    )


def when(**conditions: Any) -> When:
    return When.model_validate(conditions)


WEATHER_LOOP = (
    Message("user", "Weather in Boston?"),
    Message("assistant", "", tool_calls=(ToolCallRef("call_1", "get_weather", "{}"),)),
    Message("tool", '{"temp": 21}', tool_call_id="call_1"),
)


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ({"last_user": "What's the weather in Boston?"}, None),
        ({"last_user": {"contains": "weather"}}, None),
        (
            {"last_user": {"contains": "Weather"}},
            "last user message \"What's the weather in Boston?\" does not contain 'Weather'",
        ),
        ({"last_user": {"icontains": "WEATHER"}}, None),
        ({"last_user": {"regex": r"\bBoston\b"}}, None),
        (
            {"last_user": {"startswith": "Hi"}},
            "last user message \"What's the weather in Boston?\" does not start with 'Hi'",
        ),
        ({"model": {"glob": "gpt-4o*"}}, None),
        ({"model": {"glob": "o3*"}}, "model 'gpt-4o-mini' does not match glob 'o3*'"),
        ({"api": "responses"}, "api is 'chat', not 'responses'"),
        ({"stream": True}, "stream is False, not True"),
        ({"last_role": "tool"}, "last message role is 'user', not 'tool'"),
        ({"tools_offered": ["get_weather"]}, "tool 'get_weather' not offered (offered: none)"),
        ({"tool_result": {"name": "get_weather"}}, "no tool result in the conversation"),
        ({"turn": 0}, None),
        ({"turn": {"gte": 1}}, "turn is 0, should be >= 1"),
        ({"any_message": {"contains": "nothing"}}, "no message does contain 'nothing'"),
        (
            {"response_format": {"type": "json_schema"}},
            "response_format is 'text', not 'json_schema'",
        ),
        ({"metadata": {"team": "a"}}, "no metadata 'team'"),
        ({"params": {"temperature": 0}}, "parameter 'temperature' is not set"),
        ({"any": [{"stream": True}, {"last_user": {"contains": "Boston"}}]}, None),
        (
            {"any": [{"stream": True}, {"api": "responses"}]},
            "none of 'any' holds: (stream is False, not True); (api is 'chat', not 'responses')",
        ),
        ({"not": {"last_user": {"contains": "Boston"}}}, "the 'not' condition holds"),
        ({"not": {"stream": True}}, None),
    ],
)
def test_each_condition_explains_itself(conditions: dict[str, Any], expected: str | None) -> None:
    assert check(when(**conditions), prompt()) == expected


def test_conditions_and_together_and_report_the_first_failure() -> None:
    w = when(last_user={"contains": "weather"}, stream=True)
    assert check(w, prompt()) == "stream is False, not True"


def test_tool_results_are_named_from_their_calls() -> None:
    p = prompt(*WEATHER_LOOP)
    assert check(when(tool_result={"name": "get_weather"}), p) is None
    assert check(when(tool_result={"content": {"contains": "21"}}), p) is None
    assert check(when(tool_result={"name": "get_time"}), p) == (
        "no tool result with name equal 'get_time' (results: get_weather(call_1))"
    )
    wanted = {"name": "get_weather", "content": {"contains": "rain"}}
    assert check(when(tool_result=wanted), p) == (
        "no tool result with name equal 'get_weather' and content contain 'rain' "
        "(results: get_weather(call_1))"
    )
    both = [{"name": "get_weather"}, {"name": "get_time"}]  # the one that is missing is named
    assert check(when(tool_result=both), p) == (
        "no tool result with name equal 'get_time' (results: get_weather(call_1))"
    )
    assert check(when(turn=1, last_role="tool"), p) is None


def test_tools_choice_format_metadata_headers_and_params() -> None:
    p = prompt(
        tools=(Tool("get_weather"),),
        tool_choice=ToolChoice("required"),
        output_format=OutputFormat("json_schema", name="Recipe"),
        metadata={"team": "search"},
        headers={"x-trace": "abc"},
        params={"temperature": 0.2, "reasoning": {"effort": "low"}},
        instructions="You are terse.",
    )
    assert check(when(tools_offered=["get_weather"], tool_choice="required"), p) is None
    assert check(when(response_format={"type": "json_schema", "name": "Recipe"}), p) is None
    assert check(when(metadata={"team": {"glob": "se*"}}, headers={"X-Trace": "abc"}), p) is None
    assert check(when(params={"temperature": {"lte": 0.5}, "reasoning.effort": "low"}), p) is None
    assert check(when(params={"temperature": {"gt": 1}}), p) == (
        "parameter 'temperature' is 0.2, should be > 1"
    )
    assert check(when(system={"contains": "terse"}), p) is None


SCENARIO = Scenario.model_validate(
    {
        "name": "demo",
        "rules": [
            {
                "id": "weather",
                "when": {"last_user": {"contains": "weather"}},
                "reply": {"text": "Sunny."},
            },
            {
                "id": "flaky",
                "when": {"last_user": {"contains": "flaky"}},
                "after": "exhausted",
                "replies": [{"error": {"preset": "rate_limited"}}, {"text": "recovered"}],
            },
            {
                "id": "once",
                "when": {"last_user": {"contains": "once"}},
                "times": 1,
                "reply": {"text": "only once"},
            },
            {
                "id": "cycle",
                "when": {"last_user": {"contains": "cycle"}},
                "after": "cycle",
                "replies": [{"text": "a"}, {"text": "b"}],
            },
        ],
    }
)


def test_first_matching_rule_wins() -> None:
    chosen = select(SCENARIO, prompt(), {})
    assert isinstance(chosen, Selected)
    assert (chosen.rule_id, chosen.reply.text) == ("weather", "Sunny.")


def test_sequences_follow_their_after_policy() -> None:
    flaky = prompt(Message("user", "flaky please"))
    replies = [select(SCENARIO, flaky, {"flaky": n}) for n in range(3)]
    assert [r.reply.kinds() for r in replies[:2] if isinstance(r, Selected)] == [
        ["error"],
        ["text"],
    ]
    assert isinstance(replies[2], Miss)
    cycle = prompt(Message("user", "cycle"))
    texts = [select(SCENARIO, cycle, {"cycle": n}) for n in range(3)]
    assert [t.reply.text for t in texts if isinstance(t, Selected)] == ["a", "b", "a"]


def test_miss_lists_every_rule_with_its_reason() -> None:
    chosen = select(SCENARIO, prompt(Message("user", "once more")), {"once": 1})
    assert isinstance(chosen, Miss)
    assert chosen.explain() == (
        "No rule of scenario 'demo' matched chat request (model 'gpt-4o-mini', last user "
        "message 'once more').\n"
        "  - rule 'weather': last user message 'once more' does not contain 'weather'\n"
        "  - rule 'flaky': last user message 'once more' does not contain 'flaky'\n"
        "  - rule 'once': already used 1 of 1 times\n"
        "  - rule 'cycle': last user message 'once more' does not contain 'cycle'"
    )


def test_a_choice_says_whether_hit_counts_took_part() -> None:
    weather = select(SCENARIO, prompt(), {})
    assert isinstance(weather, Selected)
    assert not weather.counted  # one reply, no limit: the same every time
    cycling = select(SCENARIO, prompt(Message("user", "cycle")), {})
    assert isinstance(cycling, Selected)
    assert cycling.counted  # its reply depends on the count
    used_up = select(SCENARIO, prompt(Message("user", "once more")), {"once": 1})
    assert isinstance(used_up, Miss)
    assert used_up.counted  # a rule was passed over only because it was used up
    nothing = select(SCENARIO, prompt(Message("user", "nothing")), {})
    assert isinstance(nothing, Miss)
    assert not nothing.counted


def test_time_outside_the_regex_searches_is_not_spent_from_their_budget() -> None:
    """A cold server's first request spent its regex budget importing and converting, and its
    regex rule missed: only the searches themselves may spend it."""
    from mockserver.scenario.regexes import Regex, SearchBudget

    now = [0.0]
    budget = SearchBudget(0.1)
    budget.clock = lambda: now[0]
    pattern = Regex("(?i)hello")
    now[0] += 5.0  # five seconds pass before any search (imports, a long prompt)
    assert pattern.search("Hello there", deadline=budget)
    assert budget.remaining() == 0.1
    assert not budget.passed()
