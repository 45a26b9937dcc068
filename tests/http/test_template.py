"""Templates: an answer rendered with sentinels, cut at them, and filled again."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest

from mockserver.http.lane.template import (
    CREATED,
    ID,
    Derive,
    Pad,
    Template,
    item_sentinel,
    pad_sentinel,
    time_sentinel,
)


def render(answer_id: str, created: int, pad: str) -> bytes:
    return (
        f'{{"id":"{answer_id}","created":{created},"text":"é 900","obfuscation":"{pad}"}}'.encode()
    )


def test_a_template_fills_in_any_id_time_and_padding() -> None:
    cut = Template.cut(render(ID, CREATED, pad_sentinel(3, 12)))
    assert cut is not None
    assert len(cut.ids) == len(cut.created) == len(cut.pads) == 1
    assert cut.pads[0][1:] == (3, 12)
    filled = cut.fill("chatcmpl-abc", 1_800_000_000, lambda n, size: f"p{n}x{size}")
    assert filled == render("chatcmpl-abc", 1_800_000_000, "p3x12")
    assert cut.reproduces(filled, "chatcmpl-abc", 1_800_000_000, lambda n, size: f"p{n}x{size}")
    assert not cut.reproduces(filled, "chatcmpl-abd", 1_800_000_000, lambda n, s: f"p{n}x{s}")
    assert not cut.reproduces(filled, "chatcmpl-abc", 1_800_000_000, None)


def test_a_stray_sentinel_character_refuses_the_cut() -> None:
    assert Template.cut(render(ID, CREATED, "\ue000 not a slot")) is None
    assert Template.cut(b'{"text":"\xee\x80\x81"}') is None


def test_an_answer_without_slots_is_its_own_template() -> None:
    cut = Template.cut(b"data: [DONE]\n\n")
    assert cut == Template((b"data: [DONE]\n\n",), (), (), ())
    assert cut.fill("x", 1, None) == b"data: [DONE]\n\n"


def test_time_slots_are_filled_with_the_answers_time_plus_their_offset() -> None:
    from mockserver import ids

    started = 1_800_000_000.123456789
    lines = [(0, "a"), (16_666_667, "b"), (1_000_000_000, "c")]

    def render(stamp: object) -> bytes:
        write = cast("Callable[[float, int], str]", stamp)
        return b"".join(
            b'{"created_at":"%s","text":"%s"}\n' % (write(started, at).encode(), text.encode())
            for at, text in lines
        )

    cut = Template.cut(render(time_sentinel))
    assert cut is not None
    assert [offset for _, offset in cut.times] == [at for at, _ in lines]
    assert (cut.ids, cut.created, cut.pads, cut.items) == ((), (), (), ())
    now = round(started * 1_000_000_000)
    assert cut.fill("", now, None) == render(ids.rfc3339_nano)
    assert cut.fill_slot_by_slot("", now, None) == render(ids.rfc3339_nano)
    later = cut.fill("", now + 250_000_000, None)
    assert later != render(ids.rfc3339_nano)
    moved = ids.rfc3339_nano(0, now + 250_000_000 + 1_000_000_000)
    assert moved.startswith("2027-01-15T08:00:01.37345")
    assert b'"created_at":"%s","text":"c"' % moved.encode() in later


def test_recipes_in_use_outlive_those_filed_later() -> None:
    from mockserver.http.lane.recipes import Recipe, Replays

    replays = Replays(size=2)
    recipe = cast(Recipe, object())
    keys = [("/v1/chat/completions", str(n).encode(), (), b"") for n in range(3)]
    replays.file(keys[0], recipe)
    replays.file(keys[1], recipe)
    assert replays.get(keys[0]) is recipe  # used: now the most recent
    replays.file(keys[2], recipe)
    assert replays.get(keys[0]) is recipe
    assert replays.get(keys[1]) is None  # the least recently used left
    assert len(replays) == 2


def test_the_written_fill_gives_the_slot_by_slot_bytes_and_calls() -> None:
    item, later = item_sentinel("msg_", 0), item_sentinel("fc_", 2)
    rendered = (
        f'{{"id":"{ID}","created":{CREATED},"o":"{pad_sentinel(0, 7)}","item":"{item}",'
        f'"again":"{item}","o2":"{pad_sentinel(4, 31)}","x":"{later}","é":1}}'
    ).encode()
    cut = Template.cut(rendered)
    assert cut is not None
    assert len(cut.items) == 3
    assert len(cut.pads) == 2
    calls: list[list[object]] = [[], []]

    def recording(log: list[object]) -> tuple[Pad, Derive]:
        def pad(number: int, size: int) -> str:
            log.append(("pad", number, size))
            return f"p{number}.{size}"

        def derive(prefix: str, index: int) -> str:
            log.append(("derive", prefix, index))
            return f"{prefix}{index}z"

        return pad, derive

    written = cut.fill("resp_1", 1_800_000_000, *recording(calls[0]))
    looped = cut.fill_slot_by_slot("resp_1", 1_800_000_000, *recording(calls[1]))
    assert written == looped
    assert b'"item":"msg_0z","again":"msg_0z"' in written
    assert b'"x":"fc_2z"' in written
    assert calls[0] == calls[1]  # the same values asked for, in the same order, once each
    assert written == cut.fill("resp_1", 1_800_000_000, *recording([]))  # written once, reused


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/v1/chat/completions",
            b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}],"stream":true}',
        ),
        ("/v1/responses", b'{"model":"gpt-4o-mini","input":"Hi","stream":true}'),
        ("/v1/responses", b'{"model":"gpt-4o-mini","input":"Hi"}'),
    ],
    ids=["chat-stream", "responses-stream", "responses"],
)
def test_a_replayed_answer_is_filled_as_the_slot_by_slot_fill_fills_it(
    path: str, body: bytes
) -> None:
    from mockserver import ids
    from mockserver.http.app import create_app
    from mockserver.http.lane.recipes import Answered
    from mockserver.settings import Settings

    lane = create_app(Settings(seed=3)).state.lane
    key = (path, body, ((b"content-type", b"application/json"),), b"")
    for _ in range(3):  # the second files the recipe, the third is replayed from it
        answered = lane.answer(key)
        assert isinstance(answered, Answered)
    recipe = lane.replays.get(key)
    assert recipe is not None
    assert lane.replays.served == 1
    for answer_id in ("resp_0123abcd", "chatcmpl-XyZ"):
        derive = recipe.derive(answer_id) if recipe.derive else None
        pad = ids.obfuscator(answer_id)
        looped = recipe.template.fill_slot_by_slot(answer_id, 1_800_000_123, pad, derive)
        assert recipe.fill(answer_id, 1_800_000_123) == looped
        assert answer_id.encode() in looped
