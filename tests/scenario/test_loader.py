"""Every kind of scenario mistake fails at load with file, line, column, rule and field."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

from mockserver.errors import ScenarioError
from mockserver.scenario.library import builtin, builtin_names, load_ref
from mockserver.scenario.loader import (
    load_file,
    parse_scenario,
    scenario_from_data,
    scenario_to_yaml,
)
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


def test_unknown_rule_key_is_not_matched_against_other_models_keys() -> None:
    assert error_of("""\
        rules:
          - when: {last_user: hi}
            extra: 1
            txt: hi
            reply: {text: hi}
        """).splitlines() == [
        "s.yaml:3:5: rule #1, field 'rules[0].extra': unknown key 'extra'",
        "s.yaml:4:5: rule #1, field 'rules[0].txt': unknown key 'txt'",
    ]


@pytest.mark.parametrize(
    ("where", "typo", "guess"),
    [
        ("rules: [{whn: {}, reply: {text: x}}]", "whn", "when"),
        ("rules: [{when: {not: {last_usr: x}}, reply: {text: x}}]", "last_usr", "last_user"),
        ("rules: [{when: {tool_result: [{nmae: x}]}, reply: {text: x}}]", "nmae", "name"),
        ("rules: [{when: {metadata: {k: {contain: x}}}, reply: {text: x}}]", "contain", "contains"),
        ("rules: [{replies: [{text: x, fault: {resett: true}}]}]", "resett", "reset"),
        ("chaos: {probability: 1, replies: [{error: {stauts: 500}}]}", "stauts", "status"),
    ],
)
def test_unknown_key_suggestions_come_from_the_keys_valid_there(
    where: str, typo: str, guess: str
) -> None:
    assert f"unknown key '{typo}' (did you mean '{guess}'?)" in error_of(where)


def test_bad_regex_is_reported_with_the_compiler_message() -> None:
    assert error_of("""\
        rules:
          - when: {last_user: {regex: "(oops"}}
            reply: {text: hi}
        """) == (
        "s.yaml:2:24: rule #1, field 'rules[0].when.last_user.regex': invalid regular "
        "expression '(oops': missing ) at position 5"
    )


def test_two_lookups_in_one_matcher_are_rejected() -> None:
    assert "give exactly one lookup" in error_of("""\
        rules:
          - when: {last_user: {contains: a, regex: b}}
            reply: {text: hi}
        """)


def test_duplicate_rule_id_is_located_at_the_second_id() -> None:
    assert (
        error_of("""\
        rules:
          - id: a
            reply: {text: x}
          - reply: {text: y}
            id: a
        """)
        == "s.yaml:5:5: rule 'a', field 'rules[1].id': duplicate rule id 'a' (rules 1 and 2)"
    )


@pytest.mark.parametrize(
    ("where", "key", "nested"),
    [
        (
            "rules: [{when: {last_user_contains: hi}, reply: {text: x}}]",
            "last_user_contains",
            "last_user: {contains: …}",
        ),
        (
            "rules: [{when: {not: {model_startswith: o1}}, reply: {text: x}}]",
            "model_startswith",
            "model: {startswith: …}",
        ),
        ("rules: [{when: {any: [{turn_gte: 2}]}, reply: {text: x}}]", "turn_gte", "turn: {gte: …}"),
    ],
)
def test_the_fixture_keyword_form_in_a_file_is_told_how_a_file_writes_it(
    where: str, key: str, nested: str
) -> None:
    """``last_user_contains=`` is the pytest fixture's on() keyword; a file nests the lookup."""
    assert (
        f"unknown key '{key}' (a scenario file writes it '{nested}'; '{key}=' is the pytest "
        "fixture's on() keyword)"
    ) in error_of(where)


def test_a_lookup_the_condition_does_not_have_is_still_a_misspelt_key() -> None:
    assert "unknown key 'last_user_matches' (did you mean 'last_user'?)" in error_of(
        "rules: [{when: {last_user_matches: hi}, reply: {text: x}}]"
    )


def test_duplicate_rule_ids_are_listed_with_the_other_problems() -> None:
    assert error_of("""\
        rules:
          - {id: a, reply: {txt: x}}
          - {id: b, reply: {text: y}}
          - {id: a, reply: {text: z}}
          - {id: b, reply: {text: w}}
        """).splitlines() == [
        "s.yaml:2:21: rule 'a', field 'rules[0].reply.txt': unknown key 'txt' "
        "(did you mean 'text'?)",
        "s.yaml:4:6: rule 'a', field 'rules[2].id': duplicate rule id 'a' (rules 1 and 3)",
        "s.yaml:5:6: rule 'b', field 'rules[3].id': duplicate rule id 'b' (rules 2 and 4)",
    ]


