"""Every kind of scenario mistake fails at load with file, line, column, rule and field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mockserver.errors import ScenarioError
from mockserver.scenario.library import builtin, builtin_names, load_ref
from mockserver.scenario.loader import load_file, parse_scenario, scenario_to_yaml
from mockserver.scenario.model import Reply, Rule, Scenario, When


def error_of(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(textwrap.dedent(text), source="s.yaml")
    return str(info.value)


def test_unknown_key_suggests_the_right_one() -> None:
    assert error_of("""\
        rules:
          - id: ask
            when: {last_user: {contains: hi}, tools_ofered: [x]}
            reply: {text: hi}
        """) == (
        "s.yaml:3:39: rule 'ask', field 'rules[0].when.tools_ofered': unknown key "
        "'tools_ofered' (did you mean 'tools_offered'?)"
    )


def test_bad_regex_is_reported_with_the_compiler_message() -> None:
    assert error_of("""\
        rules:
          - when: {last_user: {regex: "(oops"}}
            reply: {text: hi}
        """) == (
        "s.yaml:2:24: rule #0, field 'rules[0].when.last_user.regex': invalid regular "
        "expression '(oops': missing ), unterminated subpattern at position 0"
    )


def test_two_lookups_in_one_matcher_are_rejected() -> None:
    assert "give exactly one lookup" in error_of("""\
        rules:
          - when: {last_user: {contains: a, regex: b}}
            reply: {text: hi}
        """)


def test_duplicate_rule_ids_are_rejected() -> None:
    assert "duplicate rule id 'a' (rules 0 and 1)" in error_of("""\
        rules:
          - {id: a, reply: {text: x}}
          - {id: a, reply: {text: y}}
        """)


def test_duplicate_yaml_keys_are_rejected() -> None:
    assert (
        error_of("""\
        name: a
        name: b
        """)
        == "s.yaml:2:1: duplicate key 'name'"
    )


def test_reply_and_replies_are_exclusive() -> None:
    message = error_of("""\
        rules:
          - id: both
            reply: {text: x}
            replies: [{text: y}]
        """)
    assert message.startswith("s.yaml:2:5: rule 'both', field 'rules[0]': give exactly one of")


def test_two_reply_kinds_are_rejected() -> None:
    assert "a reply is one of text, generate" in error_of("""\
        rules:
          - reply: {text: x, refusal: "no thanks"}
        """)


def test_unknown_placeholder_is_rejected() -> None:
    assert "unknown placeholder {{user_name}}" in error_of("""\
        rules:
          - reply: {text: "Hi {{user_name}}"}
        """)


def test_unknown_error_preset_lists_the_presets() -> None:
    message = error_of("""\
        rules:
          - reply: {error: {preset: rate_limit}}
        """)
    assert "field 'rules[0].reply.error.preset'" in message
    assert "'rate_limited'" in message


def test_yaml_booleans_in_text_fields_get_a_hint() -> None:
    assert "quote the text" in error_of("""\
        rules:
          - reply: {refusal: no}
        """)


def test_invalid_yaml_is_located() -> None:
    assert error_of("rules: [\n  {id: a\n").startswith("s.yaml:3:1: invalid YAML")


def test_every_problem_is_listed() -> None:
    message = error_of("""\
        nmae: x
        rules:
          - {id: a, reply: {txt: hi}}
        """)
    assert message.splitlines() == [
        "s.yaml:1:1: field 'nmae': unknown key 'nmae' (did you mean 'name'?)",
        "s.yaml:3:21: rule 'a', field 'rules[0].reply.txt': unknown key 'txt' "
        "(did you mean 'text'?)",
    ]


def test_missing_fixture_is_reported_at_load(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("rules:\n  - reply: {fixture: nope.json}\n")
    with pytest.raises(ScenarioError) as info:
        load_file(path)
    assert info.value.line == 2
    assert "fixture 'nope.json' not found" in str(info.value)


def test_fixture_replies_are_loaded_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "answer.json").write_text('{"text": "From a fixture."}')
    path = tmp_path / "s.yaml"
    path.write_text("rules:\n  - reply: {fixture: answer.json}\n")
    assert load_file(path).rules[0].reply == Reply(text="From a fixture.")


def test_invalid_fixture_content_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"txt": "x"}')
    path = tmp_path / "s.yaml"
    path.write_text("rules:\n  - reply: {fixture: bad.json}\n")
    with pytest.raises(ScenarioError, match=r"fixture 'bad\.json' is not a valid reply: txt"):
        load_file(path)


def test_name_defaults_to_the_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "my-scenario.yaml"
    path.write_text("rules: []\n")
    assert load_file(path).name == "my-scenario"


def test_scenarios_built_in_python_round_trip_through_yaml() -> None:
    scenario = Scenario(
        name="py",
        seed=3,
        fallback="strict",
        rules=[
            Rule(
                id="hello",
                when=When.model_validate({"last_user": {"regex": "(?i)hello"}}),
                reply=Reply(text="Hi {{last_user}}"),
            ),
            Rule(
                replies=[
                    Reply.model_validate({"error": {"preset": "overloaded"}}),
                    Reply.model_validate({"json": {"ok": True}}),
                ],
                after="cycle",
            ),
        ],
    )
    assert parse_scenario(scenario_to_yaml(scenario)) == scenario


def test_every_builtin_scenario_loads() -> None:
    names = builtin_names()
    assert "default" in names
    for name in names:
        assert builtin(name).name == name


def test_unknown_builtin_name_lists_the_known_ones() -> None:
    with pytest.raises(ScenarioError, match="no built-in scenario named 'nope' \\(built-in: "):
        load_ref("nope")
