"""The official google-genai SDK cannot tell the mock from the real Gemini API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from google import genai
from google.genai import errors, types
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

WEATHER = types.FunctionDeclaration(
    name="get_weather",
    description="Current weather for a city",
    parameters=types.Schema(
        type=types.Type.OBJECT,
        properties={
            "city": types.Schema(type=types.Type.STRING),
            "unit": types.Schema(type=types.Type.STRING, enum=["celsius", "fahrenheit"]),
        },
        required=["city", "unit"],
    ),
)
TOOLS = [types.Tool(function_declarations=[WEATHER])]


@pytest.fixture
def gemini(server: BackgroundServer, api_key: str) -> Iterator[genai.Client]:
    """The SDK in the test's namespace (its key), on the Developer API's default version."""
    client = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=server.url))
    yield client
    client.close()


@pytest.fixture
def control(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"x-goog-api-key": api_key}
    ) as http:
        yield http


def use(control: httpx.Client, yaml_text: str) -> None:
    answer = control.put(
        "/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200, answer.text


def test_generate_content_answers_with_text_and_usage(gemini: genai.Client) -> None:
    response = gemini.models.generate_content(
        model="gemini-2.0-flash", contents="What is a good way to learn sourdough baking?"
    )
    candidate = response.candidates[0]
    assert candidate.finish_reason == types.FinishReason.STOP
    assert candidate.content.role == "model"
    assert response.text is not None
    assert len(response.text.split()) > 5
    usage = response.usage_metadata
    assert usage.prompt_token_count > 0
    assert usage.candidates_token_count > 0
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count
    assert response.model_version == "gemini-2.0-flash"
    assert response.response_id


def test_the_same_request_gives_the_same_text_and_another_id(gemini: genai.Client) -> None:
    first = gemini.models.generate_content(model="gemini-2.0-flash", contents="hello")
    second = gemini.models.generate_content(model="gemini-2.0-flash", contents="hello")
    assert first.text == second.text
    assert first.response_id != second.response_id


# google-genai subclasses aiohttp's ClientSession, which aiohttp warns about (the SDK's own
# warning, on every async call where aiohttp is installed, as it is here).
@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
def test_async_client_generates_and_streams(gemini: genai.Client) -> None:
    async def run() -> tuple[str, list[str]]:
        response = await gemini.aio.models.generate_content(
            model="gemini-2.0-flash", contents="hello"
        )
        stream = await gemini.aio.models.generate_content_stream(
            model="gemini-2.0-flash", contents="hello"
        )
        pieces = [chunk.text or "" async for chunk in stream]
        await gemini.aio.aclose()
        return response.text or "", pieces

    whole, pieces = asyncio.run(run())
    assert len(pieces) > 1
    assert "".join(pieces) == whole


def test_a_stream_counts_usage_on_every_chunk_and_finishes_once(gemini: genai.Client) -> None:
    chunks = list(
        gemini.models.generate_content_stream(model="gemini-2.0-flash", contents="hello there")
    )
    assert len(chunks) > 2
    counts = [c.usage_metadata.candidates_token_count or 0 for c in chunks]
    assert counts == sorted(counts)
    assert counts[-1] > 0
    reasons = [c.candidates[0].finish_reason for c in chunks]
    assert reasons[-1] == types.FinishReason.STOP
    assert all(r is None for r in reasons[:-1])
    whole = gemini.models.generate_content(model="gemini-2.0-flash", contents="hello there")
    assert "".join(c.text or "" for c in chunks) == whole.text
    assert chunks[-1].usage_metadata.total_token_count == whole.usage_metadata.total_token_count


def test_function_calls_end_with_stop_and_args_fit_the_declaration(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS,
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode.ANY
            )
        ),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    response = gemini.models.generate_content(
        model="gemini-2.5-flash", contents="What is the weather in Paris?", config=config
    )
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    calls = response.function_calls
    assert calls is not None
    assert len(calls) == 1
    assert calls[0].name == "get_weather"
    assert set(calls[0].args) == {"city", "unit"}
    assert calls[0].args["unit"] in ("celsius", "fahrenheit")
    assert response.candidates[0].content.parts[0].thought_signature


def test_mode_none_answers_in_text(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS,
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode.NONE
            )
        ),
    )
    response = gemini.models.generate_content(
        model="gemini-2.0-flash", contents="What is the weather in Paris?", config=config
    )
    assert response.function_calls is None
    assert response.text


def test_a_function_response_loop_converges(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(
        tools=TOOLS, automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    contents: list[types.Content] = [
        types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")])
    ]
    for _ in range(4):
        response = gemini.models.generate_content(
            model="gemini-3-pro-preview", contents=contents, config=config
        )
        if not response.function_calls:
            break
        contents.append(response.candidates[0].content)
        contents.append(
            types.Content(
                role="user",
                parts=[
                    types.Part.from_function_response(name=call.name, response={"result": "21 °C"})
                    for call in response.function_calls
                ],
            )
        )
    assert len(contents) == 3  # one call, its result, then the answer
    assert response.text


def test_a_gemini_3_call_sent_back_without_its_signature_is_refused(gemini: genai.Client) -> None:
    contents = [
        types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")]),
        types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(name="get_weather", args={"city": "Paris"})
                )
            ],
        ),
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="get_weather", response={"t": 21})],
        ),
    ]
    with pytest.raises(errors.ClientError) as raised:
        gemini.models.generate_content(
            model="gemini-3-pro-preview",
            contents=contents,
            config=types.GenerateContentConfig(tools=TOOLS),
        )
    assert raised.value.code == 400
    assert raised.value.status == "INVALID_ARGUMENT"
    assert "thought_signature" in (raised.value.message or "")
    assert "position 2" in (raised.value.message or "")
    answered = gemini.models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=types.GenerateContentConfig(tools=TOOLS)
    )
    assert answered.candidates


def test_thoughts_are_shown_when_asked_and_counted_always(gemini: genai.Client) -> None:
    shown = gemini.models.generate_content(
        model="gemini-2.5-flash",
        contents="Why is the sky blue?",
        config=types.GenerateContentConfig(
            thinking_config=types.ThinkingConfig(include_thoughts=True)
        ),
    )
    parts = shown.candidates[0].content.parts
    assert parts[0].thought is True
    assert parts[0].text
    assert parts[-1].thought is None
    assert parts[-1].text
    assert shown.usage_metadata.thoughts_token_count > 0
    hidden = gemini.models.generate_content(
        model="gemini-2.5-flash", contents="Why is the sky blue?"
    )
    assert all(not p.thought for p in hidden.candidates[0].content.parts)
    assert hidden.usage_metadata.thoughts_token_count > 0
    off = gemini.models.generate_content(
        model="gemini-2.5-flash",
        contents="Why is the sky blue?",
        config=types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_budget=0)),
    )
    assert off.usage_metadata.thoughts_token_count is None


class Recipe(BaseModel):
    name: str
    minutes: int
    steps: list[str]


def test_structured_output_fits_the_response_schema(gemini: genai.Client) -> None:
    response = gemini.models.generate_content(
        model="gemini-2.5-flash",
        contents="A bread recipe",
        config=types.GenerateContentConfig(
            response_mime_type="application/json", response_schema=Recipe
        ),
    )
    assert isinstance(response.parsed, Recipe)
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "rain": {"type": "boolean"}},
        "required": ["city", "rain"],
        "additionalProperties": False,
    }
    second = gemini.models.generate_content(
        model="gemini-2.5-flash",
        contents="Weather?",
        config=types.GenerateContentConfig(
            response_mime_type="application/json", response_json_schema=schema
        ),
    )
    value = json.loads(second.text or "")
    assert set(value) == {"city", "rain"}
    assert isinstance(value["rain"], bool)


def test_max_output_tokens_cuts_with_max_tokens(gemini: genai.Client) -> None:
    response = gemini.models.generate_content(
        model="gemini-2.0-flash",
        contents="Tell me a long story",
        config=types.GenerateContentConfig(max_output_tokens=5),
    )
    assert response.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert response.usage_metadata.candidates_token_count == 5


def test_candidate_count_gives_that_many_candidates(gemini: genai.Client) -> None:
    response = gemini.models.generate_content(
        model="gemini-2.0-flash",
        contents="hello",
        config=types.GenerateContentConfig(candidate_count=3),
    )
    assert [c.index for c in response.candidates] == [0, 1, 2]
    assert len({c.content.parts[0].text for c in response.candidates}) == 3


def test_embed_content_keeps_the_order_and_dimensions(gemini: genai.Client) -> None:
    texts = ["apples", "oranges", "apples"]
    response = gemini.models.embed_content(model="gemini-embedding-001", contents=texts)
    vectors = [e.values for e in response.embeddings]
    assert len(vectors) == 3
    assert len(vectors[0]) == 3072
    assert vectors[0] == vectors[2]
    assert vectors[0] != vectors[1]
    short = gemini.models.embed_content(
        model="gemini-embedding-001",
        contents="apples",
        config=types.EmbedContentConfig(output_dimensionality=256),
    )
    assert len(short.embeddings[0].values) == 256


def test_count_tokens_counts_the_prompt(gemini: genai.Client) -> None:
    counted = gemini.models.count_tokens(model="gemini-2.0-flash", contents="hello world")
    generated = gemini.models.generate_content(model="gemini-2.0-flash", contents="hello world")
    assert counted.total_tokens == generated.usage_metadata.prompt_token_count


def test_models_list_and_get(gemini: genai.Client) -> None:
    names = [m.name for m in gemini.models.list()]
    assert "models/gemini-2.5-flash" in names
    model = gemini.models.get(model="gemini-2.5-flash")
    assert model.input_token_limit
    assert "generateContent" in (model.supported_actions or [])
    with pytest.raises(errors.ClientError) as raised:
        gemini.models.get(model="gemini-0")
    assert (raised.value.code, raised.value.status) == (404, "NOT_FOUND")


RATE_LIMITED = """
name: flaky
rules:
  - id: limited
    when: {last_user: {contains: busy}}
    replies:
      - error: {preset: rate_limited, retry_after: 7}
      - error: {preset: overloaded}
      - text: recovered
  - id: down
    when: {last_user: {contains: down}}
    reply: {error: {preset: overloaded}}
  - id: slow
    when: {last_user: {contains: slow}}
    reply: {error: {preset: gateway_timeout}}
