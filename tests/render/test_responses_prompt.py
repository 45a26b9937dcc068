"""Responses items → the neutral Prompt the renderer's replies are generated from."""

from __future__ import annotations

from typing import Any

from mockserver.ids import derive_rng
from mockserver.prompt.responses import (
    input_items,
    messages_from_items,
    open_compaction,
    prompt_from_responses,
    seal_compaction,
)
from mockserver.reply.generate import Generator, count_prompt_tokens

TOOLS = [
    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}},
    {"type": "custom", "name": "run_sql"},
    {"type": "web_search"},
]


def _prompt(body: dict[str, Any], items: list[dict[str, Any]] | None = None) -> Any:
    request = {"model": "gpt-4o-mini", **body}
    return prompt_from_responses(request, items=items or input_items(request), headers={})


def test_string_input_is_one_user_message() -> None:
    prompt = _prompt({"input": "Hello"})
    assert [(m.role, m.text) for m in prompt.messages] == [("user", "Hello")]
    assert prompt.api == "responses"


def test_calls_and_outputs_map_onto_assistant_tool_calls_and_tool_results() -> None:
    messages = messages_from_items(
        [
            {"type": "message", "role": "user", "content": "weather?"},
            {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "21C"},
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [{"type": "input_text", "text": "19C"}],
            },
        ]
    )
    assert [m.role for m in messages] == ["user", "assistant", "tool", "tool"]
    assert [c.call_id for c in messages[1].tool_calls] == ["c1", "c2"]
    assert (messages[2].tool_call_id, messages[2].text) == ("c1", "21C")
    assert messages[3].text == "19C"


def test_hosted_calls_and_outputs_are_visible_too() -> None:
    messages = messages_from_items(
        [
            {"type": "shell_call", "call_id": "s1", "action": {"commands": ["ls"]}},
            {
                "type": "shell_call_output",
                "call_id": "s1",
                "output": [{"stdout": "a.txt", "stderr": "", "outcome": {"type": "exit"}}],
            },
            {"type": "mcp_call", "id": "m", "server_label": "d", "name": "n", "output": "found"},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]},
            {"type": "web_search_call", "id": "ws", "status": "completed", "action": {}},
        ]
    )
    assert [(m.role, m.text) for m in messages] == [
        ("assistant", ""),
        ("tool", "a.txt"),
        ("assistant", "found"),
        ("assistant", "thinking"),
    ]
    assert messages[0].tool_calls[0].name == "shell"


def test_compaction_items_reopen_to_what_they_compacted() -> None:
    sealed = seal_compaction(["we planned a trip", "to Lisbon"])
    assert sealed.startswith("gAAAAAB")
    assert open_compaction(sealed) == "we planned a trip\nto Lisbon"
    assert open_compaction("gAAAAABnot-ours") == ""
    messages = messages_from_items([{"type": "compaction", "encrypted_content": sealed}])
    assert messages[0].role == "developer"


def test_tools_tool_choice_format_and_reasoning_come_from_the_request() -> None:
    prompt = _prompt(
        {
            "input": "x",
            "tools": TOOLS,
            "tool_choice": {"type": "function", "name": "get_weather"},
            "text": {"format": {"type": "json_schema", "name": "n", "schema": {"type": "object"}}},
            "reasoning": {"summary": "auto"},
            "include": ["message.output_text.logprobs"],
            "top_logprobs": 3,
        }
    )
    assert [(t.name, t.kind) for t in prompt.tools] == [
        ("get_weather", "function"),
        ("run_sql", "custom"),
    ]
    assert prompt.tool_choice.mode == "required"
    assert prompt.tool_choice.allowed == ("get_weather",)
    assert prompt.output_format.type == "json_schema"
    assert (prompt.reasoning_effort, prompt.reasoning_summary) == ("medium", "auto")
    assert prompt.logprobs is True
    assert prompt.top_logprobs == 3


def test_forcing_a_hosted_tool_calls_no_function() -> None:
    prompt = _prompt({"input": "x", "tools": TOOLS, "tool_choice": {"type": "web_search_preview"}})
    reply = Generator().reply(prompt, rng=derive_rng("t"))
    assert reply.tool_calls == ()
    assert reply.text


def test_instructions_count_as_input_tokens() -> None:
    plain = _prompt({"input": "Hello"})
    instructed = _prompt({"input": "Hello", "instructions": "Answer in French, briefly."})
    assert count_prompt_tokens(instructed) > count_prompt_tokens(plain)


def test_content_derives_from_the_resolved_conversation_not_from_stored_ids() -> None:
    items = [{"type": "message", "role": "user", "content": "Hello"}]
    chained = _prompt({"previous_response_id": "resp_a", "input": "x"}, items)
    other = _prompt({"previous_response_id": "resp_b", "input": "y"}, items)
    assert chained.fingerprint == other.fingerprint
    assert chained.fingerprint != _prompt({"input": "Hello", "instructions": "x"}).fingerprint
