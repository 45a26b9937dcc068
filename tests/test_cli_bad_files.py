"""Files a careless save leaves behind (another encoding, a NUL, a huge number) and hostile
ones (a regex whose compiling costs gigabytes): ``validate`` and ``serve --scenario`` say where
the problem is, and ``serve --watch`` survives them."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import openai
import pytest

from mockserver.cli import main
from mockserver.http.app import create_app
from mockserver.http.reload import ScenarioWatcher
from mockserver.settings import Settings
from tests.support.hostile_regexes import HOSTILE_REGEXES, hostile_scenario
from tests.support.limited import LimitedServer, run_limited

GOOD = "name: good\nrules:\n  - {id: hi, when: {last_user: hi}, reply: {text: Hello!}}\n"
LATIN1 = b"name: good\nrules:\n  - {id: hi, reply: {text: caf\xe9}}\n"

BAD_FILES = {
    "latin-1": (LATIN1, ":3:31: not UTF-8 text: byte 0xe9"),
    "utf-16": (GOOD.encode("utf-16"), ":1:1: not UTF-8 text: the file is UTF-16"),
    "utf-16-no-bom": (GOOD.encode("utf-16-le"), ":1:2: a control character U+0000"),
    "nul": (b"name: good\nrules: [\x00]\n", ":2:9: a control character U+0000"),
    "huge-seed": (b"seed: " + b"1" * 5000 + b"\n", ":1:7: field 'seed': a number of 5000 digits"),
}


@pytest.mark.parametrize("kind", BAD_FILES)
def test_validate_locates_a_bad_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    content, says = BAD_FILES[kind]
    path = tmp_path / "s.yaml"
    path.write_bytes(content)
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}{says}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["latin-1", "utf-16"])
def test_serve_refuses_a_bad_file_with_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    content, says = BAD_FILES[kind]
    path = tmp_path / "s.yaml"
    path.write_bytes(content)
    assert main(["serve", "--port", "0", "--scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mockserver: error: {path}{says}")


def _save(path: Path, content: bytes, *, seconds_later: int) -> None:
    path.write_bytes(content)
    stamp = path.stat().st_mtime + seconds_later  # coarse timestamps would miss a quick edit
    os.utime(path, (stamp, stamp))


def test_watch_reports_a_bad_save_and_reloads_the_next_good_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD, encoding="utf-8")
    engine = create_app(Settings(scenario=str(path))).state.engine
    watcher = ScenarioWatcher(engine, str(path))
    with caplog.at_level(logging.ERROR, logger="mockserver"):
        _save(path, LATIN1, seconds_later=2)
        assert watcher.check() is False
    assert f"{path}:3:31: not UTF-8 text" in caplog.text
    _save(path, GOOD.encode().replace(b"Hello!", b"Changed!"), seconds_later=4)
    assert watcher.check() is True
    assert engine.default.rules[0].reply.text == "Changed!"


def test_the_watcher_thread_survives_a_failing_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD, encoding="utf-8")
    engine = create_app(Settings(scenario=str(path))).state.engine
    watcher = ScenarioWatcher(engine, str(path), interval=0.01)
    calls: list[int] = []

    def failing() -> bool:
        calls.append(1)
        if len(calls) >= 3:
            watcher.stop()
        raise UnicodeDecodeError("utf-8", b"\xe9", 0, 1, "a bug of ours")

    monkeypatch.setattr(watcher, "check", failing)
    with caplog.at_level(logging.ERROR, logger="mockserver"):
        watcher._loop()  # returns once stopped: every failure was logged, none ended it
    assert len(calls) == 3
    assert caplog.text.count("scenario not reloaded") == 3


#: Where a hostile scenario's regex is, and what is said of it.
REGEX_AT = ":4:24: rule 'r', field 'rules[0].when.last_user.regex': regex "


def _said_of_a_hostile_regex(output: str, path: Path) -> None:
    assert f"{path}{REGEX_AT}" in output, output
    assert "refused: " in output.split(f"{path}{REGEX_AT}", 1)[1].splitlines()[0]
    assert "Traceback" not in output
    assert "MemoryError" not in output


@pytest.mark.parametrize("kind", HOSTILE_REGEXES)
def test_validate_refuses_a_regex_too_costly_to_compile_with_where_it_is(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(hostile_scenario(HOSTILE_REGEXES[kind]), encoding="utf-8")
    done = run_limited(["validate", str(path)])
    assert done.returncode == 1, done.stderr
    _said_of_a_hostile_regex(done.stderr, path)


@pytest.mark.parametrize("kind", HOSTILE_REGEXES)
def test_serve_refuses_to_start_on_a_regex_too_costly_to_compile(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(hostile_scenario(HOSTILE_REGEXES[kind]), encoding="utf-8")
    done = run_limited(["serve", "--port", "0", "--scenario", str(path)])
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"mockserver: error: {path}{REGEX_AT}"), done.stderr
    _said_of_a_hostile_regex(done.stderr, path)


def _hello(url: str) -> str | None:
    client = openai.OpenAI(base_url=url, api_key="sk-another-client", max_retries=0)
    answer = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    )
    return answer.choices[0].message.content


def test_watch_refuses_each_hostile_regex_and_keeps_answering(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD, encoding="utf-8")
    with LimitedServer(["--scenario", str(path), "--watch"]) as server:
        assert HOSTILE_REGEXES
        for second, pattern in enumerate(HOSTILE_REGEXES.values(), start=1):
            assert _hello(server.url) == "Hello!"
            _save(path, hostile_scenario(pattern).encode(), seconds_later=2 * second)
            said = server.wait_for("scenario not reloaded")
            said += server.wait_for(str(path))
            _said_of_a_hostile_regex(said, path)
            assert _hello(server.url) == "Hello!"  # still up, still the last good version
