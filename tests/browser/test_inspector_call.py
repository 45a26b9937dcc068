"""The inspector's call view in headless Chromium: the conversation and the answer assembled
from a stream's deltas, the stream's timeline, the call's headers (its key masked), the
journal's filters, copy as curl (replayed with curl), save as rule (validated and served), and
a layout that fits from 800 px up (at 1024 and 1440 px: times, rules and namespaces whole and
on one line, the side panel on the opened call's namespace, "Copied." beside its button, a cut
stream's row marked)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.http.routes.labels import label
from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.conftest import start_server
from tests.support.inspector import (
    KEY,
    LAYOUT_CHECK,
    SHOTS,
    entry,
    open_call,
    open_inspector,
    post,
    serve_scenario,
)

OTHER = "sk-other-space-0002"

SCENARIO = """
name: call-view
fallback: generate
rules:
  - id: paced
    when: {last_user: {contains: paced}}
    reply:
      text: "Paced words arrive one event at a time, each on its own write."
      latency: {ttft: 0.03, chunk_interval: 0.004}
  - id: slow
    when: {last_user: {contains: slowly}}
    reply:
      text: "Worth the wait."
      latency: {ttft: 1.2}
  - id: weather-tool
    when: {last_user: {contains: weather}}
    reply:
      tool_calls:
        - {name: get_weather, arguments: {city: Paris, unit: celsius}}
  - id: cut
    when: {last_user: {contains: cut}}
    reply:
      text: "one two three four five six seven eight"
      fault: {disconnect_after: 3}
  - id: error-after
    when: {last_user: {contains: broken}}
    reply:
      text: "alpha beta gamma delta epsilon zeta"
      fault: {error_after: 3}
  - id: strict-only
    when: {last_user: {equals: "exactly this text and nothing else"}, model: {equals: gpt-4.1}}
    reply: {text: never}
