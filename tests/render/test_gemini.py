"""A Reply in the Gemini API's shape: whole and in chunks."""

from __future__ import annotations

from mockserver.render.gemini import GeminiMeta, count_tokens_body, gemini_response
from mockserver.render.gemini_stream import gemini_chunks
from mockserver.reply.model import Reply, Token, ToolCall, Usage


def tokens(*texts: str) -> tuple[Token, ...]:
    return tuple(Token(t) for t in texts)


META = GeminiMeta(response_id="r1", model_version="gemini-2.5-flash")


def test_a_tool_call_ends_with_stop_and_carries_a_signature() -> None:
    call = ToolCall("call_1", "get_weather", '{"city":"Paris"}')
    second = ToolCall("call_2", "get_time", "{}")
    reply = Reply(Usage(10, 8), tool_calls=(call, second), finish_reason="tool_calls")
    body = gemini_response([reply], META)
    candidate = body["candidates"][0]
    assert candidate["finishReason"] == "STOP"
    first, other = candidate["content"]["parts"]
    assert first["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert first["thoughtSignature"]
    assert "thoughtSignature" not in other


def test_usage_is_counted_so_far_on_every_chunk_and_only_the_last_finishes() -> None:
    reply = Reply(Usage(5, 3), text="one two three", tokens=tokens("one", " two", " three"))
    chunks = list(gemini_chunks([reply], META))
    assert len(chunks) >= 2
    reasons = ["finishReason" in c["candidates"][0] for c in chunks]
    assert reasons == [False] * (len(chunks) - 1) + [True]
    counts = [c["usageMetadata"].get("candidatesTokenCount", 0) for c in chunks]
    assert counts == sorted(counts)
    assert chunks[-1]["usageMetadata"] == gemini_response([reply], META)["usageMetadata"]


def test_vertex_adds_create_time_before_the_response_id() -> None:
    vertex = GeminiMeta(
        response_id="r1", model_version="m", create_time="2026-01-01T00:00:00.000000Z"
    )
    body = gemini_response([Reply(Usage(1, 1), text="x")], vertex)
    assert list(body) == ["candidates", "usageMetadata", "modelVersion", "createTime", "responseId"]


def test_count_tokens_says_the_prompts_tokens_by_modality_text_first() -> None:
    assert count_tokens_body(12)["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": 12}]
    assert count_tokens_body(270, images=258)["promptTokensDetails"] == [
        {"modality": "TEXT", "tokenCount": 12},
        {"modality": "IMAGE", "tokenCount": 258},
    ]
