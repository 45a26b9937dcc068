"""Scenarios scripted in YAML drive the official SDK, through the control API."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer

WEATHER_AGENT = """
name: weather-agent
fallback: strict
rules:
  - id: ask-weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather], last_role: user}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Boston}}]}
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: "It is {{tool_result}} in Boston."}
"""

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def use(control: httpx.Client, yaml_text: str) -> dict[str, object]:
    response = control.put(
        "/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_a_yaml_tool_loop_runs_to_its_answer(control: httpx.Client, client: openai.OpenAI) -> None:
    use(control, WEATHER_AGENT)
    messages: list[dict[str, object]] = [{"role": "user", "content": "What's the weather?"}]
    first = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[TOOL])
    call = first.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "get_weather",
        {"city": "Boston"},
    )
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "21 °C"},
    ]
    second = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[TOOL])
    assert second.choices[0].message.content == "It is 21 °C in Boston."
    state = control.get("/scenario").json()
    assert [(r["id"], r["hits"]) for r in state["rules"]] == [("ask-weather", 1), ("answer", 1)]
    journal = control.get("/calls").json()["data"]
    assert [e["rule"] for e in journal] == ["ask-weather", "answer"]


def test_strict_miss_is_a_400_that_explains_every_rule(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, WEATHER_AGENT)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "Hello"}]
        )
    error = info.value.body
    assert error["code"] == "mockserver_no_match"
    assert error["message"].splitlines() == [
        "No rule of scenario 'weather-agent' matched chat request (model 'gpt-4o', last user "
        "message 'Hello').",
        "  - rule 'ask-weather': last user message 'Hello' does not contain 'weather'",
        "  - rule 'answer': no tool result in the conversation",
    ]
    assert control.get("/calls").json()["data"][-1]["miss"] == error["message"]


def test_sequences_script_a_retry_story(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    use(
        control,
        """
rules:
  - when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited, retry_after: 0.01}
      - error: {preset: overloaded, retry_after: 0.01}
      - text: recovered
""",
    )
    with openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=2) as retrying:
        reply = retrying.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "flaky"}]
        )
    assert reply.choices[0].message.content == "recovered"
    statuses = [e["status"] for e in control.get("/calls").json()["data"]]
    assert statuses == [429, 503, 200]


def test_scenario_header_selects_a_scenario_per_request(
    server: BackgroundServer, api_key: str
) -> None:
    headers = {"x-mockserver-scenario": "no-such-scenario"}
    with (
        openai.OpenAI(
            base_url=server.base_url, api_key=api_key, max_retries=0, default_headers=headers
        ) as client,
        pytest.raises(openai.BadRequestError, match="no scenario named 'no-such-scenario'"),
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])


def test_putting_a_broken_scenario_is_a_located_400(control: httpx.Client) -> None:
    response = control.put(
        "/scenario",
        content="rules:\n  - reply: {txt: x}\n",
        headers={"content-type": "application/yaml"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "<PUT body>:2:13: rule #1, field 'rules[0].reply.txt': unknown key 'txt' "
        "(did you mean 'text'?)"
    )


def test_reset_forgets_the_namespace(control: httpx.Client, client: openai.OpenAI) -> None:
    use(control, WEATHER_AGENT)
    control.post("/reset")
    assert control.get("/scenario").json()["name"] == "default"
    assert control.get("/calls").json()["data"] == []


def test_one_off_replies_jump_the_queue(control: httpx.Client, client: openai.OpenAI) -> None:
    queued = control.post(
        "/next",
        json={
            "replies": [
                {"error": {"preset": "overloaded"}},
                {"text": "one-off text"},
            ]
        },
    )
    assert queued.json()["pending"] == 2
    ask = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(**ask)  # type: ignore[call-overload]
    assert client.chat.completions.create(**ask).choices[0].message.content == "one-off text"  # type: ignore[call-overload]
    assert control.get("/calls").json()["data"][0]["rule"] == "(one-off)"


def test_explicit_logprobs_are_served_as_scripted(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(
        control,
        """
