"""One YAML document → data and the line:column of every data path, within :mod:`bounds`.

The data is built in one pass over the parser's events, by libyaml where PyYAML has it
(``CSafeLoader``; else the pure-Python parser, with the same events and marks), with
``safe_load``'s meaning (tags resolved and scalars built by its constructors, aliases shared,
``<<`` merge keys). Building it here rather than composing nodes and then constructing them is
~4x faster, and it stops as soon as a bound is passed: a file over the value limit costs what
its first 100,000 values cost, whatever its size. It also refuses what PyYAML passes over
silently (a duplicate key), and what would cost the server dearly (an alias that contains
itself, an alias bomb, a number of thousands of digits), where it is.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from mockserver.errors import ScenarioError
from mockserver.scenario.bounds import INT_DIGITS, Bounds, Deadline, check_characters
from mockserver.scenario.problems import Marks, Path_, field_name

__all__ = ["LOADER", "read_document"]

#: The fastest safe loader this machine has.
LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _NULL, _MERGE = _TAG + "str", _TAG + "int", _TAG + "null", _TAG + "merge"
_COLLECTION_TAGS = {MappingStartEvent: (_TAG + "map",), SequenceStartEvent: (_TAG + "seq",)}
#: How many values pass between two looks at the clock.
_CLOCK_EVERY = 2048
_EMPTY = object()


class _Problem(Exception):
    """A problem at an event's mark (an empty message: the deadline passed there)."""

    def __init__(self, event: Any, message: str, path: Path_ = ()) -> None:
        super().__init__(message)
        self.line, self.column = _at(event)
        self.message = message
        self.field = field_name(path) or None


def _at(event: Any) -> tuple[int, int]:
    return event.start_mark.line + 1, event.start_mark.column + 1


class _Builder:
    def __init__(self, loader: yaml.SafeLoader, bounds: Bounds, deadline: Deadline) -> None:
        self.loader: Any = loader  # PyYAML's loaders are untyped
        self.next: Callable[[], Any] = self.loader.get_event
        self.bounds = bounds
        self.deadline = deadline
        self.marks: dict[Path_, tuple[int, int]] = {}
        #: Each anchor's value and how many values it counts for (its aliases expanded).
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.open: set[str] = set()  # anchors of the collections being built
        self.count = 0
        self.aliased = False

    def document(self) -> Any:
        self.next()  # the stream's start
        start = self.next()
        if isinstance(start, StreamEndEvent):
            return _EMPTY
        assert isinstance(start, DocumentStartEvent)
        root = self.next()
        empty = isinstance(root, ScalarEvent) and root.value == "" and root.implicit[0]
        value = self.value(root, (), 1)
        self.next()  # the document's end
        after = self.next()
        if not isinstance(after, StreamEndEvent):
            raise _Problem(after, "a second YAML document ('---'): a file holds one")
        return _EMPTY if empty and value is None else value

    def _counted(self, event: Any, path: Path_, depth: int, size: int = 1) -> None:
        self.count += size
        if self.count > self.bounds.nodes:
            limit = self.bounds.nodes
            if self.aliased:
                said = f"too many values once YAML aliases are expanded (more than {limit})"
            else:
                said = f"too many values in one file (more than {limit}): split it into several"
            raise _Problem(event, said, path)
        if depth > self.bounds.depth:
            raise _Problem(event, f"values nested more than {self.bounds.depth} deep", path)
        if self.count % _CLOCK_EVERY < size and self.deadline.passed():
            raise _Problem(event, "", path)

    def value(self, event: Any, path: Path_, depth: int) -> Any:
        if isinstance(event, AliasEvent):
            return self._alias(event, path, depth)
        self.marks.setdefault(path, _at(event))
        before = self.count
        self._counted(event, path, depth)
        if isinstance(event, ScalarEvent):
            value = self._scalar(event, path)
        else:
            self._check_tag(event, path)
            if event.anchor is not None:
                self.open.add(event.anchor)
            if isinstance(event, SequenceStartEvent):
                value = self._sequence(path, depth)
            elif isinstance(event, MappingStartEvent):
                value = self._mapping(path, depth)
            else:
                raise _Problem(event, f"unexpected {type(event).__name__}", path)
            self.open.discard(event.anchor)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, self.count - before)
        return value

    def _alias(self, event: Any, path: Path_, depth: int) -> Any:
        anchor = event.anchor
        if anchor in self.open:
            raise _Problem(event, "a YAML alias that contains itself", path)
        if anchor not in self.anchors:
            raise _Problem(event, f"the YAML alias *{anchor} names no anchor before it", path)
        value, size = self.anchors[anchor]
        self.aliased = True
        self.marks.setdefault(path, _at(event))
        self._counted(event, path, depth, size)
        return value

    def _check_tag(self, event: Any, path: Path_) -> None:
        if event.tag not in (None, "!", *_COLLECTION_TAGS[type(event)]):
            raise _Problem(event, f"the YAML tag {event.tag} is not one a scenario may use", path)

    def _scalar(self, event: Any, path: Path_) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR:
            return event.value
        if tag == _INT:
            digits = sum(c.isdigit() for c in event.value)
            if digits > INT_DIGITS:
                said = (
                    f"a number of {digits} digits: numbers in a scenario have at most {INT_DIGITS}"
                )
                raise _Problem(event, said, path)
        construct = self.loader.yaml_constructors.get(tag)
        if construct is None or tag == _MERGE:
            raise _Problem(event, f"the YAML tag {tag} is not one a scenario may use", path)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        return construct(self.loader, node)

    def _sequence(self, path: Path_, depth: int) -> list[Any]:
        items: list[Any] = []
        event = self.next()
        while not isinstance(event, SequenceEndEvent):
            items.append(self.value(event, (*path, len(items)), depth + 1))
            event = self.next()
        return items

    def _mapping(self, path: Path_, depth: int) -> dict[Any, Any]:
        mapping: dict[Any, Any] = {}
        merged: list[tuple[Any, Any]] = []
        event = self.next()
        while not isinstance(event, MappingEndEvent):
            if isinstance(event, ScalarEvent) and self._is_merge(event):
                value_event = self.next()
                merged.append((value_event, self.value(value_event, path, depth + 1)))
            else:
                key = self._key(event, path, depth)
                if key in mapping:
                    raise _Problem(event, f"duplicate key {key!r}", path)
                self.marks[(*path, key)] = _at(event)
                mapping[key] = self.value(self.next(), (*path, key), depth + 1)
            event = self.next()
        return self._merge(merged, mapping, path) if merged else mapping

    def _key(self, event: Any, path: Path_, depth: int) -> Any:
        """A mapping key (not counted as a value: the limit counts what the keys hold)."""
        if isinstance(event, ScalarEvent):
            key = self._scalar(event, path)
            if event.anchor is not None:
                self.anchors[event.anchor] = (key, 0)
        elif isinstance(event, AliasEvent):
            key = self._alias(event, path, depth + 1)
        else:
            key = None
        if not isinstance(key, Hashable) or isinstance(
            event, MappingStartEvent | SequenceStartEvent
        ):
            raise _Problem(event, "a key that is a list or a mapping: keys are text", path)
        return key

    def _is_merge(self, event: Any) -> bool:
        if event.tag not in (None, "!"):
            return bool(event.tag == _MERGE)
        return event.value == "<<" and bool(event.implicit[0])

    def _merge(
        self, merged: list[tuple[Any, Any]], mapping: dict[Any, Any], path: Path_
    ) -> dict[Any, Any]:
        """``<<`` as ``safe_load`` reads it: the merged mappings' keys, where the mapping has
        none of its own (of a list of them, the earlier one's)."""
        out: dict[Any, Any] = {}
        for event, value in merged:
            parts = value if isinstance(value, list) else [value]
            if not all(isinstance(part, dict) for part in parts):
                said = "'<<' merges a mapping, or a list of mappings, into this one"
                raise _Problem(event, said, path)
            for part in reversed(parts):
                out.update(part)
        out.update(mapping)
        return out


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _two_places(context: Any, problem: Any) -> bool:
    """Do the context and the problem have marks of their own (not one place said twice)?"""
    if context is None or problem is None:
        return False
    return bool((context.line, context.column) != (problem.line, problem.column))