"""


def test_errors_are_the_sdks_classes_with_googles_status(
    gemini: genai.Client, control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    use(control, RATE_LIMITED)
    with pytest.raises(errors.ClientError) as limited:
        gemini.models.generate_content(model="gemini-2.0-flash", contents="busy?")
    assert (limited.value.code, limited.value.status) == (429, "RESOURCE_EXHAUSTED")
    retry = [
        d for d in limited.value.details["error"]["details"] if d["@type"].endswith("RetryInfo")
    ]
    assert retry == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]
    assert "retry-after" not in {k.lower() for k in limited.value.response.headers}
    with pytest.raises(errors.ServerError) as down:
        gemini.models.generate_content(model="gemini-2.0-flash", contents="down")
    assert (down.value.code, down.value.status) == (503, "UNAVAILABLE")
    with pytest.raises(errors.ServerError) as slow:
        gemini.models.generate_content(model="gemini-2.0-flash", contents="slow")
    assert (slow.value.code, slow.value.status) == (504, "DEADLINE_EXCEEDED")


def test_retry_options_retry_until_it_answers(
    server: BackgroundServer, control: httpx.Client, api_key: str
) -> None:
    use(control, RATE_LIMITED)
    options = types.HttpOptions(
        base_url=server.url,
        retry_options=types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.02),
    )
    with genai.Client(api_key=api_key, http_options=options) as client:
        response = client.models.generate_content(model="gemini-2.0-flash", contents="busy?")
    assert response.text == "recovered"
    journal = control.get("/calls").json()
    statuses = [entry["status"] for entry in journal["data"]]
    assert statuses[-3:] == [429, 503, 200]


@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
def test_retry_options_retry_a_stream_and_the_async_client(
    server: BackgroundServer, control: httpx.Client, api_key: str
) -> None:
    """The SDK retries 429 and 5xx (its own backoff: it reads no RetryInfo), a stream before
    its first chunk, and the async client alike."""
    use(control, RATE_LIMITED)
    options = types.HttpOptions(
        base_url=server.url,
        retry_options=types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.02),
    )
    with genai.Client(api_key=api_key, http_options=options) as client:
        stream = client.models.generate_content_stream(model="gemini-2.0-flash", contents="busy")
        streamed = "".join(chunk.text or "" for chunk in stream)

        async def ask() -> str | None:
            answer = await client.aio.models.generate_content(
                model="gemini-2.0-flash", contents="busy again"
            )
            await client.aio.aclose()
            return answer.text

        answered = asyncio.run(ask())
    assert streamed == answered == "recovered"  # the last reply repeats
    statuses = [entry["status"] for entry in control.get("/calls").json()["data"]]
    assert statuses == [429, 503, 200, 200]


def test_too_few_attempts_give_up_with_the_last_error(
    server: BackgroundServer, control: httpx.Client, api_key: str
) -> None:
    use(control, RATE_LIMITED)
    options = types.HttpOptions(
        base_url=server.url,
        retry_options=types.HttpRetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02),
    )
    with (
        genai.Client(api_key=api_key, http_options=options) as client,
        pytest.raises(errors.ServerError) as raised,
    ):
        client.models.generate_content(model="gemini-2.0-flash", contents="down")
    assert (raised.value.code, raised.value.status) == (503, "UNAVAILABLE")
    statuses = [entry["status"] for entry in control.get("/calls").json()["data"]]
    assert statuses == [503, 503]


def test_a_bad_request_is_a_client_error(gemini: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as raised:
        gemini.models.generate_content(
            model="gemini-2.0-flash",
            contents="hello",
            config=types.GenerateContentConfig(candidate_count=9),
        )
    assert (raised.value.code, raised.value.status) == (400, "INVALID_ARGUMENT")


def test_vertex_mode_serves_the_project_paths(server: BackgroundServer, api_key: str) -> None:
    from google.oauth2.credentials import Credentials

    client = genai.Client(
        vertexai=True,
        project="my-project",
        location="us-central1",
        credentials=Credentials(token=api_key),
        http_options=types.HttpOptions(base_url=server.url),
    )
    response = client.models.generate_content(model="gemini-2.5-flash", contents="hello")
    assert response.create_time is not None
    assert response.text
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi"))
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    embedded = client.models.embed_content(model="gemini-embedding-001", contents="apples")
    assert len(embedded.embeddings[0].values) == 3072


def test_an_images_tokens_are_counted_under_image_not_text(gemini: genai.Client) -> None:
    pixel = types.Part.from_bytes(data=b"\x89PNG\r\n\x1a\n" + b"\0" * 32, mime_type="image/png")
    asked = ["What is in this picture?", pixel]
    answer = gemini.models.generate_content(model="gemini-2.5-flash", contents=asked)
    usage = answer.usage_metadata
    assert usage is not None
    assert usage.prompt_tokens_details is not None
    by_modality = {d.modality: d.token_count for d in usage.prompt_tokens_details}
    assert by_modality[types.MediaModality.IMAGE] == 258
    assert by_modality[types.MediaModality.TEXT] == usage.prompt_token_count - 258
    assert by_modality[types.MediaModality.TEXT] > 0
    counted = gemini.models.count_tokens(model="gemini-2.5-flash", contents=asked)
    assert counted.total_tokens == usage.prompt_token_count
