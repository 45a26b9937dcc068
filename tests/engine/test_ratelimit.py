"""Rate-limit arithmetic on a virtual clock: nothing sleeps."""

from __future__ import annotations

import pytest

from mockserver.engine.core import Engine
from mockserver.engine.ratelimit import Bucket, Budgets, duration
from mockserver.errors import RateLimitError
from mockserver.render.errors import SHAPES
from mockserver.settings import Settings


def budgets(rpm: int = 3, tpm: int = 1000, *, enforced: bool = True) -> Budgets:
    return Budgets(Bucket.full(rpm, 0.0), Bucket.full(tpm, 0.0), enforced)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.12, "120ms"),
        (0.0, "0ms"),
        (-0.2, "0ms"),
        (0.0004, "0ms"),
        (0.9996, "1000ms"),
        (0.9994, "999ms"),
        (1.5, "1.5s"),
        (2, "2s"),
        (60, "1m0s"),
        (360, "6m0s"),
        (83.25, "1m23.25s"),
        (3723, "1h2m3s"),
    ],
)
def test_reset_durations_use_the_real_format(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_headers_count_down_and_refill() -> None:
    b = budgets()
    b.charge(tokens=100, now=0.0, model="m")
    assert b.headers() == {
        "x-ratelimit-limit-requests": "3",
        "x-ratelimit-limit-tokens": "1000",
        "x-ratelimit-remaining-requests": "2",
        "x-ratelimit-remaining-tokens": "900",
        "x-ratelimit-reset-requests": "20s",
        "x-ratelimit-reset-tokens": "6s",
    }
    b.charge(tokens=0, now=10.0, model="m")  # 10 s refill half a request
    assert b.headers()["x-ratelimit-remaining-requests"] == "1"
    assert b.headers()["x-ratelimit-reset-requests"] == "30s"


def test_exceeding_requests_gives_a_429_with_retry_after() -> None:
    b = budgets()
    for _ in range(3):
        b.charge(tokens=1, now=0.0, model="gpt-4o")
    with pytest.raises(RateLimitError) as info:
        b.charge(tokens=1, now=0.0, model="gpt-4o")
    error = info.value
    assert error.status == 429
    assert (error.type, error.code) == ("requests", "rate_limit_exceeded")
    assert error.message == (
        "Rate limit reached for gpt-4o in organization org-mockserver on requests per min "
        "(RPM): Limit 3, Used 3, Requested 1. Please try again in 20s."
    )
    assert error.headers["retry-after"] == "20"
    assert error.headers["retry-after-ms"] == "20000"
    b.charge(tokens=1, now=20.0, model="gpt-4o")  # after Retry-After, it goes through


def test_tokens_budget_is_enforced_too() -> None:
    b = budgets(rpm=100, tpm=50)
    b.charge(tokens=40, now=0.0, model="m")
    with pytest.raises(RateLimitError) as info:
        b.charge(tokens=20, now=0.0, model="m")
    assert info.value.type == "tokens"
    assert info.value.headers["retry-after"] == "12"  # 10 tokens at 50/min


def test_a_request_larger_than_the_budget_says_so() -> None:
    with pytest.raises(RateLimitError, match="Request too large for m"):
        budgets(tpm=10).charge(tokens=11, now=0.0, model="m")


def test_unenforced_budgets_only_report() -> None:
    b = budgets(rpm=1, enforced=False)
    for _ in range(5):
        b.charge(tokens=1, now=0.0, model="m")
    assert b.headers()["x-ratelimit-remaining-requests"] == "0"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_recipes_header_writer_writes_what_replay_headers_writes(shape: str) -> None:
    engine = Engine(Settings(clock="frozen", seed=4))
    budgets = Budgets(Bucket.full(60, 0.0), Bucket.full(1000, 0.0), enforced=False)
    budgets.charge(tokens=12, now=0.5, model="m")
    standing = budgets.standing()
    written = engine.replay_headers_for("sk-a", 17, shape=shape)
    for counter in (1, 2, 40):
        assert written(counter, standing) == engine.replay_headers(
            "sk-a", counter, 17, standing, shape=shape
        )
