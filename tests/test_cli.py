"""The command line as a user runs it: validate, schema, scenarios, serve --watch."""

from __future__ import annotations

import gc
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from mockserver.cli import frozen_start_up, main
from mockserver.errors import ScenarioError, ServerStartError
from mockserver.http.app import create_app
from mockserver.http.reload import ScenarioWatcher
from mockserver.http.server import bind
from mockserver.settings import Settings

GOOD = "name: good\nrules:\n  - {id: hi, when: {last_user: hi}, reply: {text: Hello!}}\n"
BAD = "name: bad\nrules:\n  - {id: hi, reply: {txt: Hello!}}\n"


def test_validate_lists_located_problems_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "bad.yaml").write_text(BAD)
    assert main(["validate", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert err == [
        f"{tmp_path / 'bad.yaml'}:3:22: rule 'hi', field 'rules[0].reply.txt': unknown key "
        "'txt' (did you mean 'text'?)",
    ]
    assert captured.out == "2 file(s) checked, 1 problem(s)\n"


def test_validate_checks_a_directorys_names_together_and_refuses_an_empty_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios, empty = tmp_path / "scenarios", tmp_path / "empty"
    scenarios.mkdir()
    empty.mkdir()
    (scenarios / "a.yaml").write_text(GOOD)
    (scenarios / "b.yaml").write_text(GOOD)
    (scenarios / "c.yaml").write_text(BAD.replace("name: bad", "name: good"))
    assert main(["validate", str(scenarios), str(empty)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{scenarios / 'c.yaml'}:3:22: rule 'hi', field 'rules[0].reply.txt': unknown key "
        "'txt' (did you mean 'text'?)",
        f"{scenarios / 'b.yaml'}:1: field 'name': scenario name 'good' is already the name of "
        f"{scenarios / 'a.yaml'}: each scenario of a directory needs a name of its own",
        f"{empty}: no scenario files (.yaml, .yml, .json) in directory",
    ]
    assert captured.out == "3 file(s) checked, 3 problem(s)\n"
    assert main(["validate", str(scenarios / "a.yaml"), str(scenarios / "b.yaml")]) == 0


def test_validate_lists_duplicate_rule_ids_with_the_other_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(
        "rules:\n  - id: a\n    reply: {txt: one}\n\n  - id: a\n    reply: {text: two}\n"
    )
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{path}:3:13: rule 'a', field 'rules[0].reply.txt': unknown key 'txt' "
        "(did you mean 'text'?)",
        f"{path}:5:5: rule 'a', field 'rules[1].id': duplicate rule id 'a' (rules 1 and 2)",
    ]
    assert captured.out == "1 file(s) checked, 2 problem(s)\n"


def test_validate_skips_the_fixtures_of_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "answer.json").write_text('{"text": "hi"}')
    (tmp_path / "a.yaml").write_text("rules:\n  - reply: {fixture: answer.json}\n")
    assert main(["validate", str(tmp_path)]) == 0, capsys.readouterr()


@pytest.mark.parametrize("text", ["", "# to do\n"])
def test_validate_reports_an_empty_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{path}:1:1: the file is empty: a scenario file holds a mapping (name, rules, …); "
        "write {} for a scenario with every default",
    ]
    assert captured.out == "1 file(s) checked, 1 problem(s)\n"


def test_validate_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.yaml").write_text(BAD)
    assert main(["validate", "--json", str(tmp_path / "bad.yaml")]) == 1
    assert json.loads(capsys.readouterr().out) == [
        {
            "file": str(tmp_path / "bad.yaml"),
            "line": 3,
            "column": 22,
            "rule": "hi",
            "field": "rules[0].reply.txt",
            "message": "unknown key 'txt' (did you mean 'text'?)",
        }
    ]


