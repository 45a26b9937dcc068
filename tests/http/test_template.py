"""Templates: an answer rendered with sentinels, cut at them, and filled again."""

from __future__ import annotations

from typing import cast

from mockserver.http.lane.template import CREATED, ID, Template, pad_sentinel


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


def test_recipes_in_use_outlive_those_filed_later() -> None:
    from mockserver.http.lane.recipes import Recipe, Replays

    replays = Replays(size=2)
    recipe = cast(Recipe, object())
    keys = [("/v1/chat/completions", str(n).encode(), ()) for n in range(3)]
    replays.file(keys[0], recipe)
    replays.file(keys[1], recipe)
    assert replays.get(keys[0]) is recipe  # used: now the most recent
    replays.file(keys[2], recipe)
    assert replays.get(keys[0]) is recipe
    assert replays.get(keys[1]) is None  # the least recently used left
    assert len(replays) == 2
