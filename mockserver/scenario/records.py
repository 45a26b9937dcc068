"""Precompiled scenarios as read-only records: served without building (or importing) pydantic.

A :class:`Record` stands for one scenario model (``Scenario``, ``Rule``, ``Reply``, …) and has
its fields as plain attributes; nested models are records too. Reading fields is all that serving
a scenario without rules (the built-in default) does, so ``mockserver serve`` answers its first
request without importing pydantic, the larger part of its start-up. Anything else a record is
asked for — a model's method or property (``rule.sequence``, ``match.test(…)``) or pydantic's API
(``model_dump``, ``model_copy``, ``model_fields_set``) — comes from the equal model, built from
the record with ``model_construct`` the first time it is needed. A record equals, and hashes
like, its model.

Records are the server's own form, not a public one: a record is no instance of its model
(``isinstance``, pydantic's class-level API such as ``model_fields``, weak references and
validating one as a model do not apply). Whatever hands a scenario to user code passes it
through :func:`materialize` first (the pytest plugin does), as does building a new model out
of a record's parts (pydantic validates model fields from models or mappings).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["Record", "materialize"]


class Record:
    """A scenario model's fields, as attributes. The record's own names all start with an
    underscore (no field does), so none of them hides a field."""

    __slots__ = ("__dict__", "_kind", "_model", "_set")
    _kind: str
    _model: Any
    _set: frozenset[str]

    def __init__(self, kind: str, fields: dict[str, Any], fields_set: Iterable[str]) -> None:
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_set", frozenset(fields_set))
        object.__setattr__(self, "_model", None)
        self.__dict__.update(fields)

    def _model_(self) -> Any:
        """The pydantic model this record stands for (built once, on first need)."""
        built = self._model
        if built is None:
            from mockserver.scenario.compiled import model_class

            fields = {name: materialize(value) for name, value in self.__dict__.items()}
            built = model_class(self._kind).model_construct(set(self._set), **fields)
            object.__setattr__(self, "_model", built)
        return built

    def __getattr__(self, name: str) -> Any:
        # Only what is not a field: a method or property of the model, or pydantic's API.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._model_(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._kind} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self._kind} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        return bool(self._model_() == materialize(other))

    def __hash__(self) -> int:
        return hash(self._model_())

    def __repr__(self) -> str:
        return repr(self._model_())

    def __str__(self) -> str:
        return str(self._model_())

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self._model_())

    def __reduce__(self) -> tuple[Any, ...]:
        return (Record, (self._kind, dict(self.__dict__), self._set))


def materialize(value: Any) -> Any:
    """``value`` with every record in it (at any depth of lists and dicts) replaced by its
    model; anything else is returned as is."""
    if isinstance(value, Record):
        return value._model_()
    if isinstance(value, list):
        return [materialize(item) for item in value]
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    return value
