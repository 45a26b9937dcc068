"""A catastrophic scenario regex, sent by any page on loopback, is answered in a bounded
moment: the strict miss and the journal say which rule's regex ran out of time."""

from __future__ import annotations

import httpx
import openai
import pytest

SLOW = "(a|aa)+$"
ATTACK = "a" * 40 + "b"


def _use(control: httpx.Client, scenario: str) -> None:
    answer = control.put(
        "/scenario", content=scenario, headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200, answer.text


def test_a_catastrophic_regex_is_a_located_strict_miss(
    client: openai.OpenAI, control: httpx.Client
) -> None:
    _use(
        control,
        f"name: slow\nfallback: strict\nrules:\n"
        f"  - {{id: slow, when: {{last_user: {{regex: '{SLOW}'}}}}, reply: {{text: never}}}}\n",
    )
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": ATTACK}]
        )
    message = info.value.message
    assert (
        "rule 'slow', field 'rules[0].when.last_user.regex': regex '(a|aa)+$' took longer"
        in message
    )
    [entry] = control.get("/calls").json()["data"]
    assert "took longer than the 100 ms" in entry["miss"]


def test_a_rule_after_a_slow_regex_answers_and_the_journal_says_why(
    client: openai.OpenAI, control: httpx.Client
) -> None:
    _use(
        control,
        f"name: slow-then-fine\nrules:\n"
        f"  - {{id: slow, when: {{last_user: {{regex: '{SLOW}'}}}}, reply: {{text: never}}}}\n"
        "  - {id: fine, reply: {text: answered}}\n",
    )
    answer = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": ATTACK}]
    )
    assert answer.choices[0].message.content == "answered"
    [entry] = control.get("/calls").json()["data"]
    assert entry["rule"] == "fine"
    assert entry["miss"].startswith("Rule 'fine' matched after:\nrule 'slow', field")
