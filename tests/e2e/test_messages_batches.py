"""Anthropic's Message Batches through the official SDK (``client.messages.batches``): each
request answered as ``/v1/messages`` answers it, processed over the namespace's clock (the
session server's is frozen: a test moves it), listed, canceled, deleted, and read back as a
results file."""

from __future__ import annotations

import anthropic
import httpx
import pytest

from tests.support.scenarios import use_scenario

MODEL = "claude-haiku-4-5"
SCENARIO = """\
name: batches
rules:
  - id: hello
    when: {last_user: {contains: hello}}
    reply: {text: "Hello from the batch."}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: overloaded}}
"""


def _request(custom_id: str, text: str, **params: object) -> anthropic.types.messages.Request:
    body: dict[str, object] = {
        "model": MODEL,
        "max_tokens": 100,
        "messages": [{"role": "user", "content": text}],
        **params,
    }
    return {"custom_id": custom_id, "params": body}  # type: ignore[typeddict-item]


def _advance(control: httpx.Client, seconds: float) -> None:
    assert control.post("/clock", json={"advance": seconds}).status_code == 200


def test_a_batch_ends_on_the_clock_with_each_requests_answer(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    use_scenario(control, SCENARIO)
    requests = [
        _request("greet", "hello there"),
        _request("busy-one", "are you busy?"),
        _request("no-limit", "hello", max_tokens=None),
    ]
    requests[2]["params"].pop("max_tokens")  # type: ignore[misc]
    batch = claude.messages.batches.create(requests=requests)
    assert batch.id.startswith("msgbatch_01")
    assert batch.type == "message_batch"
    assert batch.processing_status == "in_progress"
    assert batch.request_counts.processing == 3
    assert batch.results_url is None
    assert batch.ended_at is None
    assert (batch.expires_at - batch.created_at).total_seconds() == 24 * 3600
    with pytest.raises(anthropic.AnthropicError, match="Has it finished processing"):
        claude.messages.batches.results(batch.id)

    _advance(control, 1)
    ended = claude.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended"
    assert ended.ended_at is not None
    root = str(claude.base_url).rstrip("/")
    assert ended.results_url == f"{root}/v1/messages/batches/{batch.id}/results"
    counts = ended.request_counts
    assert (counts.processing, counts.succeeded, counts.errored) == (0, 1, 2)
    results = {line.custom_id: line.result for line in claude.messages.batches.results(batch.id)}
    assert set(results) == {"greet", "busy-one", "no-limit"}
    greet = results["greet"]
    assert greet.type == "succeeded"
    assert greet.message.content[0].type == "text"
    assert greet.message.content[0].text == "Hello from the batch."
    assert greet.message.id.startswith("msg_01")
    assert greet.message.usage.service_tier == "batch"
    busy = results["busy-one"]
    assert busy.type == "errored"
    assert busy.error.error.type == "overloaded_error"
    invalid = results["no-limit"]
    assert invalid.type == "errored"
    assert invalid.error.error.type == "invalid_request_error"
    assert invalid.error.error.message == "max_tokens: Field required"


def test_a_canceled_batch_finishes_the_request_in_flight_and_cancels_the_rest(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    batch = claude.messages.batches.create(
        requests=[_request(f"r{n}", f"hello {n}") for n in range(4)]
    )
    _advance(control, 0.3)  # one of four done, the second in flight
    canceling = claude.messages.batches.cancel(batch.id)
    assert canceling.processing_status == "canceling"
    assert canceling.cancel_initiated_at is not None
    assert canceling.request_counts.processing == 4
    with pytest.raises(anthropic.BadRequestError, match="in progress"):
        claude.messages.batches.delete(batch.id)
    _advance(control, 0.2)
    ended = claude.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended"
    assert (ended.request_counts.succeeded, ended.request_counts.canceled) == (2, 2)
    kinds = [line.result.type for line in claude.messages.batches.results(batch.id)]
    assert kinds == ["succeeded", "succeeded", "canceled", "canceled"]
    deleted = claude.messages.batches.delete(batch.id)
    assert (deleted.id, deleted.type) == (batch.id, "message_batch_deleted")
    with pytest.raises(anthropic.NotFoundError):
        claude.messages.batches.retrieve(batch.id)


def test_batches_are_listed_newest_first_and_paged(claude: anthropic.Anthropic) -> None:
    made = [
        claude.messages.batches.create(requests=[_request("only", f"batch {n}")]).id
        for n in range(3)
    ]
    newest_first = made[::-1]
    assert [b.id for b in claude.messages.batches.list()] == newest_first
    first = claude.messages.batches.list(limit=2)
    assert [b.id for b in first.data] == newest_first[:2]
    assert first.has_more is True
    assert first.last_id == newest_first[1]
    rest = claude.messages.batches.list(limit=2, after_id=newest_first[1])
    assert [b.id for b in rest.data] == newest_first[2:]
    assert rest.has_more is False
    before = claude.messages.batches.list(before_id=newest_first[2])
    assert [b.id for b in before.data] == newest_first[:2]


def test_a_batch_is_answered_the_same_way_again(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    """Another namespace with the same requests gets the same results, ids aside."""
    batch = claude.messages.batches.create(requests=[_request("same", "tell me a story")])
    _advance(control, 1)
    (line,) = list(claude.messages.batches.results(batch.id))
    with anthropic.Anthropic(
        base_url=str(claude.base_url), api_key=claude.api_key + "-again", max_retries=0
    ) as other:
        again = other.messages.batches.create(requests=[_request("same", "tell me a story")])
        moved = httpx.post(
            str(other.base_url).rstrip("/") + "/__mockserver/clock",
            json={"advance": 1},
            headers={"x-api-key": other.api_key},
        )
        assert moved.status_code == 200
        (other_line,) = list(other.messages.batches.results(again.id))
    assert line.result.type == other_line.result.type == "succeeded"
    assert line.result.message.content == other_line.result.message.content


def test_a_bad_batch_is_refused_with_anthropics_400(claude: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.BadRequestError, match="duplicate custom_id 'twice'"):
        claude.messages.batches.create(requests=[_request("twice", "a"), _request("twice", "b")])
    with pytest.raises(anthropic.BadRequestError, match=r"requests\.0\.custom_id"):
        claude.messages.batches.create(requests=[_request("no spaces allowed", "a")])
    with pytest.raises(anthropic.BadRequestError, match="requests: List should have at least"):
        claude.messages.batches.create(requests=[])
    with pytest.raises(anthropic.NotFoundError) as caught:
        claude.messages.batches.retrieve("msgbatch_01nothere")
    assert caught.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]
