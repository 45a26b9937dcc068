"""The ``mockserver`` handle, used as a user would: through the fixture, with the real SDK."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import openai
import pytest

from mockserver.errors import ScenarioError
from mockserver.scenario.library import builtin, builtin_names
from mockserver.scenario.model import Reply as ReplySpec
from mockserver.scenario.model import Rule, Scenario, When
from pytest_mockserver import MockServer

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def say(client: openai.OpenAI, text: str, **params: object) -> str | None:
    reply = client.chat.completions.create(model="gpt-4o", messages=user(text), **params)  # type: ignore[call-overload]
    content: str | None = reply.choices[0].message.content
    return content


def test_an_inline_rule_answers_with_a_tool_call(mockserver: MockServer) -> None:
    mockserver.on(last_user_contains="weather").reply(
        tool_calls=[{"name": "get_weather", "arguments": {"city": "Boston"}}]
    )
    reply = mockserver.client().chat.completions.create(
        model="gpt-4o", messages=user("weather?"), tools=[TOOL]
    )
    call = reply.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"city": "Boston"}  # type: ignore[union-attr]


def test_calls_journal_what_was_asked_and_answered(mockserver: MockServer) -> None:
    mockserver.on(id="hello", last_user="hi").reply(text="hello")
    client = mockserver.client()
    say(client, "hi", tools=[TOOL])
    say(client, "something else")
    first, second = mockserver.calls
    assert (first.seq, first.method, first.path) == (1, "POST", "/v1/chat/completions")
    assert (first.status, first.ok, first.api, first.model) == (200, True, "chat", "gpt-4o")
    assert (first.rule, first.miss, first.summary) == ("hello", None, "hello")
    assert (first.last_user, first.tools, first.messages) == (
        "hi",
        ("get_weather",),
        (("user", "hi"),),
    )
    assert first.request is not None
    assert first.request["messages"] == user("hi")
    assert first.response["choices"][0]["message"]["content"] == "hello"
    assert second.rule is None
    assert second.miss == (
        "No rule of scenario 'inline' matched chat request (model 'gpt-4o', last user message "
        "'something else').\n  - rule 'hello': last user message 'something else' does not "
        "equal 'hi'"
    )
    assert repr(first) == ("<Call #1 POST /v1/chat/completions → 200 rule='hello' last_user='hi'>")
    with pytest.raises(AttributeError):
        first.status = 500  # type: ignore[misc]


def test_calls_read_responses_requests_too(mockserver: MockServer) -> None:
    mockserver.on(last_user_contains="weather").reply(text="sunny")
    response = mockserver.client().responses.create(model="gpt-4o", input="weather today?")
    assert response.output_text == "sunny"
    (call,) = mockserver.calls
    assert (call.api, call.path, call.rule) == ("responses", "/v1/responses", "inline-1")
    assert (call.last_user, call.messages) == ("weather today?", (("user", "weather today?"),))


def test_replies_play_in_order_then_repeat_the_last(mockserver: MockServer) -> None:
    mockserver.on(last_user="next").replies("one", {"text": "two"})
    client = mockserver.client()
    assert [say(client, "next") for _ in range(3)] == ["one", "two", "two"]
    assert mockserver.hits == {"inline-1": 3}


def test_a_reply_text_may_be_given_positionally(mockserver: MockServer) -> None:
    mockserver.on(last_user="plain").reply("Just the text")
    assert say(mockserver.client(), "plain") == "Just the text"
    rule = mockserver.on(last_user="twice")
    with pytest.raises(TypeError, match="takes the text once"):
        rule.reply("a", text="b")
    rule.reply("a")  # a rule left with no reply would fail the test


def test_times_hands_over_to_the_next_rule(mockserver: MockServer) -> None:
    mockserver.on(last_user="x").reply(text="first").times(1)
    mockserver.on(last_user="x").reply(text="later")
    client = mockserver.client()
    assert [say(client, "x"), say(client, "x")] == ["first", "later"]


def test_fail_answers_with_the_preset_error(mockserver: MockServer) -> None:
    mockserver.on(last_user="go").fail("rate_limited", retry_after=3)
    with pytest.raises(openai.RateLimitError) as info:
        say(mockserver.client(max_retries=0), "go")
    assert info.value.response.headers["retry-after"] == "3"
    assert mockserver.calls[0].status == 429
    assert mockserver.calls[0].rule == "inline-1"


def test_inline_rules_go_before_the_scenario_in_use(mockserver: MockServer) -> None:
    mockserver.use("rules:\n  - {id: base, reply: {text: from the scenario}}\n")
    mockserver.on(last_user="override").reply(text="inline")
    client = mockserver.client()
    assert [say(client, "override"), say(client, "other")] == ["inline", "from the scenario"]
    assert [r.id for r in mockserver.scenario.rules] == ["inline-1", "base"]


def test_inline_rules_keep_their_counts_across_use(mockserver: MockServer) -> None:
    mockserver.on(last_user="flaky").fail("rate_limited").times(1)
    mockserver.on(last_user="next").replies("one", "two", "three")
    client = mockserver.client(max_retries=0)
    with pytest.raises(openai.RateLimitError):
        say(client, "flaky")
    assert say(client, "next") == "one"
    mockserver.use("plain-chat")
    assert say(client, "flaky") != ""  # the failure was used up: no second 429
    assert say(client, "next") == "two"
    mockserver.use("rules:\n  - {id: base, reply: {text: base}}\n")
    assert say(client, "next") == "three"
    assert mockserver.hits["inline-2"] == 3
    assert mockserver.verdict() is None


def test_use_takes_a_path_relative_to_the_test_file(mockserver: MockServer, tmp_path: Path) -> None:
    here = Path(__file__).parent
    scenario_file = tmp_path / "s.yaml"
    scenario_file.write_text("name: from-file\nrules: [{reply: {text: filed}}]\n")
    assert mockserver.use(scenario_file).name == "from-file"
    relative = os.path.relpath(scenario_file, here)
    assert mockserver.use(relative).name == "from-file"
    assert say(mockserver.client(), "anything") == "filed"


def test_use_takes_a_scenario_object_a_mapping_and_a_name(mockserver: MockServer) -> None:
    scenario = Scenario(
        name="obj", rules=[Rule(when=When(), reply=ReplySpec(text="from an object"))]
    )
    assert mockserver.use(scenario) is scenario
    assert say(mockserver.client(), "hi") == "from an object"
    assert mockserver.use({"name": "mapped", "rules": []}).name == "mapped"
    assert mockserver.use("default").name == "default"


@pytest.mark.parametrize("name", ["default", "weather-agent"])
def test_built_in_scenarios_are_scenario_models(mockserver: MockServer, name: str) -> None:
    """The server keeps built-ins as records (served without pydantic); a test gets models."""
    used = mockserver.use(name)
    assert type(used) is Scenario
    assert type(mockserver.scenario) is Scenario
    assert used.rules or name == "default"  # the one built-in without rules
    assert all(type(rule) is Rule for rule in used.rules)
    assert mockserver.use(used) is used


def test_a_built_in_as_the_server_keeps_it_is_taken_as_its_model(mockserver: MockServer) -> None:
    kept = builtin("plain-chat")  # a record (scenario/records.py), as engine.find_scenario gives
    used = mockserver.use(kept)
    assert type(used) is Scenario
    assert used == kept


def test_an_unknown_scenario_name_lists_the_known_ones(mockserver: MockServer) -> None:
    with pytest.raises(ScenarioError) as info:
        mockserver.use("nope")
    assert str(info.value) == (
        f"no scenario named 'nope' (built-in: {', '.join(builtin_names())}; no scenario "
        "directory is set (--mockserver-scenarios DIR or ini mockserver_scenarios))"
    )


def test_a_misspelt_scenario_name_gets_a_guess(mockserver: MockServer) -> None:
    with pytest.raises(ScenarioError) as info:
        mockserver.use("weather-agnet")
    assert str(info.value).startswith(
        "no scenario named 'weather-agnet' (did you mean 'weather-agent'?) (built-in: "
    )


def test_a_broken_scenario_raises_from_use_with_a_short_traceback(
    mockserver: MockServer,
) -> None:
    with pytest.raises(ScenarioError, match=r"^<scenario text>:2:13: .*'txt'") as info:
        mockserver.use("rules:\n  - reply: {txt: hi}\n")
    # Nothing below use(): the loader's frames are not the test's business.
    assert [entry.name for entry in info.traceback] == [
        "test_a_broken_scenario_raises_from_use_with_a_short_traceback",
        "use",
    ]
    assert mockserver.scenario.name == "default"


def test_a_broken_mapping_raises_the_same_located_problems_as_a_file(
    mockserver: MockServer,
) -> None:
    broken = {"rules": [{"id": "a", "reply": {"txt": "hi"}}, {"id": "a", "reply": {"text": "x"}}]}
    with pytest.raises(ScenarioError) as info:
        mockserver.use(broken)
    lines = str(info.value).splitlines()
    assert (
        "rule 'a', field 'rules[0].reply.txt': unknown key 'txt' (did you mean 'text'?)"
        in (lines[0])
    )
    assert any("field 'rules[1].id': duplicate rule id 'a'" in line for line in lines)
    assert mockserver.scenario.name == "default"


def test_a_rule_whose_reply_raised_is_not_reported_again(mockserver: MockServer) -> None:
    with pytest.raises(TypeError, match="'txt'"):
        mockserver.on(last_user="x").reply(txt="hi")
    with pytest.raises(ValueError, match="logprobs"):
        mockserver.on(last_user="y").reply(text="abc", logprobs=[{"token": "zz", "logprob": -1}])
    with pytest.raises(ValueError, match="at least once"):
        mockserver.on(last_user="z").reply(text="as it was").times(0)
    client = mockserver.client()
    assert [say(client, "z"), say(client, "z")] == ["as it was", "as it was"]
    assert mockserver.verdict() is None


def test_reset_starts_the_namespace_afresh(mockserver: MockServer) -> None:
    mockserver.on(last_user="hi").reply(text="scripted")
    client = mockserver.client()
    first = client.chat.completions.create(model="gpt-4o", messages=user("hello"))
    mockserver.reset()
    assert mockserver.calls == ()
    assert mockserver.scenario.name == "default"
    again = client.chat.completions.create(model="gpt-4o", messages=user("hello"))
    assert again == first  # same counter, same seed: the same bytes


def test_the_seed_is_settable_and_changes_generated_text(mockserver: MockServer) -> None:
    client = mockserver.client()
    assert mockserver.seed == 0
    first = say(client, "Tell me about tides.")
    mockserver.seed = 7
    assert mockserver.seed == 7
    assert say(client, "Tell me about tides.") != first


@pytest.mark.parametrize("seed", ["abc", "7", 7.0, True, None])
def test_a_seed_that_is_not_an_int_is_refused(mockserver: MockServer, seed: object) -> None:
    with pytest.raises(TypeError, match=r"mockserver\.seed takes an int"):
        mockserver.seed = seed  # type: ignore[assignment]
    assert mockserver.seed == 0


@pytest.mark.mockserver(seed=7)
def test_the_marker_sets_the_seed(mockserver: MockServer) -> None:
    assert mockserver.seed == 7


def test_headers_select_the_namespace_for_any_http_client(mockserver: MockServer) -> None:
    mockserver.on(last_user="raw").reply(text="plain http")
    with httpx.Client(base_url=mockserver.base_url, headers=mockserver.headers) as http:
        body = http.post(
            "/chat/completions", json={"model": "gpt-4o", "messages": user("raw")}
        ).json()
    assert body["choices"][0]["message"]["content"] == "plain http"
    assert mockserver.api_key.startswith("sk-mock-test_headers_select_the_namespace")


def test_the_handle_owns_api_key_and_base_url(mockserver: MockServer) -> None:
    with pytest.raises(TypeError, match="the handle sets api_key"):
        mockserver.client(api_key="sk-other")
    with pytest.raises(TypeError, match="in_process=True or http_client"):
        mockserver.client(in_process=True, http_client=object())


def test_clients_are_closed_at_teardown(mockserver: MockServer) -> None:
    client = mockserver.client()
    say(client, "hi")
    mockserver.close()
    assert client.is_closed()


def test_in_process_sync_client_needs_no_socket(mockserver: MockServer) -> None:
    mockserver.on(last_user="ping").reply(text="pong")
    client = mockserver.client(in_process=True)
    assert say(client, "ping") == "pong"
    stream = client.chat.completions.create(model="gpt-4o", messages=user("ping"), stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "pong"
    assert [c.rule for c in mockserver.calls] == ["inline-1", "inline-1"]


def test_in_process_answers_errors_like_the_socket(mockserver: MockServer) -> None:
    mockserver.on(last_user="go").fail("overloaded")
    with pytest.raises(openai.InternalServerError) as info:
        say(mockserver.client(in_process=True, max_retries=0), "go")
    assert info.value.status_code == 503


@pytest.mark.anyio
async def test_in_process_async_client_streams(mockserver: MockServer) -> None:
    mockserver.on(last_user="count").reply(text="one two three")
    client = mockserver.async_client(in_process=True)
    stream = await client.chat.completions.create(
        model="gpt-4o", messages=user("count"), stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "one two three"


@pytest.mark.anyio
async def test_an_async_socket_client_left_open_is_closed_cleanly(mockserver: MockServer) -> None:
    # filterwarnings=error: a socket left open on the test's loop would fail this test.
    client = mockserver.async_client()
    reply = await client.chat.completions.create(model="gpt-4o", messages=user("hi"))
    assert reply.choices[0].message.content


def test_an_inline_rule_pins_one_inputs_embedding(mockserver: MockServer) -> None:
    mockserver.on(api="embeddings", last_user_contains="pin").reply(embedding=[0.6, 0.8])
    answer = mockserver.client().embeddings.create(
        model="text-embedding-3-small", input=["pin me", "other"], encoding_format="float"
    )
    assert answer.data[0].embedding == [0.6, 0.8]
    assert len(answer.data[1].embedding) == 1536
    (call,) = mockserver.calls
    assert (call.api, call.rule) == ("embeddings", "inline-1")


def test_a_name_the_handle_lacks_says_which_was_meant(mockserver: MockServer) -> None:
    with pytest.raises(AttributeError, match=r"'url'; did you mean \.base_url\?"):
        mockserver.url  # noqa: B018 (the read is the test)
    with pytest.raises(AttributeError, match=r"'cals'; did you mean \.calls\?") as raised:
        mockserver.cals  # noqa: B018
    assert ".client() or .async_client()" in str(raised.value)  # what there is, in one line
    with pytest.raises(AttributeError, match=r"^'MockServer' object has no attribute 'zzz' \("):
        mockserver.zzz  # noqa: B018 (nothing close: no guess)
    assert not hasattr(mockserver, "_private")  # private names: a plain AttributeError
    assert mockserver.base_url.endswith("/v1")  # what exists is untouched


def test_an_azure_client_is_answered_in_the_tests_namespace(mockserver: MockServer) -> None:
    mockserver.on(last_user="hi").reply(text="hello from Azure")
    azure = mockserver.azure_client()
    reply = azure.chat.completions.create(model="my-deployment", messages=user("hi"))
    assert reply.choices[0].message.content == "hello from Azure"
    assert "prompt_filter_results" in (reply.model_extra or {})
    (call,) = mockserver.calls
    assert (call.path, call.api, call.model, call.rule) == (
        "/openai/deployments/my-deployment/chat/completions",
        "chat",
        "my-deployment",
        "inline-1",
    )


def test_an_in_process_azure_client_streams(mockserver: MockServer) -> None:
    mockserver.on(last_user="hi").reply(text="streamed from Azure")
    azure = mockserver.azure_client(in_process=True, azure_deployment="dep")
    chunks = list(azure.chat.completions.create(model="ignored", messages=user("hi"), stream=True))
    assert chunks[0].choices == []
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == (
        "streamed from Azure"
    )
    assert mockserver.calls[0].model == "dep"


@pytest.mark.anyio
async def test_an_async_azure_client(mockserver: MockServer) -> None:
    mockserver.on(provider="azure").reply(text="only Azure says this")
    azure = mockserver.async_azure_client()
    reply = await azure.chat.completions.create(model="d", messages=user("hello"))
    assert reply.choices[0].message.content == "only Azure says this"
    plain = mockserver.client().chat.completions.create(model="d", messages=user("hello"))
    assert plain.choices[0].message.content != "only Azure says this"


def test_the_azure_client_keeps_the_endpoint_and_key(mockserver: MockServer) -> None:
    with pytest.raises(TypeError, match="azure_endpoint"):
        mockserver.azure_client(azure_endpoint="https://example.invalid")
    with pytest.raises(TypeError, match="api_key"):
        mockserver.azure_client(api_key="other")
    assert mockserver.azure_endpoint == mockserver.base_url.removesuffix("/v1")