def test_an_id_that_is_another_rules_default_id_is_rejected() -> None:
    assert error_of("""\
        rules:
          - {id: rule-2, reply: {text: x}}
          - {reply: {text: y}}
        """) == (
        "s.yaml:2:6: rule 'rule-2', field 'rules[0].id': duplicate rule id 'rule-2' "
        "(rules 1 and 2: rule 2 has no id, so it is rule-2)"
    )


def test_unreadable_rule_ids_are_reported_as_such_not_as_duplicates() -> None:
    assert error_of("""\
        rules:
          - {id: 1, reply: {text: x}}
          - {id: 1, reply: {text: y}}
        """).splitlines() == [
        "s.yaml:2:6: rule '1', field 'rules[0].id': Input should be a valid string",
        "s.yaml:3:6: rule '1', field 'rules[1].id': Input should be a valid string",
    ]


def test_scenarios_built_in_python_reject_duplicate_rule_ids() -> None:
    with pytest.raises(ValidationError, match=r"duplicate rule id 'a' \(rules 1 and 2\)"):
        Scenario(rules=[Rule(id="a", reply=Reply(text="x")), Rule(id="a", reply=Reply(text="y"))])


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


def test_invalid_yaml_is_located_where_what_is_left_open_began() -> None:
    message = error_of("rules: [\n  {id: a\n")  # libyaml and PyYAML word the problem apart
    assert message.startswith(
        "s.yaml:2:3: invalid YAML: while parsing a flow mapping (line 2, column 3), "
    )
    assert message.endswith(" ',' or '}' (line 3, column 1)") or "'<stream end>'" in message


def test_an_unclosed_quote_is_said_with_both_of_pyyamls_marks() -> None:
    text = (
        "name: greet\nrules:\n  - id: hi\n"
        '    reply: {text: "Hello, world, when: {last_user: hi}}\n'
        "  - id: bye\n    reply: {text: bye}\n\n\n"
    )
    assert error_of(text) == (
        "s.yaml:4:19: invalid YAML: while scanning a quoted scalar (line 4, column 19), found "
        "unexpected end of stream (line 9, column 1): a quote opened there is never closed"
    )


def test_a_tab_is_named_as_a_tab() -> None:
    message = error_of("name: s\nrules:\n\t- id: a\n")
    assert message.startswith("s.yaml:3:1: invalid YAML: ")
    assert "a tab character, which cannot start any token (YAML indents with spaces only)" in (
        message
    )


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


@pytest.mark.parametrize("text", ["", "\n  \n", "# nothing yet\n", "---\n"])
def test_an_empty_file_is_rejected(text: str) -> None:
    assert error_of(text) == (
        "s.yaml:1:1: the file is empty: a scenario file holds a mapping (name, rules, …); "
        "write {} for a scenario with every default"
    )


def test_an_empty_mapping_is_a_scenario_with_every_default() -> None:
    assert parse_scenario("{}\n") == Scenario()


@pytest.mark.parametrize(("text", "line"), [("~\n", 1), ("# a list:\n- a\n", 2)])
def test_a_document_that_is_not_a_mapping_is_located(text: str, line: int) -> None:
    assert error_of(text) == f"s.yaml:{line}:1: a scenario file holds a mapping (name, rules, …)"


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


def test_a_directory_s_fixtures_are_not_read_as_scenarios(tmp_path: Path) -> None:
    (tmp_path / "answer.json").write_text('{"text": "hi", "tool_calls": [{"name": "f"}]}')
    (tmp_path / "a.yaml").write_text("rules:\n  - replies: [{fixture: answer.json}]\n")
    (tmp_path / "b.json").write_text('{"name": "b", "rules": []}')  # a JSON scenario still is
    assert [s.name for s in load_ref(str(tmp_path))] == ["a", "b"]


@pytest.mark.parametrize("name", ["../answer.json", "/etc/hostname", "sub/../../answer.json"])
def test_a_confined_scenario_names_no_fixture_outside_the_fixture_directories(
    name: str, tmp_path: Path
) -> None:
    """A scenario sent over HTTP cannot make a file elsewhere on the machine a reply."""
    (tmp_path / "answer.json").write_text('{"text": "From a fixture."}')
    text = f"rules:\n  - reply: {{fixture: {name!r}}}\n"
    with pytest.raises(ScenarioError, match="inside a fixtures directory") as info:
        parse_scenario(text, source="<PUT body>", base=tmp_path / "sub", confined=True)
    assert (info.value.line, info.value.field) == (2, "rules[0].reply.fixture")
    with pytest.raises(ScenarioError, match="inside a fixtures directory"):
        scenario_from_data({"rules": [{"reply": {"fixture": name}}]}, confined=True)


