"""Plausible English prose from faker, seeded per reply.

Sentences come from templates whose slots faker fills (people, places, companies, everyday
nouns and verbs), so replies read like an assistant talking, not like lorem ipsum. The only
source of variation is the ``random.Random`` handed in.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported on first use: faker is the slowest import on the start-up path
    from faker import Faker

__all__ = ["TextGenerator"]

Slot = Callable[["Faker"], str]

_SLOTS: dict[str, Slot] = {
    "name": lambda f: f.name(),
    "first": lambda f: f.first_name(),
    "city": lambda f: f.city(),
    "country": lambda f: f.country(),
    "company": lambda f: f.company(),
    "job": lambda f: f.job().split(",")[0].lower(),
    "bs": lambda f: f.bs(),
    "phrase": lambda f: f.catch_phrase().lower(),
    "noun": lambda f: f.word(part_of_speech="noun"),
    "noun2": lambda f: f.word(part_of_speech="noun"),
    "verb": lambda f: f.word(part_of_speech="verb"),
    "adj": lambda f: f.word(part_of_speech="adjective"),
    "month": lambda f: f.month_name(),
    "day": lambda f: f.day_of_week(),
    "num": lambda f: str(f.random_int(2, 40)),
}

_TEMPLATES: tuple[str, ...] = (
    "Here is a short overview of {topic}.",
    "The short answer is that it depends on the {noun} and the {noun2}.",
    "A good first step is to {bs}.",
    "Most teams I have seen {verb} the {noun} before anything else.",
    "{name} at {company} took a similar approach last {month}.",
    "In {city}, people usually {verb} the {noun} on {day}s.",
    "It helps to keep the {noun} {adj} and the {noun2} simple.",
    "You could also {bs}, which tends to pay off within {num} days.",
    "One {job} I spoke with put it well: start small and {verb} often.",
    "The {adj} part is usually the {noun}, not the {noun2}.",
    "That gives you {phrase} without much extra work.",
    "If that does not work, try to {verb} the {noun} first.",
    "{company} published a useful guide on this in {month}.",
    "Roughly {num} percent of the effort goes into the {noun}.",
    "I would check the {noun} carefully before you {verb} anything.",
    "Teams in {country} often {bs} to get there faster.",
    "In short, {first} was right: the {noun} matters most.",
    "Let me know if you want more detail on the {noun} or the {noun2}.",
)

_SLOT_RE = re.compile(r"\{(\w+)\}")
_TOPIC_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOPWORDS = frozenset(
    {
        "about",
        "what",
        "when",
        "where",
        "which",
        "would",
        "could",
        "should",
        "there",
        "their",
        "these",
        "those",
        "with",
        "from",
        "have",
        "this",
        "that",
        "your",
        "into",
        "please",
        "tell",
        "explain",
        "give",
        "write",
        "make",
        "just",
        "some",
        "more",
        "much",
        "very",
        "like",
    }
)


def topic_of(text: str) -> str:
    """A few content words of the user's message, to make the reply feel on-topic."""
    words = [w for w in _TOPIC_WORDS.findall(text) if w.lower() not in _STOPWORDS]
    return " ".join(words[:3]).lower() or "your question"


class TextGenerator:
    """Holds one Faker (expensive to build); every call re-seeds it from the caller's rng."""

    def __init__(self, locale: str = "en_US") -> None:
        self._locale = locale

    @cached_property
    def faker(self) -> Faker:
        from faker import Faker

        return Faker(self._locale)

    def seeded_faker(self, rng: random.Random) -> Faker:
        self.faker.seed_instance(rng.getrandbits(64))
        return self.faker

    def sentence(self, rng: random.Random, *, topic: str, template: str | None = None) -> str:
        faker = self.seeded_faker(rng)
        chosen = template if template is not None else rng.choice(_TEMPLATES)

        def fill(match: re.Match[str]) -> str:
            slot = match.group(1)
            return topic if slot == "topic" else _SLOTS[slot](faker)

        text = _SLOT_RE.sub(fill, chosen)
        return text[0].upper() + text[1:]

    def prose(self, rng: random.Random, *, topic_text: str, sentences: int) -> str:
        """``sentences`` sentences; no template repeats until every one has been used."""
        topic = topic_of(topic_text)
        order: list[str] = []
        while len(order) < sentences:
            order += rng.sample(_TEMPLATES, len(_TEMPLATES))
        return " ".join(self.sentence(rng, topic=topic, template=t) for t in order[:sentences])