rules:
  - reply:
      logprobs:
        - {token: "Yes", logprob: -0.01, top_logprobs: [{token: "Yes", logprob: -0.01},
                                                         {token: "No", logprob: -4.6}]}
        - {token: ".", logprob: -0.2}
""",
    )
    reply = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "ok?"}], logprobs=True, top_logprobs=2
    )
    entries = reply.choices[0].logprobs.content
    assert reply.choices[0].message.content == "Yes."
    assert [(e.token, e.logprob) for e in entries] == [("Yes", -0.01), (".", -0.2)]
    assert [(t.token, t.logprob) for t in entries[0].top_logprobs] == [("Yes", -0.01), ("No", -4.6)]


def test_logprobs_that_do_not_spell_the_text_are_rejected(control: httpx.Client) -> None:
    response = control.put(
        "/scenario",
        content="rules:\n  - reply: {text: Hi, logprobs: [{token: Ho, logprob: 0}]}\n",
        headers={"content-type": "application/yaml"},
    )
    assert response.status_code == 400
    assert (
        "the logprobs tokens spell 'Ho', not the text 'Hi'" in response.json()["error"]["message"]
    )


def test_the_same_yaml_tool_loop_runs_on_the_responses_api(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, WEATHER_AGENT)
    tool = {"type": "function", "name": "get_weather", "parameters": TOOL["function"]["parameters"]}  # type: ignore[index]
    first = client.responses.create(model="gpt-4o", input="What's the weather?", tools=[tool])
    call = first.output[0]
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Boston"})
    second = client.responses.create(
        model="gpt-4o",
        previous_response_id=first.id,
        tools=[tool],
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "21 °C"}],
    )
    assert second.output_text == "It is 21 °C in Boston."
    streamed = client.responses.create(
        model="gpt-4o",
        previous_response_id=first.id,
        tools=[tool],
        stream=True,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "21 °C"}],
    )
    deltas = [e.delta for e in streamed if e.type == "response.output_text.delta"]
    assert "".join(deltas) == "It is 21 °C in Boston."


def ask(client: openai.OpenAI, text: str = "hi", **kw: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": text}], **kw
    )


def test_reply_decorations(control: httpx.Client, client: openai.OpenAI) -> None:
    use(
        control,
        """
rules:
  - id: cited
    when: {last_user: {contains: cite}}
    reply:
      text: "See the docs for details."
      annotations: [{url: "https://example.com/docs", title: Docs, cite: the docs}]
      usage: {prompt_tokens: 100, completion_tokens: 7}
      finish_reason: length
  - id: words
    when: {last_user: {contains: words}}
    reply: {generate: {words: 12}}
  - id: placeholders
    when: {last_user: {contains: echo}}
    reply: {text: "{{model}} heard '{{last_user}}' on {{api}}, turn {{turn}}"}
""",
    )
    cited = ask(client, "cite it")
    annotation = cited.choices[0].message.annotations[0]
    assert (annotation.url_citation.start_index, annotation.url_citation.end_index) == (4, 12)
    assert (cited.usage.prompt_tokens, cited.usage.completion_tokens) == (100, 7)
    assert cited.choices[0].finish_reason == "length"
    assert len(ask(client, "12 words").choices[0].message.content.split()) == 12
    assert ask(client, "echo").choices[0].message.content == "gpt-4o heard 'echo' on chat, turn 0"


def test_a_json_literal_that_breaks_the_request_schema_is_reported(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, "rules:\n  - id: bad-json\n    reply: {json: {title: 42}}\n")
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
        "additionalProperties": False,
    }
    with pytest.raises(openai.BadRequestError) as info:
        ask(
            client,
            response_format={"type": "json_schema", "json_schema": {"name": "R", "schema": schema}},
        )
    assert info.value.body["code"] == "scenario_reply_invalid"
    assert info.value.body["message"] == (
        "mockserver: the json reply of scenario rule 'bad-json' does not validate against the "
        "request's response_format schema: title: 42 is not of type 'string'"
    )


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
CALLS = """\
rules:
  - id: unoffered
    when: {last_user: {contains: nope}}
    reply: {tool_calls: [{name: get_wether, arguments: {city: Oslo}}]}
  - id: off-schema
    when: {last_user: {contains: schema}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: 5}}]}
  - id: wrong-kind
    when: {last_user: {contains: kind}}
    reply: {tool_calls: [{name: get_weather, kind: custom, arguments: Oslo}]}
