"""The project's value classes (frozen, slotted dataclasses, cheaper to define and to make)
and :data:`Json`, the one alias of a JSON object.

:func:`value_class` is ``@dataclass(frozen=True, slots=True)`` with two costs taken out:

- *Defining one.* The dataclass decorator writes six methods for a frozen class (``__init__``,
  ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) as source text and
  compiles each with ``exec``: 0.2 ms a method here, some 55 ms of ``mockserver serve``'s start
  for the classes its first answer imports, most of what it takes over a bare Starlette app.
  :func:`value_class` compiles only ``__init__`` (whose signature is the class's own); the
  other five are closures over the class's fields, with the same behaviour
  (``tests/unit/test_values.py`` compares them with the dataclass's own).
- *Making one.* A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__``
  (its own ``__setattr__`` refuses): a call through a wrapper descriptor per field, two to
  three times the cost of a plain attribute store, and a turn makes some ninety such fields
  (its Prompt, messages, content, reply, usage, turn, meta and result). Where the class has no
  base class, no ``__post_init__`` and every field in ``__init__``, the ``__init__`` it
  compiles stores the fields as plain attribute stores on a *twin*: a bare class with the same
  slots (so the same memory layout), which the instance wears while its fields are set, then
  takes off. The object never escapes half-built; from outside nothing differs. Otherwise each
  field is set as the dataclass sets it, then ``__post_init__`` runs.

Everything else is the dataclass's: ``dataclasses.fields``, ``replace``, ``is_dataclass``,
``__match_args__``, pickling and copying, and its ``__dataclass_params__`` say frozen.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # only type checkers read it: no import at start-up

    def dataclass_transform(**_: Any) -> Callable[[T], T]:
        return lambda function: function


__all__ = ["Json", "value_class"]

#: A JSON object as the layers pass it (a request body, an answer, a stored object).
Json = dict[str, Any]

T = TypeVar("T")

_set = object.__setattr__


class _Factory:
    """The default a parameter with a default factory shows, as the dataclass's does."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def value_class(cls: type[T]) -> type[T]:
    """``@dataclass(frozen=True, slots=True)``, compiling one method instead of six, with the
    twin's ``__init__`` where it applies (see the module)."""
    own = dict(cls.__dict__)  # before the dataclass adds to it
    made: Any = dataclasses.dataclass(
        cls, init=False, repr=False, eq=False, frozen=False, slots=True
    )
    fields = dataclasses.fields(made)
    names = tuple(f.name for f in fields)
    if "__repr__" not in own:
        shown = tuple(f.name for f in fields if f.repr)
        made.__repr__ = _repr(made, shown)
    if "__eq__" not in own:
        made.__eq__ = _eq(made, _key(tuple(f.name for f in fields if f.compare)))
        if "__hash__" not in own:  # frozen and eq: hashed by its compared (or hash=) fields
            hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
            made.__hash__ = _hash(_key(hashed))
    made.__setattr__, made.__delattr__ = _frozen(made, names)
    made.__getstate__, made.__setstate__ = _getstate, _setstate
    params = made.__dataclass_params__
    params.init = params.repr = params.eq = params.frozen = True
    simple = (
        made.__bases__ == (object,)
        and not hasattr(made, "__post_init__")
        and all(f.init for f in fields)
        and names == tuple(made.__dict__["__slots__"])
    )
    made.__init__ = _init(made, fields, twin=simple)
    if not own.get("__doc__"):  # the dataclass's own: the name and the signature
        made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
    return made  # type: ignore[no-any-return]


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of ``names``' values, as the dataclass's methods compare and hash it."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


def _repr(cls: type, shown: tuple[str, ...]) -> Callable[[Any], str]:
    @recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _eq(cls: type, key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _frozen(cls: Any, names: tuple[str, ...]) -> tuple[Callable[..., None], Callable[..., None]]:
    fields = frozenset(names)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in fields:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in fields:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for field, each in zip(dataclasses.fields(self), state, strict=True):
        _set(self, field.name, each)


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...], *, twin: bool) -> Any:
    """``cls``'s ``__init__``: with ``twin``, the fields stored on the twin (see the module);
    else each set with ``object.__setattr__`` (as the dataclass's own does), then
    ``__post_init__``."""
    scope: dict[str, Any] = {"_set": _set, "_cls": cls, "_FACTORY": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    if twin:
        scope["_twin"] = type(f"{cls.__name__}Twin", (), {"__slots__": cls.__dict__["__slots__"]})
        body.append("    _set(self, '__class__', _twin)")
    for field in fields:
        name = field.name
        default, factory = f"_default_{name}", f"_factory_{name}"
        if field.default is not dataclasses.MISSING:
            scope[default] = field.default
            parameter, stored = f"{name}={default}", name if field.init else default
        elif field.default_factory is not dataclasses.MISSING:
            scope[factory] = field.default_factory
            parameter, stored = f"{name}=_FACTORY", f"{factory}()"
            if field.init:
                stored = f"{stored} if {name} is _FACTORY else {name}"
        elif field.init:
            parameter, stored = name, name
        else:
            continue  # neither given nor defaulted: left unset, as the dataclass leaves it
        if field.init:
            (keyword if field.kw_only else positional).append(parameter)
        body.append(
            f"    self.{name} = {stored}" if twin else f"    _set(self, {name!r}, {stored})"
        )
    if twin:
        body.append("    self.__class__ = _cls")
    elif hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    exec(f"def __init__({signature}):\n" + ("\n".join(body) or "    pass"), scope)  # our text
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    return init
