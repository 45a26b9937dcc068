"""What ``compose`` says about how a reply ended: the stop sequence hit, the token budget, the
thinking budget, and a refusal's reasons — for every family to word in its own shape."""

from __future__ import annotations

import random

from mockserver.prompt import Message, Prompt
from mockserver.reply.generate import Content, compose
from mockserver.reply.model import Reasoning, RefusalDetails


def _prompt(**fields: object) -> Prompt:
    return Prompt(
        api="messages",
        model="claude-sonnet-4-6",
        messages=(Message(role="user", text="hi"),),
        **fields,  # type: ignore[arg-type]
    )


def test_the_stop_sequence_that_ended_the_text_is_named() -> None:
    reply = compose(
        _prompt(stop=("END", "two")),
        Content(text="one two three END"),
        rng=random.Random(1),
    )
    assert reply.text == "one "
    assert reply.finish_reason == "stop"
    assert reply.stop_sequence == "two"


def test_no_stop_sequence_is_named_when_none_is_hit() -> None:
    reply = compose(_prompt(stop=("END",)), Content(text="one two"), rng=random.Random(1))
    assert (reply.text, reply.finish_reason, reply.stop_sequence) == ("one two", "stop", None)


def test_a_budget_that_runs_out_first_is_a_length_stop_not_a_stop_sequence() -> None:
    reply = compose(
        _prompt(stop=("END",), max_output_tokens=2),
        Content(text="one two three four END"),
        rng=random.Random(1),
    )
    assert reply.finish_reason == "length"
    assert reply.stop_sequence is None
    assert reply.text == "one two"


def test_thinking_is_held_to_the_requests_thinking_budget() -> None:
    reply = compose(
        _prompt(reasoning_budget=1024, max_output_tokens=4000),
        Content(text="ok", reasoning=Reasoning(text="hmm", tokens=3000)),
        rng=random.Random(1),
    )
    assert reply.reasoning is not None
    assert reply.reasoning.tokens == 1024
    assert reply.usage.reasoning_tokens == 1024


def test_a_refusal_keeps_its_reasons_and_text_does_not_get_them() -> None:
    details = RefusalDetails(category="cyber", explanation="Malware.")
    refused = compose(
        _prompt(), Content(refusal="I can't.", refusal_details=details), rng=random.Random(1)
    )
    assert refused.refusal == "I can't."
    assert refused.refusal_details == details
    answered = compose(_prompt(), Content(text="Sure."), rng=random.Random(1))
    assert answered.refusal_details is None


def test_redacted_reasoning_stays_redacted() -> None:
    reply = compose(
        _prompt(),
        Content(text="ok", reasoning=Reasoning(tokens=9, redacted=True)),
        rng=random.Random(1),
    )
    assert reply.reasoning is not None
    assert reply.reasoning.redacted
