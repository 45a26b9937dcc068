"""``mockserver record`` and ``serve --record`` as a user runs them: a subprocess killed in
the middle of a recording, the drift check's report and exit code, the refusals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from mockserver.cli import main
from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.conftest import start_server
from tests.support.recording import MisbehavingUpstream, start_recorder, start_upstream


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def ask(base_url: str, text: str, *, stream: bool = False, timeout: float = 10) -> httpx.Response:
    return httpx.post(
        f"{base_url}/chat/completions",
        json={
            "model": "gpt-4o-mini",
            "stream": stream,
            "messages": [{"role": "user", "content": text}],
        },
        headers={"authorization": "Bearer sk-cli-test-key-0001"},
        timeout=timeout,
    )


def started(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """A ``mockserver`` subprocess and the base URL it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("mockserver listening on http://127.0.0.1:"), first
    return process, first.split()[3]


def test_a_recording_killed_mid_stream_leaves_every_finished_exchange_loadable(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "killed.yaml"
    process, url = started(
        ["record", "--upstream", upstream.base_url, "--out", str(cassette), "--port", "0"]
    )
    try:
        for text in ("one", "two", "three"):
            assert ask(url, text, stream=text == "two").status_code == 200
        late = threading.Thread(target=ask_and_be_cut_off, args=(url, "slow"))
        late.start()  # the upstream holds this one back: it is mid-flight when killed
        time.sleep(0.3)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert process.stdout is not None
        process.stdout.close()
    late.join(10)
    scenario = load_file(cassette)
    assert [r.id for r in scenario.rules] == ["chat-001", "chat-002", "chat-003"]
    for file in (tmp_path / "killed").iterdir():
        json.loads(file.read_text())  # whole, not half-written
    assert not list(tmp_path.rglob("*.tmp"))


def ask_and_be_cut_off(base_url: str, text: str) -> None:
    with pytest.raises(httpx.HTTPError):
        ask(base_url, text, stream=True).raise_for_status()


def test_serve_record_replays_what_it_recorded(tmp_path: Path, upstream: BackgroundServer) -> None:
    cassette = tmp_path / "serve.yaml"
    command = ["serve", "--port", "0", "--record", str(cassette), "--upstream", upstream.base_url]
    process, url = started(command)
    try:
        seen = ask(url, "hello").content
        assert httpx.get(f"{url}/models", timeout=10).status_code == 200  # forwarded only
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
        assert process.stdout is not None
        out = process.stdout.read()
        process.stdout.close()
    doing = f"proxying to {upstream.base_url}, writing to {cassette} (mode once, exact)"
    assert f"record: {doing}" in out
    # What the run wrote, said when it stops: the model turn, and the call it only forwarded.
    assert (
        f"record: 1 new recording(s) written to {cassette}; 1 call(s) forwarded but not "
        "written (not model turns"
    ) in out
    process, url = started([*command[:-2], "--record-mode", "none"])
    try:
        assert ask(url, "hello").content == seen
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
        assert process.stdout is not None
        process.stdout.close()


def test_record_check_passes_a_cassette_whose_answers_kept_their_shape(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "shape.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        ask(recorder.base_url, "hello")
        ask(recorder.base_url, "stream it", stream=True)
    finally:
        recorder.stop()
    written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    (tmp_path / "other").mkdir()
    other = start_upstream(tmp_path / "other", seed=8)  # other texts, the same shapes
    try:
        assert main(["record", "--check", str(cassette), "--upstream", other.base_url]) == 0
    finally:
        other.stop()
    assert {p: p.read_bytes() for p in written} == written  # nothing rewritten
    out = capsys.readouterr().out
    assert "2 recording(s) replayed against the upstream: 0 drifted, 0 failed" in out


def test_record_check_reports_where_the_shape_drifted_and_exits_1(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "drift.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        ask(recorder.base_url, "hello")
    finally:
        recorder.stop()
    odd = MisbehavingUpstream().start()
    try:
        assert main(["record", "--check", str(cassette), "--upstream", odd.base_url]) == 1
    finally:
        odd.stop()
    out = capsys.readouterr().out
    assert "DRIFT rule 'chat-001' (drift/chat-001.json)" in out
    assert "$.system_fingerprint: gone" in out
    assert "$.usage.prompt_tokens: was number, now string" in out


def test_record_refuses_to_replay_only_a_cassette_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "absent.yaml"
    assert main(["record", "--out", str(absent), "--mode", "none", "--port", "0"]) == 2
    assert f"cassette {absent} does not exist: mode none replays only" in capsys.readouterr().err


def test_record_without_an_upstream_says_it_needs_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "--out", str(tmp_path / "new.yaml"), "--port", "0"]) == 2
    assert "it needs an upstream URL" in capsys.readouterr().err


def test_recording_listens_on_loopback_only_unless_an_admin_token_is_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["record", "--out", str(tmp_path / "x.yaml"), "--upstream", "http://127.0.0.1:9/v1"]
    assert main([*command, "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "refusing to listen on 0.0.0.0" in capsys.readouterr().err


def test_a_redact_pattern_that_is_not_a_regex_is_refused_before_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["record", "--out", str(tmp_path / "x.yaml"), "--upstream", "http://127.0.0.1:9/v1"]
    assert main([*command, "--redact", "acct-(", "--port", "0"]) == 2
    assert "--redact 'acct-(' is not a valid regex" in capsys.readouterr().err


def stopped(process: subprocess.Popen[str]) -> str:
    """Stop a ``mockserver`` subprocess as Ctrl-C does; what it wrote."""
    process.send_signal(signal.SIGINT)
    process.wait(timeout=10)
    assert process.stdout is not None
    out = process.stdout.read()
    process.stdout.close()
    return out


@pytest.mark.parametrize("out", ["rec.yaml", "rec.yml", "rec.json", "missing/dir/rec.yaml"])
def test_every_cassette_path_a_user_may_type_records_and_replays(
    tmp_path: Path, upstream: BackgroundServer, out: str
) -> None:
    cassette = tmp_path / out
    process, url = started(
        ["record", "--upstream", upstream.base_url, "--out", str(cassette), "--port", "0"]
    )
    try:
        seen = ask(url, "hello")
        assert seen.status_code == 200
    finally:
        said = stopped(process)
    assert f"record: 1 new recording(s) written to {cassette}" in said
    assert "Traceback" not in said
    if cassette.suffix == ".json":
        assert json.loads(cassette.read_text())["rules"]  # JSON, as its name says
    [rule] = [r for r in load_file(cassette).rules if r.recordings]
    assert rule.id == "chat-001"
    replaying, url = started(["serve", "--port", "0", "--scenario", str(cassette)])
    try:
        assert ask(url, "hello").content == seen.content
    finally:
        stopped(replaying)


def _refused(tmp_path: Path, out: Path) -> str:
    before = sorted(tmp_path.rglob("*"))
    command = ["record", "--upstream", "http://127.0.0.1:9/v1", "--out", str(out), "--port", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "mockserver", *command],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "mockserver listening" not in done.stdout  # refused before it listened
    assert "Traceback" not in done.stderr
    assert sorted(tmp_path.rglob("*")) == before  # nothing written
    assert done.stderr.startswith(f"mockserver: error: cassette {out}"), done.stderr
    return done.stderr


def test_a_cassette_path_without_a_suffix_is_refused_at_start(tmp_path: Path) -> None:
    said = _refused(tmp_path, tmp_path / "rec")
    assert "a scenario file named .yaml, .yml or .json" in said
    assert f"{tmp_path / 'rec'}.yaml" in said


def test_a_cassette_path_that_is_a_directory_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "cassettes.yaml").mkdir()
    said = _refused(tmp_path, tmp_path / "cassettes.yaml")
    assert "is a directory" in said


def test_a_cassette_whose_recordings_folder_is_a_file_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "rec").write_text("not a folder")
    said = _refused(tmp_path, tmp_path / "rec.yaml")
    assert f"its recordings go in {tmp_path / 'rec'}, which is a file" in said


def test_a_cassette_under_a_file_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file, not a folder")
    said = _refused(tmp_path, tmp_path / "plain" / "rec.yaml")
    assert "cannot be written" in said


def test_a_cassette_in_a_read_only_folder_is_refused_at_start(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.geteuid() == 0:  # root writes in any folder's mode: sysfs takes no files from anyone
        locked = Path("/sys")
    try:
        said = _refused(tmp_path, locked / "mockserver-rec.yaml")
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert "cannot be written" in said
    assert "Permission denied" in said


def test_record_says_what_it_does_not_what_serve_would(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "said.yaml"
    process, url = started(
        ["record", "--upstream", upstream.base_url, "--out", str(cassette), "--port", "0"]
    )
    said = stopped(process)
    banner = said.split("Ctrl-C to stop.")[0]
    assert f"record: proxying to {upstream.base_url}, writing to {cassette} (mode once, exact)" in (
        banner
    )
    for serves in ("scenario", "seed", "clock", "sk-mock", "Bearer"):
        assert serves not in banner, banner
    assert f"OPENAI_BASE_URL={url}" in banner
    root = url.removesuffix("/v1")
    for other in (
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "OLLAMA_HOST",
    ):
        assert f"{other}={root}" in banner, banner  # recording another family's upstream


def test_an_upstream_refusing_the_key_is_warned_of_and_not_recorded(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    keyed = start_server(api_keys=("sk-the-right-key",), seed=7)
    cassette = tmp_path / "keyed.yaml"
    process, url = started(
        ["record", "--upstream", keyed.base_url, "--out", str(cassette), "--port", "0"]
    )
    try:
        refused = ask(url, "hello")  # with a key the upstream does not know
        answered = httpx.post(
            f"{url}/chat/completions",
            json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]},
            headers={"authorization": "Bearer sk-the-right-key"},
            timeout=10,
        )
    finally:
        said = stopped(process)
        keyed.stop()
    assert refused.status_code == 401  # the client sees what the upstream said
    assert answered.status_code == 200
    assert "WARNING" in said
    assert "the upstream answered 401 to POST /v1/chat/completions: not recorded" in said
    assert (
        "record: 1 new recording(s) written to "
        f"{cassette}; 1 answer(s) of 401/403 not written (the upstream refused the key)"
    ) in said
    [rule] = load_file(cassette).rules
    assert rule.id == "chat-001"
    assert (tmp_path / "keyed" / "chat-001.json").is_file()
    assert not (tmp_path / "keyed" / "chat-002.json").exists()


@pytest.mark.parametrize("form", ["exact", "distilled"])
def test_record_check_rechains_responses_from_what_it_just_got(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    cassette = tmp_path / "chain.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form=form)
    try:
        with openai.OpenAI(base_url=recorder.base_url, api_key="sk-chain", max_retries=0) as sdk:
            first = sdk.responses.create(model="gpt-4o-mini", input="Remember: blue.")
            sdk.responses.create(
                model="gpt-4o-mini", input="Which colour?", previous_response_id=first.id
            )
    finally:
        recorder.stop()
    (tmp_path / "fresh").mkdir()
    fresh = start_upstream(tmp_path / "fresh", seed=8)  # it never stored the recorded response
    try:
        assert main(["record", "--check", str(cassette), "--upstream", fresh.base_url]) == 0
    finally:
        fresh.stop()
    out = capsys.readouterr().out
    assert "2 recording(s) replayed against the upstream: 0 drifted, 0 failed" in out, out


def test_record_check_quotes_the_upstreams_error_in_a_drift_line(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "quoted.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url)
    try:
        ask(recorder.base_url, "hello")
    finally:
        recorder.stop()
    keyed = start_server(api_keys=("sk-only-this-one",))
    try:
        assert main(["record", "--check", str(cassette), "--upstream", keyed.base_url]) == 1
    finally:
        keyed.stop()
    out = capsys.readouterr().out
    assert "DRIFT rule 'chat-001' (quoted/chat-001.json)" in out
    assert "      status was 200, now 401: Incorrect API key provided" in out, out


def test_the_banner_says_bedrock_is_signed_again_with_the_shells_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mockserver.cli_record import recording_banner
    from mockserver.record.recorder import Recorder, Recording
    from mockserver.record.sigv4 import aws_credentials

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIASHELL00000000001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "shell-secret")
    signing = aws_credentials(os.environ)
    assert signing is not None
    path = tmp_path / "bedrock.yaml"
    url = "http://127.0.0.1:8000/v1"
    upstream = "https://bedrock-runtime.us-east-1.amazonaws.com"
    said = "\n".join(recording_banner(Recorder(Recording(path, upstream=upstream)), url=url))
    assert "signed again" not in said
    banner = recording_banner(Recorder(Recording(path, upstream=upstream, aws=signing)), url=url)
    assert banner[-1] == (
        "  Bedrock requests are signed again for the upstream with this shell's "
        "AWS_ACCESS_KEY_ID (AKIA…)"
    )
    assert "shell-secret" not in "\n".join(banner)
