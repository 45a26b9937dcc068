"""What was served, as ``GET /__mockserver/report`` and the ``--report`` files say, after real
calls through the openai SDK: rules hit, a strict miss, a generated fallback, an error rule."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import junitparser
import openai
import pytest

from mockserver.http.access import ADMIN_HEADER
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

STRICT = """\
name: ci
fallback: strict
rules:
  - id: greet
    when: {last_user: {contains: hello}}
    reply: {text: Hello there!}
  - id: flaky
    when: {last_user: {contains: flaky}}
    reply: {error: {preset: rate_limited}}
  - id: never
    when: {last_user: {contains: never-asked}}
    reply: {text: unused}
"""
LENIENT = """\
name: lenient
fallback: generate
rules:
  - id: weather
    when: {last_user: {contains: weather}}
    reply: {text: Sunny.}
"""
SLOW_DOWN = (
    "Your request rate increased too quickly. Please reduce the request rate and gradually "
    "increase it again."
)
#: Two namespaces by their API keys (long, like real ones) and one by a session name.
STRICT_KEY = "sk-proj-strictnamespace0000A1b2"
LENIENT_KEY = "sk-proj-lenientnamespace000C3d4"
WHY_STRICT = (
    "No rule of scenario 'ci' matched chat request (model 'gpt-4o-mini', last user message "
    "'goodbye').\n"
    "  - rule 'greet': last user message 'goodbye' does not contain 'hello'\n"
    "  - rule 'flaky': last user message 'goodbye' does not contain 'flaky'\n"
    "  - rule 'never': last user message 'goodbye' does not contain 'never-asked'"
)
WHY_LENIENT = (
    "No rule of scenario 'lenient' matched chat request (model 'gpt-4o-mini', last user message "
    "'hello').\n  - rule 'weather': last user message 'hello' does not contain 'weather'"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BackgroundServer, Path]]:
    """A server on the strict scenario, with report files, after one run of calls."""
    folder = tmp_path_factory.mktemp("report")
    (folder / "ci.yaml").write_text(STRICT)
    server = start_server(
        scenario=str(folder / "ci.yaml"),
        report=str(folder / "report.json"),
        report_junit=str(folder / "junit.xml"),
    )
    try:
        _run_calls(server)
        yield server, folder
    finally:
        server.stop()


def _ask(sdk: openai.OpenAI, text: str, **options: Any) -> Any:
    return sdk.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": text}], **options
    )


def _run_calls(server: BackgroundServer) -> None:
    with openai.OpenAI(base_url=server.base_url, api_key=STRICT_KEY, max_retries=0) as sdk:
        assert _ask(sdk, "hello").choices[0].message.content == "Hello there!"
        streamed = "".join(
            c.choices[0].delta.content or "" for c in _ask(sdk, "hello", stream=True) if c.choices
        )
        assert streamed == "Hello there!"
        with pytest.raises(openai.RateLimitError):
            _ask(sdk, "flaky")
        with pytest.raises(openai.BadRequestError):
            _ask(sdk, "goodbye")
    put = httpx.put(
        server.url + "/__mockserver/scenario",
        content=LENIENT,
        headers={"Authorization": f"Bearer {LENIENT_KEY}", "content-type": "application/yaml"},
    )
    assert put.status_code == 200
    with openai.OpenAI(base_url=server.base_url, api_key=LENIENT_KEY, max_retries=0) as sdk:
        assert _ask(sdk, "hello").choices[0].message.content  # generated: no rule matched
    with openai.OpenAI(
        base_url=server.base_url,
        api_key=STRICT_KEY,
        default_headers={"x-mockserver-session": "checkout-flow"},
        max_retries=0,
    ) as sdk:
        assert _ask(sdk, "hello").choices[0].message.content == "Hello there!"
        assert sdk.responses.create(model="gpt-4o-mini", input="hello").output_text == (
            "Hello there!"
        )


def _without_durations(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for call in calls:
        assert isinstance(call.pop("duration_ms"), float | int)
    return calls


def test_the_report_lists_every_call_and_what_answered_it(
    served: tuple[BackgroundServer, Path],
) -> None:
    server, _ = served
    report = httpx.get(server.url + "/__mockserver/report").json()
    assert report["version"] == 1
    common = {"method": "POST", "path": "/v1/chat/completions", "api": "chat"}
    common["model"] = "gpt-4o-mini"
    assert _without_durations(report["calls"]) == [
        {
            **common,
            "namespace": "checkout-flow",
            "seq": 1,
            "stream": False,
            "status": 200,
            "outcome": "matched",
            "rule": "greet",
            "miss": None,
            "summary": "Hello there!",
        },
        {
            **common,
            "namespace": "checkout-flow",
            "seq": 2,
            "path": "/v1/responses",
            "api": "responses",
            "stream": False,
            "status": 200,
            "outcome": "matched",
            "rule": "greet",
            "miss": None,
            "summary": "Hello there!",
        },
        {
            **common,
            "namespace": "sk-…A1b2",
            "seq": 1,
            "stream": False,
            "status": 200,
            "outcome": "matched",
            "rule": "greet",
            "miss": None,
            "summary": "Hello there!",
        },
        {
            **common,
            "namespace": "sk-…A1b2",
            "seq": 2,
            "stream": True,
            "status": 200,
            "outcome": "matched",
            "rule": "greet",
            "miss": None,
            "summary": "Hello there!",
        },
        {
            **common,
            "namespace": "sk-…A1b2",
            "seq": 3,
            "stream": False,
            "status": 429,
            "outcome": "error",
            "rule": "flaky",
            "miss": None,
            "summary": "rate_limit_error: " + SLOW_DOWN,
        },
        {
            **common,
            "namespace": "sk-…A1b2",
            "seq": 4,
            "stream": False,
            "status": 400,
            "outcome": "miss",
            "rule": None,
            "miss": WHY_STRICT,
            "summary": "invalid_request_error: " + WHY_STRICT,
        },
        {
            **common,
            "namespace": "sk-…C3d4",
            "seq": 1,
            "stream": False,
            "status": 200,
            "outcome": "generated",
            "rule": None,
            "miss": WHY_LENIENT,
            "summary": report["calls"][6]["summary"],
        },
    ]
    assert report["calls"][6]["summary"]  # the start of the generated text


def test_the_report_lists_misses_errors_and_unused_rules(
    served: tuple[BackgroundServer, Path],
) -> None:
    server, _ = served
    report = httpx.get(server.url + "/__mockserver/report").json()
    assert report["misses"] == [
        {
            "namespace": "sk-…A1b2",
            "seq": 4,
            "method": "POST",
            "path": "/v1/chat/completions",
            "status": 400,
            "answered": "refused",
            "explanation": WHY_STRICT,
        },
        {
            "namespace": "sk-…C3d4",
            "seq": 1,
            "method": "POST",
            "path": "/v1/chat/completions",
            "status": 200,
            "answered": "generated",
            "explanation": WHY_LENIENT,
        },
    ]
    assert [(e["seq"], e["status"], e["type"], e["code"], e["rule"]) for e in report["errors"]] == [
        (3, 429, "rate_limit_error", "slow_down", "flaky"),
        (4, 400, "invalid_request_error", "mockserver_no_match", None),
    ]
    assert [e["message"] for e in report["errors"]] == [SLOW_DOWN, WHY_STRICT]
    assert report["unused_rules"] == [
        {"scenario": "ci", "rule": "never"},
        {"scenario": "lenient", "rule": "weather"},
    ]
    assert report["counts"] == {
        "namespaces": 3,
        "calls": 7,
        "misses": 2,
        "errors": 2,
        "internal_errors": 0,
        "unused_rules": 2,
        "dropped": 0,
    }
    assert report["server"] == {"version": report["server"]["version"], "seed": 0, "scenario": "ci"}


def test_the_report_endpoint_writes_the_files_too(served: tuple[BackgroundServer, Path]) -> None:
    server, folder = served
    answered = httpx.get(server.url + "/__mockserver/report").json()
    assert json.loads((folder / "report.json").read_text())["calls"] == answered["calls"]
    [suite] = list(junitparser.JUnitXml.fromfile(str(folder / "junit.xml")))
    cases = {case.name: case for case in suite}
    assert sorted(cases) == ["checkout-flow", "sk-…A1b2", "sk-…C3d4"]
    assert (suite.tests, suite.failures, suite.errors) == (3, 2, 0)
    assert cases["checkout-flow"].is_passed
    [strict] = cases["sk-…A1b2"].result
    assert strict.message == (
        f"#4 POST /v1/chat/completions: 400, no rule matched (strict). {WHY_STRICT} (and 1 more)"
    )
    assert strict.text.split("\n\n")[0] == (
        "#3 POST /v1/chat/completions: 429 rate_limit_error/slow_down, scripted by rule "
        f"'flaky'. {SLOW_DOWN}"
    )
    [lenient] = cases["sk-…C3d4"].result
    assert lenient.message == (
        f"#1 POST /v1/chat/completions: no rule matched, the reply was generated. {WHY_LENIENT}"
    )
    assert (
        cases["sk-…A1b2"]
        .system_out.splitlines()[1]
        .startswith("#2 POST /v1/chat/completions 200 chat gpt-4o-mini (stream) rule 'greet' ")
    )


def test_no_key_or_authorization_header_reaches_the_report(
    served: tuple[BackgroundServer, Path],
) -> None:
    server, folder = served
    answered = httpx.get(server.url + "/__mockserver/report").text
    for text in (
        answered,
        (folder / "report.json").read_text(),
        (folder / "junit.xml").read_text(),
    ):
        for secret in (STRICT_KEY, LENIENT_KEY, "Bearer", "uthorization"):
            assert secret not in text


def test_the_report_endpoint_needs_the_admin_token_when_one_is_set() -> None:
    server = start_server(admin_token="t0ken-for-report")
    try:
        url = server.url + "/__mockserver/report"
        assert httpx.get(url).status_code == 401
        answered = httpx.get(url, headers={ADMIN_HEADER: "t0ken-for-report"})
        assert answered.status_code == 200
        assert answered.json()["counts"]["calls"] == 0
    finally:
        server.stop()


def test_a_request_asked_again_is_reported_as_its_first_answer_was() -> None:
    """The second ``hello`` is answered by the replay lane: it is a miss all the same."""
    server = start_server()
    try:
        headers = {"Authorization": f"Bearer {LENIENT_KEY}", "content-type": "application/yaml"}
        httpx.put(server.url + "/__mockserver/scenario", content=LENIENT, headers=headers)
        with openai.OpenAI(base_url=server.base_url, api_key=LENIENT_KEY, max_retries=0) as sdk:
            first, again = _ask(sdk, "hello"), _ask(sdk, "hello")
        assert first.choices[0].message.content == again.choices[0].message.content
        assert len(server.app.state.replays) == 1  # its recipe, which answers the second
        report = httpx.get(server.url + "/__mockserver/report").json()
        assert [(c["seq"], c["outcome"], c["miss"]) for c in report["calls"]] == [
            (1, "generated", WHY_LENIENT),
            (2, "generated", WHY_LENIENT),
        ]
        assert [m["seq"] for m in report["misses"]] == [1, 2]
    finally:
        server.stop()
