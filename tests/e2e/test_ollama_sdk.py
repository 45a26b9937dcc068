"""The official ``ollama`` client against a real server: chat and generate, whole and
streamed, tool calls, ``format``, ``think``, ``options``, embeddings and the model calls."""

from __future__ import annotations

import json

import jsonschema
import ollama
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.scenarios import use_scenario

MODEL = "llama3.2"
HELLO = [{"role": "user", "content": "Hello there"}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


def test_a_chat_reply_is_read_by_the_client(llama: ollama.Client) -> None:
    reply = llama.chat(model=MODEL, messages=HELLO)
    assert reply.model == MODEL
    assert reply.message.role == "assistant"
    assert reply.message.content
    assert reply.done is True
    assert reply.done_reason == "stop"
    assert reply.created_at is not None
    assert reply.created_at.endswith("Z")
    assert reply.prompt_eval_count is not None
    assert reply.prompt_eval_count > 0
    assert reply.eval_count is not None
    assert reply.eval_count > 0
    for counter in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
        assert isinstance(getattr(reply, counter), int)
        assert getattr(reply, counter) > 0
    assert reply.total_duration >= reply.load_duration + reply.eval_duration  # type: ignore[operator]


def test_a_streamed_chat_says_what_the_whole_one_says(llama: ollama.Client) -> None:
    whole = llama.chat(model=MODEL, messages=HELLO)
    parts = list(llama.chat(model=MODEL, messages=HELLO, stream=True))
    assert len(parts) > 2
    *said, last = parts
    assert all(part.done is False for part in said)
    assert last.done is True
    assert last.done_reason == "stop"
    assert last.message.content == ""
    assert "".join(part.message.content or "" for part in said) == whole.message.content
    assert last.eval_count == whole.eval_count
    assert last.prompt_eval_count == whole.prompt_eval_count
    stamps = [part.created_at or "" for part in parts]
    assert stamps == sorted(stamps)


def test_generate_whole_and_streamed(llama: ollama.Client) -> None:
    whole = llama.generate(model=MODEL, prompt="Why is the sky blue?")
    assert whole.response
    assert whole.done is True
    assert whole.done_reason == "stop"
    assert whole.context
    assert all(isinstance(token, int) for token in whole.context)
    assert len(whole.context) == whole.prompt_eval_count + whole.eval_count  # type: ignore[operator]
    parts = list(llama.generate(model=MODEL, prompt="Why is the sky blue?", stream=True))
    assert len(parts) > 2
    assert "".join(part.response or "" for part in parts) == whole.response
    assert parts[-1].done is True
    assert parts[-1].response == ""


def test_a_tool_call_has_arguments_valid_for_its_parameters(llama: ollama.Client) -> None:
    reply = llama.chat(
        model=MODEL, messages=[{"role": "user", "content": "Weather in Paris?"}], tools=[WEATHER]
    )
    calls = reply.message.tool_calls
    assert calls, reply
    (call,) = calls
    assert call.function.name == "get_weather"
    assert isinstance(call.function.arguments, dict)
    jsonschema.validate(call.function.arguments, WEATHER["function"]["parameters"])  # type: ignore[index]
    assert reply.done_reason == "stop"


def test_a_scripted_tool_loop_reads_the_tool_result_back(
    llama: ollama.Client, control: object
) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        """
rules:
  - id: ask
    when: {tools_offered: [get_weather], last_role: user}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: answer
    when: {tool_result: {name: get_weather, content: {contains: "21"}}}
    reply: {text: "It is 21 degrees in Paris."}
""",
    )
    messages: list[object] = [{"role": "user", "content": "Weather in Paris?"}]
    first = llama.chat(model=MODEL, messages=messages, tools=[WEATHER])  # type: ignore[arg-type]
    assert first.message.tool_calls
    assert first.message.tool_calls[0].function.arguments == {"city": "Paris"}
    messages.append(first.message)
    messages.append({"role": "tool", "content": "21 C", "tool_name": "get_weather"})
    second = llama.chat(model=MODEL, messages=messages, tools=[WEATHER])  # type: ignore[arg-type]
    assert second.message.content == "It is 21 degrees in Paris."


def test_a_streamed_tool_call_arrives_in_one_line(llama: ollama.Client) -> None:
    parts = list(
        llama.chat(
            model=MODEL,
            messages=[{"role": "user", "content": "Weather?"}],
            tools=[WEATHER],
            stream=True,
        )
    )
    with_calls = [part for part in parts if part.message.tool_calls]
    assert len(with_calls) == 1
    assert with_calls[0].message.tool_calls[0].function.name == "get_weather"  # type: ignore[index]
    assert parts[-1].done is True


def test_format_schema_gives_json_valid_for_it(llama: ollama.Client) -> None:
    reply = llama.chat(model=MODEL, messages=HELLO, format=PERSON)
    jsonschema.validate(json.loads(reply.message.content or ""), PERSON)
    generated = llama.generate(model=MODEL, prompt="Who?", format=PERSON)
    jsonschema.validate(json.loads(generated.response or ""), PERSON)


def test_format_json_gives_a_json_object(llama: ollama.Client) -> None:
    reply = llama.chat(model=MODEL, messages=HELLO, format="json")
    assert isinstance(json.loads(reply.message.content or ""), dict)


