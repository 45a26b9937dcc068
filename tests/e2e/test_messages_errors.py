"""Refusals in Anthropic's shape, as the official SDK meets them: each status raises the SDK's
own class, the SDK retries what it retries against the real API (counted in the journal), a
stream fails after its 200 with an ``error`` event (or is cut, or paced, as the scenario
says), and the rate limits are live."""

from __future__ import annotations

import time

import anthropic
import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.scenarios import use_scenario

MODEL = "claude-haiku-4-5"
ASK = [{"role": "user", "content": "go"}]


@pytest.mark.parametrize(
    ("status", "error_class", "kind"),
    [
        (400, anthropic.BadRequestError, "invalid_request_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (402, anthropic.PaymentRequiredError, "billing_error"),
        (403, anthropic.PermissionDeniedError, "permission_error"),
        (404, anthropic.NotFoundError, "not_found_error"),
        (409, anthropic.ConflictError, "invalid_request_error"),
        (413, anthropic.RequestTooLargeError, "request_too_large"),
        (422, anthropic.UnprocessableEntityError, "invalid_request_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (503, anthropic.ServiceUnavailableError, "api_error"),
        (504, anthropic.DeadlineExceededError, "timeout_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
def test_each_status_raises_the_sdks_own_class(
    claude: anthropic.Anthropic,
    control: httpx.Client,
    status: int,
    error_class: type[anthropic.APIStatusError],
    kind: str,
) -> None:
    use_scenario(control, f"rules:\n  - reply: {{error: {{status: {status}}}}}\n")
    with pytest.raises(error_class) as caught:
        claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    error = caught.value
    assert error.status_code == status
    assert error.type == kind
    assert isinstance(error.body, dict)
    assert error.body["type"] == "error"
    assert error.body["request_id"] == error.request_id
    assert error.request_id is not None
    assert error.request_id.startswith("req_011C")


def test_presets_are_anthropics_own_errors(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(
        control,
        "rules:\n"
        "  - when: {last_user: {contains: busy}}\n"
        "    reply: {error: {preset: overloaded}}\n"
        "  - reply: {error: {preset: rate_limited, retry_after: 3}}\n",
    )
    with pytest.raises(anthropic.OverloadedError) as overloaded:
        claude.messages.create(
            model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "busy?"}]
        )
    assert overloaded.value.status_code == 529
    assert overloaded.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "request_id": overloaded.value.request_id,
    }
    with pytest.raises(anthropic.RateLimitError) as limited:
        claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    headers = limited.value.response.headers
    assert headers["retry-after"] == "3"
    assert "retry-after-ms" not in headers
    assert headers["x-should-retry"] == "true"
    assert int(headers["anthropic-ratelimit-requests-remaining"]) >= 0


def calls(control: httpx.Client) -> list[int]:
    return [call["status"] for call in control.get("/calls").json()["data"]]


def test_the_sdk_retries_what_it_retries_against_the_real_api(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    use_scenario(
        control,
        "rules:\n"
        "  - when: {last_user: {contains: flaky}}\n"
        "    replies:\n"
        "      - error: {preset: overloaded}\n"
        "      - error: {preset: server_error}\n"
        "      - text: recovered\n"
        "  - reply: {error: {preset: bad_request}}\n",
    )
    with anthropic.Anthropic(base_url=server.url, api_key=api_key, max_retries=2) as sdk:
        message = sdk.messages.create(
            model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "flaky"}]
        )
        assert message.content[0].text == "recovered"
        assert calls(control) == [529, 500, 200]
        with pytest.raises(anthropic.BadRequestError):  # x-should-retry: false, and a 400
            sdk.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    assert calls(control) == [529, 500, 200, 400]


def test_a_stream_that_fails_after_its_200_ends_in_an_error_event(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(
        control,
        "rules:\n"
        "  - reply:\n"
        "      text: this answer breaks half way through\n"
        "      fault: {error_after: 4, error: {preset: overloaded}}\n",
    )
    seen = []
    stream = claude.messages.stream(model=MODEL, max_tokens=100, messages=ASK)
    with pytest.raises(anthropic.APIStatusError) as caught, stream as events:
        seen.extend(event.type for event in events)
    assert seen[0] == "message_start"
    assert "message_stop" not in seen
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert caught.value.type == "overloaded_error"
    journaled = control.get("/calls").json()["data"][0]
    assert journaled["status"] == 200
    assert journaled["response"][-1] == caught.value.body


def test_a_cut_stream_breaks_the_sdks_read(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(
        control, "rules:\n  - reply: {text: cut short here, fault: {disconnect_after: 3}}\n"
    )
    stream = claude.messages.stream(model=MODEL, max_tokens=100, messages=ASK)
    with pytest.raises(anthropic.APIConnectionError), stream as events:
        events.get_final_message()


def test_the_rate_limits_are_live(claude: anthropic.Anthropic, control: httpx.Client) -> None:
    use_scenario(control, "rate_limits: {requests_per_minute: 2}\nrules: []\n")
    first = claude.messages.with_raw_response.create(model=MODEL, max_tokens=10, messages=ASK)
    assert first.headers["anthropic-ratelimit-requests-limit"] == "2"
    assert first.headers["anthropic-ratelimit-requests-remaining"] == "1"
    claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    with pytest.raises(anthropic.RateLimitError) as caught:
        claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    error = caught.value
    assert error.type == "rate_limit_error"
    assert error.body["error"]["message"].startswith(
        "This request would exceed the rate limit for your organization (mockserver) of 2 "
        "requests per minute."
    )
    headers = error.response.headers
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert headers["retry-after"] == "30"
    assert "x-ratelimit-limit-requests" not in headers
    control.post("/clock", json={"advance": 30})
    claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)  # after retry-after: served


def test_a_strict_miss_explains_itself(claude: anthropic.Anthropic, control: httpx.Client) -> None:
    use_scenario(
        control,
        "fallback: strict\nrules:\n"
        "  - id: hi\n    when: {last_user: {contains: hi}}\n    reply: {text: ok}\n",
    )
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model=MODEL, max_tokens=10, messages=ASK)
    assert "No rule of scenario" in caught.value.message
    assert "rule 'hi'" in caught.value.message


def test_bad_requests_are_refused_in_anthropics_shape(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=server.url, headers=headers) as http:
        not_json = http.post(
            "/v1/messages", content=b"{oops", headers={"content-type": "application/json"}
        )
        unknown = http.post("/v1/messages/unknown", json={})
        wrong_method = http.get("/v1/messages")
        model = http.get("/v1/models/nope")
    assert not_json.status_code == 400
    assert not_json.json()["error"] == {
        "type": "invalid_request_error",
        "message": "The request body is not valid JSON: unexpected character, expected a string "
        "key: line 1 column 2 (char 1)",
    }
    assert not_json.headers["x-should-retry"] == "false"
    assert (unknown.status_code, unknown.json()["error"]["type"]) == (404, "not_found_error")
    assert (wrong_method.status_code, wrong_method.json()["error"]["message"]) == (
        405,
        "Method Not Allowed",
    )
    assert model.json()["error"] == {"type": "not_found_error", "message": "model: nope"}
    for answer in (not_json, unknown, wrong_method, model):
        assert answer.json()["request_id"] == answer.headers["request-id"]
    assert len(calls(control)) == 4  # every refusal journaled


def test_a_request_without_anthropic_version_is_refused_as_the_api_does(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    ask = {"model": MODEL, "max_tokens": 10, "messages": ASK}
    with httpx.Client(base_url=server.url, headers={"x-api-key": api_key}) as http:
        answers = [
            http.post("/v1/messages", json=ask),
            http.post("/v1/messages/count_tokens", json=ask),
            http.post("/v1/messages/batches", json={"requests": []}),
            http.get("/v1/messages/batches"),
        ]
        sent = http.post("/v1/messages", json=ask, headers={"anthropic-version": "2023-06-01"})
    for answer in answers:
        assert answer.status_code == 400
        assert answer.json() == {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "anthropic-version: header is required",
            },
            "request_id": answer.headers["request-id"],
        }
    assert sent.status_code == 200  # the same request with it is answered
    assert calls(control) == [400, 400, 400, 400, 200]  # each journaled


def test_a_server_with_keys_refuses_a_wrong_x_api_key_as_anthropic_does() -> None:
    guarded = start_server(api_keys=["sk-ant-right"])
    try:
        with (
            anthropic.Anthropic(base_url=guarded.url, api_key="sk-ant-wrong", max_retries=0) as sdk,
            pytest.raises(anthropic.AuthenticationError) as caught,
        ):
            sdk.messages.create(model=MODEL, max_tokens=10, messages=ASK)
        assert caught.value.body["error"] == {
            "type": "authentication_error",
            "message": "invalid x-api-key",
        }
        answer = httpx.post(
            guarded.url + "/v1/messages",
            json={"model": MODEL, "max_tokens": 10, "messages": ASK},
            headers={"x-api-key": "sk-ant-right", "anthropic-version": "2023-06-01"},
        )
        assert answer.status_code == 200
    finally:
        guarded.stop()


def test_a_stream_is_paced_as_its_latency_says(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    use_scenario(
        control,
        "rules:\n"
        "  - reply: {text: one two three four, latency: {ttft: 0.4, chunk_interval: 0.05}}\n",
    )
    body = {"model": MODEL, "max_tokens": 100, "stream": True, "messages": ASK}
    headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
    started = time.monotonic()
    arrivals: list[tuple[float, bytes]] = []
    with httpx.stream("POST", server.url + "/v1/messages", json=body, headers=headers) as answer:
        for line in answer.iter_lines():
            if line.startswith("event: "):
                arrivals.append((time.monotonic() - started, line.encode()))
    assert arrivals[0][1] == b"event: message_start"
    assert arrivals[0][0] >= 0.35  # the first frame waits for ttft
    assert arrivals[-1][1] == b"event: message_stop"
    deltas = sum(1 for _, line in arrivals if line == b"event: content_block_delta")
    assert deltas >= 4
    # Lower bounds with slack, from the request's start: the schedule is ttft, then one
    # interval per later delta; a loaded machine only makes the stream later, never earlier.
    assert arrivals[-1][0] >= 0.35 + 0.045 * (deltas - 1)
