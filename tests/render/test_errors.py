"""Each family's shape: one error in OpenAI's words, written as each API answers it — its
status, type, message, body and headers — and the rate-limit headers of one standing."""

from __future__ import annotations

import orjson
import pytest

from mockserver.errors import APIError, InvalidRequestError, RateLimitError
from mockserver.faults import error_for
from mockserver.render.errors import ANTHROPIC, BEDROCK, GOOGLE, OPENAI, SHAPES, Standing
from mockserver.scenario.behaviour import ErrorSpec
from mockserver.wire.json_body import parse_json_body

STANDING = Standing(50, 49, 1.2, 40000, 39000, 1.5, 1_767_225_600.0)


def test_every_family_shape_has_a_writer() -> None:
    from mockserver.families import FAMILIES

    assert {family.errors for family in FAMILIES} <= set(SHAPES)


@pytest.mark.parametrize(
    ("preset", "status", "kind", "message"),
    [
        ("rate_limited", 429, "rate_limit_error", "This request would exceed your organization's"),
        ("overloaded", 529, "overloaded_error", "Overloaded"),
        ("server_error", 500, "api_error", "Internal server error"),
        ("invalid_api_key", 401, "authentication_error", "invalid x-api-key"),
        ("permission_denied", 403, "permission_error", "Your API key does not have permission"),
        ("model_not_found", 404, "not_found_error", "model: claude-x"),
        ("gateway_timeout", 504, "timeout_error", "Request timed out"),
        ("insufficient_quota", 400, "invalid_request_error", "Your credit balance is too low"),
        ("bad_request", 400, "invalid_request_error", "Bad request."),
        ("conflict", 409, "invalid_request_error", "The request conflicts"),
        ("bad_gateway", 502, "api_error", "Bad gateway."),
    ],
)
def test_a_preset_is_said_as_anthropics_api_says_it(
    preset: str, status: int, kind: str, message: str
) -> None:
    error = error_for(ErrorSpec.model_validate({"preset": preset}))
    error.facts["model"] = "claude-x"
    answer = ANTHROPIC.error(error, request_id="req_011Cabc")
    assert answer.status == status
    assert answer.body["type"] == "error"
    assert answer.body["error"]["type"] == kind
    assert answer.body["error"]["message"].startswith(message)
    assert answer.body["request_id"] == "req_011Cabc"
    assert answer.content == orjson.dumps(answer.body)  # compact, as the API writes it
    assert answer.headers["request-id"] == "req_011Cabc"
    retried = status in (408, 409, 429) or status >= 500
    assert answer.headers["x-should-retry"] == ("true" if retried else "false")


def test_what_the_scenario_says_wins_over_the_preset() -> None:
    spec = ErrorSpec(preset="overloaded", status=503, message="Busy, try later.")
    answer = ANTHROPIC.error(error_for(spec), request_id=None)
    assert answer.status == 503
    assert answer.body["error"] == {"type": "api_error", "message": "Busy, try later."}
    named = ANTHROPIC.error(
        error_for(ErrorSpec(status=500, type="overloaded_error")), request_id=None
    )
    assert named.body["error"]["type"] == "overloaded_error"


def test_a_429_keeps_retry_after_in_whole_seconds_only() -> None:
    answer = ANTHROPIC.error(
        error_for(ErrorSpec(preset="rate_limited", retry_after=2.5)), request_id="r"
    )
    assert answer.headers["retry-after"] == "3"
    assert "retry-after-ms" not in answer.headers


def test_the_rate_limit_arithmetic_says_its_numbers() -> None:
    error = RateLimitError("Rate limit reached…", type="requests", code="rate_limit_exceeded")
    error.facts = {"rate_limit": 50000, "rate_unit": "tokens"}
    message = ANTHROPIC.error(error, request_id="r").body["error"]["message"]
    assert message.startswith(
        "This request would exceed the rate limit for your organization (mockserver) of 50,000 "
        "tokens per minute."
    )


def test_a_body_that_is_not_json_is_quoted_from_the_parser() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_json_body(b"{bad")
    answer = ANTHROPIC.error(caught.value, request_id="r")
    assert answer.body["error"]["message"] == (
        "The request body is not valid JSON: unexpected character, expected a string key: "
        "line 1 column 2 (char 1)"
    )
    assert OPENAI.error(caught.value, request_id=None).body == caught.value.body()


