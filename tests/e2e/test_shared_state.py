"""Three ``mockserver serve`` processes sharing one real Redis act as one server: driven by the
official SDK, each request sent to a process of the test's choosing."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.support.fleet import Fleet
from tests.support.redis_server import RedisServer

SCENARIO = """\
name: shared
seed: 5
rules:
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited}
      - text: recovered
  - id: thrice
    when: {last_user: {contains: thrice}}
    times: 3
    reply: {text: one of three}
"""
BUDGET = "name: budget\nrate_limits: {requests_per_minute: 5}\nrules: []\n"

Clients = Callable[[int], openai.OpenAI]


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shared") / "shared.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture(scope="module")
def fleet(redis_server: RedisServer, scenario_file: Path) -> Iterator[Fleet]:
    # The middle process reaches the same Redis over its unix socket (--state unix://…).
    urls = [redis_server.url, redis_server.unix_url]
    started = Fleet(3, state=urls, prefix=RedisServer.new_prefix(), scenario=scenario_file).start()
    yield started
    started.stop()


@pytest.fixture
def on(fleet: Fleet, api_key: str) -> Iterator[Clients]:
    """``on(n)``: the SDK talking to process ``n`` (of three), in the test's namespace."""
    made: dict[int, openai.OpenAI] = {}

    def client(n: int) -> openai.OpenAI:
        n %= len(fleet)
        if n not in made:
            made[n] = openai.OpenAI(
                base_url=fleet[n].base_url, api_key=api_key, max_retries=0, timeout=20
            )
        return made[n]

    yield client
    for sdk in made.values():
        sdk.close()


def _journal(fleet: Fleet, api_key: str, *, process: int = 0) -> list[dict[str, Any]]:
    found = httpx.get(
        fleet[process].url + "/__mockserver/calls",
        params={"limit": 10_000},
        headers={"Authorization": f"Bearer {api_key}"},
    )
    assert found.status_code == 200
    data: list[dict[str, Any]] = found.json()["data"]
    return data