def test_think_fills_the_thinking_field(llama: ollama.Client) -> None:
    reply = llama.chat(model="qwen3", messages=HELLO, think=True)
    assert reply.message.thinking
    assert reply.message.content
    plain = llama.chat(model="qwen3", messages=HELLO)
    assert plain.message.thinking is None
    parts = list(llama.generate(model="qwen3", prompt="Why?", think="high", stream=True))
    thought = [part.thinking for part in parts if part.thinking]
    assert thought, parts
    first_text = next(i for i, part in enumerate(parts) if part.response)
    assert all(not part.thinking for part in parts[first_text:])


def test_num_predict_cuts_the_reply_with_done_reason_length(llama: ollama.Client) -> None:
    reply = llama.chat(model=MODEL, messages=HELLO, options={"num_predict": 3})
    assert reply.eval_count == 3
    assert reply.done_reason == "length"


def test_options_stop_seed_and_temperature_are_accepted(llama: ollama.Client) -> None:
    options = {"seed": 7, "temperature": 0.2, "stop": ["zzz"], "top_k": 20}
    first = llama.chat(model=MODEL, messages=HELLO, options=options, keep_alive="10m")
    second = llama.chat(model=MODEL, messages=HELLO, options=options, keep_alive=60)
    assert first.message.content == second.message.content


def test_images_are_accepted_and_cost_prompt_tokens(llama: ollama.Client) -> None:
    image = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ"
        "RU5ErkJggg=="
    )
    plain = llama.chat(model="llava", messages=[{"role": "user", "content": "What is this?"}])
    seen = llama.chat(
        model="llava", messages=[{"role": "user", "content": "What is this?", "images": [image]}]
    )
    assert seen.prompt_eval_count > plain.prompt_eval_count  # type: ignore[operator]


def test_an_empty_chat_loads_and_keep_alive_zero_unloads(llama: ollama.Client) -> None:
    loaded = llama.chat(model=MODEL, messages=[])
    assert loaded.done_reason == "load"
    assert loaded.message.content == ""
    assert llama.ps().models
    assert llama.ps().models[0].model == "llama3.2:latest"
    unloaded = llama.generate(model=MODEL, keep_alive=0)
    assert unloaded.done_reason == "unload"
    assert llama.ps().models == []


def test_embed_and_the_older_embeddings(llama: ollama.Client) -> None:
    both = llama.embed(model="all-minilm", input=["one", "two"])
    assert both.model == "all-minilm"
    assert len(both.embeddings) == 2
    assert both.embeddings[0] != both.embeddings[1]
    assert both.prompt_eval_count is not None
    assert both.prompt_eval_count > 0
    one = llama.embed(model="all-minilm", input="one")
    assert one.embeddings[0] == both.embeddings[0]
    older = llama.embeddings(model="all-minilm", prompt="one")
    assert older.embedding == both.embeddings[0]
    assert llama.embed(model="all-minilm", input=[]).embeddings == []
    # the model's own size, as /api/show says it
    assert len(llama.embed(model="nomic-embed-text:v1.5", input="x").embeddings[0]) == 768
    assert len(both.embeddings[0]) == len(older.embedding) == 384
    assert llama.show("all-minilm").modelinfo["bert.embedding_length"] == 384


def test_tags_show_ps_and_version(llama: ollama.Client) -> None:
    listed = llama.list().models
    names = [model.model for model in listed]
    assert "llama3.2:latest" in names
    assert "nomic-embed-text:latest" in names
    first = listed[0]
    assert first.digest
    assert len(first.digest) == 64
    assert first.size
    assert first.details
    assert first.details.format == "gguf"
    shown = llama.show(MODEL)
    assert shown.details
    assert shown.details.family == "llama"
    assert shown.modelinfo
    assert shown.modelinfo["general.architecture"] == "llama"
    assert shown.capabilities
    assert "completion" in shown.capabilities
    assert llama.ps().models == []
    llama.chat(model=MODEL, messages=HELLO)
    (running,) = llama.ps().models
    assert running.model == "llama3.2:latest"
    assert running.expires_at is not None


def test_a_scenarios_own_model_is_known_and_listed(llama: ollama.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        """
rules:
  - when: {model: my-finetune}
    reply: {text: tuned}
  - when: {model: {startswith: "team/"}}
    reply: {text: shared}
""",
    )
    assert llama.chat(model="my-finetune", messages=HELLO).message.content == "tuned"
    assert llama.chat(model="team/coder:7b", messages=HELLO).message.content == "shared"
    assert "my-finetune:latest" in [m.model for m in llama.list().models]
    assert llama.show("my-finetune").details is not None


@pytest.mark.anyio
async def test_the_async_client_gets_the_same_answer(
    server: BackgroundServer, api_key: str, llama: ollama.Client
) -> None:
    sdk = ollama.AsyncClient(host=server.url, headers={"Authorization": f"Bearer {api_key}-a"})
    try:
        first = await sdk.chat(model=MODEL, messages=HELLO)
        streamed = [part async for part in await sdk.chat(model=MODEL, messages=HELLO, stream=True)]
    finally:
        await sdk._client.aclose()
    same = llama.chat(model=MODEL, messages=HELLO)
    assert first.message.content == same.message.content
    assert "".join(part.message.content or "" for part in streamed) == same.message.content
