"""A Redis lost under load, by two ``serve`` processes sharing it: clients get the API's 503
(never a 500, never a hang), nothing answered 200 is lost, and serving resumes by itself."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import httpx
import pytest

from tests.support.fleet import Fleet, Serve
from tests.support.redis_server import RedisServer, find_redis_server

KEY = "sk-under-load"


@pytest.fixture(scope="module")
def own_redis() -> Iterator[RedisServer]:
    """A Redis of this module's own: its tests stop and freeze it."""
    binary = find_redis_server()
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = RedisServer(binary).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pair(own_redis: RedisServer) -> Iterator[Fleet]:
    fleet = Fleet(2, state=own_redis.url, prefix="faults", scenario=None).start()
    yield fleet
    fleet.stop()


class Load:
    """Four clients asking both processes for stored completions until stopped; every answer
    kept (status, body)."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.answers: list[tuple[int, dict[str, Any]]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._ask, args=(n,)) for n in range(4)]

    def _ask(self, worker: int) -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {KEY}"}, timeout=15) as http:
            n = 0
            while not self._stop.is_set():
                n += 1
                try:
                    answer = http.post(
                        self.fleet[worker + n].base_url + "/chat/completions",
                        json={
                            "model": "gpt-4o-mini",
                            "messages": [{"role": "user", "content": f"client {worker}, ask {n}"}],
                            "store": True,
                        },
                    )
                except httpx.HTTPError as exc:  # a hang (the timeout) or a dropped connection
                    self.answers.append((0, {"failed": repr(exc)}))
                    continue
                self.answers.append((answer.status_code, answer.json()))

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)

    def until(self, holds: Callable[[list[int]], bool]) -> None:
        deadline = time.monotonic() + 30
        while not holds([status for status, _ in self.answers]):
            assert time.monotonic() < deadline, "the load never got there"
            time.sleep(0.01)


def _retrying(ask: Callable[[], httpx.Response]) -> httpx.Response:
    """As a client that retries a 503 does (the SDK's default)."""
    for _ in range(50):
        answer = ask()
        if answer.status_code != 503:
            return answer
        time.sleep(0.1)
    return answer


def _overloaded(body: dict[str, Any]) -> bool:
    error = body["error"]
    return (
        error["type"] == "service_unavailable_error"
        and error["code"] == "server_is_overloaded"
        and "state backend (Redis at" in error["message"]
    )


def test_a_frozen_redis_is_a_503_and_loses_nothing_answered(
    pair: Fleet, own_redis: RedisServer
) -> None:
    with Load(pair) as load:
        load.until(lambda seen: len(seen) >= 20)
        own_redis.pause()  # what a lost network or a stalled Redis looks like
        try:
            load.until(lambda seen: seen.count(503) >= 4)
        finally:
            own_redis.resume()
        before = len(load.answers)
        load.until(lambda seen: seen[before:].count(200) >= 20)
    odd = [answer for answer in load.answers if answer[0] not in (200, 503)]
    assert not odd, "".join(pair[0].output + pair[1].output)[-3000:]
    assert {status for status, _ in load.answers} == {200, 503}
    assert all(_overloaded(body) for status, body in load.answers if status == 503)
    made = [body["id"] for status, body in load.answers if status == 200]
    with httpx.Client(headers={"Authorization": f"Bearer {KEY}"}) as http:
        for n, completion in enumerate(made):  # each read from either process
            url = f"{pair[n].base_url}/chat/completions/{completion}"
            found = _retrying(partial(http.get, url))
            assert found.status_code == 200, completion


def test_a_restarted_redis_is_served_again_without_restarting_the_servers(
    pair: Fleet, own_redis: RedisServer
) -> None:
    with Load(pair) as load:
        load.until(lambda seen: len(seen) >= 10)
        own_redis.stop()
        try:
            load.until(lambda seen: seen.count(503) >= 4)
        finally:
            own_redis.start()  # a new, empty Redis (no persistence) on the same port
        before = len(load.answers)
        load.until(lambda seen: seen[before:].count(200) >= 10)
    assert {status for status, _ in load.answers} == {200, 503}
    assert all(_overloaded(body) for status, body in load.answers if status == 503)


def test_a_redis_out_of_memory_is_the_apis_503_saying_so_never_a_500() -> None:
    """A Redis at its ``maxmemory`` that evicts nothing takes no writes: each request gets the
    503 (with why), one log line says so, and serving resumes once Redis has room again."""
    binary = find_redis_server()
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    redis_server = RedisServer(binary, "--maxmemory-policy", "noeviction").start()
    admin = redis_server.client()
    serve = Serve(["--state", redis_server.url, "--state-prefix", "oom", "--log-level", "warning"])
    try:
        admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + 1_000_000)
        serve.launch()
        serve.wait_ready()
        statuses: list[int] = []
        with httpx.Client(base_url=serve.base_url, timeout=15) as http:

            def ask(n: int) -> httpx.Response:
                return http.post(
                    "/chat/completions",
                    headers={"Authorization": f"Bearer sk-oom-{n % 40}"},
                    json={
                        "model": "gpt-4o-mini",
                        "messages": [{"role": "user", "content": f"ask {n} " + "x" * 2000}],
                    },
                )

            for n in range(3000):
                answer = ask(n)
                statuses.append(answer.status_code)
                if answer.status_code != 200:
                    break
            assert answer.status_code == 503, (len(statuses), answer.text)
            assert statuses.count(200) == len(statuses) - 1  # all before it were answered
            error = answer.json()["error"]
            assert error["code"] == "server_is_overloaded"
            assert "out of memory: its maxmemory is reached" in error["message"]
            assert answer.headers["retry-after"] == "1"
            assert ask(9_000).status_code == 503  # still full: still the 503
            admin.config_set("maxmemory", 0)  # room again: served again, nothing restarted
            deadline = time.monotonic() + 10
            while (status := ask(9_001).status_code) != 200 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert status == 200
    finally:
        serve.stop()
        admin.close()
        redis_server.stop()
    printed = "".join(serve.output)
    assert "Traceback" not in printed
    assert printed.count("out of memory: its maxmemory is reached") == 1, printed
    assert "answers again" in printed
