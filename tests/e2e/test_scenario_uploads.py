"""``PUT /__mockserver/scenario`` is read once, off the event loop, within a size and a time
bound; whatever an upload holds, the answer is the API's error shape, never a 500 or a stall."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import mockserver.http.routes.upload as upload
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.hostile_regexes import HOSTILE_REGEXES, hostile_scenario
from tests.support.limited import LimitedServer

YAML = {"content-type": "application/yaml"}


@pytest.fixture(scope="module")
def bounded() -> Iterator[BackgroundServer]:
    server = start_server(max_scenario_bytes=4096, scenario_seconds=0.2)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def unhurried() -> Iterator[BackgroundServer]:
    """A server with the time bound of the client's reads (30 s): forty thousand rules take
    2 s to read here, several times that on a busy machine or one measuring coverage."""
    server = start_server(scenario_seconds=30)
    yield server
    server.stop()


def _put(
    server: BackgroundServer, body: bytes, *, namespace: str, **headers: str
) -> httpx.Response:
    return httpx.put(
        f"{server.url}/__mockserver/scenario?namespace={namespace}",
        content=body,
        headers={**YAML, **headers},
        timeout=30,
    )


def _scenario_error(answer: httpx.Response) -> str:
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "mockserver_scenario_error"
    assert error["type"] == "invalid_request_error"
    return str(error["message"])


def test_an_upload_is_read_off_the_event_loop(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()
    read = upload._read

    def held(*args: Any) -> Any:
        entered.set()
        release.wait(30)
        return read(*args)

    monkeypatch.setattr(upload, "_read", held)
    answers: list[httpx.Response] = []
    putting = threading.Thread(
        target=lambda: answers.append(_put(server, b"name: held\nrules: []\n", namespace="sk-held"))
    )
    putting.start()
    try:
        assert entered.wait(30)
        # The reader is busy with the upload; the server answers others meanwhile.
        assert httpx.get(server.url + "/__mockserver/health", timeout=10).status_code == 200
        assert not answers
    finally:
        release.set()
        putting.join(30)
    assert answers[0].status_code == 200
    assert answers[0].json()["name"] == "held"


def test_an_upload_over_the_size_limit_is_a_413(bounded: BackgroundServer) -> None:
    answer = _put(bounded, b"name: big\nrules: []\n# " + b"x" * 5000, namespace="sk-big")
    assert answer.status_code == 413
    error = answer.json()["error"]
    assert error["code"] == "request_too_large"
    assert "4096 bytes" in error["message"]
    assert "MOCKSERVER_MAX_SCENARIO_BYTES" in error["message"]


def test_an_upload_that_takes_too_long_is_a_400(
    bounded: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def stuck(*args: Any) -> Any:
        release.wait(30)
        raise AssertionError("abandoned: its answer is never used")

    monkeypatch.setattr(upload, "_read", stuck)
    try:
        message = _scenario_error(_put(bounded, b"name: slow\n", namespace="sk-slow"))
    finally:
        release.set()
    assert message.startswith("<PUT body>: checking the scenario took longer than 0.2 s")


def test_an_invalid_utf8_upload_is_refused_not_read_with_replacement_characters(
    server: BackgroundServer,
) -> None:
    message = _scenario_error(
        _put(server, b"name: s\nrules:\n  - reply: {text: caf\xe9}\n", namespace="sk-latin1")
    )
    assert message.startswith("<PUT body>:3:22: not UTF-8 text: byte 0xe9")


def test_a_utf16_upload_is_refused(server: BackgroundServer) -> None:
    message = _scenario_error(_put(server, "name: s\n".encode("utf-16"), namespace="sk-utf16"))
    assert "UTF-16" in message


def test_a_nul_byte_in_an_upload_is_located(server: BackgroundServer) -> None:
    message = _scenario_error(_put(server, b"name: s\x00\n", namespace="sk-nul"))
    assert message.startswith("<PUT body>:1:8: a control character U+0000")


def test_a_5000_digit_seed_upload_is_a_400(server: BackgroundServer) -> None:
    body = b"name: s\nseed: " + b"7" * 5000 + b"\n"
    message = _scenario_error(_put(server, body, namespace="sk-seed"))
    assert message == (
        "<PUT body>:2:7: field 'seed': a number of 5000 digits: numbers in a scenario have at "
        "most 20"
    )


def test_an_upload_over_the_value_limit_without_aliases_does_not_speak_of_aliases(
    unhurried: BackgroundServer,
) -> None:
    body = "rules:\n" + "  - {reply: {text: t}}\n" * 40_000
    message = _scenario_error(_put(unhurried, body.encode(), namespace="sk-many"))
    assert "too many values in one file" in message
    assert "alias" not in message


def test_a_json_upload_nested_too_deep_is_a_400(server: BackgroundServer) -> None:
    body = '{"rules": [{"reply": {"json": ' + "[" * 150 + "]" * 150 + "}}]}"
    answer = httpx.put(
        f"{server.url}/__mockserver/scenario?namespace=sk-deep-json",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert "nested more than 100 deep" in _scenario_error(answer)


def test_an_alias_bomb_fixture_upload_fails_fast_with_a_located_400(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fixtures").mkdir()
    bomb = "json:\n  a0: &a0 [lol]\n" + "".join(
        f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)
    )
    (tmp_path / "fixtures" / "bomb.yaml").write_text(bomb, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the server (in this process) looks in ./fixtures
    body = b"rules:\n  - reply: {fixture: bomb.yaml}\n"
    message = _scenario_error(_put(server, body, namespace="sk-bomb"))
    assert message.startswith(
        "<PUT body>:2:13: field 'rules[0].reply.fixture': fixture 'bomb.yaml': "
    )
    assert "bomb.yaml:" in message
    assert "once YAML aliases are expanded" in message


def test_a_named_scenario_upload_still_switches_to_it(server: BackgroundServer) -> None:
    answer = _put(server, b"name: plain-chat\n", namespace="sk-named")
    assert answer.status_code == 200
    assert answer.json()["name"] == "plain-chat"


def _hello(url: str) -> int:
    answer = httpx.post(
        f"{url}/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
        headers={"authorization": "Bearer sk-another-client"},
        timeout=30,
    )
    return answer.status_code


def test_each_hostile_regex_upload_is_a_located_400_while_others_are_answered() -> None:
    with LimitedServer([]) as server:
        answered: list[int] = []
        done = threading.Event()

        def keep_asking() -> None:
            while not done.is_set():
                answered.append(_hello(server.url))

        asking = threading.Thread(target=keep_asking)
        asking.start()
        try:
            assert HOSTILE_REGEXES
            for kind, pattern in HOSTILE_REGEXES.items():
                assert _hello(server.url) == 200, kind
                answer = httpx.put(
                    f"{server.url.removesuffix('/v1')}/__mockserver/scenario?namespace=sk-{kind}",
                    content=hostile_scenario(pattern).encode(),
                    headers=YAML,
                    timeout=30,
                )
                message = _scenario_error(answer)
                assert message.startswith(
                    "<PUT body>:4:24: rule 'r', field 'rules[0].when.last_user.regex': regex "
                ), (kind, message)
                assert " refused: " in message, (kind, message)
                assert _hello(server.url) == 200, kind
        finally:
            done.set()
            asking.join(30)
        assert answered
        assert set(answered) == {200}
