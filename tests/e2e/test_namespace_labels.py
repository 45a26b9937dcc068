"""The control plane lists namespaces by label and handle, never by the API key they are named
by; a handle acts on its namespace and is never turned back into the key."""

from __future__ import annotations

import json

import httpx
import pytest

from mockserver.http.routes.labels import handle, label
from mockserver.http.server import BackgroundServer

KEY = "sk-proj-0123456789secret-a1b2"
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}


def _chat(server: BackgroundServer, key: str) -> None:
    answer = httpx.post(
        server.base_url + "/chat/completions", json=CHAT, headers={"authorization": f"Bearer {key}"}
    )
    assert answer.status_code == 200


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (KEY, "sk-\u2026a1b2"),
        ("sk-short", "sk-\u2026"),
        ("x", "x\u2026"),
        ("session-42", "ses\u2026n-42"),
    ],
)
def test_a_label_shows_the_start_and_end_of_a_long_name_only(name: str, shown: str) -> None:
    assert label(name) == shown


def test_the_namespace_list_shows_labels_and_handles_never_keys(server: BackgroundServer) -> None:
    _chat(server, KEY)
    listed = httpx.get(server.url + "/__mockserver/namespaces", params={"limit": 10_000})
    assert KEY not in listed.text
    [mine] = [n for n in listed.json()["data"] if n["namespace"] == handle(KEY)]
    assert mine["label"] == "sk-\u2026a1b2"
    assert mine["calls"] >= 1


def test_the_event_feed_never_shows_a_key(server: BackgroundServer) -> None:
    key = KEY + "-feed"
    _chat(server, key)
    with (
        httpx.Client(timeout=5) as client,
        client.stream("GET", server.url + "/__mockserver/events") as stream,
    ):
        first = next(line for line in stream.iter_lines() if line.startswith("data:"))
    snapshot = json.loads(first.removeprefix("data:"))
    assert key not in first
    assert handle(key) in {call["namespace"] for call in snapshot["calls"]}


def test_a_handle_acts_on_its_namespace_and_is_echoed_not_the_key(
    server: BackgroundServer,
) -> None:
    key = KEY + "-act"
    _chat(server, key)
    control = server.url + "/__mockserver"
    switched = httpx.put(
        control + "/scenario", params={"namespace": handle(key)}, json={"name": "plain-chat"}
    )
    assert switched.status_code == 200
    assert switched.json()["namespace"] == handle(key)
    assert key not in switched.text
    by_key = httpx.get(control + "/scenario", headers={"authorization": f"Bearer {key}"}).json()
    assert (by_key["namespace"], by_key["name"]) == (key, "plain-chat")  # its client knows it
    call = httpx.get(control + "/calls/1", params={"namespace": handle(key)}).json()
    assert call["namespace"] == handle(key)


def test_a_handle_of_no_namespace_is_a_404(server: BackgroundServer) -> None:
    answer = httpx.get(
        server.url + "/__mockserver/scenario", params={"namespace": "ns_" + "0" * 16}
    )
    assert answer.status_code == 404
    assert "No namespace has the handle 'ns_0000000000000000'" in answer.json()["error"]["message"]


def test_a_label_names_no_namespace_and_is_a_400(server: BackgroundServer) -> None:
    answer = httpx.post(server.url + "/__mockserver/reset", params={"namespace": "sk-\u2026a1b2"})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (error["code"], error["param"]) == ("mockserver_namespace_label", "namespace")
