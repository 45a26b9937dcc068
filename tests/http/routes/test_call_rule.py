"""``GET /__mockserver/calls/<n>/rule``: a journaled call as the rule a distilled recording
writes (same ``when``, same reply), and the journal's server-wide numbers and cut streams."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from mockserver.http.server import BackgroundServer
from mockserver.record.distill import distilled_reply
from mockserver.record.keys import when_of
from mockserver.scenario.loader import load_file
from tests.conftest import start_server

CUT = """
name: cut
rules:
  - id: cut
    when: {last_user: {contains: cut}}
    reply: {text: "one two three four five six", fault: {disconnect_after: 3}}
"""
REQUEST = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "say something"}]}


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    server = start_server(seed=11)
    yield server
    server.stop()


def client(mock: BackgroundServer, key: str = "sk-rule-test") -> httpx.Client:
    return httpx.Client(base_url=mock.url, headers={"authorization": f"Bearer {key}"}, timeout=10)


def test_a_call_becomes_the_rule_a_distilled_recording_writes(
    mock: BackgroundServer, tmp_path: Path
) -> None:
    with client(mock) as c:
        answered = c.post("/v1/chat/completions", json=REQUEST).json()
        saved = c.get("/__mockserver/calls/1/rule").json()
    assert saved["id"] == "chat-call-1"
    rule = saved["rule"]
    text = answered["choices"][0]["message"]["content"]
    assert rule["reply"]["text"] == text
    assert rule["when"]["last_user"] == {"equals": "say something"}
    assert yaml.safe_load(saved["yaml"]) == [rule]  # one item to paste under rules:
    # The record mode's own functions, on the same exchange, give the same rule.
    from mockserver.http.routes.call_rule import exchange_of

    with mock.app.state.engine.store.peek("sk-rule-test") as space:
        assert space is not None
        exchange = exchange_of(space.entry(1))  # type: ignore[arg-type]
    assert rule["when"] == when_of(exchange, exact=False)
    assert rule["reply"] == distilled_reply(exchange)

    file = tmp_path / "saved.yaml"
    file.write_text("name: saved\nfallback: strict\nrules:\n" + saved["yaml"], encoding="utf-8")
    assert [r.id for r in load_file(file).rules] == ["chat-call-1"]
    other = start_server(seed=12, scenario=str(file))
    try:
        again = httpx.post(other.base_url + "/chat/completions", json=REQUEST, timeout=10)
        assert again.json()["choices"][0]["message"]["content"] == text
    finally:
        other.stop()


def test_a_cut_stream_is_journaled_as_cut_and_saved_with_its_fault(
    mock: BackgroundServer,
) -> None:
    with client(mock) as c:
        c.put(
            "/__mockserver/scenario", content=CUT, headers={"content-type": "application/yaml"}
        ).raise_for_status()
        body = {**REQUEST, "stream": True, "messages": [{"role": "user", "content": "cut"}]}
        with pytest.raises(httpx.HTTPError):
            c.post("/v1/chat/completions", json=body)
        entry = c.get("/__mockserver/calls/1").json()
        saved = c.get("/__mockserver/calls/1/rule").json()
    assert entry["cut"] is True
    assert len(entry["timing"]) == 3
    sent = "".join(e["choices"][0]["delta"].get("content") or "" for e in entry["response"][:3])
    assert saved["rule"]["reply"] == {"text": sent, "fault": {"disconnect_after": 3}}


def test_a_whole_stream_is_not_cut_and_calls_are_numbered_across_namespaces(
    mock: BackgroundServer,
) -> None:
    with client(mock, "sk-first-space") as a, client(mock, "sk-second-space") as b:
        a.post("/v1/chat/completions", json={**REQUEST, "stream": True})
        b.post("/v1/chat/completions", json=REQUEST)
        a.post("/v1/chat/completions", json=REQUEST)
        first = a.get("/__mockserver/calls").json()["data"]
        second = b.get("/__mockserver/calls").json()["data"]
    assert [(e["seq"], e["number"]) for e in first] == [(1, 1), (2, 3)]
    assert [(e["seq"], e["number"]) for e in second] == [(1, 2)]
    assert first[0]["cut"] is False
    assert first[0]["timing"]


def test_only_a_model_turn_makes_a_rule(mock: BackgroundServer) -> None:
    with client(mock) as c:
        c.get("/v1/models")
        refused = c.get("/__mockserver/calls/1/rule")
        missing = c.get("/__mockserver/calls/9/rule")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "mockserver_not_a_turn"
    assert missing.status_code == 404