@pytest.mark.parametrize(
    ("raw", "google"),
    [
        (b"{bad", "Invalid JSON payload received. Unexpected token."),
        (b"{", "Invalid JSON payload received. Unexpected end of string."),
        (b"", "Invalid JSON payload received. Unexpected end of string."),
    ],
)
def test_a_body_that_is_not_json_is_in_googles_and_bedrocks_words(raw: bytes, google: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_json_body(raw)
    answer = GOOGLE.error(caught.value, request_id=None)
    assert (answer.status, answer.body["error"]["message"]) == (400, google)
    assert answer.body["error"]["status"] == "INVALID_ARGUMENT"
    refused = BEDROCK.error(caught.value, request_id="r")
    assert (refused.status, refused.body) == (
        400,
        {"message": "Malformed input request, please reformat your input and try again."},
    )
    assert refused.headers["x-amzn-errortype"].startswith("ValidationException:")


def test_openais_shape_is_the_errors_own_body_indented() -> None:
    error = APIError("Nope.", status=418, type="invalid_request_error", code="teapot")
    answer = OPENAI.error(error, request_id="req_1")
    assert answer.body == {
        "error": {
            "message": "Nope.",
            "type": "invalid_request_error",
            "param": None,
            "code": "teapot",
        }
    }
    assert answer.content.startswith(b'{\n  "error"')
    assert answer.headers["x-request-id"] == "req_1"


def test_one_standing_in_each_familys_rate_limit_headers() -> None:
    assert OPENAI.rate_headers(STANDING) == {
        "x-ratelimit-limit-requests": "50",
        "x-ratelimit-limit-tokens": "40000",
        "x-ratelimit-remaining-requests": "49",
        "x-ratelimit-remaining-tokens": "39000",
        "x-ratelimit-reset-requests": "1.2s",
        "x-ratelimit-reset-tokens": "1.5s",
    }
    headers = ANTHROPIC.rate_headers(STANDING)
    assert headers["anthropic-ratelimit-requests-limit"] == "50"
    assert headers["anthropic-ratelimit-requests-remaining"] == "49"
    assert headers["anthropic-ratelimit-requests-reset"] == "2026-01-01T00:00:02Z"
    for kind in ("tokens", "input-tokens", "output-tokens"):
        assert headers[f"anthropic-ratelimit-{kind}-limit"] == "40000"
        assert headers[f"anthropic-ratelimit-{kind}-remaining"] == "39000"
        assert headers[f"anthropic-ratelimit-{kind}-reset"] == "2026-01-01T00:00:02Z"
    assert len(headers) == 12


def test_request_ids_are_each_familys_own_and_numbered() -> None:
    assert OPENAI.request_id(1, "ns", 3, journal=False).startswith("req_")
    anthropic_id = ANTHROPIC.request_id(1, "ns", 3, journal=False)
    assert anthropic_id.startswith("req_011C")
    assert len(anthropic_id) == len("req_011CZLkWqu2dABS8vFB9G6Lz")
    assert anthropic_id == ANTHROPIC.request_id(1, "ns", 3, journal=False)
    assert anthropic_id != ANTHROPIC.request_id(1, "ns", 3, journal=True)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_shapes_request_ids_by_number_are_its_request_ids(name: str) -> None:
    shape = SHAPES[name]
    numbered = shape.request_ids(7, "sk-ns")
    for number in (1, 2, 10**9):
        assert numbered(number) == shape.request_id(7, "sk-ns", number, journal=False)


def test_unknown_routes_are_each_apis_own_words() -> None:
    assert OPENAI.unknown_route("GET /v1/x", status=404).message == "Invalid URL (GET /v1/x)"
    missing = ANTHROPIC.error(ANTHROPIC.unknown_route("GET /v1/x", status=404), request_id="r")
    assert (missing.status, missing.body["error"]) == (
        404,
        {"type": "not_found_error", "message": "Not Found"},
    )


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_answer_headers_at_a_standing_are_the_answer_headers_with_its_rate_limits(
    name: str,
) -> None:
    shape = SHAPES[name]
    at = shape.answer_headers_at("req_abc", processing_ms=300, standing=STANDING)
    composed = shape.answer_headers(
        "req_abc", processing_ms=300, limits=shape.rate_headers(STANDING)
    )
    assert composed or name == "ollama"  # (Ollama sends no headers of its own)
    assert list(at.items()) == list(composed.items())  # the same headers, in the same order