def _is_tab(text: str, mark: Any) -> bool:
    lines = text.split("\n")
    line = lines[mark.line] if mark is not None and mark.line < len(lines) else ""
    return mark is not None and line[mark.column : mark.column + 1] == "\t"


def _yaml_error(exc: yaml.YAMLError, source: str, text: str) -> ScenarioError:
    """PyYAML's error as it says it: what it was reading when it stopped (the context) and
    where, what it found (the problem) and where; located where the problem is, or, when that
    is the end of the text, where what is left open began. A tab is named."""
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    problem, problem_mark = getattr(exc, "problem", None), getattr(exc, "problem_mark", None)
    if problem is None:  # not a marked error: only its text
        return ScenarioError(f"invalid YAML: {exc}", file=source)
    if _is_tab(text, problem_mark) and "cannot start any token" in problem:
        problem = (
            "found a tab character, which cannot start any token (YAML indents with spaces only)"
        )
    both = _two_places(context_mark, problem_mark)
    said = ", ".join(
        [
            *([f"{context} ({_where(context_mark)})" if both else context] if context else []),
            f"{problem} ({_where(problem_mark)})" if both else problem,
        ]
    )
    if context == "while scanning a quoted scalar" and "end of stream" in problem:
        said += ": a quote opened there is never closed"
    at_end = problem_mark is not None and problem_mark.line >= text.count("\n")
    mark = context_mark if both and at_end else problem_mark or context_mark
    return ScenarioError(
        f"invalid YAML: {said}",
        file=source,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
    )


def read_document(
    text: str,
    *,
    source: str,
    empty: str,
    bounds: Bounds | None = None,
    deadline: Deadline | None = None,
) -> tuple[Any, Marks]:
    """The data of ``text`` and its marks; ``empty`` is the problem of a text of nothing (or
    a bare ``---``)."""
    bounds = bounds or Bounds()
    deadline = deadline or Deadline(bounds.seconds)
    check_characters(text, source=source)
    loader = LOADER(text)
    builder = _Builder(loader, bounds, deadline)
    try:
        data = builder.document()
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source, text) from None
    except _Problem as problem:
        if not problem.message:
            raise deadline.error(source=source, line=problem.line, column=problem.column) from None
        raise ScenarioError(
            problem.message,
            file=source,
            line=problem.line,
            column=problem.column,
            field=problem.field,
        ) from None
    finally:
        loader.dispose()
    if data is _EMPTY:
        raise ScenarioError(empty, file=source, line=1, column=1)
    return data, Marks(builder.marks)
