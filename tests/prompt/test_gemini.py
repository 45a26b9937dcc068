"""A Gemini request's neutral view: its conversation, its schema as JSON Schema, its thinking."""

from __future__ import annotations

import pytest

from mockserver.prompt.gemini import effort_of, json_schema, prompt_from_gemini


def test_openapi_schema_becomes_json_schema() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": "3"},
            "note": {"type": "STRING", "nullable": True},
            "unit": {"type": "STRING", "format": "enum", "enum": ["c", "f"]},
        },
        "required": ["tags"],
        "propertyOrdering": ["tags", "note"],
    }
    assert json_schema(schema) == {
        "type": "object",
        "required": ["tags"],
        "properties": {
            "tags": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
            "note": {"type": ["string", "null"]},
            "unit": {"type": "string", "format": "enum", "enum": ["c", "f"]},
        },
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("model", "thinking", "effort"),
    [
        ("gemini-2.0-flash", {}, None),
        ("gemini-2.5-flash-lite", {}, None),
        ("gemini-2.5-flash", {}, "medium"),
        ("gemini-3-pro-preview", {}, "high"),
        ("gemini-2.5-flash", {"thinkingBudget": 0}, None),
        ("gemini-2.5-flash", {"thinkingBudget": 512}, "low"),
        ("gemini-3-pro-preview", {"thinkingLevel": "LOW"}, "low"),
    ],
)
def test_thinking_follows_the_model_and_the_config(
    model: str, thinking: dict[str, object], effort: str | None
) -> None:
    assert effort_of(model, thinking) == effort


def test_contents_become_messages_with_calls_and_results() -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {
                "role": "model",
                "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 21}}}],
            },
        ],
        "toolConfig": {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
        },
    }
    prompt = prompt_from_gemini(body, headers={}, model="gemini-2.5-flash", stream=True)
    assert [m.role for m in prompt.messages] == ["system", "user", "assistant", "tool"]
    assert prompt.messages[2].tool_calls[0].arguments == '{"city":"Paris"}'
    assert prompt.tool_results() == (("get_weather", '{"t":21}'),)
    assert (prompt.tool_choice.mode, prompt.tool_choice.allowed) == ("required", ("get_weather",))
    assert prompt.api == "gemini"
    assert prompt.stream is True
