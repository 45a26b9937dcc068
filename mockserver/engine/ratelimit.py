"""Rate-limit arithmetic: per-namespace token buckets, and where they stand (a
:class:`~mockserver.render.errors.Standing`, which each family's shape writes as its own
headers: ``x-ratelimit-*``, ``anthropic-ratelimit-*``).

Budgets refill continuously (``limit`` per 60 s), on the namespace's clock, which a test can
advance (``POST /__mockserver/clock``) so that nothing has to sleep for real.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mockserver.errors import RateLimitError
from mockserver.render.errors import OPENAI, Shape, Standing, duration

__all__ = ["NOMINAL_RPM", "NOMINAL_TPM", "Bucket", "Budgets", "duration", "rate_limited"]

#: Budgets shown in the headers when none is configured (not enforced).
NOMINAL_RPM = 30_000
NOMINAL_TPM = 150_000_000


@dataclass(slots=True)
class Bucket:
    limit: int
    level: float
    updated: float
    #: ``limit`` as its header shows it (the headers go out with every answer).
    shown: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.shown = str(self.limit)

    @classmethod
    def full(cls, limit: int, now: float) -> Bucket:
        return cls(limit=limit, level=float(limit), updated=now)

    def refill(self, now: float) -> None:
        # ``min``/``max`` spelt as comparisons (the same values): this runs twice per request
        limit = self.limit
        elapsed = now - self.updated
        level = self.level + (elapsed * limit / 60 if elapsed > 0 else 0.0)
        self.level = level if level < limit else float(limit)
        self.updated = now

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` is available."""
        return max(0.0, (amount - self.level) * 60 / self.limit)

    def reset_in(self) -> float:
        """Seconds until the bucket is full again."""
        return self.wait_for(float(self.limit))


@dataclass(slots=True)
class Budgets:
    """A namespace's request and token buckets; ``enforced`` when a budget is configured."""

    requests: Bucket
    tokens: Bucket
    enforced: bool

    def as_json(self) -> list[object]:
        """As a shared store writes them: ``[[limit, level, updated] × 2, enforced]``."""
        buckets = [[b.limit, b.level, b.updated] for b in (self.requests, self.tokens)]
        return [*buckets, self.enforced]

    @classmethod
    def from_json(cls, value: Sequence[Any]) -> Budgets:
        """Back from :meth:`as_json` (as the store read it)."""
        (limit, level, updated), (t_limit, t_level, t_updated), enforced = value
        return cls(Bucket(limit, level, updated), Bucket(t_limit, t_level, t_updated), enforced)

    def standing(self) -> Standing:
        """Where the budgets stand now (as of their last refill)."""
        # ``Bucket.reset_in`` and ``max(0, floor(level))`` inline (the same values: a level
        # never passes its limit): this runs for every answer's headers
        requests, tokens = self.requests, self.tokens
        r_limit, r_level = requests.limit, requests.level
        t_limit, t_level = tokens.limit, tokens.level
        r_reset = (r_limit - r_level) * 60 / r_limit
        t_reset = (t_limit - t_level) * 60 / t_limit
        return Standing(
            r_limit,
            math.floor(r_level) if r_level > 0 else 0,
            r_reset if r_reset > 0 else 0.0,
            t_limit,
            math.floor(t_level) if t_level > 0 else 0,
            t_reset if t_reset > 0 else 0.0,
            requests.updated,
        )

    def headers(self, shape: Shape = OPENAI) -> dict[str, str]:
        """The rate-limit headers of a family's shape (OpenAI's ``x-ratelimit-*``)."""
        return shape.rate_headers(self.standing())

    def charge(self, *, tokens: int, now: float, model: str, shape: Shape = OPENAI) -> None:
        """Take one request and ``tokens``, or raise the real API's 429 (nothing taken; its
        rate-limit headers in ``shape``)."""
        self.requests.refill(now)
        self.tokens.refill(now)
        if self.enforced:
            for bucket, amount, what, unit in (
                (self.requests, 1, "requests per min (RPM)", "requests"),
                (self.tokens, tokens, "tokens per min (TPM)", "tokens"),
            ):
                if bucket.level < amount:
                    raise rate_limited(
                        bucket,
                        amount,
                        what=what,
                        unit=unit,
                        model=model,
                        headers=self.headers(shape),
                    )
        self.requests.level -= 1
        self.tokens.level -= tokens

    def spend(self, tokens: int) -> None:
        """Charge the tokens a reply produced (after the request was admitted)."""
        self.tokens.level = max(0.0, self.tokens.level - tokens)


def rate_limited(
    bucket: Bucket, amount: float, *, what: str, unit: str, model: str, headers: dict[str, str]
) -> RateLimitError:
    wait = bucket.wait_for(amount)
    used = bucket.limit - max(0, math.floor(bucket.level))
    if amount > bucket.limit:
        message = (
            f"Request too large for {model} in organization org-mockserver on {what}: "
            f"Limit {bucket.limit}, Requested {int(amount)}."
        )
        wait = 0.0
    else:
        message = (
            f"Rate limit reached for {model} in organization org-mockserver on {what}: "
            f"Limit {bucket.limit}, Used {used}, Requested {int(amount)}. "
            f"Please try again in {duration(wait)}."
        )
    error = RateLimitError(
        message,
        type=unit,
        code="rate_limit_exceeded",
        headers={
            **headers,
            "retry-after": str(max(1, math.ceil(wait))),
            "retry-after-ms": str(round(wait * 1000)),
        },
    )
    error.facts = {"rate_limit": bucket.limit, "rate_unit": unit}
    return error