def test_a_confined_scenario_follows_no_link_out_of_a_fixture_directory(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text('{"text": "secret"}')
    fixtures = tmp_path / "here"
    fixtures.mkdir()
    (fixtures / "link.json").symlink_to(tmp_path / "secret.json")
    (fixtures / "own.json").write_text('{"text": "own"}')
    text = "rules:\n  - reply: {fixture: link.json}\n"
    with pytest.raises(ScenarioError, match="is a link to a file outside"):
        parse_scenario(text, source="<PUT body>", base=fixtures, confined=True)
    assert parse_scenario(text, base=fixtures).rules[0].reply == Reply(text="secret")
    own = parse_scenario(text.replace("link", "own"), base=fixtures, confined=True)
    assert own.rules[0].reply == Reply(text="own")


def test_a_file_may_name_a_fixture_beside_its_directory(tmp_path: Path) -> None:
    (tmp_path / "answer.json").write_text('{"text": "From a fixture."}')
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "s.yaml"
    path.write_text("rules:\n  - reply: {fixture: ../answer.json}\n")
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


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        (
            "{reply: {text: 'Hello', annotations: [{url: 'u', title: 't', cite: 'absent'}]}}",
            "annotation cites 'absent', which is not in the reply text",
        ),
        ("{reply: {text: 'Team {{metadata}}'}}", "placeholder {{metadata}} needs a key"),
        ("{reply: {text: 'hi'}, after: cycle}", "'after' goes with 'replies'"),
    ],
)
def test_mistakes_that_would_fail_every_request_are_caught_at_load(rule: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(says)):
        parse_scenario(f"rules:\n  - {rule}\n")


def test_a_citation_over_text_filled_in_per_request_is_checked_then() -> None:
    rule = "{reply: {text: '{{last_user}}', annotations: [{url: 'u', title: 't', cite: 'x'}]}}"
    assert parse_scenario(f"rules:\n  - {rule}\n").rules[0].reply is not None


BOMB = "a0: &a0 [lol]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)
)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (BOMB, "too many values once YAML aliases are expanded"),
        ("a: &a [*a]\n", "a YAML alias that contains itself"),
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nest"),  # ours (100) or libyaml's (1,000)
        ("seed: 99999999999999999999999999\n", "field 'seed'"),
    ],
    ids=["alias-bomb", "alias-loop", "deep", "huge-seed"],
)
def test_files_that_would_cost_the_server_dearly_are_refused(text: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(says)):
        parse_scenario(text)


def test_anchors_and_aliases_that_cost_little_are_fine() -> None:
    text = "rules:\n  - {id: a, reply: &hi {text: hi}}\n  - {id: b, reply: *hi}\n"
    assert [r.reply for r in parse_scenario(text).rules] == [Reply(text="hi")] * 2


def test_a_fixture_that_is_not_text_is_a_located_problem(tmp_path: Path) -> None:
    (tmp_path / "blob.json").write_bytes(b"\xff\xfe\x00binary")
    path = tmp_path / "s.yaml"
    path.write_text("rules:\n  - reply: {fixture: blob.json}\n")
    with pytest.raises(ScenarioError, match=r"fixture 'blob\.json': .*not UTF-8 text") as info:
        load_file(path)
    assert info.value.line == 2


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("rules: [{when: {last_user: hi}, reply: {}}]", "rules[0].reply"),
        ("rules: [{when: {last_user: hi}, reply: {latency: {delay: 0.1}}}]", "rules[0].reply"),
        ("rules: [{replies: [{text: a}, {usage: {prompt_tokens: 3}}]}]", "rules[0].replies[1]"),
        ("chaos: {probability: 1, replies: [{}]}", "chaos.replies[0]"),
    ],
)
def test_a_reply_with_nothing_to_say_is_refused(text: str, field: str) -> None:
    """Decorations alone would answer an empty text, silently: an empty answer is written."""
    error = error_of(text)
    assert f"field '{field}': a reply needs one of text, generate, json" in error
    assert "write text: ''" in error


@pytest.mark.parametrize(
    "reply",
    ["{text: ''}", "{finish_reason: content_filter}", "{moderation: {input: [violence]}}"],
)
def test_an_empty_answer_can_still_be_asked_for(reply: str) -> None:
    scenario = parse_scenario(f"rules: [{{when: {{last_user: hi}}, reply: {reply}}}]")
    assert scenario.rules[0].reply is not None


