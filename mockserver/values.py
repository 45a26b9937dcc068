"""A cheaper ``__init__`` for the frozen, slotted dataclasses a request makes by the dozen.

A frozen dataclass sets each field in ``__init__`` with ``object.__setattr__`` (its own
``__setattr__`` refuses): a call through a wrapper descriptor per field, two to three times the
cost of a plain attribute store. A turn makes some ninety such fields (its Prompt, messages,
content, reply, usage, turn, meta and result), which is about a tenth of a new request's time.

:func:`quick_init` keeps everything about the class — frozen, slotted, its equality, hash,
``repr``, ``dataclasses.replace``, pickling — and only replaces its ``__init__`` with one of the
same signature that stores the fields as plain attribute stores on a *twin*: a bare class with
the same slots (so the same memory layout), which the instance wears while its fields are set,
then takes off. The object never escapes half-built; from outside nothing differs.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T")

_set = object.__setattr__


def quick_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` the cheaper ``__init__`` (see the module);
    ``TypeError`` for a class it does not apply to."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init is for frozen, slotted dataclasses")
    if cls.__bases__ != (object,) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init needs no base class and no __post_init__")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # checked just above
    slots: tuple[str, ...] = tuple(cls.__dict__["__slots__"])
    if tuple(f.name for f in fields) != slots:
        raise TypeError(f"{cls.__name__}: quick_init needs one slot per field")
    twin = type(f"{cls.__name__}Twin", (), {"__slots__": slots})
    scope: dict[str, Any] = {"_set": _set, "_cls": cls, "_twin": twin}
    positional: list[str] = []
    keyword: list[str] = []
    body = ["    _set(self, '__class__', _twin)"]
    for field in fields:
        name = field.name
        if not field.init:
            raise TypeError(f"{cls.__name__}.{name}: quick_init needs every field in __init__")
        if field.default is not dataclasses.MISSING:
            scope[f"_default_{name}"] = field.default
            parameter = f"{name}=_default_{name}"
            body.append(f"    self.{name} = {name}")
        elif field.default_factory is not dataclasses.MISSING:
            scope[f"_factory_{name}"] = field.default_factory
            parameter = f"{name}=_MISSING"
            body.append(f"    self.{name} = _factory_{name}() if {name} is _MISSING else {name}")
        else:
            parameter = name
            body.append(f"    self.{name} = {name}")
        (keyword if field.kw_only else positional).append(parameter)
    scope["_MISSING"] = dataclasses.MISSING
    body.append("    self.__class__ = _cls")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    exec(f"def __init__({signature}):\n" + "\n".join(body), scope)  # our own text, no input
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]  # the same signature, set at import
    return cls