def _untimed(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries without how long they took (written a moment after each answer is sent)."""
    return [{k: v for k, v in e.items() if k not in ("duration_ms", "timing")} for e in journal]


def _ask(on: Clients, n: int, text: str) -> int:
    try:
        on(n).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
        )
    except openai.APIStatusError as error:
        return error.status_code
    return 200


def _at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(work, range(count)))


def test_a_previous_response_id_chain_crosses_processes(on: Clients) -> None:
    first = on(0).responses.create(model="gpt-4o-mini", input="My name is Ada.")
    second = on(1).responses.create(
        model="gpt-4o-mini", input="What is my name?", previous_response_id=first.id
    )
    third = on(2).responses.create(
        model="gpt-4o-mini", input="And again?", previous_response_id=second.id
    )
    items = on(0).responses.input_items.list(third.id)
    assert [item.model_dump()["content"][0]["text"] for item in items.data] == ["And again?"]
    assert on(1).responses.retrieve(third.id).output_text == third.output_text
    assert len({first.id, second.id, third.id}) == 3
    tokens = [r.usage.input_tokens for r in (first, second, third) if r.usage is not None]
    assert len(tokens) == 3
    assert tokens == sorted(set(tokens))  # each turn saw the ones before


def test_a_stored_completion_made_on_one_process_is_listed_updated_deleted_on_others(
    on: Clients,
) -> None:
    made = on(0).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "keep me"}], store=True
    )
    assert [c.id for c in on(1).chat.completions.list()] == [made.id]
    on(2).chat.completions.update(made.id, metadata={"topic": "kept"})
    assert on(0).chat.completions.retrieve(made.id).metadata == {"topic": "kept"}
    assert on(1).chat.completions.delete(made.id).deleted
    with pytest.raises(openai.NotFoundError):
        on(2).chat.completions.retrieve(made.id)


def test_a_conversation_grows_whichever_process_serves_it(on: Clients) -> None:
    conversation = on(0).conversations.create(items=[{"role": "user", "content": "hello"}])
    on(1).conversations.items.create(
        conversation.id, items=[{"type": "message", "role": "user", "content": "again"}]
    )
    answer = on(2).responses.create(
        model="gpt-4o-mini", input="and now?", conversation=conversation.id
    )
    items = on(0).conversations.items.list(conversation.id, order="asc").data
    assert len(items) == 4  # two added, then the response's input and its output
    assert items[-1].id == answer.output[-1].id


def test_a_background_response_is_polled_to_its_end_from_other_processes(on: Clients) -> None:
    started = on(0).responses.create(model="gpt-4o-mini", input="later", background=True)
    assert started.status == "queued"
    seen = [on(n).responses.retrieve(started.id).status for n in (1, 2)]
    assert seen == ["in_progress", "completed"]
    assert on(0).responses.retrieve(started.id).status == "completed"


def test_a_rate_limited_then_text_sequence_serves_one_429_across_processes(
    on: Clients,
) -> None:
    statuses = _at_once(50, lambda n: _ask(on, n, "flaky?"))
    assert Counter(statuses) == {429: 1, 200: 49}


def test_times_3_matches_exactly_three_times_across_processes(
    on: Clients, fleet: Fleet, api_key: str
) -> None:
    _at_once(20, lambda n: _ask(on, n, "thrice?"))
    rules = Counter(entry["rule"] for entry in _journal(fleet, api_key))
    assert rules == {"thrice": 3, None: 17}


def test_a_rate_budget_is_shared_across_processes(on: Clients, fleet: Fleet, api_key: str) -> None:
    uploaded = httpx.put(
        fleet[1].url + "/__mockserver/scenario",
        content=BUDGET,
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/yaml"},
    )
    assert uploaded.status_code == 200
    statuses = _at_once(12, lambda n: _ask(on, n, f"request {n}"))
    assert Counter(statuses) == {200: 5, 429: 7}  # a frozen clock: nothing refills


def test_the_journal_is_complete_and_ordered_whichever_process_reads_it(
    on: Clients, fleet: Fleet, api_key: str
) -> None:
    _at_once(30, lambda n: _ask(on, n, f"call {n}"))
    journals = [_untimed(_journal(fleet, api_key, process=n)) for n in range(3)]
    assert journals[0] == journals[1] == journals[2]
    assert [entry["seq"] for entry in journals[0]] == list(range(1, 31))
    asked = sorted(entry["request"]["messages"][0]["content"] for entry in journals[0])
    assert asked == sorted(f"call {n}" for n in range(30))
    assert all(entry["response"]["object"] == "chat.completion" for entry in journals[0])


def test_every_process_sees_every_call_on_its_event_stream(
    on: Clients, fleet: Fleet, api_key: str
) -> None:
    heard: list[str] = []
    listening = threading.Event()

    def listen() -> None:
        with httpx.stream(
            "GET",
            fleet[0].url + "/__mockserver/events",
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=20,
        ) as stream:
            listening.set()
            for line in stream.iter_lines():
                heard.append(line)
                if sum("call on two" in h for h in heard) and sum(
                    "call on one" in h for h in heard
                ):
                    return

    reader = threading.Thread(target=listen, daemon=True)
    reader.start()
    assert listening.wait(10)
    assert _ask(on, 1, "call on one") == 200
    assert _ask(on, 2, "call on two") == 200
    reader.join(15)
    assert not reader.is_alive(), "process 0 never announced the calls made on 1 and 2"


def _exchanges(base: Callable[[int], str], key: str, *, count: int) -> list[bytes]:
    """A namespace's conversation of ``count`` requests (chat, Responses, streamed or not),
    the n-th sent to ``base(n)``; each answer's bytes."""
    bodies: list[bytes] = []
    headers = {"Authorization": f"Bearer {key}"}
    previous: str | None = None
    for n in range(count):
        stream = n % 3 == 2
        if n % 2:
            body: dict[str, Any] = {"model": "gpt-4o-mini", "input": f"turn {n}", "stream": stream}
            if previous is not None and not stream:
                body["previous_response_id"] = previous
            answer = httpx.post(base(n) + "/v1/responses", json=body, headers=headers)
            if not stream:
                previous = answer.json()["id"]
        else:
            messages = [{"role": "user", "content": f"turn {n}"}]
            body = {"model": "gpt-4o-mini", "messages": messages, "stream": stream, "store": True}
            answer = httpx.post(base(n) + "/v1/chat/completions", json=body, headers=headers)
        assert answer.status_code == 200
        bodies.append(answer.content)
    return bodies


def test_a_concurrent_run_over_processes_gives_the_bytes_of_one_process(
    fleet: Fleet, scenario_file: Path, api_key: str
) -> None:
    keys = [f"{api_key}-{n}" for n in range(4)]
    shared = _at_once(len(keys), lambda k: _exchanges(lambda n: fleet[n + k].url, keys[k], count=6))
    settings = Settings(port=0, clock="frozen", seed=5, scenario=str(scenario_file))
    with BackgroundServer(create_app(settings)) as alone:
        single = [_exchanges(lambda n: alone.url, key, count=6) for key in keys]
    assert shared == single
