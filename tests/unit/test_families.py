"""The family table: exact paths are one dict lookup, templated ones are matched segment-wise."""

from __future__ import annotations

import pytest

from mockserver.families import (
    FAMILIES,
    by_api,
    errors_at,
    errors_of,
    family_at,
    turn_families,
)


def test_an_exact_path_is_its_own_providers_row() -> None:
    row = family_at("POST", "/v1/chat/completions")
    assert row is not None
    assert (row.api, row.provider, row.templated) == ("chat", "openai", False)


def test_a_deployment_path_is_azures_row_of_the_same_api() -> None:
    row = family_at("post", "/openai/deployments/my-gpt/chat/completions")
    assert row is not None
    assert (row.api, row.provider, row.query) == ("chat", "azure", "api-version")
    assert row.endpoint == by_api("chat").endpoint  # OpenAI's endpoint serves it
    path = "/openai/deployments/my-gpt/chat/completions"
    assert row.parameters(path) == {"deployment": "my-gpt"}


@pytest.mark.parametrize(
    "path",
    [
        "/openai/deployments//chat/completions",  # an empty deployment
        "/openai/deployments/a/b/chat/completions",  # a placeholder is one segment
        "/openai/deployments/a/chat/completions/extra",
        "/v1/chat/completions/",
    ],
)
def test_a_path_that_fits_no_row_is_no_family(path: str) -> None:
    assert family_at("POST", path) is None


def test_only_posts_are_family_requests() -> None:
    assert family_at("GET", "/v1/chat/completions") is None
    assert family_at("GET", "/openai/deployments/d/embeddings") is None


def test_an_apis_first_row_is_its_own_providers() -> None:
    for row in FAMILIES:
        assert by_api(row.api).provider != "azure"
        assert not by_api(row.api).templated or by_api(row.api).provider in ("google", "aws")


def test_a_bedrock_path_names_its_model_whatever_it_holds() -> None:
    for model in (
        "anthropic.claude-3-5-haiku-20241022-v1:0",
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-v1:0",
    ):
        for operation, api, streams in (
            ("converse", "converse", False),
            ("converse-stream", "converse", True),
            ("invoke", "invoke", False),
            ("invoke-with-response-stream", "invoke", True),
        ):
            path = f"/model/{model}/{operation}"
            row = family_at("POST", path)
            assert row is not None
            assert (row.api, row.streams, row.errors) == (api, streams, "bedrock")
            assert row.parameters(path) == {"model": model}
    assert family_at("POST", "/model/x/unknown") is None
    assert errors_at("/model/x/unknown") == "bedrock"


def test_the_lane_takes_every_turns_path_but_azures() -> None:
    laned = {row.path for row in turn_families() if row.laned}
    assert {row.path for row in turn_families()} - laned == {
        row.path for row in FAMILIES if row.provider == "azure" and row.turn
    }
    assert {
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/completions",
        "/v1/messages",
        "/v1beta/models/{model}:generateContent",
        "/v1beta/models/{model}:streamGenerateContent",
        "/model/{model+}/converse",
        "/model/{model+}/converse-stream",
        "/model/{model+}/invoke",
        "/model/{model+}/invoke-with-response-stream",
        "/api/chat",
        "/api/generate",
    } <= laned


def test_azure_v1_paths_need_no_api_version() -> None:
    for path in ("/openai/v1/chat/completions", "/openai/v1/responses", "/openai/v1/embeddings"):
        row = family_at("POST", path)
        assert row is not None
        assert (row.provider, row.query, row.templated) == ("azure", None, False)


def test_azure_answers_are_written_in_azures_shape() -> None:
    assert {row.errors for row in FAMILIES if row.provider == "azure"} == {"azure"}
    assert errors_at("/openai/v1/models") == "azure"
    assert errors_at("/openai/deployments/d/chat/completions") == "azure"
    assert errors_of("chat", "azure") == "azure"
    assert errors_of("chat", "openai") == "openai"
    assert errors_of("messages", "anthropic") == "anthropic"
