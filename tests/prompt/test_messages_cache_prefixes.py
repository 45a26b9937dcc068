"""The prefixes a prompt cache may end at, as an Anthropic request marks them: none without a
``cache_control``; one per tool, system block and message, in the cache's order; a digest that
does not depend on where the marks are."""

from __future__ import annotations

from typing import Any

from mockserver.prompt.messages import prompt_from_messages

MARK = {"type": "ephemeral"}


def _body(*, mark_first: bool, mark_last: bool, ttl: str | None = None) -> dict[str, Any]:
    control = {**MARK, **({"ttl": ttl} if ttl else {})}
    first: dict[str, Any] = {"type": "text", "text": "first"}
    last: dict[str, Any] = {"type": "text", "text": "last"}
    if mark_first:
        first["cache_control"] = control
    if mark_last:
        last["cache_control"] = control
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 10,
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "user", "content": [first]},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": [last]},
        ],
    }


def test_a_request_without_marks_has_no_prefixes() -> None:
    prompt = prompt_from_messages(_body(mark_first=False, mark_last=False), headers={})
    assert prompt.cache_prefixes == ()


def test_every_boundary_is_a_prefix_and_the_marked_ones_carry_their_ttl() -> None:
    prompt = prompt_from_messages(_body(mark_first=False, mark_last=True, ttl="1h"), headers={})
    prefixes = prompt.cache_prefixes
    assert [(p.tools, p.instructions, p.messages, p.ttl) for p in prefixes] == [
        (1, None, 0, None),
        (1, "Be brief.", 0, None),
        (1, "Be brief.", 1, None),
        (1, "Be brief.", 2, None),
        (1, "Be brief.", 3, "1h"),
    ]
    assert len({p.digest for p in prefixes}) == len(prefixes)
    whole = prompt.prefix(prefixes[-1])
    assert whole.messages == prompt.messages


def test_a_prefix_has_the_same_digest_wherever_the_marks_are() -> None:
    early = prompt_from_messages(_body(mark_first=True, mark_last=False), headers={})
    late = prompt_from_messages(_body(mark_first=False, mark_last=True), headers={})
    assert [p.digest for p in early.cache_prefixes] == [p.digest for p in late.cache_prefixes]
    assert early.cache_prefixes[2].ttl == "5m"
    assert late.cache_prefixes[2].ttl is None


def test_cache_marks_leave_the_fingerprint_and_so_the_answer_as_they_were() -> None:
    unmarked = prompt_from_messages(_body(mark_first=False, mark_last=False), headers={})
    marked = prompt_from_messages(_body(mark_first=True, mark_last=True, ttl="1h"), headers={})
    other = _body(mark_first=True, mark_last=False)
    other["tools"][0]["cache_control"] = MARK
    other["system"][0]["cache_control"] = MARK
    elsewhere = prompt_from_messages(other, headers={})
    assert marked.cache_prefixes
    assert elsewhere.cache_prefixes
    assert marked.fingerprint == unmarked.fingerprint == elsewhere.fingerprint
    changed = _body(mark_first=True, mark_last=True)
    changed["messages"][0]["content"][0]["text"] = "first, reworded"
    assert prompt_from_messages(changed, headers={}).fingerprint != marked.fingerprint
