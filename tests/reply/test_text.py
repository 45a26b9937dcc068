from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from mockserver.prompt import Message, OutputFormat, Prompt
from mockserver.reply import vocabulary
from mockserver.reply.generate import Generator, compose
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
    long = "please tell " * 300 + "knitting patterns, stitches and yarn weights"
    assert topic_of(long) == "knitting patterns stitches"


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


# Golden outputs: a seed's reply is part of the contract (tests and recordings pin replies by
# seed), and so is what the rng draws next. Any change to the generator that moves a draw
# shows up here.


@pytest.mark.parametrize(
    ("seed", "topic_text", "sentences", "text", "next_draw"),
    [
        (
            7,
            "How do sourdough starters work?",
            1,
            "In New Kimberlyport, people usually cover the control on Thursdays.",
            1585446675937841368,
        ),
        (
            2024,
            "",
            4,
            "One glass blower/designer I spoke with put it well: start small and answer often. "
            "Roughly 12 percent of the effort goes into the success. Frank Bryant at "
            "Herrera-Munoz took a similar approach last April. In short, Margaret was right: the "
            "actor matters most.",
            14284678560935995910,
        ),
        (
            99,
            "Erkläre die Größe",
            20,  # every template once, then two more
            "You could also generate frictionless experiences, which tends to pay off within 22 "
            "days. Most teams I have seen examine the argument before anything else. A good "
            "first step is to synergize global synergies. In Port Garyview, people usually reply "
            "the disaster on Sundays. I would check the effort carefully before you require "
            "anything. It helps to keep the diamond serious and the tea simple. The simple part "
            "is usually the uncle, not the negotiation. Roughly 27 percent of the effort goes "
            "into the method. If that does not work, try to come the contract first. Let me know "
            "if you want more detail on the cookie or the fact. One herbalist I spoke with put "
            "it well: start small and call often. Gregory Johnson at Owens and Sons took a "
            "similar approach last October. Parker and Sons published a useful guide on this in "
            "May. The short answer is that it depends on the maintenance and the woman. In "
            "short, Chad was right: the dirt matters most. That gives you customer-focused "
            "systemic matrix without much extra work. Here is a short overview of erkl. Teams "
            "in Reunion often maximize best-of-breed partnerships to get there faster. A good "
            "first step is to enable e-business initiatives. Torres Group published a useful "
            "guide on this in October.",
            4314805100532431172,
        ),
    ],
)
def test_prose_golden(
    seed: int, topic_text: str, sentences: int, text: str, next_draw: int
) -> None:
    rng = random.Random(seed)
    assert TextGenerator().prose(rng, topic_text=topic_text, sentences=sentences) == text
    assert rng.getrandbits(64) == next_draw


@pytest.mark.parametrize(
    ("template", "text", "next_draw"),
    [
        (
            None,
            "If that does not work, try to complete the village first.",
            15523137368101252074,
        ),
        (
            '{company}: "{topic}" isn\'t {{noun}} \\ {num} { x }',
            'Weaver-Hawkins: "topic" isn\'t {midnight} \\ 30 { x }',
            9777509567454608800,
        ),
        (
            "{topic} and {bs}, {day}!",
            "Topic and benchmark out-of-the-box users, Sunday!",
            12027861843233603113,
        ),
        (
            "ßo {city}\n{phrase}",
            "SSo Kristinfort\nuser-centric optimal synergy",
            15501686781378355951,
        ),
    ],
)
def test_sentence_golden(template: str | None, text: str, next_draw: int) -> None:
    rng = random.Random(5)
    assert TextGenerator().sentence(rng, topic="topic", template=template) == text
    assert rng.getrandbits(64) == next_draw


_ASK = Message(role="user", text="Tell me about order 5 and where it ships next week")


@pytest.mark.parametrize(
    ("seed", "prompt", "text", "completion_tokens", "finish", "first_logprob", "next_draw"),
    [
        (
            1,
            Prompt(api="chat", model="m", messages=(_ASK,)),
            "That gives you cross-group radical info-mediaries without much extra work. I would "
            "check the application carefully before you let anything. The short answer is that "
            "it depends on the steak and the apple.",
            42,
            "stop",
            -0.008456,
            14061585512234290806,
        ),
        (
            31337,
            Prompt(api="chat", model="m", messages=(_ASK,)),
            "In North Shannonmouth, people usually observe the farmer on Tuesdays. If that does "
            "not work, try to show the bread first. Most teams I have seen hit the article "
            "before anything else.",
            39,
            "stop",
            -1.066064,
            8528183339592444913,
        ),
        (
            8,
            Prompt(api="chat", model="m", messages=(_ASK,), stop=(" the",), max_output_tokens=3),
            "It helps to",
            3,
            "length",
            -0.119338,
            1652194154368092304,
        ),
        (
            9,
            Prompt(
                api="chat",
                model="m",
                messages=(_ASK,),
                output_format=OutputFormat(type="json_object"),
            ),
            '{"answer":"One fisheries officer I spoke with put it well: start small and move '
            'often."}',
            20,
            "stop",
            -1.405643,
            6241004153072892496,
        ),
        (
            10,
            Prompt(
                api="chat",
                model="m",
                messages=(_ASK,),
                reasoning_effort="low",
                reasoning_summary="auto",
            ),
            "Morgan Martinez at Simpson, Sullivan and Kelly took a similar approach last "
            "September. Let me know if you want more detail on the recommendation or the police.",
            122,  # 89 of them reasoning
            "stop",
            -0.086519,
            8428841617817525002,
        ),
    ],
)
def test_generated_reply_golden(
    seed: int,
    prompt: Prompt,
    text: str,
    completion_tokens: int,
    finish: str,
    first_logprob: float,
    next_draw: int,
) -> None:
    rng = random.Random(seed)
    reply = compose(prompt, Generator().content(prompt, rng=rng), rng=rng, prompt_tokens=17)
    assert reply.text == text
    assert reply.usage.completion_tokens == completion_tokens
    assert reply.finish_reason == finish
    assert reply.tokens[0].logprob == first_logprob
    assert rng.getrandbits(64) == next_draw
    if prompt.reasoning_summary:
        assert reply.reasoning is not None
        assert reply.reasoning.tokens == 89
        assert reply.reasoning.summary == (
            "That gives you organized cohesive protocol without much extra work. You could also "
            "revolutionize world-class initiatives, which tends to pay off within 22 days.",
        )
