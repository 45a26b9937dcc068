"""The control API's edges: reading never creates a namespace, and what it refuses."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mockserver.http.routes.control import MAX_ADVANCE
from mockserver.http.routes.labels import handle
from mockserver.http.server import BackgroundServer

READS = ["/scenario", "/clock", "/calls"]
_JSON = {"content-type": "application/json"}
_YAML_TYPE = {"content-type": "application/yaml"}


def namespaces(server: BackgroundServer) -> list[str]:
    listed = httpx.get(server.url + "/__mockserver/namespaces", params={"limit": 10_000})
    return [n["namespace"] for n in listed.json()["data"]]  # handles


def read(server: BackgroundServer, path: str, namespace: str) -> dict[str, Any]:
    answer = httpx.get(server.url + "/__mockserver" + path, params={"namespace": namespace})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def refusal(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 400, answer.text
    error: dict[str, Any] = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    return error


@pytest.mark.parametrize("path", READS)
def test_reading_a_namespace_does_not_create_it(
    server: BackgroundServer, api_key: str, path: str
) -> None:
    ghost = api_key + "-ghost"
    read(server, path, ghost)
    assert handle(ghost) not in namespaces(server)


def test_an_unknown_namespace_reads_as_a_new_one(server: BackgroundServer, api_key: str) -> None:
    ghost = api_key + "-ghost"
    scenario = read(server, "/scenario", ghost)
    assert (scenario["namespace"], scenario["is_default"], scenario["pending"]) == (ghost, True, 0)
    clock = read(server, "/clock", ghost)
    assert (clock["namespace"], clock["offset"]) == (ghost, 0.0)
    assert read(server, "/calls", ghost) == {"object": "list", "data": []}
    assert handle(ghost) not in namespaces(server)


@pytest.mark.parametrize("path", READS)
def test_reading_a_namespace_does_not_make_it_recent(
    server: BackgroundServer, api_key: str, path: str
) -> None:
    older, newer = api_key + "-older", api_key + "-newer"
    for name in (older, newer):
        put = httpx.put(
            server.url + "/__mockserver/scenario",
            params={"namespace": name},
            json={"name": "plain-chat"},
        )
        assert put.status_code == 200
    read(server, path, older)
    listed = namespaces(server)  # newest first
    assert listed.index(handle(newer)) < listed.index(handle(older))


def test_reading_an_existing_namespace_shows_its_state(control: httpx.Client) -> None:
    control.put("/scenario", json={"name": "plain-chat"})
    control.post("/next", json={"text": "queued"})
    control.post("/clock", json={"advance": 30})
    scenario = control.get("/scenario").json()
    assert (scenario["name"], scenario["pending"]) == ("plain-chat", 1)
    assert control.get("/clock").json()["offset"] == 30.0


@pytest.mark.parametrize(
    "body",
    [{}, {"latency": {"ttft": 0.1}}, {"fault": {"disconnect_after": 1}}],
    ids=["empty", "latency-only", "fault-only"],
)
def test_a_queued_reply_without_content_is_refused(
    control: httpx.Client, body: dict[str, Any]
) -> None:
    error = refusal(control.post("/next", json=body))
    assert error["code"] == "mockserver_scenario_error"
    assert error["message"].startswith(
        "a reply needs one of text, generate, json, refusal, tool_calls, embedding, error or "
        "fixture"
    )
    assert control.get("/scenario").json()["pending"] == 0


@pytest.mark.parametrize(
    ("body", "located"),
    [
        ({"replies": []}, "field 'replies': 'replies' needs at least one reply"),
        ({"replies": [{"text": "a"}, {}]}, "field 'replies.1': a reply needs one of"),
        (
            {"replies": [{"text": "a"}, {"txt": "b"}]},
            "field 'replies.1.txt': unknown key 'txt' (did you mean 'text'?)",
        ),
        ({"txt": "b"}, "field 'txt': unknown key 'txt' (did you mean 'text'?)"),
        (
            {"text": "a", "latency": {"tftt": 1}},
            "field 'latency.tftt': unknown key 'tftt' (did you mean 'ttft'?)",
        ),
        ({"replies": [{"text": "a"}], "text": "b"}, "field 'replies': give one reply object"),
    ],
)
def test_a_refused_reply_list_is_located_and_queues_nothing(
    control: httpx.Client, body: dict[str, Any], located: str
) -> None:
    error = refusal(control.post("/next", json=body))
    assert error["code"] == "mockserver_scenario_error"
    assert error["message"].startswith(located), error["message"]
    assert control.get("/scenario").json()["pending"] == 0


@pytest.mark.parametrize("advance", [-1, 1e300, MAX_ADVANCE + 1, True, "30", None])
def test_a_clock_advance_out_of_range_is_refused(control: httpx.Client, advance: object) -> None:
    error = refusal(control.post("/clock", json={"advance": advance}))
    assert (error["param"], error["code"]) == ("advance", "invalid_value")
    assert error["message"] == (
        "Invalid 'advance': expected a number of seconds from 0 to 315360000 (ten years)."
    )
    assert control.get("/clock").json()["offset"] == 0.0


@pytest.mark.parametrize(
    ("body", "param", "code", "message"),
    [
        (
            {"advnce": 3},
            "advnce",
            "unknown_parameter",
            "Unrecognized request argument supplied: advnce (did you mean 'advance'?)",
        ),
        (
            {"advance": 3, "seconds": 3},
            "seconds",
            "unknown_parameter",
            "Unrecognized request argument supplied: seconds (the clock takes 'advance')",
        ),
        ({}, "advance", "missing_required_parameter", "Missing required parameter: 'advance'."),
    ],
)
def test_a_clock_body_names_its_mistake(
    control: httpx.Client, body: dict[str, Any], param: str, code: str, message: str
) -> None:
    error = refusal(control.post("/clock", json=body))
    assert (error["param"], error["code"], error["message"]) == (param, code, message)
    assert control.get("/clock").json()["offset"] == 0.0


def test_a_control_body_that_is_not_json_says_what_the_control_api_takes(
    control: httpx.Client,
) -> None:
    for path in ("/next", "/clock"):
        error = refusal(control.post(path, content=b"text: hi", headers=_JSON))
        assert error["message"].startswith("The control API takes a JSON object"), error
        assert "help.openai.com" not in error["message"]
    error = refusal(control.put("/scenario", content=b"{nope", headers=_JSON))
    assert "Content-Type: application/yaml" in error["message"]


@pytest.mark.parametrize("headers", [_YAML_TYPE, {}], ids=["yaml", "no-content-type"])
def test_a_yaml_scenario_that_only_names_one_switches_to_it(
    control: httpx.Client, headers: dict[str, str]
) -> None:
    answer = control.put("/scenario", content=b"# switch\nname: plain-chat\n", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["name"] == "plain-chat"
    assert len(answer.json()["rules"]) == 3
    unknown = refusal(control.put("/scenario", content=b"name: plain-chatt\n", headers=headers))
    assert "plain-chatt" in unknown["message"]


def test_a_scenario_file_sent_without_a_content_type_is_read_as_yaml(
    control: httpx.Client,
) -> None:
    text = b"name: mine\nrules:\n  - reply: {text: From YAML.}\n"
    answer = control.put("/scenario", content=text)  # curl --data-binary @file: form data
    assert answer.status_code == 200, answer.text
    assert answer.json()["name"] == "mine"


def test_the_clock_advances_by_up_to_ten_years(control: httpx.Client) -> None:
    assert control.post("/clock", json={"advance": 0}).json()["offset"] == 0.0
    moved = control.post("/clock", json={"advance": MAX_ADVANCE}).json()
    assert moved["offset"] == 10 * 365 * 24 * 3600


def test_a_json_scenario_gets_the_problems_a_file_would(control: httpx.Client) -> None:
    scenario = {"rules": [{"id": "a", "reply": {"txt": "hi"}}]}
    error = refusal(control.put("/scenario", json={"scenario": scenario}))
    assert "rule 'a', field 'rules[0].reply.txt': unknown key 'txt'" in error["message"]
    assert "did you mean 'text'?" in error["message"]


@pytest.mark.parametrize("fixture", ["/etc/hostname", "../pyproject.toml"])
def test_a_scenario_sent_over_http_reads_no_file_outside_the_fixtures(
    control: httpx.Client, fixture: str
) -> None:
    for sent in (
        {"content": f"rules:\n  - reply: {{fixture: {fixture!r}}}\n", "headers": _YAML},
        {"json": {"rules": [{"reply": {"fixture": fixture}}]}},
    ):
        answer = control.put("/scenario", **sent)  # type: ignore[arg-type]
        assert answer.status_code == 400, answer.text
        assert "inside a fixtures directory" in answer.json()["error"]["message"]


_YAML = {"content-type": "application/yaml"}


@pytest.mark.parametrize(
    ("query", "param"),
    [("status=abc", "status"), ("status=42", "status"), ("limit=abc", "limit")],
)
def test_a_journal_filter_that_can_never_hold_is_refused(
    control: httpx.Client, query: str, param: str
) -> None:
    error = refusal(control.get(f"/calls?{query}"))
    assert error["param"] == param


def test_the_journal_filters_by_status(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {api_key}"}) as v1:
        v1.post("/v1/chat/completions", json={"model": "gpt-4o-mini", "messages": []})
        v1.post(
            "/v1/chat/completions",
            json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
        )
    assert [c["status"] for c in control.get("/calls?status=400").json()["data"]] == [400]
    assert [c["status"] for c in control.get("/calls?status=200").json()["data"]] == [200]


@pytest.mark.parametrize("seq", ["9" * 5000, "abc", "-1", "1.5"])
def test_a_call_number_the_journal_cannot_have_is_a_404(control: httpx.Client, seq: str) -> None:
    answer = control.get(f"/calls/{seq}")
    assert answer.status_code == 404, answer.text
    assert set(answer.json()["error"]) == {"message", "type", "param", "code"}
