"""The engine's turn without a server: match → reply → one commit (number, rule hit, budgets,
journal entry), the same commit for a replayed turn, and errors journaled in it once."""

from __future__ import annotations

import pytest

from mockserver.engine import Engine
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import APIError, NoMatchError
from mockserver.prompt import Prompt
from mockserver.prompt.chat import prompt_from_chat
from mockserver.render.errors import OPENAI
from mockserver.scenario.loader import parse_scenario
from mockserver.settings import Settings
from mockserver.store import operations

SCENARIO = """
name: counted
rules:
  - id: hello
    when: {last_user: {contains: hello}}
    reply: {text: Hi there.}
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited}
      - text: recovered
"""
PATH = "/v1/chat/completions"


def _engine(text: str = SCENARIO) -> Engine:
    return Engine(Settings(clock="frozen"), scenarios=[parse_scenario(text)])


def _prompt(text: str) -> Prompt:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}
    return prompt_from_chat(body, headers={})


def _journal(text: str) -> Journaled:
    return Journaled(PATH, {"messages": [{"role": "user", "content": text}]})


def _turn(engine: Engine, text: str, *, journaled: bool = True) -> Turn:
    """The turn of a request saying ``text`` in the namespace ``sk-a``, held as a server's is."""
    journal = _journal(text) if journaled else None
    return engine.store.transact(
        "sk-a", lambda space: engine.turn(space, _prompt(text), journal=journal)
    )


def test_a_turn_commits_its_number_hit_and_journal_entry_together() -> None:
    engine = _engine()
    turn = _turn(engine, "hello")
    assert turn.counter == 1
    assert operations.rule_hits(engine.store, "sk-a") == {"counted": {"hello": 1}}
    (entry,) = operations.journal(engine.store, "sk-a")
    assert entry is turn.entry
    assert (entry.seq, entry.status, entry.rule, entry.path) == (1, 200, "hello", PATH)
    assert entry.response is None  # the encoded answer joins it
    engine.answered(turn, response={"id": "x"})
    assert (entry.response, entry.summary) == ({"id": "x"}, "Hi there.")


def test_a_turn_without_a_journal_leaves_it_to_the_caller() -> None:
    engine = _engine()
    turn = _turn(engine, "hello", journaled=False)
    assert turn.entry is None
    assert operations.journal(engine.store, "sk-a") == []
    assert operations.rule_hits(engine.store, "sk-a") == {"counted": {"hello": 1}}


def test_a_scripted_error_is_committed_and_journaled_then_raised() -> None:
    engine = _engine()
    with pytest.raises(APIError) as raised:
        _turn(engine, "flaky")
    (entry,) = operations.journal(engine.store, "sk-a")
    assert raised.value.journaled is entry
    assert (entry.status, entry.rule) == (429, "flaky")
    assert entry.response == raised.value.body()
    assert operations.rule_hits(engine.store, "sk-a") == {"counted": {"flaky": 1}}
    second = _turn(engine, "flaky")
    assert (second.counter, second.reply.text) == (2, "recovered")


def test_a_strict_miss_still_counts_the_request() -> None:
    engine = _engine(
        "name: strict\nfallback: strict\nrules:\n  - when: {model: other}\n"
        "    reply: {text: never}\n"
    )
    with pytest.raises(NoMatchError) as raised:
        _turn(engine, "hello")
    (entry,) = operations.journal(engine.store, "sk-a")
    assert raised.value.journaled is entry
    assert entry.status == 400
    assert entry.miss == raised.value.message
    with engine.store.view("sk-a") as space:
        assert space.counter == 1


def test_a_replayed_turn_commits_what_a_full_turn_commits() -> None:
    full, replayed = _engine(), _engine()
    first = _turn(full, "hello")
    again = _turn(full, "hello")
    decision = _turn(replayed, "hello")
    assert first.decision is not None
    assert decision.decision is not None
    entry = decision.entry
    assert entry is not None
    replay_entry = type(entry)(seq=0, method="POST", path=PATH, status=200, rule="hello")
    settled = decision.decision
    committed = replayed.store.transact(
        "sk-a", lambda space: replayed.replay(space, settled, replay_entry)
    )
    assert committed is not None
    counter, standing = committed
    assert counter == again.counter == 2
    assert OPENAI.rate_headers(standing) == again.headers
    assert operations.rule_hits(replayed.store, "sk-a") == operations.rule_hits(full.store, "sk-a")
    assert [e.seq for e in operations.journal(replayed.store, "sk-a")] == [1, 2]


def test_a_replay_is_refused_once_the_namespace_has_moved() -> None:
    engine = _engine()
    turn = _turn(engine, "hello")
    assert turn.decision is not None
    operations.set_seed(engine.store, "sk-a", 99)
    entry = type(turn.entry)(seq=0, method="POST", path=PATH, status=200)
    settled = turn.decision
    assert engine.store.transact("sk-a", lambda space: engine.replay(space, settled, entry)) is None
    assert len(operations.journal(engine.store, "sk-a")) == 1  # nothing committed


def test_internal_errors_are_kept_bounded_and_counted() -> None:
    from mockserver.engine.core import INTERNAL_ERRORS_KEPT

    engine = _engine()
    for number in range(INTERNAL_ERRORS_KEPT + 5):
        engine.internal_error(f"traceback {number}")
    assert len(engine.internal_errors) == INTERNAL_ERRORS_KEPT
    assert engine.internal_error_count == INTERNAL_ERRORS_KEPT + 5
    last = INTERNAL_ERRORS_KEPT + 4
    assert engine.internal_errors_since(last) == [f"traceback {last}"]
    assert engine.internal_errors_since(engine.internal_error_count) == []
