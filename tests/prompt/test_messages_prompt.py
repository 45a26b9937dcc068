"""An Anthropic Messages body read into the neutral Prompt: tool results as tool messages, the
assistant's tool_use blocks as its calls, system as instructions, thinking as reasoning
settings, images and documents counted."""

from __future__ import annotations

import base64
import struct
from typing import Any

from mockserver.prompt.messages import media_tokens, prompt_from_messages
from mockserver.prompt.model import OutputFormat, ToolChoice
from mockserver.reply.generate import count_prompt_tokens

TOOL = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CALL = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}


def read(**fields: Any) -> Any:
    body = {"model": "claude-sonnet-4-6", "max_tokens": 100, **fields}
    body.setdefault("messages", [{"role": "user", "content": "Hi"}])
    return prompt_from_messages(body, headers={"X-Api-Key": "sk-ant"})


def test_a_plain_request_reads_as_any_familys_does() -> None:
    prompt = read(system="Be brief.", stream=True, stop_sequences=["END"])
    assert prompt.api == "messages"
    assert prompt.model == "claude-sonnet-4-6"
    assert prompt.instructions == "Be brief."
    assert [(m.role, m.text) for m in prompt.messages] == [("user", "Hi")]
    assert prompt.last_user_text == "Hi"
    assert (prompt.stream, prompt.stop, prompt.max_output_tokens) == (True, ("END",), 100)
    assert prompt.headers == {"x-api-key": "sk-ant"}
    assert prompt.reasoning_effort is None


def test_a_tool_loop_reads_as_chats_does() -> None:
    prompt = read(
        tools=[TOOL],
        messages=[
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, CALL]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"},
                    {"type": "text", "text": "Thanks"},
                ],
            },
        ],
    )
    roles = [m.role for m in prompt.messages]
    assert roles == ["user", "assistant", "tool", "user"]
    assistant = prompt.messages[1]
    assert assistant.text == "Let me look."
    assert assistant.tool_calls[0].call_id == "toolu_01"
    assert assistant.tool_calls[0].arguments == '{"city":"Paris"}'
    assert prompt.tool_results() == (("get_weather", "sunny"),)
    assert prompt.last_user_text == "Thanks"
    assert prompt.tools[0].parameters == TOOL["input_schema"]


def test_tool_result_blocks_read_their_text_blocks() -> None:
    prompt = read(
        messages=[
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [CALL]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                    }
                ],
            },
        ]
    )
    assert prompt.messages[-1].role == "tool"
    assert prompt.messages[-1].text == "a\nb"


def test_a_system_role_message_stays_in_place() -> None:
    prompt = read(
        messages=[
            {"role": "user", "content": "hi"},
            {"role": "system", "content": [{"type": "text", "text": "Context."}]},
        ]
    )
    assert [(m.role, m.text) for m in prompt.messages] == [("user", "hi"), ("system", "Context.")]


def test_tool_choice_and_parallel_calls() -> None:
    assert read(tools=[TOOL]).tool_choice == ToolChoice(mode="auto")
    assert read().tool_choice == ToolChoice(mode="none")
    assert read(tools=[TOOL], tool_choice={"type": "any"}).tool_choice == ToolChoice("required")
    named = read(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather"})
    assert named.tool_choice == ToolChoice("required", ("get_weather",))
    assert read(tools=[TOOL], tool_choice={"type": "none"}).tool_choice == ToolChoice("none")
    single = read(tools=[TOOL], tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert not single.parallel_tool_calls
    assert read(tools=[TOOL]).parallel_tool_calls


def test_server_tools_are_not_offered_to_the_scenario() -> None:
    prompt = read(tools=[TOOL, {"type": "web_search_20250305", "name": "web_search"}])
    assert [t.name for t in prompt.tools] == ["get_weather"]


def test_thinking_reads_as_reasoning_settings() -> None:
    enabled = read(max_tokens=4000, thinking={"type": "enabled", "budget_tokens": 2048})
    assert (enabled.reasoning_effort, enabled.reasoning_summary) == ("medium", "auto")
    assert enabled.reasoning_budget == 2048
    adaptive = read(
        thinking={"type": "adaptive", "display": "omitted"}, output_config={"effort": "high"}
    )
    assert (adaptive.reasoning_effort, adaptive.reasoning_summary) == ("high", None)
    assert adaptive.reasoning_budget is None
    assert read(thinking={"type": "disabled"}).reasoning_effort is None


def test_structured_output_is_a_strict_json_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    config = read(output_config={"format": {"type": "json_schema", "schema": schema}})
    assert config.output_format == OutputFormat(
        type="json_schema", schema=schema, strict=True, param="output_config.format"
    )
    beta = read(output_format={"type": "json_schema", "schema": schema})
    assert beta.output_format.param == "output_format"


def test_what_does_not_change_the_answer_leaves_the_fingerprint() -> None:
    plain = read()
    assert read(stream=True, max_tokens=5, stop_sequences=["x"]).fingerprint == plain.fingerprint
    assert read(system="Other").fingerprint != plain.fingerprint


def _png(width: int, height: int) -> str:
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", width, height)
    return base64.b64encode(header + b"\x08\x02\x00\x00\x00").decode()


def _image(data: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def test_images_cost_their_pixels_over_750() -> None:
    assert media_tokens([_image(_png(300, 250))]) == 100
    big = _image(_png(3136, 3136))
    assert media_tokens([big]) == 1590  # scaled to 1568 px a side, then to 1092 × 1092
    remote = {"type": "image", "source": {"type": "url", "url": "https://example.test/a.png"}}
    assert media_tokens([remote]) == 1590


def test_documents_are_counted_and_add_to_the_prompt() -> None:
    pdf = base64.b64encode(b"%PDF-1.4 /Type /Pages /Type /Page /Type /Page").decode()
    document = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
    }
    text = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "x" * 40},
    }
    assert media_tokens([document]) == 3000
    assert media_tokens([text]) == 10
    plain = read(messages=[{"role": "user", "content": "Summarize"}])
    with_pdf = read(
        messages=[{"role": "user", "content": [document, {"type": "text", "text": "Summarize"}]}]
    )
    assert count_prompt_tokens(with_pdf) == count_prompt_tokens(plain) + 3000
