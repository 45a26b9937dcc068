from __future__ import annotations

import random

from mockserver.reply.text import TextGenerator, topic_of


def test_prose_is_deterministic_for_an_rng_state() -> None:
    gen = TextGenerator()
    first = gen.prose(random.Random(5), topic_text="bread", sentences=3)
    assert first == gen.prose(random.Random(5), topic_text="bread", sentences=3)
    assert first != gen.prose(random.Random(6), topic_text="bread", sentences=3)


def test_prose_has_the_requested_number_of_sentences() -> None:
    text = TextGenerator().prose(random.Random(1), topic_text="", sentences=4)
    assert sum(text.count(end) for end in ".!?") >= 4
    assert text[0].isupper()


def test_topic_keeps_content_words() -> None:
    assert topic_of("Please explain how sourdough starters work") == "sourdough starters work"
    assert topic_of("") == "your question"
