"""A scenario regex that backtracks without end costs a request a bounded moment: the rule is
taken as not matching, with a located problem in the miss explanation and the journal note."""

from __future__ import annotations

import pickle

import pytest

from mockserver.prompt import Message, Prompt
from mockserver.scenario.bounds import Deadline
from mockserver.scenario.loader import parse_scenario
from mockserver.scenario.lookups import TextMatch
from mockserver.scenario.matcher import Miss, Selected, select
from mockserver.scenario.regexes import Regex, RegexTimeout

#: Exponential backtracking even for the ``regex`` package (its guards catch ``(a+)+$``).
CATASTROPHIC = "(a|aa)+$"
ATTACK = "a" * 40 + "b"


def _prompt(text: str) -> Prompt:
    return Prompt(api="chat", model="gpt-4o-mini", messages=(Message("user", text),))


def test_a_catastrophic_regex_is_a_located_strict_miss_not_a_stall() -> None:
    scenario = parse_scenario(
        f"""
        fallback: strict
        rules:
          - id: slow
            when: {{last_user: {{regex: "{CATASTROPHIC}"}}}}
            reply: {{text: never}}
        """.replace("\n        ", "\n")
    )
    chosen = select(scenario, _prompt(ATTACK), {}, regex_seconds=0.02)
    assert isinstance(chosen, Miss)
    explained = chosen.explain()
    assert (
        "  - rule 'slow': rule 'slow', field 'rules[0].when.last_user.regex': regex "
        f"'{CATASTROPHIC}' took longer than the 20 ms a request's regex lookups may take "
        "(on a text of 41 characters), so the rule is taken as not matching"
    ) in explained
    assert chosen.counted  # never replayed from a template: timing is no part of the request


def test_a_rule_after_a_slow_regex_still_matches_and_notes_why_it_was_reached() -> None:
    scenario = parse_scenario(
        "rules:\n"
        f"  - {{id: slow, when: {{last_user: {{regex: '{CATASTROPHIC}'}}}}, reply: {{text: x}}}}\n"
        "  - {id: fine, reply: {text: answered}}\n"
    )
    chosen = select(scenario, _prompt(ATTACK), {}, regex_seconds=0.02)
    assert isinstance(chosen, Selected)
    assert chosen.rule_id == "fine"
    assert chosen.counted
    assert chosen.note is not None
    assert chosen.note.startswith("Rule 'fine' matched after:\nrule 'slow', field ")


def test_once_the_time_is_used_up_later_regexes_are_not_tried() -> None:
    scenario = parse_scenario(
        "fallback: strict\nrules:\n"
        f"  - {{id: one, when: {{last_user: {{regex: '{CATASTROPHIC}'}}}}, reply: {{text: x}}}}\n"
        "  - {id: two, when: {any: [{model: gpt-4o}, {last_user: {regex: 'b$'}}]}, "
        "reply: {text: y}}\n"
    )
    chosen = select(scenario, _prompt(ATTACK), {}, regex_seconds=0.02)
    assert isinstance(chosen, Miss)
    [(_, first), (_, second)] = chosen.reasons
    assert "took longer than" in first
    assert second.startswith(
        "rule 'two', field 'rules[1].when.any[1].last_user.regex': regex 'b$' not tried"
    )


def test_a_regex_search_gives_up_at_its_deadline() -> None:
    with pytest.raises(RegexTimeout) as info:
        Regex(CATASTROPHIC).search(ATTACK, deadline=Deadline(0.01))
    assert not info.value.late
    with pytest.raises(RegexTimeout) as late:
        Regex("a").search("a", deadline=Deadline(-1.0))
    assert late.value.late


def test_an_ordinary_regex_matches_as_before() -> None:
    match = TextMatch.model_validate({"regex": "(?i)^hello\\b"})
    assert match.test("Hello world")
    assert not match.test("say hello")
    assert match.model_dump(mode="json", exclude_none=True) == {"regex": "(?i)^hello\\b"}


def test_regexes_compare_by_their_text_and_survive_pickling() -> None:
    assert Regex("a+") == Regex("a+")
    assert Regex("a+") != Regex("a*")
    assert pickle.loads(pickle.dumps(Regex("a+"))) == Regex("a+")