def test_two_scenarios_of_a_directory_may_not_share_a_name(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: same\nrules: [{reply: {text: a}}]\n")
    (tmp_path / "b.yml").write_text("# the other one\nname: same\nrules: [{reply: {text: b}}]\n")
    (tmp_path / "c.yaml").write_text("name: other\nrules: [{reply: {text: c}}]\n")
    with pytest.raises(ScenarioError) as info:
        load_ref(str(tmp_path))
    assert str(info.value) == (
        f"{tmp_path / 'b.yml'}:2: field 'name': scenario name 'same' is already the name of "
        f"{tmp_path / 'a.yaml'}: each scenario of a directory needs a name of its own"
    )
    (tmp_path / "b.yml").write_text("name: b\nrules: [{reply: {text: b}}]\n")
    assert [s.name for s in load_ref(str(tmp_path))] == ["same", "b", "other"]


def test_an_empty_any_and_a_negative_usage_are_refused() -> None:
    assert error_of("""\
        rules:
          - when: {any: []}
            reply: {text: x}
          - when: {last_user: a}
            reply: {text: hi, usage: {prompt_tokens: -5}}
        """).splitlines() == [
        "s.yaml:2:12: rule #1, field 'rules[0].when.any': "
        "List should have at least 1 item after validation, not 0",
        "s.yaml:5:31: rule #2, field 'rules[1].reply.usage.prompt_tokens': "
        "Input should be greater than or equal to 0",
    ]


def test_lookup_mistakes_are_said_in_the_scenarios_words() -> None:
    assert error_of("""\
        rules:
          - when: {turn: many}
            reply: {text: x}
          - when: {last_user: yes}
            reply: {text: x}
          - when: {params: {temperature: {gte: "x"}}}
            reply: {text: x}
          - when: {tool_result: {nam: x}}
            reply: {text: x}
        """).splitlines() == [
        "s.yaml:2:12: rule #1, field 'rules[0].when.turn': "
        "expected a number, or {equals, gte, lte, gt, lt: number}",
        "s.yaml:4:12: rule #2, field 'rules[1].when.last_user': expected a text, or one of "
        "{equals, contains, icontains, startswith, regex, glob: text} "
        "(YAML reads yes/no/on/off/true/false as booleans: quote the text)",
        "s.yaml:6:12: rule #3, field 'rules[2].when.params': "
        "temperature.gte: Input should be a valid number, unable to parse string as a number",
        "s.yaml:8:26: rule #4, field 'rules[3].when.tool_result.nam': "
        "unknown key 'nam' (did you mean 'name'?)",
    ]


@pytest.mark.parametrize(
    ("hosted", "says"),
    [
        ("[{id: ws_1}]", "hosted item 0 needs a 'type' (web_search_call, …)"),
        (
            "[{type: web_search_call}, {type: message}]",
            "hosted item 1 is a 'message': say it with text or refusal",
        ),
        ("[{type: function_call, arguments: 5}]", "say it with tool_calls"),
        ("[{type: custom_tool_call_output, output: 5}]", "the client sends those"),
        ("[{type: item_reference, id: x}]", "the client sends those"),
    ],
)
def test_a_hosted_item_is_a_hosted_tools_item(hosted: str, says: str) -> None:
    error = error_of(f"rules: [{{reply: {{text: x, hosted: {hosted}}}}}]")
    assert "field 'rules[0].reply.hosted'" in error
    assert says in error


def test_reasoning_tokens_are_bounded() -> None:
    error = error_of("rules: [{reply: {text: x, reasoning: {tokens: 1000000001}}}]")
    assert "field 'rules[0].reply.reasoning.tokens': Input should be less than or equal to" in error


def test_numbers_and_flags_are_not_guessed_from_other_types() -> None:
    """``times: 1.0`` or ``stream: "yes"`` is a mistake to point at, not a value to coerce."""
    assert error_of("""\
        seed: "7"
        rules:
          - when: {stream: "yes"}
            reply: {text: x, fault: {disconnect_after: 2.5}}
            times: 1.0
        """).splitlines() == [
        "s.yaml:1:1: field 'seed': Input should be a valid integer",
        "s.yaml:3:12: rule #1, field 'rules[0].when.stream': Input should be a valid boolean",
        "s.yaml:4:30: rule #1, field 'rules[0].reply.fault.disconnect_after': "
        "Input should be a valid integer",
        "s.yaml:5:5: rule #1, field 'rules[0].times': Input should be a valid integer",
    ]
