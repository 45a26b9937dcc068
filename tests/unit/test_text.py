from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from mockserver.reply import vocabulary
from mockserver.reply.text import _TEMPLATES, TextGenerator, _distinct, topic_of


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


def test_prose_depends_only_on_the_rng_not_on_the_generator_instance() -> None:
    first = TextGenerator().prose(random.Random(11), topic_text="bread", sentences=5)
    assert first == TextGenerator().prose(random.Random(11), topic_text="bread", sentences=5)


def test_prose_is_the_same_in_another_process() -> None:
    code = (
        "import random; from mockserver.reply.text import TextGenerator; "
        "print(TextGenerator().prose(random.Random(42), topic_text='bread', sentences=6))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}  # a different str hash must not matter
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    here = TextGenerator().prose(random.Random(42), topic_text="bread", sentences=6)
    assert out.stdout.strip() == here


def test_prose_does_not_import_faker() -> None:
    code = (
        "import random, sys; from mockserver.reply.generate import Generator; "
        "from mockserver.prompt import Message, Prompt; "
        "p = Prompt(api='chat', model='m', messages=(Message(role='user', text='hi'),)); "
        "Generator().reply(p, rng=random.Random(1)); print('faker' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("template", _TEMPLATES)
def test_every_template_fills_every_slot(template: str) -> None:
    for seed in range(20):
        text = TextGenerator().sentence(random.Random(seed), topic="bread", template=template)
        assert "{" not in text
        assert "  " not in text
        assert text[0].isupper()
        assert text.endswith(".")


def test_no_template_repeats_until_every_one_is_used() -> None:
    chosen = _distinct(random.Random(2), len(_TEMPLATES) + 3)
    assert len(set(chosen[: len(_TEMPLATES)])) == len(_TEMPLATES)
    assert len(chosen) == len(_TEMPLATES) + 3


@pytest.mark.parametrize("name", vocabulary.__all__)
def test_word_lists_hold_clean_distinct_entries(name: str) -> None:
    words = getattr(vocabulary, name)
    assert len(words) >= 6
    assert len(set(words)) == len(words)
    for word in words:
        assert word == word.strip()
        assert "  " not in word
        assert "{" not in word
