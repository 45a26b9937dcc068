"""Keywords of ``on()`` / ``reply()`` / ``fail()`` map onto the scenario models (pure)."""

from __future__ import annotations

import pytest

from mockserver.scenario.model import ErrorSpec, Reply, ToolCallSpec, When
from pytest_mockserver.builder import RuleBuilder, reply_from_keywords, when_from_keywords


def builder(**when: object) -> RuleBuilder:
    return RuleBuilder(when_from_keywords(when), rule_id="r", label="on()", on_change=lambda: None)


def test_lookup_keywords_become_text_matches() -> None:
    when = when_from_keywords({"last_user_contains": "weather", "model_glob": "gpt-4*"})
    assert when == When.model_validate(
        {"last_user": {"contains": "weather"}, "model": {"glob": "gpt-4*"}}
    )


def test_shorthands_for_tools_and_tool_results() -> None:
    when = when_from_keywords({"tools_offered": "get_weather", "tool_result": "get_weather"})
    assert when.tools_offered == ["get_weather"]
    assert (
        when.tool_result
        == When.model_validate({"tool_result": {"name": "get_weather"}}).tool_result
    )


def test_number_lookups_and_negation() -> None:
    when = when_from_keywords({"turn_gte": 1, "not_": {"last_role": "tool"}})
    assert when.turn == When.model_validate({"turn": {"gte": 1}}).turn
    assert when.not_ == When(last_role="tool")


def test_an_unknown_condition_is_a_type_error_listing_the_valid_ones() -> None:
    with pytest.raises(TypeError) as info:
        when_from_keywords({"last_usr_contains": "x"})
    message = str(info.value)
    assert message.startswith(
        "on() got an unexpected keyword argument 'last_usr_contains' "
        "(did you mean 'last_user_contains'?). Valid keywords: any, any_message, "
    )
    valid = message.partition("Valid keywords: ")[2].split(", ")
    assert valid == sorted(valid)
    assert {"last_user_regex", "system_icontains", "turn_gte", "tools_offered", "id"} <= set(valid)


def test_two_conditions_on_one_field_are_refused() -> None:
    with pytest.raises(TypeError, match="two conditions on 'last_user'"):
        when_from_keywords({"last_user": "a", "last_user_contains": "b"})


def test_a_bad_value_names_the_call_and_field() -> None:
    with pytest.raises(ValueError, match=r"^on\(api='soap'\): api: Input should be"):
        when_from_keywords({"api": "soap"})


def test_reply_keywords_become_a_reply() -> None:
    reply = reply_from_keywords(
        {"text": "hi", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]}
    )
    assert reply == Reply(text="hi", tool_calls=[ToolCallSpec(name="f", arguments={"a": 1})])
    assert reply_from_keywords({"json": {"a": 1}}).json_ == {"a": 1}
    assert reply_from_keywords({"generate": True}).generate is not None
    assert reply_from_keywords({"error": "overloaded"}).error == ErrorSpec(preset="overloaded")


def test_an_unknown_reply_keyword_lists_the_valid_ones() -> None:
    with pytest.raises(TypeError) as info:
        reply_from_keywords({"txt": "x"})
    message = str(info.value)
    assert message.startswith(
        "reply() got an unexpected keyword argument 'txt' (did you mean 'text'?). "
        "Valid keywords: annotations, embedding, error, "
    )
    valid = set(message.partition("Valid keywords: ")[2].split(", "))
    assert {"text", "json", "tool_calls", "refusal", "generate", "usage"} <= valid
    assert "fixture" not in valid  # resolved by the YAML loader only


def test_two_reply_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="a reply is one of"):
        reply_from_keywords({"text": "x", "refusal": "no"})


def test_fail_maps_a_preset_and_fields_onto_an_error_spec() -> None:
    rule = builder().fail("rate_limited", retry_after=2, message="slow down").rule()
    assert rule.reply == Reply(
        error=ErrorSpec(preset="rate_limited", retry_after=2, message="slow down")
    )
    with pytest.raises(TypeError, match="fail\\(\\) got an unexpected keyword argument 'retry'"):
        builder().fail("rate_limited", retry=2)
    with pytest.raises(ValueError, match="preset"):
        builder().fail("on_fire")


def test_replies_build_a_sequence_of_texts_mappings_and_replies() -> None:
    rule = builder().replies("a", {"error": "overloaded"}, Reply(text="c"), after="cycle").rule()
    assert rule.replies == [
        Reply(text="a"),
        Reply(error=ErrorSpec(preset="overloaded")),
        Reply(text="c"),
    ]
    assert rule.after == "cycle"
    assert builder().replies("only", after="exhausted").rule().replies == [Reply(text="only")]


def test_times_is_checked() -> None:
    assert builder().reply(text="x").times(2).rule().times == 2
    with pytest.raises(ValueError, match="at least once"):
        builder().times(0)


def test_a_rule_without_a_reply_says_how_to_give_one() -> None:
    incomplete = builder(last_user="x")
    assert not incomplete.complete
    with pytest.raises(
        ValueError, match=r"has no reply: call \.reply\(\), \.replies\(\) or \.fail\(\)"
    ):
        incomplete.rule()


def test_every_change_notifies_the_handle() -> None:
    changes: list[int] = []
    rule = RuleBuilder(When(), rule_id="r", label="on()", on_change=lambda: changes.append(1))
    rule.reply(text="a").times(2).replies("b")
    assert len(changes) == 3


def test_a_call_that_raises_leaves_the_rule_as_it_was() -> None:
    changes: list[int] = []
    rule = RuleBuilder(When(), rule_id="r", label="on()", on_change=lambda: changes.append(1))
    with pytest.raises(TypeError, match="'txt'"):
        rule.reply(txt="hi")
    assert not rule.complete
    rule.reply(text="kept")
    with pytest.raises(ValueError, match="at least once"):
        rule.times(0)
    with pytest.raises(ValueError, match="after"):
        rule.replies("a", "b", after="forever")
    kept = rule.rule()
    assert (kept.reply, kept.replies, kept.times) == (Reply(text="kept"), None, None)
    assert len(changes) == 1  # only the call that succeeded reached the handle


def test_a_rule_is_forgotten_only_if_no_answer_was_tried() -> None:
    forgotten = builder(last_user="x").times(2)
    assert forgotten.forgotten
    broken = builder(last_user="x")
    with pytest.raises(ValueError, match="logprobs"):
        broken.reply(text="abc", logprobs=[{"token": "zz", "logprob": -1}])
    assert not broken.complete
    assert not broken.forgotten  # its exception told the test already
    assert not builder().reply(text="x").forgotten


@pytest.mark.parametrize("keywords", [{}, {"latency": {"delay": 0.1}}])
def test_a_reply_with_nothing_to_say_is_refused(keywords: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="a reply needs one of text, generate") as info:
        reply_from_keywords(keywords)
    assert "write text: ''" in str(info.value)


def test_a_bad_lookup_says_why_in_python_terms() -> None:
    with pytest.raises(ValueError, match="missing \\) at position 1") as info:
        when_from_keywords({"last_user_regex": "("})
    assert str(info.value).startswith(
        "on(last_user_regex='('): last_user.regex: invalid regular expression '('"
    )
    with pytest.raises(ValueError, match="expected a text") as info:
        when_from_keywords({"last_user": True})
    assert str(info.value) == (
        "on(last_user=True): last_user: expected a text, or one of "
        "{equals, contains, icontains, startswith, regex, glob: text}"
    )