def test_validate_passes_the_shipped_library(capsys: pytest.CaptureFixture[str]) -> None:
    library = Path(__file__).resolve().parents[1] / "scenarios"
    assert main(["validate", str(library)]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (
        f"{len(list(library.glob('*.yaml')))} file(s) checked, 0 problem(s)\n",
        "",
    )


def test_schema_is_a_json_schema_that_accepts_the_library(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import jsonschema
    import yaml

    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator(schema)
    library = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.yaml"))
    assert library
    for path in library:
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text())))
        assert errors == [], (path, errors[:1])
    assert list(validator.iter_errors({"rules": [{"replys": []}]}))


def test_scenarios_lists_the_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("weather-agent ") for line in lines)
    for line in lines:  # descriptions cut at a word, and said to be cut
        description = line.split(maxsplit=1)[1]
        assert len(description) <= 70
        assert description.endswith(("…", ".", ")")), line
        assert not description.removesuffix("…").endswith(" ")


def test_help_names_every_api_family(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    for family in ("OpenAI", "Anthropic", "Gemini", "Azure OpenAI", "Bedrock", "Ollama"):
        assert family in said


def test_a_taken_port_is_refused_with_a_way_out() -> None:
    taken = bind("127.0.0.1", 0)
    try:
        with pytest.raises(ServerStartError, match="pick another with --port, or 0"):
            bind("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mockserver", "validate", "/nonexistent.yaml"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "no such scenario file" in result.stderr


def test_serve_refuses_a_broken_scenario_before_binding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.yaml").write_text(BAD)
    assert main(["serve", "--port", "0", "--scenario", str(tmp_path / "bad.yaml")]) == 2
    assert "unknown key 'txt'" in capsys.readouterr().err


def test_start_up_runs_without_the_collector_and_freezes_what_it_built() -> None:
    before = gc.get_freeze_count()
    try:
        with frozen_start_up():
            assert not gc.isenabled()
            built = [[n] for n in range(100)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(built)
    finally:
        gc.unfreeze()


def test_a_failed_start_up_freezes_nothing_and_turns_the_collector_back_on() -> None:
    before = gc.get_freeze_count()
    with pytest.raises(ScenarioError), frozen_start_up():
        raise ScenarioError("broken")
    assert gc.isenabled()
    assert gc.get_freeze_count() == before


def test_watch_reloads_and_keeps_the_last_good_version(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    app = create_app(Settings(scenario=str(path)))
    engine = app.state.engine
    watcher = ScenarioWatcher(engine, str(path))
    path.write_text(GOOD.replace("Hello!", "Changed!"))
    _touch_later(path)
    assert watcher.check() is True
    assert engine.default.rules[0].reply.text == "Changed!"
    path.write_text(BAD)
    _touch_later(path)
    assert watcher.check() is False
    assert engine.default.rules[0].reply.text == "Changed!"


def _touch_later(path: Path) -> None:
    """Move the mtime forward: filesystems with coarse timestamps would miss a quick edit."""
    stamp = path.stat().st_mtime + 2
    import os

    os.utime(path, (stamp, stamp))


def test_serve_prints_its_url_answers_and_stops_cleanly_on_ctrl_c() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", "serve", "--port", "0", "--clock", "frozen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("mockserver listening on http://127.0.0.1:")
        url = first.split()[3]
        deadline = time.monotonic() + 10
        while True:
            try:
                response = httpx.post(
                    f"{url}/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                )
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert response.status_code == 200
    finally:
        process.send_signal(signal.SIGINT)  # Ctrl-C
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
    assert process.returncode == 0


def test_the_printed_curl_line_uses_a_key_the_server_lets_in() -> None:
    command = [sys.executable, "-m", "mockserver", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--api-key", "sk-team-1", "--admin-token", "t"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[3]
        hint = process.stdout.readline()
        answer = None
        deadline = time.monotonic() + 10
        while answer is None:  # up and serving before Ctrl-C
            try:
                answer = httpx.post(
                    f"{url}/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                    headers={"Authorization": "Bearer sk-team-1"},
                )
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert answer.status_code == 200  # the key in the hint is let in
    finally:
        _ctrl_c(process)
    assert hint.startswith("try: curl")
    assert "Bearer sk-team-1" in hint


def test_serve_watch_says_when_it_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    command = ["serve", "--port", "0", "--scenario", str(path), "--watch"]
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []
    try:
        output = process.stdout
        assert output is not None
        threading.Thread(target=lambda: [lines.put(x) for x in output], daemon=True).start()
        seen.append(lines.get(timeout=10))
        assert seen[0].startswith("mockserver listening on"), seen
        path.write_text(GOOD.replace("Hello!", "Changed!"))
        _touch_later(path)
        while "reloaded" not in seen[-1]:  # the watcher looks twice a second
            seen.append(lines.get(timeout=10))
    finally:
        _ctrl_c(process)
    assert seen[-1].strip() == "INFO:     reloaded good", seen


def _ctrl_c(process: subprocess.Popen[str]) -> None:
    """Stop a served process as a user would, and kill it if it does not stop."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--port", "99999"], "invalid setting 'port' (--port): "),
        (["--rpm", "0"], "invalid setting 'requests_per_minute' (--rpm): "),
    ],
)
def test_a_bad_flag_is_named_in_the_error(
    flags: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *flags]) == 2
    assert says in capsys.readouterr().err


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"mockserver {version('mockserver')}\n"


def test_validate_numbers_rules_from_one_and_guesses_a_misspelt_preset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("rules:\n  - reply: {text: ok}\n  - reply: {error: {preset: rate_limitd}}\n")
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    (problem,) = captured.err.splitlines()
    assert problem.startswith(
        f"{path}:3:21: rule #2, field 'rules[1].reply.error.preset': Input should be "
        "'rate_limited', "
    )
    assert problem.endswith(" (did you mean 'rate_limited'?)")
    assert captured.out == "1 file(s) checked, 1 problem(s)\n"


def test_validate_warns_of_a_rule_an_earlier_one_shadows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "rules:\n"
        "  - {id: weather, when: {last_user: {contains: weather}}, reply: {text: sunny}}\n"
        "  - {id: rain, when: {last_user: {contains: weather}}, reply: {text: rainy}}\n"
        "  - {id: once, when: {model: gpt-4o}, reply: {text: a}, times: 1}\n"
        "  - {id: model, when: {model: {equals: gpt-4o}}, reply: {text: b}}\n"
        "  - {id: anything, reply: {text: c}}\n"
        "  - {id: never, when: {model: gpt-5}, reply: {text: d}}\n"
    )
    assert main(["validate", str(path)]) == 0  # a warning is not a problem
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{path}: warning: rule 'rain' (rule 2) can never match: rule 'weather' (rule 1) comes "
        "first, has the same conditions and never runs out (move it after this one, narrow "
        "its 'when', or give it 'times')",
        f"{path}: warning: rule 'never' (rule 6) can never match: rule 'anything' (rule 5) "
        "comes first, has no condition and never runs out (move it after this one, narrow "
        "its 'when', or give it 'times')",
    ]
    assert captured.out == "1 file(s) checked, 0 problem(s), 2 warning(s)\n"


def test_schema_has_a_versioned_id_and_can_be_written_to_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "scenario.schema.json"
    assert main(["schema", "--output", str(target)]) == 0
    schema = json.loads(target.read_text())
    assert schema["$id"] == "urn:mockserver:scenario:v1"
    assert capsys.readouterr().out.splitlines()[1] == (f"# yaml-language-server: $schema={target}")
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema


def test_serve_guesses_a_misspelt_scenario_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0", "--scenario", "weather-agnet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "mockserver: error: no built-in scenario named 'weather-agnet' "
        "(did you mean 'weather-agent'?)"
    ), err


def test_serve_guesses_a_misspelt_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "weather-agent.yaml").write_text("name: w\n", encoding="utf-8")
    assert main(["serve", "--port", "0", "--scenario", str(tmp_path / "weather-agnet.yaml")]) == 2
    err = capsys.readouterr().err
    assert "no such scenario file (did you mean 'weather-agent.yaml'?)" in err, err
