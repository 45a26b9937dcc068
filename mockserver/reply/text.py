"""Plausible English prose, seeded per reply.

Sentences come from templates whose slots are filled from word lists (people, places,
companies, everyday nouns and verbs, see :mod:`mockserver.reply.vocabulary`), so replies read
like an assistant talking, not like lorem ipsum. The only source of variation is the
``random.Random`` handed in, and every draw is one ``rng.random()`` call: cheap, and the same
sequence on every platform and process.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from mockserver.reply import vocabulary as v

__all__ = ["TextGenerator", "compile_template", "topic_of"]

Slot = Callable[[random.Random], str]
#: A template as a ``str.format`` pattern with one ``{}`` per slot, and its slots in order
#: (``None`` is the topic).
Compiled = tuple[str, tuple[Slot | None, ...]]


def _pick(rng: random.Random, words: Sequence[str]) -> str:
    """One of ``words``, uniformly (one ``rng.random()``: cheaper than ``rng.choice``)."""
    return words[int(rng.random() * len(words))]


def _city(rng: random.Random) -> str:
    """faker's four shapes of a city: North Kimton, North Kim, Kimton, Smithton."""
    form = int(rng.random() * 4)
    if form < 2:
        prefix, first = _pick(rng, v.CITY_PREFIXES), _pick(rng, v.FIRST_NAMES)
        return f"{prefix} {first}{_pick(rng, v.CITY_SUFFIXES) if form == 0 else ''}"
    name = _pick(rng, v.FIRST_NAMES if form == 2 else v.LAST_NAMES)
    return name + _pick(rng, v.CITY_SUFFIXES)


def _company(rng: random.Random) -> str:
    """faker's three shapes of a company: Smith Ltd, Smith-Jones, Smith, Jones and Lee."""
    form = int(rng.random() * 3)
    last = _pick(rng, v.LAST_NAMES)
    if form == 0:
        return f"{last} {_pick(rng, v.COMPANY_SUFFIXES)}"
    if form == 1:
        return f"{last}-{_pick(rng, v.LAST_NAMES)}"
    return f"{last}, {_pick(rng, v.LAST_NAMES)} and {_pick(rng, v.LAST_NAMES)}"


def _word(words: tuple[str, ...]) -> Slot:
    size = len(words)

    def slot(rng: random.Random) -> str:
        return words[int(rng.random() * size)]

    return slot


def _words(*lists: tuple[str, ...]) -> Slot:
    def slot(rng: random.Random) -> str:
        return " ".join([_pick(rng, words) for words in lists])

    return slot


_MONTHS = tuple(
    "January February March April May June July August September October November December".split()
)
_DAYS = tuple("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())

_SLOTS: dict[str, Slot] = {
    "name": _words(v.FIRST_NAMES, v.LAST_NAMES),
    "first": _word(v.FIRST_NAMES),
    "city": _city,
    "country": _word(v.COUNTRIES),
    "company": _company,
    "job": _word(v.JOBS),
    "bs": _words(v.BS_VERBS, v.BS_ADJECTIVES, v.BS_NOUNS),
    "phrase": _words(v.CATCH_ADJECTIVES, v.CATCH_DESCRIPTORS, v.CATCH_NOUNS),
    "noun": _word(v.NOUNS),
    "noun2": _word(v.NOUNS),
    "verb": _word(v.VERBS),
    "adj": _word(v.ADJECTIVES),
    "month": _word(_MONTHS),
    "day": _word(_DAYS),
    "num": lambda rng: str(2 + int(rng.random() * 39)),
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
    (
        "about what when where which would could should there their these those with from have"
        " this that your into please tell explain give write make just some more much very like"
    ).split()
)


@lru_cache(maxsize=64)
def compile_template(template: str) -> Compiled:
    """``template`` as a format pattern and its slots (``KeyError`` for an unknown slot)."""
    pieces = _SLOT_RE.split(template)  # literal, slot, literal, slot, …, literal
    literals = [p.replace("{", "{{").replace("}", "}}") for p in pieces[0::2]]
    slots = tuple(None if name == "topic" else _SLOTS[name] for name in pieces[1::2])
    return "{}".join(literals), slots


_COMPILED: tuple[Compiled, ...] = tuple(compile_template(t) for t in _TEMPLATES)


def topic_of(text: str) -> str:
    """A few content words of the user's message, to make the reply feel on-topic."""
    words = [w for w in _TOPIC_WORDS.findall(text) if w.lower() not in _STOPWORDS]
    return " ".join(words[:3]).lower() or "your question"


def _fill(rng: random.Random, template: Compiled, topic: str) -> str:
    pattern, slots = template
    text = pattern.format(*[topic if slot is None else slot(rng) for slot in slots])
    return text[:1].upper() + text[1:]


def _pick_template(rng: random.Random) -> Compiled:
    return _COMPILED[int(rng.random() * len(_COMPILED))]


def _distinct(rng: random.Random, count: int) -> list[Compiled]:
    """``count`` templates; none repeats until every one has been used."""
    chosen: list[Compiled] = []
    while len(chosen) < count:
        pool = list(_COMPILED)
        for _ in range(min(count - len(chosen), len(pool))):
            chosen.append(pool.pop(int(rng.random() * len(pool))))
    return chosen


class TextGenerator:
    """Seeded prose. Holds nothing but pure word lists: cheap to build, safe to share."""

    def sentence(self, rng: random.Random, *, topic: str, template: str | None = None) -> str:
        chosen = compile_template(template) if template is not None else _pick_template(rng)
        return _fill(rng, chosen, topic)

    def prose(self, rng: random.Random, *, topic_text: str, sentences: int) -> str:
        """``sentences`` sentences; no template repeats until every one has been used."""
        topic = topic_of(topic_text)
        return " ".join([_fill(rng, chosen, topic) for chosen in _distinct(rng, sentences)])