"""


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    yield from serve_scenario(SCENARIO, KEY, OTHER)


def chat_body(prompt: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": prompt},
        ],
        **extra,
    }


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        },
    },
}


def weather_body() -> dict[str, Any]:
    return chat_body("what is the weather?", tools=[WEATHER_TOOL])


def chat_deltas(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["choices"][0]["delta"].get("content") or "" for e in events if e.get("choices")
    )


def wait_for_text(page: Any, selector: str, expected: str) -> None:
    page.wait_for_function(
        "([s, t]) => document.querySelector(s)?.textContent === t", arg=[selector, expected]
    )


def visible_rows(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('#calls tr:not([hidden])').length"))


def test_a_stream_is_read_as_a_conversation_and_its_answer_assembled_from_the_deltas(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    post(mock, "/v1/chat/completions", chat_body("paced please", stream=True))
    tool_turn = weather_body()
    post(mock, "/v1/chat/completions", tool_turn)
    post(mock, "/v1/responses", {"model": "gpt-4o", "input": "hello responses", "stream": True})
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 3")

    open_call(page, 1)
    streamed = entry(mock, 1)
    expected = chat_deltas(streamed["response"])
    assert expected.startswith("Paced words")
    assert page.text_content("#answer-text") == expected
    conversation = page.inner_text("#conversation")
    assert "You are terse." in conversation
    assert "paced please" in conversation
    # Paced: one write per event, so one mark per event, each at its own time.
    marks = page.locator("#timeline-svg .mark")
    assert marks.count() == len(streamed["response"]) == page.locator(".mark.sent").count()
    xs = page.evaluate(
        "[...document.querySelectorAll('#timeline-svg .mark')].map(m => +m.getAttribute('x'))"
    )
    assert xs == sorted(xs)
    assert xs[-1] > xs[0]
    assert "first token +" in page.text_content("#timeline-note")
    page.click("#tab-raw")
    assert "chat.completion.chunk" in page.text_content("#detail-response")
    assert "paced please" in page.text_content("#detail-request")
    page.click("#tab-readable")

    open_call(page, 2)
    assert "→ get_weather" in page.inner_text("#answer")
    assert '"city": "Paris"' in page.inner_text("#answer")
    assert "in " in page.inner_text("#answer-usage")  # usage: in / out / total
    assert page.locator("#timeline-box").is_hidden()  # not a stream

    open_call(page, 3)
    events = entry(mock, 3)["response"]
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert deltas
    assert page.text_content("#answer-text") == deltas
    assert page.locator("#timeline-svg .mark").count() == len(events)
    # An unpaced stream leaves in one write: the timeline says so instead of inventing times.
    assert "one write" in page.text_content("#timeline-note")

    # A Responses tool call, streamed: its arguments assembled from their deltas.
    parameters = WEATHER_TOOL["function"]["parameters"]
    tool = {"type": "function", "name": "get_weather", "parameters": parameters}
    body = {"model": "gpt-4o", "input": "weather?", "tools": [tool], "stream": True}
    post(mock, "/v1/responses", body)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 4")
    open_call(page, 4)
    events = entry(mock, 4)["response"]
    arguments = "".join(
        e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"
    )
    assert json.loads(arguments) == {"city": "Paris", "unit": "celsius"}
    answer = page.inner_text("#answer")
    assert "→ get_weather" in answer
    assert json.dumps(json.loads(arguments), indent=2) in answer
    assert errors == []


def test_a_tool_result_in_the_request_reads_as_a_tool_turn(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    body = weather_body()
    body["messages"] += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "rain, 4 degrees"},
    ]
    post(mock, "/v1/chat/completions", body)
    page.wait_for_selector("#calls tr")
    open_call(page, 1)
    roles = page.eval_on_selector_all("#conversation .msg .who", "ns => ns.map(n => n.innerText)")
    assert [r.split(" ")[0].lower() for r in roles] == ["system", "user", "assistant", "tool"]
    assert "result of call_1" in roles[3].lower()
    conversation = page.inner_text("#conversation")
    assert "→ get_weather" in conversation
    assert '"city": "Oslo"' in conversation
    assert "rain, 4 degrees" in conversation
    assert errors == []


@pytest.mark.parametrize("width", [1024, 1440])
def test_a_cut_stream_shows_where_it_was_cut(
    mock: BackgroundServer, new_page: Any, width: int
) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    with pytest.raises(httpx.HTTPError):
        post(mock, "/v1/chat/completions", chat_body("cut me", stream=True))
    page.wait_for_selector("#calls tr")
    cut = entry(mock, 1)
    assert cut["cut"] is True
    assert len(cut["timing"]) == 3
    # Its row says so (marked once the stream has ended).
    page.wait_for_selector("#calls tr td.c-reply .stream.cut")
    marks = page.eval_on_selector_all(
        "#calls tr td.c-reply span", "ns => ns.map(n => n.textContent)"
    )
    assert marks == ["stream cut"]
    assert page.is_visible("#calls tr td.c-reply .stream.cut")
    open_call(page, 1)
    page.screenshot(path=str(SHOTS / f"inspector-cut-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert page.locator("#timeline-svg .mark").count() == len(cut["response"])
    assert page.locator("#timeline-svg .mark.sent").count() == 3
    assert page.locator("#timeline-svg .cut-line").count() == 1
    assert "cut after 3 of" in page.text_content("#timeline-note")
    # What reached the client, not what was planned.
    assert page.text_content("#answer-text") == chat_deltas(cut["response"][:3])
    assert errors == []


def test_a_stream_ended_by_a_scripted_error_shows_the_events_sent_before_it(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    sent = post(mock, "/v1/chat/completions", chat_body("broken stream", stream=True)).text
    page.wait_for_selector("#calls tr")
    ended = entry(mock, 1)
    got = [json.loads(line[6:]) for line in sent.splitlines() if line.startswith("data: {")]
    assert "error" in got[-1]
    open_call(page, 1)
    assert ended["response"] == got  # the journal keeps what was sent, its error event last
    assert page.locator("#timeline-svg .mark.sent").count() == len(got) == 4
    assert page.locator("#timeline-svg .mark.bad").count() == 1
    assert "ended after 3 events" in page.text_content("#timeline-note")
    assert page.text_content("#answer-text") == chat_deltas(got[:-1])
    assert page.is_visible("#answer-ended")
    assert errors == []


def test_the_journal_filters_by_status_rule_path_namespace_and_text(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    post(mock, "/v1/chat/completions", chat_body("paced one"))
    post(mock, "/v1/chat/completions", weather_body(), key=OTHER)
    post(mock, "/v1/chat/completions", {"model": "gpt-4o", "messages": []})  # a 400
    post(mock, "/v1/responses", {"model": "gpt-4o", "input": "a generated banana"}, key=OTHER)
    httpx.get(mock.base_url + "/models", headers={"authorization": f"Bearer {KEY}"})
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 5")
    # The server-wide number beside the namespace's: 5 calls, numbered 1..5 in order.
    numbers = page.eval_on_selector_all("#calls td.c-seq b", "ns => ns.map(n => n.textContent)")
    assert numbers == ["5", "4", "3", "2", "1"]
    assert page.text_content("#calls tr:last-child td.c-seq") == "1 #1"

    page.select_option("#f-status", "4")
    assert visible_rows(page) == 1
    assert "400" in page.inner_text("#calls tr:not([hidden])")
    page.select_option("#f-status", "")
    page.select_option("#f-rule", "rule:weather-tool")
    assert visible_rows(page) == 1
    page.select_option("#f-rule", "generated")
    assert visible_rows(page) == 1  # the Responses turn (paced one: its rule is "paced")
    page.select_option("#f-rule", "")
    page.select_option("#f-path", "/v1/responses")
    assert visible_rows(page) == 1
    page.select_option("#f-path", "")
    page.fill("#f-ns", label(OTHER)[-4:])  # a namespace by its label, as the page shows it
    assert visible_rows(page) == 2
    page.fill("#f-ns", "")
    page.fill("#f-text", "banana")
    assert visible_rows(page) == 1
    page.fill("#f-text", "no call says this")
    assert visible_rows(page) == 0
    assert page.is_visible("#filtered")
    assert "0 of 5 calls" in page.text_content("#count")
    page.fill("#f-text", "")
    assert visible_rows(page) == 5
    # Namespaces are listed by label: the page never shows a key.
    assert label(OTHER) in page.inner_text("#namespaces")
    assert KEY not in page.content()
    assert OTHER not in page.content()
    assert errors == []


def run_curl(command: str) -> str:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": KEY}
    done = subprocess.run(
        ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=20, check=True
    )
    return done.stdout


def test_the_copied_curl_replays_the_call_and_gets_the_same_answer(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    post(mock, "/v1/chat/completions", chat_body("tell me something", temperature=0.2))
    post(mock, "/v1/chat/completions", chat_body("paced stream", stream=True))
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")

    open_call(page, 1)
    page.click("#copy-curl")
    command = page.text_content("#export-text") or ""
    assert command.startswith("curl ")
    assert KEY not in command
    again = json.loads(run_curl(command))
    first = entry(mock, 1)["response"]
    assert again["choices"][0]["message"] == first["choices"][0]["message"]
    assert page.text_content("#answer-text") == again["choices"][0]["message"]["content"]

    open_call(page, 2)
    page.click("#copy-curl")
    streamed = run_curl(page.text_content("#export-text") or "")
    events = [json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: {")]
    assert chat_deltas(events) == page.text_content("#answer-text") != ""
    assert errors == []


def test_a_call_saved_as_a_rule_validates_and_answers_the_same_request_again(
    mock: BackgroundServer, new_page: Any, tmp_path: Path
) -> None:
    page, errors = open_inspector(new_page, mock)
    request = chat_body("a question nobody scripted")
    answered = post(mock, "/v1/chat/completions", request).json()
    tools = weather_body()
    post(mock, "/v1/chat/completions", tools)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")

    saved = []
    for number in (1, 2):
        open_call(page, number)
        page.click("#save-rule")
        page.wait_for_function(
            "n => (document.querySelector('#export-text').textContent || '')"
            ".startsWith('- id: chat-call-' + n)",
            arg=number,
        )
        saved.append(page.text_content("#export-text") or "")
    file = tmp_path / "saved.yaml"
    file.write_text("name: saved\nfallback: strict\nrules:\n" + "".join(saved), encoding="utf-8")
    scenario = load_file(file)
    assert [r.id for r in scenario.rules] == ["chat-call-1", "chat-call-2"]
    checked = subprocess.run(
        [sys.executable, "-m", "mockserver", "validate", str(file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr

    served = start_server(seed=99, scenario=str(file))  # another seed: only the rule can match
    try:
        again = httpx.post(served.base_url + "/chat/completions", json=request, timeout=10)
        assert (
            again.json()["choices"][0]["message"]["content"]
            == (answered["choices"][0]["message"]["content"])
        )
        call = httpx.post(served.base_url + "/chat/completions", json=tools, timeout=10).json()
        function = call["choices"][0]["message"]["tool_calls"][0]["function"]
        assert function["name"] == "get_weather"
        assert json.loads(function["arguments"]) == {"city": "Paris", "unit": "celsius"}
        rules = [e["rule"] for e in httpx.get(served.url + "/__mockserver/calls").json()["data"]]
        assert rules == ["chat-call-1", "chat-call-2"]
    finally:
        served.stop()
    assert errors == []


#: The page-side check of the layout test: the list of what overflows (empty: nothing).


@pytest.mark.parametrize("width", [800, 1024, 1440])
def test_the_layout_fits_from_800_px_up(mock: BackgroundServer, new_page: Any, width: int) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    httpx.put(
        mock.url + "/__mockserver/scenario",
        json={"name": "plain-chat"},
        headers={"authorization": f"Bearer {KEY}"},
    ).raise_for_status()
    httpx.put(
        mock.url + "/__mockserver/scenario",
        content=SCENARIO.replace("fallback: generate", "fallback: strict"),
        headers={"content-type": "application/yaml", "authorization": f"Bearer {OTHER}"},
    ).raise_for_status()
    post(mock, "/v1/chat/completions", chat_body("paced please", stream=True), key=OTHER)
    post(mock, "/v1/chat/completions", chat_body("hello"))
    missed = post(mock, "/v1/chat/completions", chat_body("no rule knows me"), key=OTHER)
    assert missed.status_code >= 400
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 3")
    open_call(page, 3)
    miss = entry(mock, 2, key=OTHER)["miss"]
    assert miss
    assert miss.count("\n") >= 3
    assert page.text_content("#detail-why") == miss  # the whole explanation, not a teaser
    page.screenshot(path=str(SHOTS / f"inspector-miss-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    open_call(page, 1)
    page.screenshot(path=str(SHOTS / f"inspector-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert errors == []


@pytest.mark.parametrize("width", [1024, 1440])
def test_a_429_shows_its_headers_with_the_key_masked(
    mock: BackgroundServer, new_page: Any, width: int
) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    queued = httpx.post(
        mock.url + "/__mockserver/next",
        json={"error": {"preset": "rate_limited", "retry_after": 3}},
        headers={"authorization": f"Bearer {KEY}"},
    )
    queued.raise_for_status()
    limited = post(mock, "/v1/chat/completions", chat_body("hello"))
    assert limited.status_code == 429
    page.wait_for_selector("#calls tr")
    open_call(page, 1)
    assert page.is_visible("#headers-box")
    summary = page.text_content("#headers-summary") or ""
    assert f"x-request-id {limited.headers['x-request-id']}" in summary
    assert "retry-after 3" in summary
    page.click("#headers-box summary")
    response = page.inner_text("#response-headers")
    assert "retry-after-ms\t3000" in response
    remaining = limited.headers["x-ratelimit-remaining-requests"]
    assert f"x-ratelimit-remaining-requests\t{remaining}" in response
    request = page.inner_text("#request-headers")
    assert "authorization\t[REDACTED]" in request
    assert KEY not in page.content()
    page.screenshot(path=str(SHOTS / f"inspector-headers-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert errors == []


def row_cell(page: Any, number: int, column: str) -> str:
    """The text of one cell (``c-ms``, ``c-rule``…) of the row of server-wide call ``number``."""
    row = page.locator("#calls tr", has=page.locator(f"td.c-seq b:text-is('{number}')"))
    return str(row.locator(f"td.{column}").text_content())


@pytest.mark.parametrize("width", [1024, 1440])
def test_a_slow_call_s_time_and_a_generated_miss_read_whole(
    mock: BackgroundServer, new_page: Any, width: int
) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    post(mock, "/v1/chat/completions", chat_body("answer slowly", stream=True))
    post(mock, "/v1/chat/completions", chat_body("a question no rule knows"))
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")
    slow = entry(mock, 1)
    assert slow["duration_ms"] >= 1000
    page.wait_for_function(
        "() => document.querySelector('#calls tr:last-child td.c-ms').textContent !== '…'"
    )
    assert row_cell(page, 1, "c-ms") == f"{slow['duration_ms']:.1f}"
    assert row_cell(page, 2, "c-rule") == "miss → generated"
    page.screenshot(path=str(SHOTS / f"inspector-columns-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert errors == []


@pytest.mark.parametrize("width", [1024, 1440])
def test_opening_a_call_shows_its_namespace_in_the_side_panel(
    mock: BackgroundServer, new_page: Any, width: int
) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    post(mock, "/v1/chat/completions", chat_body("paced please"))
    post(mock, "/v1/chat/completions", chat_body("hello"), key=OTHER)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")
    wait_for_text(page, "#ns-name", label(OTHER))  # the newest call's namespace
    open_call(page, 1)
    wait_for_text(page, "#ns-name", label(KEY))
    page.wait_for_function(
        "() => document.querySelector('#rules tr.hit td')?.textContent === 'paced'"
    )
    assert page.text_content("#rules tr.hit td.num") == "1"
    assert page.get_attribute("#namespaces button[aria-current='true']", "title") == label(KEY)
    # A call arriving meanwhile leaves the panel on the open call's namespace.
    post(mock, "/v1/chat/completions", chat_body("hello again"), key=OTHER)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 3")
    assert page.text_content("#ns-name") == label(KEY)
    page.screenshot(path=str(SHOTS / f"inspector-follows-{width}.png"))
    page.click("#close-detail")
    post(mock, "/v1/chat/completions", chat_body("and again"), key=OTHER)
    wait_for_text(page, "#ns-name", label(OTHER))  # closed: it follows the newest call again
    assert errors == []


@pytest.mark.parametrize("width", [1024, 1440])
def test_copied_is_said_beside_the_copy_button(
    mock: BackgroundServer, new_page: Any, width: int
) -> None:
    page, errors = open_inspector(new_page, mock, width=width)
    post(mock, "/v1/chat/completions", chat_body("hello"))
    page.wait_for_selector("#calls tr")
    open_call(page, 1)
    for button in ("#copy-curl", "#save-rule"):
        # The notice of the click before is still there until this one's export (fetched
        # first) replaces it: wait for this click's own.
        page.evaluate("() => { document.querySelector('#export-notice').textContent = ''; }")
        page.click(button)
        page.wait_for_function("() => !!document.querySelector('#export-notice').textContent")
        said = page.text_content("#export-notice")
        assert said in ("Copied.", "Selected: press Ctrl+C to copy.")
        copy = page.locator("#export-copy").bounding_box()
        notice = page.locator("#export-notice").bounding_box()
        assert copy is not None
        assert notice is not None
        assert abs((notice["y"] + notice["height"] / 2) - (copy["y"] + copy["height"] / 2)) < 8
        assert 0 <= notice["x"] - (copy["x"] + copy["width"]) < 24
        assert page.text_content("#notice") == ""  # not at the foot of the side panel
        page.screenshot(path=str(SHOTS / f"inspector-copied-{width}.png"))
    assert page.evaluate(LAYOUT_CHECK) == []
    assert errors == []
