"""OpenAI's answers in Azure OpenAI's shape: sorted keys, the content filter's results."""

from __future__ import annotations

import random

from mockserver.errors import RateLimitError
from mockserver.render.azure import (
    RATE_LIMITED,
    AzureFilters,
    azure_body,
    azure_chunks,
    azure_headers,
    content_filter_results,
    filter_error_body,
    prompt_filter_results,
)
from mockserver.render.errors import AZURE, Standing
from mockserver.reply.moderation import moderate

SAFE = moderate(random.Random(1))


def _filters() -> AzureFilters:
    return AzureFilters(prompt_filter_results(SAFE), content_filter_results(SAFE))


def test_unflagged_content_is_safe_in_each_of_azures_categories() -> None:
    results = content_filter_results(SAFE)
    assert list(results) == ["hate", "self_harm", "sexual", "violence"]
    assert all(v == {"filtered": False, "severity": "safe"} for v in results.values())


def test_a_flagged_openai_category_filters_its_azure_category() -> None:
    verdict = moderate(random.Random(2), flagged=["harassment", "self-harm/intent"])
    results = content_filter_results(verdict)
    assert results["hate"]["filtered"] is True
    assert results["hate"]["severity"] in ("medium", "high")
    assert results["self_harm"]["filtered"] is True
    assert results["violence"] == {"filtered": False, "severity": "safe"}


def test_a_failed_filter_says_the_contents_are_not_filtered() -> None:
    assert content_filter_results(None) == {
        "error": {"code": "content_filter_error", "message": "The contents are not filtered"}
    }


def test_the_prompts_results_add_the_jailbreak_shield_in_azures_order() -> None:
    (entry,) = prompt_filter_results(SAFE)
    assert list(entry) == ["prompt_index", "content_filter_results"]
    results = entry["content_filter_results"]
    assert list(results) == ["hate", "jailbreak", "self_harm", "sexual", "violence"]
    assert list(results["jailbreak"]) == ["filtered", "detected"]


def test_a_blocked_prompts_error_carries_the_responsible_ai_innererror() -> None:
    verdict = moderate(random.Random(3), flagged=["violence"])
    extra = filter_error_body(verdict)
    assert extra["type"] is None
    assert extra["status"] == 400
    assert extra["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    assert extra["innererror"]["content_filter_result"]["violence"]["filtered"] is True


def test_a_completion_is_sorted_without_openai_only_keys() -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "d",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
        "usage": {"total_tokens": 2, "prompt_tokens": 1, "completion_tokens": 1},
        "service_tier": "default",
        "system_fingerprint": "fp_1",
    }
    answer = azure_body(body, _filters())
    assert list(answer) == [
        "choices",
        "created",
        "id",
        "model",
        "object",
        "prompt_filter_results",
        "system_fingerprint",
        "usage",
    ]
    (choice,) = answer["choices"]
    assert list(choice) == ["content_filter_results", "index", "message"]
    assert list(choice["message"]) == ["content", "role"]
    assert list(answer["usage"]) == ["completion_tokens", "prompt_tokens", "total_tokens"]


def test_a_stream_opens_with_the_prompts_results_and_marks_only_text_chunks() -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "d",
            "service_tier": "default",
            "system_fingerprint": "fp",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            "obfuscation": "xyz",
        }

    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hi"}),
        chunk({}, "stop"),
    ]
    first, *rest = list(azure_chunks(chunks, _filters()))
    assert first == {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": prompt_filter_results(SAFE),
    }
    assert [c["choices"][0]["content_filter_results"] for c in rest] == [
        {},
        content_filter_results(SAFE),
        {},
    ]
    assert all("obfuscation" not in c and "service_tier" not in c for c in rest)
    assert list(rest[1]) == ["choices", "created", "id", "model", "object", "system_fingerprint"]


def test_headers_are_the_gateways_with_the_rate_limits() -> None:
    headers = AZURE.answer_headers(
        AZURE.request_id(0, "ns", 1, journal=False),
        processing_ms=10,
        limits=AZURE.rate_headers(Standing(10, 9, 6.0, 1000, 990, 0.5, 0.0)),
    )
    headers = azure_headers(headers, deployment="my-gpt")
    assert "openai-version" not in headers
    assert headers["x-ms-deployment-name"] == "my-gpt"
    assert headers["x-ratelimit-remaining-tokens"] == "990"
    assert not any(k.startswith("x-ratelimit-reset-") for k in headers)
    assert len(headers["apim-request-id"]) == len(headers["x-request-id"]) == 36
    assert headers["apim-request-id"] != headers["x-request-id"]


def test_a_429_is_the_gateways_with_both_retry_headers() -> None:
    error = RateLimitError(
        "Rate limit reached.", headers={"retry-after": "2", "retry-after-ms": "1500"}
    )
    error.facts["model"] = "my-gpt"
    answer = AZURE.error(error, request_id=AZURE.request_id(0, "ns", 1, journal=True))
    assert answer.status == 429
    assert answer.body == {
        "error": {"code": "429", "message": RATE_LIMITED.format(model="my-gpt", seconds="2")}
    }
    assert (answer.headers["retry-after"], answer.headers["retry-after-ms"]) == ("2", "1500")
    assert len(answer.headers["apim-request-id"]) == 36
    assert b"\n" not in answer.content  # compact, as the gateway writes


def test_an_unknown_route_is_the_gateways_404() -> None:
    error = AZURE.unknown_route("GET /openai/nowhere", status=404)
    assert AZURE.error(error, request_id=None).body == {
        "error": {"code": "404", "message": "Resource not found"}
    }
