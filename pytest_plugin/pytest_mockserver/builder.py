"""Rules written in Python: ``mockserver.on(last_user_contains="hi").reply(text="Hello!")``.

Keywords map onto the scenario models (:class:`When`, :class:`Reply`), the same ones a YAML
file is read into, so a rule means the same thing whichever way it was written. A keyword the
models do not know is a ``TypeError`` that lists the valid ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, get_args

from pydantic import ValidationError

from mockserver.guess import did_you_mean
from mockserver.scenario.lookups import NumberMatch, TextMatch
from mockserver.scenario.model import ErrorSpec, Reply, Rule, When

__all__ = ["RuleBuilder", "reply_from_keywords", "when_from_keywords"]


def _fields_of(kind: type) -> tuple[str, ...]:
    return tuple(n for n, f in When.model_fields.items() if kind in get_args(f.annotation))


def _when_keywords() -> dict[str, tuple[str, str | None]]:
    """keyword → (When field, lookup): ``last_user_contains`` → ``("last_user", "contains")``."""
    table: dict[str, tuple[str, str | None]] = {name: (name, None) for name in When.model_fields}
    for field in _fields_of(TextMatch):
        table.update({f"{field}_{lookup}": (field, lookup) for lookup in TextMatch.model_fields})
    for field in _fields_of(NumberMatch):
        table.update({f"{field}_{lookup}": (field, lookup) for lookup in NumberMatch.model_fields})
    return table


WHEN_KEYWORDS = _when_keywords()
REPLY_KEYWORDS = tuple(f.alias or n for n, f in Reply.model_fields.items() if n != "fixture")
ERROR_KEYWORDS = tuple(ErrorSpec.model_fields)


def _unexpected(where: str, key: str, valid: Iterable[str]) -> TypeError:
    names = sorted(valid)
    hint = did_you_mean(key, names)
    return TypeError(
        f"{where} got an unexpected keyword argument '{key}'{hint}. "
        f"Valid keywords: {', '.join(names)}"
    )


def _invalid(where: str, exc: ValidationError) -> ValueError:
    """``where: a.b: message; …`` (a problem with the whole call has no field to name)."""
    from mockserver.scenario.problems import explain  # only when a call is wrong

    problems = "; ".join(
        (f"{'.'.join(str(p) for p in e['loc'])}: " if e["loc"] else "")
        + explain(e, from_yaml=False)
        for e in exc.errors()
    )
    return ValueError(f"{where}: {problems}")


def _call(name: str, keywords: Mapping[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in keywords.items())})"


def _tool_result(value: Any) -> Any:
    """A tool's name stands for ``{"name": name}``, alone or in a list."""
    if isinstance(value, str):
        return {"name": value}
    if isinstance(value, list):
        return [_tool_result(v) if isinstance(v, str) else v for v in value]
    return value


def when_from_keywords(keywords: Mapping[str, Any]) -> When:
    data: dict[str, Any] = {}
    for key, value in keywords.items():
        if key not in WHEN_KEYWORDS:
            raise _unexpected("on()", key, [*WHEN_KEYWORDS, "id"])
        field, lookup = WHEN_KEYWORDS[key]
        if lookup is not None:
            value = {lookup: value}
        elif field == "tools_offered" and isinstance(value, str):
            value = [value]
        elif field == "tool_result":
            value = _tool_result(value)
        if field in data:
            raise TypeError(f"on() got two conditions on '{field}'; give one (use any= to OR)")
        data[field] = value
    try:
        return When.model_validate(data)
    except ValidationError as exc:
        raise _invalid(_call("on", keywords), exc) from None


def reply_from_keywords(keywords: Mapping[str, Any], *, where: str = "reply()") -> Reply:
    data: dict[str, Any] = {}
    for key, value in keywords.items():
        if key not in REPLY_KEYWORDS:
            raise _unexpected(where, key, REPLY_KEYWORDS)
        if key == "error" and isinstance(value, str):
            value = {"preset": value}
        elif key == "generate" and value is True:
            value = {}
        data[key] = value
    try:
        return Reply.model_validate(data)
    except ValidationError as exc:
        raise _invalid(where, exc) from None


def _sequence_item(item: str | Mapping[str, Any] | Reply, index: int) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(text=item)
    return reply_from_keywords(item, where=f"replies() item {index}")


