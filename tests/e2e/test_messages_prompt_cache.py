"""Prompt caching through the official SDK: ``cache_control`` breakpoints write a prefix to the
namespace's cache on the first request and read it on the ones after, in the usage's cache
fields, whole and streamed; a prefix below the model's minimum is not cached, and a write is
forgotten once its ttl has passed on the namespace's clock."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx

MODEL = "claude-sonnet-4-6"
#: About 3,000 tokens: above every model's minimum.
LONG = "The quick brown fox jumps over the lazy dog. " * 300


def _system(ttl: str | None = None) -> list[Any]:
    control: dict[str, str] = {"type": "ephemeral"}
    if ttl is not None:
        control["ttl"] = ttl
    return [{"type": "text", "text": LONG, "cache_control": control}]


def _ask(claude: anthropic.Anthropic, question: str, **params: Any) -> anthropic.types.Usage:
    message = claude.messages.create(
        model=MODEL,
        max_tokens=20,
        messages=[{"role": "user", "content": question}],
        **params,
    )
    return message.usage


def test_the_first_request_writes_the_prefix_and_the_next_ones_read_it(
    claude: anthropic.Anthropic,
) -> None:
    first = _ask(claude, "first question", system=_system())
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens > 1024
    assert first.cache_creation is not None
    assert first.cache_creation.ephemeral_5m_input_tokens == first.cache_creation_input_tokens
    assert first.cache_creation.ephemeral_1h_input_tokens == 0
    assert 0 < first.input_tokens < 20  # the question, after the cached system prompt
    second = _ask(claude, "another question", system=_system())
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.service_tier == "standard"
    counted = claude.messages.count_tokens(
        model=MODEL, system=_system(), messages=[{"role": "user", "content": "another question"}]
    )
    assert counted.input_tokens == second.input_tokens + second.cache_read_input_tokens


def test_a_stream_reports_the_cache_in_its_start_and_its_final_usage(
    claude: anthropic.Anthropic,
) -> None:
    _ask(claude, "warm it", system=_system())
    with claude.messages.stream(
        model=MODEL,
        max_tokens=20,
        system=_system(),
        messages=[{"role": "user", "content": "streamed"}],
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    start = events[0]
    assert start.type == "message_start"
    assert start.message.usage.cache_read_input_tokens > 1024
    assert final.usage.cache_read_input_tokens == start.message.usage.cache_read_input_tokens


def test_a_conversation_reads_the_turn_before_it_and_writes_its_own(
    claude: anthropic.Anthropic,
) -> None:
    marked = {"type": "ephemeral", "ttl": "1h"}
    turn = [{"role": "user", "content": [{"type": "text", "text": LONG, "cache_control": marked}]}]
    first = claude.messages.create(model=MODEL, max_tokens=20, messages=turn).usage
    assert first.cache_creation is not None
    assert first.cache_creation.ephemeral_1h_input_tokens == first.cache_creation_input_tokens
    unmarked = [{"role": "user", "content": [{"type": "text", "text": LONG}]}]
    more = [{"type": "text", "text": LONG + " Go on.", "cache_control": {"type": "ephemeral"}}]
    reply = {"role": "assistant", "content": "Sure."}
    longer = [*unmarked, reply, {"role": "user", "content": more}]
    second = claude.messages.create(model=MODEL, max_tokens=20, messages=longer).usage
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens > 1024
    assert second.cache_creation is not None
    assert second.cache_creation.ephemeral_5m_input_tokens == second.cache_creation_input_tokens


def test_a_short_prefix_is_not_cached(claude: anthropic.Anthropic) -> None:
    short = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    for _ in range(2):
        usage = _ask(claude, "hello", system=short)
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)


def test_a_write_is_forgotten_after_its_ttl(
    claude: anthropic.Anthropic, control: httpx.Client
) -> None:
    written = _ask(claude, "first", system=_system()).cache_creation_input_tokens
    assert control.post("/clock", json={"advance": 299}).status_code == 200
    assert _ask(claude, "in time", system=_system()).cache_read_input_tokens == written
    assert control.post("/clock", json={"advance": 300}).status_code == 200  # (refreshed)
    late = _ask(claude, "too late", system=_system())
    assert late.cache_read_input_tokens == 0
    assert late.cache_creation_input_tokens == written


def test_each_namespace_has_its_own_cache(claude: anthropic.Anthropic, api_key: str) -> None:
    _ask(claude, "mine", system=_system())
    root = str(claude.base_url)
    with anthropic.Anthropic(base_url=root, api_key=api_key + "-other", max_retries=0) as other:
        theirs = _ask(other, "theirs", system=_system())
    assert theirs.cache_read_input_tokens == 0
    assert theirs.cache_creation_input_tokens > 0
