"""Anthropic's Messages served by two ``mockserver serve`` processes sharing one real Redis:
a scenario's replies go on whichever process answers, and the journal keeps each refusal as it
was sent, in Anthropic's shape."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import pytest

from tests.support.fleet import Fleet
from tests.support.redis_server import RedisServer

SCENARIO = """\
name: shared-messages
seed: 5
rules:
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: overloaded}
      - text: recovered
"""
ASK = [{"role": "user", "content": "flaky?"}]


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    scenario = tmp_path_factory.mktemp("shared-messages") / "shared.yaml"
    scenario.write_text(SCENARIO)
    fleet = Fleet(2, state=redis_server.url, prefix=RedisServer.new_prefix(), scenario=scenario)
    fleet.start()
    yield fleet
    fleet.stop()


def client(fleet: Fleet, n: int, key: str) -> anthropic.Anthropic:
    root = fleet[n].url
    return anthropic.Anthropic(base_url=root, api_key=key, max_retries=0, timeout=20)


def test_a_scenarios_replies_go_on_across_processes_and_refusals_are_journaled_as_sent(
    pair: Fleet, api_key: str
) -> None:
    with client(pair, 0, api_key) as first, client(pair, 1, api_key) as second:
        with pytest.raises(anthropic.OverloadedError) as caught:
            first.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=ASK)
        message = second.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=ASK)
    assert message.content[0].text == "recovered"
    journal = httpx.get(
        pair[1].url + "/__mockserver/calls",
        headers={"Authorization": f"Bearer {api_key}"},
    ).json()["data"]
    assert [(entry["status"], entry["api"], entry["rule"]) for entry in journal] == [
        (529, "messages", "flaky"),
        (200, "messages", "flaky"),
    ]
    assert journal[0]["response"] == caught.value.body
    assert journal[0]["response"]["request_id"] == caught.value.request_id
    assert journal[1]["response"]["content"] == [{"type": "text", "text": "recovered"}]


def test_a_batch_made_on_one_process_is_read_and_canceled_on_the_other(
    pair: Fleet, api_key: str
) -> None:
    ask = {"model": "claude-haiku-4-5", "max_tokens": 20, "messages": ASK}
    requests = [{"custom_id": f"r{n}", "params": ask} for n in range(4)]
    with client(pair, 0, api_key) as first, client(pair, 1, api_key) as second:
        batch = first.messages.batches.create(requests=requests)  # type: ignore[arg-type]
        assert second.messages.batches.retrieve(batch.id).processing_status == "in_progress"
        assert second.messages.batches.cancel(batch.id).processing_status == "canceling"
        moved = httpx.post(
            pair[1].url + "/__mockserver/clock",
            json={"advance": 1},
            headers={"Authorization": f"Bearer {api_key}"},
        )
        assert moved.status_code == 200
        ended = first.messages.batches.retrieve(batch.id)
        results = list(second.messages.batches.results(batch.id))
    assert ended.processing_status == "ended"
    assert [line.custom_id for line in results] == ["r0", "r1", "r2", "r3"]
    # the cancel came before any was done: the first finishes (the scenario's first reply,
    # an overload), the rest are canceled
    assert [line.result.type for line in results] == ["errored", "canceled", "canceled", "canceled"]


def test_a_prompt_cache_written_through_one_process_is_read_through_the_other(
    pair: Fleet, api_key: str
) -> None:
    long = "The quick brown fox jumps over the lazy dog. " * 300
    system = [{"type": "text", "text": long, "cache_control": {"type": "ephemeral"}}]
    ask = [{"role": "user", "content": "cached?"}]
    with client(pair, 0, api_key) as first, client(pair, 1, api_key) as second:
        wrote = first.messages.create(
            model="claude-sonnet-4-6", max_tokens=20, system=system, messages=ask
        ).usage
        read = second.messages.create(
            model="claude-sonnet-4-6", max_tokens=20, system=system, messages=ask
        ).usage
    assert wrote.cache_creation_input_tokens > 1024
    assert read.cache_read_input_tokens == wrote.cache_creation_input_tokens
    assert read.cache_creation_input_tokens == 0