"""


def chat_tool(*, strict: bool) -> dict[str, Any]:
    function = {"name": "get_weather", "parameters": CITY, "strict": strict}
    return {"type": "function", "function": function}


@pytest.mark.parametrize(
    ("question", "says"),
    [
        (
            "nope",
            "calls tool 'get_wether', which the request does not offer (offered: get_weather)",
        ),
        ("schema", "do not validate against its strict parameters schema: city: 5 is not of type"),
        ("kind", "calls 'get_weather' as a custom tool, but the request offers it as a function"),
    ],
)
def test_a_scripted_call_no_model_could_make_is_reported(
    control: httpx.Client, client: openai.OpenAI, question: str, says: str
) -> None:
    use(control, CALLS)
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, question, tools=[chat_tool(strict=True)])
    assert info.value.body["code"] == "scenario_reply_invalid"  # type: ignore[index]
    assert says in info.value.body["message"]  # type: ignore[index]
    with pytest.raises(openai.BadRequestError):  # Responses function tools are strict by default
        client.responses.create(
            model="gpt-4o",
            input=question,
            tools=[{"type": "function", "name": "get_weather", "parameters": CITY}],
        )


def test_a_non_strict_tool_takes_scripted_arguments_as_they_are(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, CALLS)
    reply = ask(client, "schema", tools=[chat_tool(strict=False)])
    (call,) = reply.choices[0].message.tool_calls or []
    assert json.loads(call.function.arguments) == {"city": 5}  # a model may do that, unstrict


def test_a_text_reply_under_a_strict_schema_must_fit_it(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, "rules:\n  - id: chatty\n    reply: {text: hello there}\n")

    def format_(*, strict: bool) -> dict[str, Any]:
        schema = {"name": "City", "schema": CITY, "strict": strict}
        return {"type": "json_schema", "json_schema": schema}

    with pytest.raises(openai.BadRequestError) as info:
        ask(client, response_format=format_(strict=True))
    assert info.value.body["code"] == "scenario_reply_invalid"  # type: ignore[index]
    assert "scenario rule 'chatty'" in info.value.body["message"]  # type: ignore[index]
    assert "it is not JSON" in info.value.body["message"]  # type: ignore[index]
    loose = ask(client, response_format=format_(strict=False))  # a model may, unstrict
    assert loose.choices[0].message.content == "hello there"


@pytest.mark.parametrize(
    ("ref", "says"),
    [
        ("#/$defs/missing", "unresolvable $ref '#/$defs/missing'"),
        ("http://example.com/x", "unresolvable $ref 'http://example.com/x'"),
    ],
)
def test_a_scripted_reply_against_a_schema_that_cannot_be_followed_is_the_requests_400(
    control: httpx.Client, client: openai.OpenAI, ref: str, says: str
) -> None:
    assert control.post("/next", json={"json": {"a": 1}}).status_code == 200
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": ref}},
        "required": ["a"],
        "additionalProperties": False,
    }
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "x"}],
            response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": schema}},
        )
    assert info.value.body == {
        "message": f"Invalid schema for response_format: {says}.",
        "type": "invalid_request_error",
        "param": "response_format",
        "code": "invalid_json_schema",
    }


def test_scenario_header_guesses_a_misspelt_name(server: BackgroundServer, api_key: str) -> None:
    headers = {"x-mockserver-scenario": "weather-agnet"}
    with (
        openai.OpenAI(
            base_url=server.base_url, api_key=api_key, max_retries=0, default_headers=headers
        ) as client,
        pytest.raises(openai.BadRequestError) as info,
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.code == "mockserver_unknown_scenario"
    assert "no scenario named 'weather-agnet' (did you mean 'weather-agent'?)" in (
        info.value.message
    )
