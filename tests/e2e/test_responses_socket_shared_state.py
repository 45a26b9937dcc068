"""Responses sockets on two ``mockserver serve`` processes sharing one real Redis: a socket's
stored responses are the other process's too (a ``previous_response_id`` chain goes on over
HTTP there and comes back to a socket), and a scenario's replies go on from one to the other."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from tests.support.events import until_done
from tests.support.fleet import Fleet
from tests.support.redis_server import RedisServer

SCENARIO = """\
name: shared-socket
seed: 5
rules:
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited, retry_after: 1}
      - text: recovered
"""


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    scenario = tmp_path_factory.mktemp("shared-socket") / "shared.yaml"
    scenario.write_text(SCENARIO)
    fleet = Fleet(2, state=redis_server.url, prefix=RedisServer.new_prefix(), scenario=scenario)
    fleet.start()
    yield fleet
    fleet.stop()


def client(fleet: Fleet, n: int, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=fleet[n].base_url, api_key=key, max_retries=0, timeout=20)


def test_a_chain_goes_from_a_socket_to_the_other_process_over_http_and_back(
    pair: Fleet, api_key: str
) -> None:
    with client(pair, 0, api_key) as first_sdk, client(pair, 1, api_key) as second_sdk:
        with first_sdk.responses.connect() as connection:
            connection.response.create(model="gpt-4o-mini", input="First", store=True)
            first = until_done(connection)[-1].response
        second = second_sdk.responses.create(
            model="gpt-4o-mini", input="Second", previous_response_id=first.id
        )
        with second_sdk.responses.connect() as connection:
            connection.response.create(
                model="gpt-4o-mini", input="Third", previous_response_id=second.id
            )
            third = until_done(connection)[-1].response
        retrieved = first_sdk.responses.retrieve(third.id)
        stored_first = second_sdk.responses.retrieve(first.id)
    assert (second.previous_response_id, third.previous_response_id) == (first.id, second.id)
    assert retrieved.output_text == third.output_text
    assert third.usage is not None
    assert second.usage is not None
    assert third.usage.input_tokens > second.usage.input_tokens
    assert stored_first.output_text == first.output_text


def test_a_scenarios_replies_go_on_from_a_socket_on_the_other_process(
    pair: Fleet, api_key: str
) -> None:
    with client(pair, 0, api_key) as first_sdk, client(pair, 1, api_key) as second_sdk:
        with first_sdk.responses.connect() as connection:
            connection.response.create(model="gpt-4o-mini", input="flaky?")
            (error,) = until_done(connection)
        recovered = second_sdk.responses.create(model="gpt-4o-mini", input="flaky?")
    assert (error.type, error.status) == ("error", 429)
    assert recovered.output_text == "recovered"
    journal = httpx.get(
        pair[1].url + "/__mockserver/calls", headers={"Authorization": f"Bearer {api_key}"}
    ).json()["data"]
    assert [(e["status"], e["stream"], e["rule"]) for e in journal] == [
        (429, True, "flaky"),
        (200, False, "flaky"),
    ]
