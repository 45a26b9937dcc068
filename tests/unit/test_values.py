from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from mockserver.prompt.model import Message, Prompt
from mockserver.values import quick_init


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    name: str
    count: int = 2
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = dataclasses.field(default_factory=dict)
    flag: bool = dataclasses.field(default=False, kw_only=True)


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class Quick:
    name: str
    count: int = 2
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = dataclasses.field(default_factory=dict)
    flag: bool = dataclasses.field(default=False, kw_only=True)


def _as_plain(value: Quick) -> Plain:
    return Plain(**{f.name: getattr(value, f.name) for f in dataclasses.fields(value)})


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("a",), {}),
        (("a", 5), {"flag": True}),
        ((), {"name": "b", "tags": ("x",), "extra": {"k": 1}}),
        (("c", 1, ("y",), {"z": 2}), {}),
    ],
)
def test_a_quick_init_makes_what_the_dataclass_init_makes(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)  # type: ignore[arg-type]
    assert type(quick) is Quick
    assert _as_plain(quick) == plain
    assert repr(quick) == repr(plain).replace("Plain", "Quick", 1)
    assert quick == Quick(*args, **kwargs)  # type: ignore[arg-type]
    assert _as_plain(dataclasses.replace(quick, count=7)) == dataclasses.replace(plain, count=7)


def test_a_quick_init_keeps_its_signature_errors() -> None:
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick("a", 1, (), {}, True)  # type: ignore[misc]  # flag is keyword-only
    with pytest.raises(TypeError):
        Quick("a", colour="red")  # type: ignore[call-arg]


def test_a_quickly_made_value_stays_frozen_and_copies() -> None:
    value = Quick("a", extra={"k": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.name = "b"  # type: ignore[misc]
    assert Quick("a").extra is not Quick("a").extra  # a factory's value per instance
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value
    assert dataclasses.replace(value, count=9) == Quick("a", 9, extra={"k": 1})


def test_the_prompt_is_made_quickly_and_alike() -> None:
    message = Message(role="user", text="hi")
    prompt = Prompt(api="chat", model="m", messages=(message,))
    assert type(prompt) is Prompt
    assert prompt.messages == (message,)
    assert (prompt.metadata, prompt.headers, prompt.stream) == ({}, {}, False)


def test_quick_init_refuses_a_class_it_does_not_apply_to() -> None:
    @dataclasses.dataclass(slots=True)
    class Mutable:
        name: str

    with pytest.raises(TypeError, match="frozen, slotted"):
        quick_init(Mutable)