class RuleBuilder:
    """One rule under construction; it takes effect as soon as it has a reply.

    Each call changes the rule whole or not at all: one that raises leaves it as it was.
    """

    __slots__ = (
        "_after",
        "_on_change",
        "_raised",
        "_replies",
        "_sequence",
        "_times",
        "id",
        "label",
        "when",
    )

    def __init__(
        self, when: When, *, rule_id: str, label: str, on_change: Callable[[], None]
    ) -> None:
        self.when = when
        self.id = rule_id
        #: How the rule was written (``on(last_user_contains='hi')``), for reports.
        self.label = label
        self._on_change = on_change
        self._replies: list[Reply] | None = None
        #: Written with replies() (a sequence, even of one), not reply().
        self._sequence = False
        self._after = "repeat_last"
        self._times: int | None = None
        #: A call on this rule raised (and so told the test already).
        self._raised = False

    def __repr__(self) -> str:
        return f"<rule {self.id!r}: {self.label}>"

    def reply(self, text: str | None = None, /, **reply: Any) -> RuleBuilder:
        """Answer with this reply: a text (``reply("Hi")``, the same as ``reply(text="Hi")``),
        or its keywords (``text=``, ``tool_calls=``, ``json=``, ``refusal=``, …)."""
        if text is not None:
            if "text" in reply:
                raise TypeError("reply() takes the text once: positionally or as text=")
            reply = {"text": text, **reply}
        with self._change():
            self._replies, self._sequence = [reply_from_keywords(reply)], False
        return self

    def replies(
        self, *replies: str | Mapping[str, Any] | Reply, after: str = "repeat_last"
    ) -> RuleBuilder:
        """Answer successive matches with these, in order: a text, reply keywords, or a Reply.

        ``after`` says what happens once all were served: ``repeat_last``, ``cycle`` or
        ``exhausted`` (the rule stops matching).
        """
        with self._change():
            if not replies:
                raise TypeError("replies() needs at least one reply")
            self._replies = [_sequence_item(item, i) for i, item in enumerate(replies)]
            self._sequence, self._after = True, after
        return self

    def fail(self, preset: str | None = None, /, **error: Any) -> RuleBuilder:
        """Answer with an HTTP error: a preset (``rate_limited``, ``overloaded``, …) and/or
        fields (``status``, ``message``, ``code``, ``retry_after``, ``headers``, …)."""
        with self._change():
            for key in error:
                if key not in ERROR_KEYWORDS:
                    raise _unexpected("fail()", key, ERROR_KEYWORDS)
            spec = {"preset": preset, **error} if preset is not None else error
            self._replies = [reply_from_keywords({"error": spec}, where=_call("fail", spec))]
            self._sequence = False
        return self

    def times(self, n: int) -> RuleBuilder:
        """Match at most ``n`` times (then the next rule, or the fallback, answers)."""
        with self._change():
            self._times = n
        return self

    @property
    def complete(self) -> bool:
        return self._replies is not None

    @property
    def forgotten(self) -> bool:
        """Never given a reply, and no call on it raised: the test forgot ``.reply()``. (One
        that raised was reported by its exception; the verdict does not report it again.)"""
        return self._replies is None and not self._raised

    def rule(self) -> Rule:
        """The rule as the scenario models hold it (``ValueError`` if it has no reply yet)."""
        if self._replies is None:
            raise ValueError(f"{self.label} has no reply: call .reply(), .replies() or .fail()")
        sequence: dict[str, Any] = (
            {"replies": self._replies, "after": self._after}
            if self._sequence
            else {"reply": self._replies[0]}
        )
        try:
            return Rule.model_validate(
                {"id": self.id, "when": self.when, "times": self._times} | sequence
            )
        except ValidationError as exc:
            raise _invalid(self.label, exc) from None

    @contextmanager
    def _change(self) -> Iterator[None]:
        """Apply a change and check the rule; if either raises, put the rule back as it was
        (so the handle never installs a half-changed rule)."""
        before = (self._replies, self._sequence, self._after, self._times)
        try:
            yield
            self._check()
        except Exception:
            self._replies, self._sequence, self._after, self._times = before
            self._raised = True
            raise
        self._on_change()

    def _check(self) -> None:
        if self._times is not None and self._times < 1:
            raise ValueError(f"times({self._times}): a rule matches at least once")
        if self._replies is not None:
            self.rule()
