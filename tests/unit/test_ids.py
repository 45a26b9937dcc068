from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

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


@given(
    st.text(max_size=12),
    st.lists(st.one_of(st.text(max_size=20), st.integers(), st.none()), max_size=3),
    st.integers(min_value=0, max_value=2**40),
    st.integers(min_value=1, max_value=64),
)
def test_numbered_ids_are_the_plain_ids_of_the_same_parts(
    prefix: str, parts: list[ids.Part], number: int, length: int
) -> None:
    assert ids.numbered_opaque_id(prefix, *parts, number=number, length=length) == ids.opaque_id(
        prefix, *parts, number, length=length
    )
    assert ids.numbered_hex_id(prefix, *parts, number=number, length=length) == ids.hex_id(
        prefix, *parts, number, length=length
    )


@given(
    st.text(max_size=12),
    st.lists(st.one_of(st.text(max_size=20), st.integers(), st.none()), max_size=3),
    st.integers(min_value=0, max_value=2**40),
    st.integers(min_value=1, max_value=64),
)
def test_numberings_are_the_numbered_ids_of_the_same_parts(
    prefix: str, parts: list[ids.Part], number: int, length: int
) -> None:
    assert ids.hex_numbering(prefix, *parts, length=length)(number) == ids.numbered_hex_id(
        prefix, *parts, number=number, length=length
    )
    assert ids.opaque_numbering(prefix, *parts, length=length)(number) == ids.numbered_opaque_id(
        prefix, *parts, number=number, length=length
    )


@given(
    st.text(max_size=12),
    st.text(max_size=60),
    st.integers(min_value=0, max_value=2**40),
    st.integers(min_value=1, max_value=64),
)
def test_child_ids_are_the_plain_ids_of_the_parent_and_index(
    prefix: str, parent: str, index: int, length: int
) -> None:
    assert ids.child_hex_id(prefix, parent, index, length=length) == ids.hex_id(
        prefix, parent, index, length=length
    )


@given(st.one_of(st.text(max_size=60), st.tuples(st.text(max_size=9), st.integers())))
def test_an_obfuscator_of_one_text_pads_as_one_of_its_digest(parts: str | tuple[str, int]) -> None:
    made = ids.obfuscator(*parts) if isinstance(parts, tuple) else ids.obfuscator(parts)
    plain = ids.Obfuscator(
        ids.stable_digest("obfuscation", *(parts if isinstance(parts, tuple) else (parts,)))
    )
    assert [made(n, n % 7) for n in range(40)] == [plain(n, n % 7) for n in range(40)]


def test_padding_read_as_a_templates_fill_reads_it_is_what_calls_give() -> None:
    slots = [(n, size) for n, size in zip(range(0, 90, 3), range(30), strict=True)]
    end, expressions = ids.Obfuscator.written(slots)
    assert len(expressions) == len(slots)
    raw, text = ids.obfuscator("resp_x").read(end)
    read = [eval(expression, {"raw": raw, "text": text}) for expression in expressions]
    called = ids.obfuscator("resp_x")
    assert read == [called(number, size).encode() for number, size in slots]


def test_padding_is_a_pure_function_of_the_frame_number() -> None:
    forward = ids.obfuscator("chatcmpl-a")
    backward = ids.obfuscator("chatcmpl-a")
    pads = [forward(n, n % 9) for n in range(120)]
    assert [backward(n, n % 9) for n in reversed(range(120))][::-1] == pads
    assert {len(p) for p in pads} <= set(range(1, 16))
    assert all(p.isalnum() for p in pads)
    assert pads != [ids.obfuscator("chatcmpl-b")(n, n % 9) for n in range(120)]


def test_a_derived_rng_is_the_random_random_of_its_digest() -> None:
    for parts in [(1, "a"), (0,), ("chaos", "rule", b"\x00\xff", 2**70)]:
        plain = random.Random(int.from_bytes(ids.stable_digest(*parts), "big"))
        derived = ids.derive_rng(*parts)
        assert type(derived) is random.Random
        assert derived.getstate() == plain.getstate()
        assert derived.gauss(0, 1) == plain.gauss(0, 1)
        assert [derived.random() for _ in range(3)] == [plain.random() for _ in range(3)]


def test_instants_written_together_are_each_written_as_alone() -> None:
    start = 1_767_225_599_998_000_000  # two milliseconds before a new year
    instants = [start + step * 700_000 for step in range(8)] + [start, start + 2_000_000]
    written = ids.rfc3339_nanos(instants)
    assert written == [ids.rfc3339_nano(0, at).encode() for at in instants]
    assert written[0] == b"2025-12-31T23:59:59.998Z"
    assert written[-1] == b"2026-01-01T00:00:00Z"
