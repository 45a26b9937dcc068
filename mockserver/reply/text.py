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
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from mockserver.reply import vocabulary as v

__all__ = ["TextGenerator", "compile_template", "topic_of"]

#: The rng's bound ``random`` method: every draw is one call of it.
Random = Callable[[], float]
#: A compiled template: ``fill(random, topic)`` is a sentence.
Fill = Callable[[Random, str], str]
#: One draw of a slot: a word of a list (one ``random()``), or a function that makes several
#: draws (a city or a company comes in a few shapes).
Draw = tuple[str, ...] | Callable[[Random], str]


def _pick(random: Random, words: Sequence[str]) -> str:
    """One of ``words``, uniformly (one ``random()``: cheaper than ``rng.choice``)."""
    return words[int(random() * len(words))]


def _city(random: Random) -> str:
    """faker's four shapes of a city: North Kimton, North Kim, Kimton, Smithton."""
    form = int(random() * 4)
    if form < 2:
        prefix, first = _pick(random, v.CITY_PREFIXES), _pick(random, v.FIRST_NAMES)
        return f"{prefix} {first}{_pick(random, v.CITY_SUFFIXES) if form == 0 else ''}"
    name = _pick(random, v.FIRST_NAMES if form == 2 else v.LAST_NAMES)
    return name + _pick(random, v.CITY_SUFFIXES)


def _company(random: Random) -> str:
    """faker's three shapes of a company: Smith Ltd, Smith-Jones, Smith, Jones and Lee."""
    form = int(random() * 3)
    last = _pick(random, v.LAST_NAMES)
    if form == 0:
        return f"{last} {_pick(random, v.COMPANY_SUFFIXES)}"
    if form == 1:
        return f"{last}-{_pick(random, v.LAST_NAMES)}"
    return f"{last}, {_pick(random, v.LAST_NAMES)} and {_pick(random, v.LAST_NAMES)}"


def _number(random: Random) -> str:
    return str(2 + int(random() * 39))


_MONTHS = tuple(
    "January February March April May June July August September October November December".split()
)
_DAYS = tuple("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())

#: The draws that fill each slot, in order; a slot of several draws puts spaces between.
_SLOTS: dict[str, tuple[Draw, ...]] = {
    "name": (v.FIRST_NAMES, v.LAST_NAMES),
    "first": (v.FIRST_NAMES,),
    "city": (_city,),
    "country": (v.COUNTRIES,),
    "company": (_company,),
    "job": (v.JOBS,),
    "bs": (v.BS_VERBS, v.BS_ADJECTIVES, v.BS_NOUNS),
    "phrase": (v.CATCH_ADJECTIVES, v.CATCH_DESCRIPTORS, v.CATCH_NOUNS),
    "noun": (v.NOUNS,),
    "noun2": (v.NOUNS,),
    "verb": (v.VERBS,),
    "adj": (v.ADJECTIVES,),
    "month": (_MONTHS,),
    "day": (_DAYS,),
    "num": (_number,),
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


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=64)
def compile_template(template: str) -> Fill:
    """``template`` as a function of the rng's ``random`` and the topic (``KeyError`` for an
    unknown slot).

    The template becomes a ``str.format`` pattern with one ``{}`` per draw (a slot of several
    words has several), and the list of draws that fill them, in order: a word list is drawn
    in place (one ``random()``, no call of ours), a shape (a city, a company) by its function.
    The draws are the ones filling the slots one by one would make, in the same order."""
    pieces = _SLOT_RE.split(template)  # literal, slot, literal, slot, …, literal
    # A sentence starts with a capital: the template's own, or (starting with a slot) the
    # first drawn letter made one when the sentence is filled.
    pieces[0] = _capitalize(pieces[0])
    fields: list[str] = []
    draws: list[Draw | None] = []  # None: the topic
    for at, piece in enumerate(pieces):
        if at % 2 == 0:  # literal text
            fields.append(piece.replace("{", "{{").replace("}", "}}"))
        elif piece == "topic":
            fields.append("{}")
            draws.append(None)
        else:
            sources = _SLOTS[piece]
            fields.append(" ".join(["{}"] * len(sources)))
            draws.extend(sources)
    # The fill is written out as one expression (``pattern(w0[int(random() * 18)], topic)``):
    # no loop, no test per draw, no list; the arguments are drawn left to right, as before.
    scope: dict[str, Any] = {"pattern": "".join(fields).format, "capitalize": _capitalize}
    arguments = []
    for at, draw in enumerate(draws):
        if draw is None:
            arguments.append("topic")
        elif isinstance(draw, tuple):
            scope[f"words{at}"] = draw
            arguments.append(f"words{at}[int(random() * {len(draw)})]")
        else:
            scope[f"shape{at}"] = draw
            arguments.append(f"shape{at}(random)")
    body = f"pattern({', '.join(arguments)})"
    if not pieces[0]:
        body = f"capitalize({body})"
    exec(f"def fill(random, topic):\n    return {body}\n", scope)  # our own text, no input
    fill: Fill = scope["fill"]
    return fill


_COMPILED: tuple[Fill, ...] = tuple(compile_template(t) for t in _TEMPLATES)


#: Messages up to this long have their topic cached (a longer one is not kept alive for it).
_CACHED_TOPIC_TEXT = 2_000
#: Up to this long, one ``findall`` over the whole message is cheaper than ``finditer``'s
#: match objects; past it, stopping at the third content word is.
_SCANNED_TOPIC_TEXT = 256


def _topic_of(text: str) -> str:
    found: Iterable[str] = (
        _TOPIC_WORDS.findall(text)
        if len(text) <= _SCANNED_TOPIC_TEXT
        else (match[0] for match in _TOPIC_WORDS.finditer(text))
    )
    words: list[str] = []
    for word in found:
        if word.lower() not in _STOPWORDS:
            words.append(word)
            if len(words) == 3:
                break
    return " ".join(words).lower() or "your question"


_cached_topic_of = lru_cache(maxsize=256)(_topic_of)


def topic_of(text: str) -> str:
    """A few content words of the user's message, to make the reply feel on-topic."""
    return _cached_topic_of(text) if len(text) <= _CACHED_TOPIC_TEXT else _topic_of(text)


def _pick_template(rng: random.Random) -> Fill:
    return _COMPILED[int(rng.random() * len(_COMPILED))]


def _distinct(rng: random.Random, count: int) -> list[Fill]:
    """``count`` templates; none repeats until every one has been used."""
    random = rng.random
    chosen: list[Fill] = []
    pool: list[Fill] = []
    for _ in range(count):
        if not pool:  # every template used (or none yet): start over
            pool = list(_COMPILED)
        chosen.append(pool.pop(int(random() * len(pool))))
    return chosen


class TextGenerator:
    """Seeded prose. Holds nothing but pure word lists: cheap to build, safe to share."""

    def sentence(self, rng: random.Random, *, topic: str, template: str | None = None) -> str:
        fill = compile_template(template) if template is not None else _pick_template(rng)
        return fill(rng.random, topic)

    def prose(self, rng: random.Random, *, topic_text: str, sentences: int) -> str:
        """``sentences`` sentences; no template repeats until every one has been used.
        Every template is drawn before the first sentence is filled."""
        topic = topic_of(topic_text)
        random = rng.random
        filled: list[str] = []  # a loop: a list comprehension would be one more call
        for fill in _distinct(rng, sentences):
            filled.append(fill(random, topic))
        return " ".join(filled)
