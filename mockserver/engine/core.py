"""What every API family shares: choose the reply for a prompt, allocate ids, journal.

The engine is the only place that combines the store, the clock, ids and the generator; it
knows nothing of HTTP (the routes adapt it), so everything here is testable without a server.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mockserver import ids
from mockserver.prompt import Prompt
from mockserver.reply.generate import Generator
from mockserver.reply.model import Reply
from mockserver.settings import Settings
from mockserver.store import JournalEntry, Store

__all__ = ["Engine", "Turn"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One decided reply: what to say and the numbers that identify this request."""

    reply: Reply
    #: Per-namespace request number (ids that must differ between identical requests).
    counter: int
    #: A seed for anything else derived from this turn (moderation scores, …).
    seed: int
    rule: str | None = None


class Engine:
    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.settings = settings
        self.clock = settings.make_clock()
        self.store = store or Store(
            journal_limit=settings.journal_limit, store_limit=settings.store_limit
        )
        self.generator = generator or Generator()
        #: Tracebacks of our own bugs, for the pytest plugin to fail the test with.
        self.internal_errors: list[str] = []

    def rng_for(self, prompt: Prompt, *, rule: str = "default") -> random.Random:
        """Content derives from seed + rule + normalised request, never from shared counters."""
        return ids.derive_rng(self.settings.seed, rule, prompt.fingerprint)

    def turn(self, prompt: Prompt, *, namespace: str) -> Turn:
        rng = self.rng_for(prompt)
        reply = self.generator.reply(prompt, rng=rng)
        with self.store.namespace(namespace) as space:
            counter = space.next_counter()
        return Turn(reply=reply, counter=counter, seed=rng.getrandbits(64))

    def now(self) -> int:
        return int(self.clock.now())

    def request_headers(self, namespace: str, turn: Turn) -> dict[str, str]:
        """The headers the real API puts on every answer."""
        return {
            "x-request-id": ids.hex_id("req_", self.settings.seed, namespace, turn.counter),
            "openai-processing-ms": str(120 + 9 * turn.reply.usage.completion_tokens),
            "openai-version": "2020-10-01",
            "openai-organization": "mockserver",
        }

    def record(self, namespace: str, entry: JournalEntry) -> None:
        with self.store.namespace(namespace) as space:
            space.record(entry)
