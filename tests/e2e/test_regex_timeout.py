"""A catastrophic scenario regex, sent by any page on loopback, is answered in a bounded
moment: the strict miss and the journal say which rule's regex ran out of time. A client's
JSON-Schema ``pattern`` is bounded alike: one too costly to compile, or too slow to check, is
the request's 400."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.hostile_regexes import HOSTILE_REGEXES
from tests.support.limited import LimitedServer

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


def _format(pattern: str) -> Any:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": pattern}},
        "required": ["code"],
        "additionalProperties": False,
    }
    return {
        "type": "json_schema",
        "json_schema": {"name": "coded", "strict": True, "schema": schema},
    }


def _hello(client: openai.OpenAI) -> str | None:
    answer = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    )
    return answer.choices[0].message.content


#: The hostile regexes, and one whose shortest match is short: only its compiling is costly.
_COSTLY_TO_COMPILE = {
    **HOSTILE_REGEXES,
    "repeat-in-a-branch": "(?:a|(?:b{10000}){10000})",
}


def test_a_client_pattern_too_costly_to_compile_is_a_400_and_the_server_stays_up() -> None:
    with LimitedServer([]) as server:
        client = openai.OpenAI(base_url=server.url, api_key="sk-patterns", max_retries=0)
        assert _COSTLY_TO_COMPILE
        for kind, pattern in _COSTLY_TO_COMPILE.items():
            assert _hello(client), kind
            with pytest.raises(openai.BadRequestError) as info:
                client.chat.completions.create(
                    model="gpt-4o-mini",
                    messages=[{"role": "user", "content": "a code"}],
                    response_format=_format(pattern),
                )
            assert info.value.code == "invalid_json_schema", (kind, info.value.message)
            assert "pattern" in info.value.message, (kind, info.value.message)
            assert _hello(client), kind


def test_a_client_pattern_too_slow_to_check_a_scripted_reply_is_a_400(tmp_path: Path) -> None:
    scenario = tmp_path / "coded.yaml"
    reply = '{"code": "' + ATTACK + '"}'
    scenario.write_text(
        f"name: coded\nrules:\n  - {{id: coded, reply: {{text: '{reply}'}}}}\n",
        encoding="utf-8",
    )
    with LimitedServer(["--scenario", str(scenario)]) as server:
        client = openai.OpenAI(
            base_url=server.url, api_key="sk-slow-pattern", max_retries=0, timeout=10
        )
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "a code"}],
                response_format=_format(f"^{SLOW}"),
            )
        assert info.value.code == "invalid_json_schema", info.value.message
        assert "takes too long" in info.value.message
        assert _hello(client) == reply  # and the server answers the next request


@pytest.mark.parametrize("pattern", ["^[a-", "(?<=a+)b", "\\p{L}+"])
def test_a_client_pattern_re_cannot_read_checking_a_scripted_reply_is_a_400(
    client: openai.OpenAI, control: httpx.Client, pattern: str
) -> None:
    _use(control, 'name: coded\nrules:\n  - {id: coded, reply: {text: \'{"code": "x"}\'}}\n')
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "a code"}],
            response_format=_format(pattern),
        )
    assert info.value.code == "invalid_json_schema", info.value.message
    assert "invalid pattern" in info.value.message
