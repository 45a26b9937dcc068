"""Moderated completions and /v1/moderations, driven by scenario flags."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletion

SCENARIO = {
    "scenario": {
        "name": "moderated",
        "rules": [
            {
                "id": "violent",
                "when": {"last_user": {"contains": "fight"}},
                "reply": {"text": "Here is how to fight.", "moderation": {"input": ["violence"]}},
            },
            {
                "id": "rude-answer",
                "when": {"last_user": {"contains": "roast"}},
                "reply": {"text": "You are terrible.", "moderation": {"output": ["harassment"]}},
            },
            {
                "id": "broken",
                "when": {"last_user": {"contains": "broken"}},
                "reply": {"text": "fine", "moderation": {"error": "output"}},
            },
        ],
    }
}


@pytest.fixture(autouse=True)
def _moderated(control: httpx.Client) -> None:
    assert control.put("/scenario", json=SCENARIO).status_code == 200


def ask(client: openai.OpenAI, text: str, mode: str = "block", **kw: Any) -> dict[str, Any]:
    body = client.chat.completions.with_raw_response.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": text}],
        extra_body={
            "moderation": {
                "model": "omni-moderation-latest",
                "policy": {"input": {"mode": mode}, "output": {"mode": mode}},
            }
        },
        **kw,
    )
    data: dict[str, Any] = body.http_response.json()
    ChatCompletion.model_validate(data)
    return data


def test_unflagged_requests_carry_low_scores(client: openai.OpenAI) -> None:
    data = ask(client, "hello")
    moderation = data["moderation"]
    assert moderation["input"]["type"] == "moderation_results"
    result = moderation["input"]["results"][0]
    assert result["flagged"] is False
    assert max(result["category_scores"].values()) < 0.01
    assert data["choices"][0]["finish_reason"] == "stop"


def test_blocked_input_withholds_the_reply(client: openai.OpenAI) -> None:
    data = ask(client, "teach me to fight")
    choice = data["choices"][0]
    assert choice["finish_reason"] == "content_filter"
    assert choice["message"]["content"] is None
    assert data["usage"]["completion_tokens"] == 0
    result = data["moderation"]["input"]["results"][0]
    assert result["flagged"] is True
    assert result["categories"]["violence"] is True


def test_score_mode_lets_the_reply_through_with_scores(client: openai.OpenAI) -> None:
    data = ask(client, "teach me to fight", mode="score")
    assert data["choices"][0]["message"]["content"] == "Here is how to fight."
    assert data["moderation"]["input"]["results"][0]["category_scores"]["violence"] > 0.8


def test_blocked_output_in_a_stream(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": "roast me"}],
        stream=True,
        extra_body={"moderation": {"model": "m", "policy": {"output": {"mode": "block"}}}},
    )
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == ""
    assert chunks[-1].choices[0].finish_reason == "content_filter"


def test_moderation_errors_are_reported_per_side(client: openai.OpenAI) -> None:
    moderation = ask(client, "broken")["moderation"]
    assert moderation["output"] == {
        "type": "error",
        "code": "moderation_unavailable",
        "message": "Moderation of the output could not be completed. Please try again.",
    }


def test_moderations_endpoint_uses_the_same_rules(client: openai.OpenAI) -> None:
    result = client.moderations.create(
        input=["hello", "let's fight"], model="omni-moderation-latest"
    )
    assert [r.flagged for r in result.results] == [False, True]
    assert result.results[1].categories.violence is True
    assert result.id.startswith("modr-")


def test_responses_api_maps_a_block_to_an_incomplete_response(client: openai.OpenAI) -> None:
    response = client.responses.create(
        model="gpt-4o",
        input="teach me to fight",
        extra_body={
            "moderation": {
                "model": "omni-moderation-latest",
                "policy": {"input": {"mode": "block"}},
            }
        },
    )
    assert response.status == "incomplete"
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "content_filter"
    assert response.output_text == ""
    assert response.moderation is not None
    assert response.moderation.input.type == "moderation_result"
    assert response.moderation.input.categories["violence"] is True


def test_an_image_is_judged_by_the_categories_that_take_images(client: openai.OpenAI) -> None:
    image: Any = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    text: Any = {"type": "text", "text": "Is this fine?"}
    [both] = client.moderations.create(model="omni-moderation-latest", input=[text, image]).results
    applied = both.category_applied_input_types.model_dump(by_alias=True)
    assert applied["violence"] == ["text", "image"]
    assert applied["sexual"] == ["text", "image"]
    assert applied["harassment"] == ["text"]
    [alone] = client.moderations.create(model="omni-moderation-latest", input=[image]).results
    applied = alone.category_applied_input_types.model_dump(by_alias=True)
    assert (applied["self-harm/intent"], applied["hate"]) == (["image"], [])
    [words] = client.moderations.create(input="Is this fine?").results
    assert all(
        kinds == ["text"]
        for kinds in words.category_applied_input_types.model_dump(by_alias=True).values()
    )
