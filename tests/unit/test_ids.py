from __future__ import annotations

from mockserver import ids


def test_derived_rngs_are_stable_and_distinct() -> None:
    assert ids.derive_rng(1, "a").random() == ids.derive_rng(1, "a").random()
    assert ids.derive_rng(1, "a").random() != ids.derive_rng(1, "b").random()


def test_parts_are_length_prefixed_so_concatenation_does_not_collide() -> None:
    assert ids.stable_digest("ab", "c") != ids.stable_digest("a", "bc")


def test_opaque_ids_look_like_openai_ids() -> None:
    value = ids.opaque_id("chatcmpl-", 0, "ns", 1)
    assert value.startswith("chatcmpl-")
    assert len(value) == len("chatcmpl-") + 29
    assert value[len("chatcmpl-") :].isalnum()


def test_hex_ids_have_the_requested_length() -> None:
    assert len(ids.hex_id("fp_", "gpt-4o", length=10)) == 13


def test_frozen_clock_never_moves() -> None:
    clock = ids.FrozenClock(42)
    assert clock.now() == clock.now() == 42
